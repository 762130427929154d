// Command gopng is a wafer example: a Go reactor target over the standard
// library's image/png decoder, written with wafer's harness package.
//
// Build (build.sh):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o gopng.wasm .
//
// Images the decoder rejects are "invalid". Accepted images are re-encoded
// and decoded again; a different size or colour model is a crash. Image
// dimensions are capped first (DecodeConfig) so a tiny header cannot make
// the target allocate gigabytes. Feed it with the "png" generator, which
// writes well-formed chunks with correct CRCs.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"

	"github.com/wafer-fuzz/wafer/harness"
)

func init() {
	harness.Fuzz(fuzz)
}

func fuzz(data []byte) error {
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if cfg.Width*cfg.Height > 1<<20 {
		return errors.New("image too large for this target")
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(fmt.Sprintf("encoding a decoded image failed: %v", err))
	}
	img2, err := png.Decode(&buf)
	if err != nil {
		panic(fmt.Sprintf("decoding a re-encoded image failed: %v", err))
	}
	if img.Bounds() != img2.Bounds() {
		panic(fmt.Sprintf("round trip changed the bounds: %v != %v", img.Bounds(), img2.Bounds()))
	}
	return nil
}

func main() {}
