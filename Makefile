GO ?= go

.PHONY: all
all: build

.PHONY: build
build: ## Build bin/opctl.
	$(GO) build -o bin/opctl ./cmd/opctl

.PHONY: install
install: ## Install opctl into $GOBIN.
	$(GO) install ./cmd/opctl

.PHONY: test
test: ## Vet and run every test, including building generated projects (slow the first time).
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 40m ./...

.PHONY: test-short
test-short: ## Unit and golden tests only.
	$(GO) test -short ./...

.PHONY: golden
golden: ## Rewrite the golden trees under testdata/golden; review the diff before committing.
	$(GO) test ./scaffold -run TestGolden -update

.PHONY: fmt
fmt:
	gofmt -w $$(git ls-files '*.go')
