module example.com/wafer.eval/golines

go 1.26.8

require example.com/wafer.fix/goxhtml v0.0.0

require golang.org/x/net v0.62.0 // indirect

replace example.com/wafer.fix/goxhtml => ../../../testdata/goxhtml

replace github.com/wafer-fuzz/wafer => ../../..
