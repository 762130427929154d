package ext_test

// isDouble is a helper in another file of the external test package.
func isDouble(got, n int) bool { return got == 2*n }
