# easyai — developer entry points. `make help` lists them.
SHELL := /usr/bin/env bash
.DEFAULT_GOAL := help

GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/easyai-dev/easyai/pkg/build.Version=$(VERSION) \
	-X github.com/easyai-dev/easyai/pkg/build.Commit=$(shell git rev-parse HEAD 2>/dev/null) \
	-X github.com/easyai-dev/easyai/pkg/build.Date=$(shell date -u +%Y-%m-%dT%H:%M:%SZ)
GORELEASER_VERSION := v2.12.0

.PHONY: help
help: ## Show the targets.
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

.PHONY: build
build: ## Build bin/easyai.
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/easyai ./cmd/easyai

.PHONY: docs
docs: ## Regenerate docs/cli/ (one page per command) from the command tree.
	$(GO) run ./hack/gendocs docs docs/cli

.PHONY: man
man: ## Regenerate docs/man/ (one man page per command) from the command tree.
	$(GO) run ./hack/gendocs man docs/man

.PHONY: completions
completions: ## Regenerate the shell completion scripts in completions/.
	$(GO) run ./hack/gendocs completions completions

.PHONY: check-generated
check-generated: ## Fail when docs/cli, docs/man, completions/, gofmt or go.mod are stale, or LICENSE is not Apache 2.0.
	hack/check-generated.sh

.PHONY: goreleaser-check
goreleaser-check: ## Validate .goreleaser.yaml with GoReleaser's full check (compiles GoReleaser; make test reads the file with its types only).
	$(GO) run github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION) check

.PHONY: test
test: ## The checks and unit tests, then the end-to-end suites on the local cluster (built, started and stopped if none runs) with bounded fuzzing (5s a target) beside the unit tests.
	hack/test.sh

.PHONY: test-unit
test-unit: ## Unit tests only (no cluster).
	hack/test.sh unit

.PHONY: test-fuzz
test-fuzz: ## Run every fuzz target for EASYAI_FUZZTIME (15s; 5s within make test) each.
	hack/test.sh fuzz

.PHONY: test-e2e
test-e2e: ## End-to-end tests only (starts the local cluster if none runs).
	hack/test.sh e2e

.PHONY: cluster-build
cluster-build: ## Build the local cluster's binaries into .cache (once per version).
	hack/cluster/build.sh

.PHONY: cluster-up
cluster-up: ## Start the local Kubernetes cluster (etcd, control plane, kwok GPU nodes, Volcano, training-operator).
	hack/cluster/up.sh

.PHONY: cluster-down
cluster-down: ## Stop exactly the processes cluster-up started.
	hack/cluster/down.sh

.PHONY: cluster-env
cluster-env: ## Print `export KUBECONFIG=...` for the local cluster: eval "$$(make -s cluster-env)".
	@hack/cluster/env.sh

.PHONY: demo
demo: ## Submit the TF example to the local cluster and watch it run to success.
	hack/demo.sh

.PHONY: demo-real
demo-real: ## Run the PyTorch DDP example (2 ranks, gloo) on the local cluster's real node: its loss, its model, Succeeded.
	hack/demo-real.sh

.PHONY: bench
bench: bench-list bench-get bench-submit bench-logs bench-startup ## Every benchmark below; writes docs/benchmarks.md.

.PHONY: bench-list
bench-list: ## Time `easyai list -A` against kubectl (and arena with BENCH_ARENA=path) on 2,000 TFJobs in a cluster of its own, with the API server's CPU; writes docs/benchmarks.md and a history row.
	test/bench/list.sh

.PHONY: bench-get
bench-get: ## Count and time `easyai get` of a job of 1,000 replicas against `kubectl get pods -l` (and arena with BENCH_ARENA=path): time, memory, the API server's CPU; writes docs/benchmarks.md.
	test/bench/get.sh

.PHONY: bench-logs
bench-logs: ## Follow 512 replicas' logs with easyai and kubectl in a cluster of its own (lines, memory, CPU; BENCH_KIND=trainjob or volcano: of that kind's job); writes docs/benchmarks.md.
	test/bench/logs.sh

.PHONY: bench-demo
bench-demo: ## Time the first `make demo` in a fresh clone with empty caches (not in make bench: minutes of builds); writes docs/benchmarks.md.
	test/bench/demo.sh

.PHONY: bench-submit
bench-submit: ## Time submit --dry-run=client of 1,000 workers (TFJob, PyTorchJob, TrainJob) against `easyai version`, and the render path; writes docs/benchmarks.md.
	test/bench/submit.sh

.PHONY: bench-startup
bench-startup: ## Time `easyai version` and `easyai list -n NS` of 10 TFJobs against kubectl's in a cluster of its own; writes docs/benchmarks.md.
	test/bench/startup.sh
