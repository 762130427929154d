module example.com/wafer.fix/a

go 1.24
