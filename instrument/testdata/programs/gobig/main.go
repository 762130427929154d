// Command gobig is a multi-megabyte GOOS=wasip1 program for wafer's
// instrumentation benchmarks: it links encoding/json, encoding/xml,
// text/template, regexp, compress/gzip and math/big and runs a little of
// each on stdin. Rebuild: ../build.sh
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math/big"
	"os"
	"regexp"
	"text/template"
)

type doc struct {
	XMLName xml.Name `xml:"doc"`
	Words   []string `xml:"w"`
}

func main() {
	in, _ := io.ReadAll(os.Stdin)
	re := regexp.MustCompile(`[a-z]+`)
	words := re.FindAllString(string(in), -1)
	j, _ := json.Marshal(words)
	x, _ := xml.Marshal(doc{Words: words})
	var z bytes.Buffer
	gw := gzip.NewWriter(&z)
	gw.Write(in)
	gw.Close()
	f := new(big.Int).MulRange(1, int64(len(words)+1))
	t := template.Must(template.New("t").Parse("{{len .W}} words, json {{.J}} bytes, xml {{.X}} bytes, gzip {{.Z}} bytes, fact {{.F}}\n"))
	t.Execute(os.Stdout, map[string]any{"W": words, "J": len(j), "X": len(x), "Z": z.Len(), "F": f.String()})
	fmt.Fprintln(os.Stderr, "done")
}
