module example.com/wafer.fix/b

go 1.24
