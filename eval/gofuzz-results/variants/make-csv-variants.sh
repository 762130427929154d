#!/bin/sh
# Writes, into this directory, three copies of the standard library's
# encoding/csv FuzzRoundtrip (from $(go env GOROOT), not kept in this
# repository) as package noskip's tests: FuzzCSVLog (as it is),
# FuzzCSVSprintf (each t.Logf replaced by fmt.Sprintf: the formatting
# without testing's logging) and FuzzCSVNoLog (each t.Logf removed). Then
#   go run ./eval/gofuzzcost -rounds 5 log=$PWD:FuzzCSVLog@INPUTS nolog=$PWD:FuzzCSVNoLog@INPUTS
# from the repository root (see docs/EVALUATION.md). Remove the copies after.
set -eu
cd "$(dirname "$0")"
src=$(go env GOROOT)/src/encoding/csv/fuzz_test.go
qualify='s/^package csv/package noskip/; s/\[\]Reader{/[]csv.Reader{/; s/= NewReader(/= csv.NewReader(/; s/:= NewWriter(/:= csv.NewWriter(/'
sed -e "$qualify" -e 's/func FuzzRoundtrip/func FuzzCSVLog/' "$src" >csvlog_test.go
sed -e "$qualify" -e 's/func FuzzRoundtrip/func FuzzCSVNoLog/' -e 's/^\(\s*\)t\.Logf(.*$/\1_ = 0/' "$src" >csvnolog_test.go
sed -e "$qualify" -e 's/func FuzzRoundtrip/func FuzzCSVSprintf/' -e 's/^\(\s*\)t\.Logf(/\1_ = fmt.Sprintf(/' "$src" >csvsprintf_test.go
sed -i 's/^import (/import (\n\t"encoding\/csv"/' csvlog_test.go csvnolog_test.go csvsprintf_test.go
grep -q '"fmt"' csvsprintf_test.go || sed -i 's/^import (/import (\n\t"fmt"/' csvsprintf_test.go
go vet .
