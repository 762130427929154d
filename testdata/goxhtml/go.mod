module example.com/wafer.fix/goxhtml

go 1.26.8

require github.com/wafer-fuzz/wafer v0.0.0

require golang.org/x/net v0.62.0

replace github.com/wafer-fuzz/wafer => ../..
