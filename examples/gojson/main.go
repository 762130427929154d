// Command gojson is a wafer example: a Go reactor target over the standard
// library's encoding/json, written with wafer's harness package.
//
// Build (build.sh):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o gojson.wasm .
//
// The property checked is a round trip: any document json.Unmarshal accepts
// must marshal and unmarshal again to an equal value. Input json.Unmarshal
// rejects is "invalid"; a violated property panics, which wafer reports as
// a crash. Feed it with the "json" generator for structured inputs.
package main

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/wafer-fuzz/wafer/harness"
)

func init() {
	harness.Fuzz(fuzz)
}

func fuzz(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	out, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("marshal of an unmarshalled value failed: %v", err))
	}
	var w any
	if err := json.Unmarshal(out, &w); err != nil {
		panic(fmt.Sprintf("re-unmarshal of %q failed: %v", out, err))
	}
	if !reflect.DeepEqual(v, w) {
		panic(fmt.Sprintf("round trip changed the value: %#v != %#v", v, w))
	}
	return nil
}

func main() {}
