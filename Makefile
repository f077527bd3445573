# platc: two commands for a newcomer, `make render` and `make test`.
# Everything runs with nothing but Go installed.

GO ?= go
PLATC = $(GO) run ./cmd/platc

.PHONY: render check vet test bench golden help

## render: check the sample platform in sources/ and write out/
render:
	$(PLATC) render

## check: fail if out/ is not what sources/ renders (the drift check)
check:
	$(PLATC) check

## vet: run every check on sources/, write nothing
vet:
	$(PLATC) vet

## test: formatting, go vet, every test, and the drift check of out/
test:
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt -l lists:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test ./...
	$(PLATC) check

## golden: rewrite the expected output of the golden cases in golden/
golden:
	$(GO) test ./compiler -run TestGolden -update

## bench: Go benchmarks of the compiler, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

help:
	@grep -E '^## ' Makefile | sed 's/^## /  make /'
