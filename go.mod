module github.com/wafer-fuzz/wafer

go 1.26.8

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724
	github.com/klauspost/compress v1.20.3
	github.com/spf13/pflag v1.1.0
	github.com/tetratelabs/wazero v1.12.0
)

require golang.org/x/sys v0.44.0 // indirect
