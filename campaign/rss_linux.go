package campaign

import (
	"bytes"
	"os"
	"strconv"
)

// residentKiB is the process's resident memory in KiB (VmRSS of
// /proc/self/status), for plot_data's rss_kib; 0 when it cannot be read.
func residentKiB() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("\nVmRSS:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	n, err := strconv.ParseUint(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
