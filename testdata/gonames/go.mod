module example.com/wafer.fix/go-names

go 1.26.8

require github.com/wafer-fuzz/wafer v0.0.0

replace github.com/wafer-fuzz/wafer => ../..
