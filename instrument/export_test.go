package instrument

// AllCounted returns opts with every site counted, none derived: the
// reference the derived sums are checked against.
func AllCounted(opts Options) Options {
	opts.allCounted = true
	return opts
}
