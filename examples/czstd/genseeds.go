//go:build ignore

// Command genseeds writes the seed corpus, zstd frames of a few kinds of
// content at two levels, made with github.com/klauspost/compress/zstd:
//
//	go run examples/czstd/genseeds.go examples/czstd/seeds
package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
)

func main() {
	dir := os.Args[1]
	r := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 300)
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	inputs := map[string][]byte{
		"text":  bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog. "), 20),
		"json":  []byte(`{"name":"wafer","tags":["fuzz","wasm"],"n":[1,2,3,4,5,6,7,8,9,10],"nested":{"a":{"b":{"c":null}}}}`),
		"noise": noise,
		"empty": {},
		"mixed": append(bytes.Repeat([]byte{0}, 200), append(noise[:64], bytes.Repeat([]byte("abcabcabd"), 30)...)...),
	}
	for name, in := range inputs {
		for _, lvl := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedBestCompression} {
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithEncoderCRC(lvl == zstd.SpeedBestCompression))
			if err != nil {
				panic(err)
			}
			out := enc.EncodeAll(in, nil)
			if err := os.WriteFile(filepath.Join(dir, name+"-"+lvl.String()), out, 0o644); err != nil {
				panic(err)
			}
		}
	}
}
