# tapgrid: `make run` starts the daemon on the example config; `make test` runs every test.
SWIFT      ?= swift
JOBS       ?= 2
PREFIX     ?= /usr/local
# Debian packages the tests need beyond the Swift toolchain (installed by `make deps` when
# missing): python3 for the access tests' client, procps for `ps` in the child tests.
DEB_PACKAGES ?= python3 procps
BIN        := .build/debug

.PHONY: all build release deps test run bench install clean check-example

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$missing; \
	fi

build: deps
	$(SWIFT) build -j $(JOBS)

release: deps
	$(SWIFT) build -j $(JOBS) -c release

# Every suite: unit, system, arguments, CLI and end-to-end (these run the built binaries).
# One test at a time: several suites count this process's descriptors and children, which
# tests running beside them would disturb (the end-to-end suite, most of the time, is serial anyway).
# Quiet: build errors, failed tests with their issues and the summaries, nothing per passing test
# (`swift test --no-parallel` without -q lists every test). SwiftPM leaves TemporaryDirectory.*
# folders in $TMPDIR on every run: it gets its own under .build, removed afterwards.
SWIFT_TMP := $(CURDIR)/.build/tmp
test: deps
	@rm -rf $(SWIFT_TMP) && mkdir -p $(SWIFT_TMP)
	@TMPDIR=$(SWIFT_TMP) $(SWIFT) test -q -j $(JOBS) --no-parallel; status=$$?; rm -rf $(SWIFT_TMP); exit $$status

# The daemon in the foreground on examples/tapgrid.json; socket and event log in ./run/.
run: build
	@mkdir -p run
	@echo "tapgridd: socket run/tapgrid.sock, event log run/events.jsonl; in another terminal:"
	@echo "  $(BIN)/tapgrid tap 100 100 --socket run/tapgrid.sock"
	$(BIN)/tapgridd --config examples/tapgrid.json

check-example: build
	$(BIN)/tapgrid check examples/tapgrid.json

# Engine figures (resolve, hit-test, config load, memory), then the daemon's tap path over its
# socket against a C baseline server (needs a C compiler for the baseline).
bench: DEB_PACKAGES += gcc
bench: deps
	$(SWIFT) build -j $(JOBS) -c release --product tapgrid-bench
	$(SWIFT) build -j $(JOBS) -c release --product tapgridd
	.build/release/tapgrid-bench
	@echo
	python3 Benchmarks/daemon-bench.py

install: release
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 .build/release/tapgridd .build/release/tapgrid $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf .build run

# ---- CLI docs (branch cli): shell completions and manual pages ---------------------------------
# Generated at install time by the release binaries from their own help texts (nothing generated is
# committed): `tapgrid --generate-completion-script bash|zsh|fish`, `tapgrid --generate-manual`
# (tapgrid.1), `tapgridd --generate-manual` (tapgridd.8). DOCS_BIN names the folder of the binaries.
DOCS_BIN            ?= .build/release
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR  ?= $(PREFIX)/share/zsh/site-functions
FISH_COMPLETION_DIR ?= $(PREFIX)/share/fish/vendor_completions.d
MAN_DIR             ?= $(PREFIX)/share/man

.PHONY: install-docs
install: install-docs
install-docs: release
	install -d $(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(ZSH_COMPLETION_DIR) $(DESTDIR)$(FISH_COMPLETION_DIR) \
	  $(DESTDIR)$(MAN_DIR)/man1 $(DESTDIR)$(MAN_DIR)/man8
	$(DOCS_BIN)/tapgrid --generate-completion-script bash > $(DESTDIR)$(BASH_COMPLETION_DIR)/tapgrid
	$(DOCS_BIN)/tapgrid --generate-completion-script zsh > $(DESTDIR)$(ZSH_COMPLETION_DIR)/_tapgrid
	$(DOCS_BIN)/tapgrid --generate-completion-script fish > $(DESTDIR)$(FISH_COMPLETION_DIR)/tapgrid.fish
	$(DOCS_BIN)/tapgrid --generate-manual > $(DESTDIR)$(MAN_DIR)/man1/tapgrid.1
	$(DOCS_BIN)/tapgridd --generate-manual > $(DESTDIR)$(MAN_DIR)/man8/tapgridd.8
	chmod 0644 $(DESTDIR)$(BASH_COMPLETION_DIR)/tapgrid $(DESTDIR)$(ZSH_COMPLETION_DIR)/_tapgrid \
	  $(DESTDIR)$(FISH_COMPLETION_DIR)/tapgrid.fish $(DESTDIR)$(MAN_DIR)/man1/tapgrid.1 $(DESTDIR)$(MAN_DIR)/man8/tapgridd.8

# The README's picture of the example layout (a test fails when it is stale).
.PHONY: example-svg
example-svg: build
	$(BIN)/tapgrid show examples/tapgrid.json --format svg --output docs/example.svg

# The completion tests run the real shells and the manual test groff: `make test` installs them.
test: DEB_PACKAGES += zsh fish groff-base
# ---- end of CLI docs ------------------------------------------------------------------------------
