GO ?= go
# The styles make bench-runtimes measures: one or more of ./scaffold/styles/NAME.
BENCH_STYLES ?= ./scaffold/styles/...

.PHONY: all
all: build

.PHONY: build
build: ## Build bin/opctl.
	$(GO) build -o bin/opctl ./cmd/opctl

.PHONY: install
install: ## Install opctl into $GOBIN.
	$(GO) install ./cmd/opctl

.PHONY: test
test: ## Vet and run every test, including each style's generated projects running their own tests (slow the first time).
	$(GO) vet -tags generated ./...
	$(GO) test -tags generated -count=1 -timeout 40m ./...

.PHONY: test-short
test-short: ## Unit and golden tests only.
	$(GO) test -short ./...

.PHONY: golden
golden: ## Rewrite the golden trees under testdata/golden; review the diff before committing.
	$(GO) test ./scaffold -run TestGolden -update

.PHONY: kubetypes
kubetypes: ## Write scaffold/api/kubetypes.json: the schemas of the Kubernetes types a field may name, as the pinned controller-gen writes them for the pinned k8s.io/api.
	$(GO) run ./hack/kubetypes

.PHONY: crd-table
crd-table: ## Write docs/imported-crds.md: what the flags write of real operators' CRDs, downloaded from the Go module proxy.
	$(GO) test -tags generated -count=1 ./scaffold -run TestRealCRDs -update

.PHONY: fmt
fmt:
	gofmt -w $$(git ls-files '*.go')

.PHONY: check-pins
check-pins: ## Report the pinned Go modules with a newer release on the module proxy (changes nothing).
	GOPROXY="$$($(GO) env GOPROXY)" $(GO) run ./hack/check-pins

.PHONY: envtest-bins
envtest-bins: ## Build kube-apiserver and etcd from the Go module proxy into the user cache, ~/.cache/opctl (once; ~10 minutes cold).
	$(GO) run ./hack/envtest-bins

.PHONY: test-e2e
test-e2e: ## Prove every style's generated project on a real API server built from source.
	KUBEBUILDER_ASSETS="$${KUBEBUILDER_ASSETS:-$$($(GO) run ./hack/envtest-bins | tail -n 1)}" \
	  $(GO) test -tags e2e -count=1 -timeout 60m -run TestE2E -v ./scaffold/...

.PHONY: test-runtimes
# One runtime at a time (-p 1): two cores do not run two runtimes and their
# fault checks within the checks' time limits (docs/real-runtimes.md).
test-runtimes: ## Run every style's seed project in its real runtime (given by OPCTL_* variables; see docs/real-runtimes.md).
	KUBEBUILDER_ASSETS="$${KUBEBUILDER_ASSETS:-$$($(GO) run ./hack/envtest-bins | tail -n 1)}" \
	  $(GO) test -tags e2e -count=1 -p 1 -timeout 30m -run TestRuntime -v ./scaffold/styles/...

.PHONY: bench-runtimes
# One package at a time (-p 1): each style is measured alone on the machine.
bench-runtimes: ## Measure every style in its real runtime at N = 10, 100 and 1000 objects (OPCTL_BENCH_N; the variables of test-runtimes), then write docs/runtime-costs.md.
	@mkdir -p .cache
	KUBEBUILDER_ASSETS="$${KUBEBUILDER_ASSETS:-$$($(GO) run ./hack/envtest-bins | tail -n 1)}" OPCTL_BENCH_OUT="$(CURDIR)/.cache/bench-runtimes.jsonl" \
	  $(GO) test -tags e2e -count=1 -p 1 -timeout 6h -run TestBenchRuntime -v $(BENCH_STYLES)
	$(MAKE) bench-runtimes-doc

.PHONY: bench-runtimes-doc
bench-runtimes-doc: ## Write docs/runtime-costs.md's table, docs/runtime-costs.svg and the figures opctl decide shows from the last make bench-runtimes.
	$(GO) run ./hack/bench/runtimecosts .cache/bench-runtimes.jsonl

.PHONY: test-fuzz
# A count, not a duration: each input renders every style, and a time limit
# that ends during a slow one fails with "context deadline exceeded".
test-fuzz: ## Fuzz the field parser through rendering every style (2000 inputs, under a minute), and the YAML writer against sigs.k8s.io/yaml.
	$(GO) test ./scaffold -run '^$$' -fuzz FuzzField -fuzztime 2000x
	$(GO) test ./scaffold/yamltext -run '^$$' -fuzz FuzzMatchesSigsYAML -fuzztime 50000x

.PHONY: bench
bench: ## Benchmark rendering (every style, 1/10/50 kinds), the CRD build, and start-up.
	mkdir -p .cache
	$(GO) test ./scaffold/... -run '^$$' -bench . -benchmem -benchtime 20x > .cache/bench.txt; status=$$?; cat .cache/bench.txt; exit $$status
	bash hack/bench/startup.sh

.PHONY: bench-chart
bench-chart: ## Draw docs/scaling.svg from the last make bench.
	$(GO) run ./hack/bench/chart < .cache/bench.txt > docs/scaling.svg

.PHONY: bench-compare
bench-compare: ## Time opctl against kubebuilder v4.16.0 (installs it from the Go module proxy; not in CI).
	bash hack/bench/compare.sh
