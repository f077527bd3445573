module github.com/platc/platc/tools

go 1.26.0
