module example.com/wafer.fix/dep

go 1.24
