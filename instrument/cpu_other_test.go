//go:build !linux

package instrument

// threadCPU is only measured on Linux; elsewhere CPU metrics read 0.
func threadCPU() int64 { return 0 }
