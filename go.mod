module blueprint

go 1.26
