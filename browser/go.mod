module github.com/platc/platc/browser

go 1.26.0
