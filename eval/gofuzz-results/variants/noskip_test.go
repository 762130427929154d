package noskip

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzJSONReturn is examples/gotest's FuzzJSON with return instead of
// t.Skip for a document json.Unmarshal rejects.
func FuzzJSONReturn(f *testing.F) {
	f.Add([]byte(`{"a":[1,2.5,"x",null,true],"b":{"c":"\u00e9"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal of an unmarshalled value failed: %v", err)
		}
		var w any
		if err := json.Unmarshal(out, &w); err != nil {
			t.Fatalf("re-unmarshal of %q failed: %v", out, err)
		}
		if !reflect.DeepEqual(v, w) {
			t.Fatalf("round trip changed the value: %#v != %#v", v, w)
		}
	})
}
