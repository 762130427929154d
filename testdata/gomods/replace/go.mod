module example.com/wafer.fix/replace

go 1.24

require example.com/wafer.fix/dep v0.0.0

replace example.com/wafer.fix/dep => ../dep
