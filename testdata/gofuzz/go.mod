module example.com/wafer.fix/gofuzz

go 1.24
