module noskip

go 1.24
