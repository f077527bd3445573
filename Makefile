# platc: two commands for a newcomer, `make render` and `make test`.
# Everything runs with nothing but Go installed.

GO ?= go
PLATC = bin/platc

# kustomize's plugin loader imports Go's plugin package, which makes the
# linker export every symbol and keep every method of a reachable type; platc
# loads no kustomize plugin (compiler/manifests disables them), and with this
# tag kustomize leaves the loader out: a 88 MB binary instead of 111, 47 MB
# resident at start instead of 80, the same behaviour. Every go command make
# runs gets it (docs/performance.md); a go install without it builds the
# larger binary.
export GOFLAGS += -tags=kustomize_disable_go_plugin_support

.PHONY: render check vet test race conformance lsp realworld realcharts e2e rehearse bench bench-compare loc release-snapshot golden help quickstart upstream-diff bootstrap-argocd sync hooks install precommit browser report-screenshot

# The Argo CD platc checks by, and the argo-cd chart that installs it, as
# compiler/upstream names them (its tests keep these two lines the same).
# No chart release carries the minor of ARGOCD_VERSION yet (argo-helm's
# history here ends at 10.1.1, appVersion v3.4.4; the releases after it seen
# in public, to 10.9.1, carry v3.5: docs/upstream.md): bootstrap-argocd runs
# the chart with its image at ARGOCD_VERSION and Argo CD's own CRDs of it.
ARGOCD_VERSION ?= v3.6.2
ARGOCD_CHART_VERSION ?= 10.1.1

# platc, built into bin/ by the commands that run it, when a file it is
# built from is newer (cmd/platc's test holds this list to the packages it
# imports). The first build says what it does: the modules' download,
# then a line per hundred packages compiled (go build -v names each; a
# line that is not a package, such as a compile error, is printed as it
# is). The binary is left as it is between builds: platc's cache is bound
# to it.
PLATC_SOURCES := go.mod go.sum $(shell find cmd compiler hooks internal schemas -type f ! -name '*_test.go' ! -path '*/testdata/*')
bin/platc: $(PLATC_SOURCES)
	@if [ -e $@ ]; then echo "building platc into $@ (its sources changed)"; \
	else echo "building platc into $@: the first build downloads Go modules (about 500 MB) and compiles about 1,200 packages, about 4 minutes on two cores"; \
	$(GO) mod download && echo "  modules downloaded"; fi
	@bash -o pipefail -c '$(GO) build -v -o $@ ./cmd/platc 2>&1 | awk '\''/^[a-z][a-z0-9.-]*(\/[^ ]+)?$$/ { if (++n % 100 == 0) { printf "  %d packages compiled\n", n; fflush() } next } { print; fflush() }'\'

## render: check the sample platform in sources/ and write out/
render: bin/platc
	$(PLATC) render

## check: fail if out/ is not what sources/ renders (the drift check)
check: bin/platc
	$(PLATC) check

## vet: run every check on sources/, write nothing
vet: bin/platc
	$(PLATC) vet

## install: install platc from this clone into Go's bin folder (go env GOBIN, or GOPATH/bin)
install:
	$(GO) install ./cmd/platc

## test: formatting, go vet, every test (then the skipped ones, and why), and the drift check of out/
test: bin/platc
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt -l lists:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -json ./... | (cd tools && $(GO) run ./testsummary)
	cd tools && $(GO) vet ./... && $(GO) test ./...
	$(PLATC) check

## race: the compiler's tests under the race detector (a few minutes; CI runs it)
race:
	$(GO) test -race ./compiler/...

## conformance: platc's rules against Argo CD's and kro's own code, in modules of their own
# (the first run downloads about 2 GB of modules, and the Go of UPSTREAM_GOTOOLCHAIN)
# Argo CD's module needs Go 1.27 (compiler/upstream.GoToolchain): its
# conformance module and the delivery test's programs build with it, which
# the go command fetches from the module proxy once; platc builds with the
# machine's Go.
UPSTREAM_GOTOOLCHAIN ?= go1.27.3
conformance:
	cd conformance/argocd && GOTOOLCHAIN=$(UPSTREAM_GOTOOLCHAIN) $(GO) test ./...
	cd conformance/kro && $(GO) test ./...

## lsp: CUE's language server (cue lsp, built from the CUE platc uses) driven over the protocol on a
## spec platc init wrote: completion and hover show platc's fields and their documentation
## (docs/editors.md), in a module of its own (cold: 21 MB of modules and about 3 minutes, most of it building cue)
lsp: bin/platc
	cd lsp && PLATC=$(CURDIR)/$(PLATC) $(GO) test -count=1 -v .

## realworld: platc import of real repositories' Argo CD objects (../shared/realworld), in a
## module of its own: each imported, rendered and compared object by object; ends with a line
## "import: N objects, E equal, D differ, U not imported" (-update rewrites realworld/testdata)
realworld:
	cd realworld && $(GO) test -count=1 -v .

## realcharts: the sample checked with the real charts it pins (../shared/charts), served on
## loopback at their repositories' URLs and locked with platc charts pull, in a module of its own;
## ends with a line "realcharts: N charts rendered, P problems"
realcharts:
	cd realcharts && $(GO) test -count=1 -v .

## e2e: deliver the sample and the golden cases to the real controllers: a control
## plane built from Go modules (Kubernetes, kwok, Argo CD, kro; the first build takes
## 8 to 13 minutes on two cores), on loopback; needs git, Debian's redis-server and the
## real charts the sample pins, ../shared/charts beside the repository (about 15 minutes warm).
## E2E_REPORT=file writes the report as JSON
E2E_BIN = $(CURDIR)/e2e/.bin
e2e:
	cd e2e && $(GO) test -count=1 -timeout 60m ./cluster ./deliver
	cd e2e && $(GO) test -c -o $(E2E_BIN)/e2e.test .
	cd e2e && $(E2E_BIN)/e2e.test -test.v -test.parallel 8 -test.timeout 60m $(E2E_FLAGS)

## rehearse: deliver a platform's committed render to the real controllers on this
## machine, one control plane per environment: make rehearse DIR=../my-platform ENV=customer
## (default: this repository's sample, every environment); REHEARSE_FLAGS=-hold keeps them running
# DIR and ENV reach it as one argument each, as written (make's $(value),
# single-quoted for the shell: quote); REHEARSE_FLAGS is flags, split at
# spaces.
quote = '$(subst ','\'',$(1))'
rehearse:
	dir="$$(cd $(call quote,$(or $(value DIR),.)) && pwd)" && cd e2e && $(GO) run ./cmd/rehearse -programs $(call quote,$(CURDIR)/e2e/programs) -C "$$dir" $(if $(value ENV),-env $(call quote,$(value ENV))) $(REHEARSE_FLAGS)

## hooks: install the Git pre-commit hook that refuses a commit whose staged out/ is stale
hooks:
	$(GO) build -o "$$(git rev-parse --git-dir)/platc" ./cmd/platc
	"$$(git rev-parse --git-dir)/platc" hooks install
	@echo "run make hooks again after updating platc"

## precommit: platc's hooks for the pre-commit framework (.pre-commit-hooks.yaml) on a platform
## platc init makes, built and run by pre-commit as a platform repository would; needs Debian's pre-commit
precommit:
	PLATC_PRECOMMIT=1 $(GO) test -count=1 -run TestPreCommitFramework ./hooks

## browser: open the sample's report in headless Chromium (apt-get install chromium): no console error, every
## module and environment shown, a screenshot in browser/.out/report.png; skipped, saying why, without Chromium
browser:
	cd browser && $(GO) test -count=1 ./...

## report-screenshot: regenerate docs/report.png, the guide's picture of the report (needs Chromium)
report-screenshot: browser
	@test -f browser/.out/report.png || { echo "no screenshot: make browser skipped, Chromium is missing (apt-get install chromium)"; exit 1; }
	cp browser/.out/report.png docs/report.png

## golden: rewrite the expected output of the golden cases in golden/
golden:
	$(GO) test ./compiler -run TestGolden -update
	$(GO) test ./schemas -run TestCRDsJSON -update

## release-snapshot: release archives of this commit, with their checksums, into dist/
## (tools/release; RELEASE_TARGETS=linux/amd64 for one); it unpacks and runs this machine's
RELEASE_TARGETS ?= linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64
release-snapshot:
	cd tools && $(GO) run ./release -snapshot -targets $(RELEASE_TARGETS)

## bench: Go benchmarks of the compiler, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-compare: time cue export, the pure-CUE way and platc render on the same
## generated platforms; prints medians, peak memory and ratios (docs/performance.md)
bench-compare:
	cd tools && $(GO) run ./benchcompare $(BENCH_COMPARE_FLAGS)

## loc: lines of platc's production code (the non-test Go of the packages platc links),
## by package (tools/loc; testkit/ and tools/ are not production code)
loc:
	cd tools && $(GO) run ./loc

## quickstart: deliver the local environment to the current kube context;
## QUICKSTART_DIRECT_APPLY=1 installs it with helm and kubectl, without Argo CD
quickstart: render
ifeq ($(QUICKSTART_DIRECT_APPLY),1)
	bash out/deploy/direct-apply/local/plan.sh
else
	$(MAKE) bootstrap-argocd sync
endif

# What the local environment's Argo CD needs (application.namespaces for the
# teams' Applications, the Application health check where the platform asks
# for it), as platc renders it; absent where it needs nothing.
ARGOCD_VALUES = $(wildcard out/deploy/gitops/argocd/argocd-values.yaml)

## upstream-diff: the files platc ports (compiler/upstream), compared with upstream's releases
## (docs/upstream.md). Without FROM: every release of Argo CD and kro newer than the targets
## that the module proxy serves, patch releases included; it fails, naming the release and the
## file, where one changed a file platc ports (CI runs it; the zips stay in the module cache).
## With FROM=v3.6.1 [TO=v3.6.2] [PROJECT=kro]: the diff between two releases, the first step of a bump
PROJECT ?= argocd
upstream-diff:
ifdef FROM
	cd tools && $(GO) run ./upstreamdiff -project $(PROJECT) -from $(FROM) $(if $(TO),-to $(TO))
else
	cd tools && $(GO) run ./upstreamdiff -newer
endif

## bootstrap-argocd: install the Argo CD platc checks by into namespace argocd:
## its CRDs, then its chart with the values platc renders for it
## (out/deploy/gitops/argocd/argocd-values.yaml)
bootstrap-argocd:
	kubectl apply --server-side --force-conflicts -k "https://github.com/argoproj/argo-cd/manifests/crds?ref=$(ARGOCD_VERSION)"
	helm upgrade --install argocd argo-cd --repo https://argoproj.github.io/argo-helm \
		--version $(ARGOCD_CHART_VERSION) --namespace argocd --create-namespace \
		--set global.image.tag=$(ARGOCD_VERSION) --set crds.install=false \
		$(addprefix --values ,$(ARGOCD_VALUES)) --wait

## sync: hand the local environment to Argo CD: apply its root Application
sync:
	kubectl apply --namespace argocd -f out/deploy/gitops/argocd/root-app.yaml

help:
	@grep -E '^## ' Makefile | sed -E 's/^## ([a-z-]+: )/  make \1/; s/^## /      /'
