# tapgrid: `make run` starts the daemon on the example config; `make test` runs every test.
SWIFT      ?= swift
JOBS       ?= 2
PREFIX     ?= /usr/local
# Debian packages the build and tests need beyond the Swift toolchain (installed by `make deps`
# when missing): python3 for the access tests' client, procps for `ps` in the child tests and
# /bin/kill (ExecReload=), libsystemd-dev + pkg-config for the CSystemd module, systemd for
# systemd-analyze and the end-to-end run under a real systemd, util-linux for unshare/nsenter/
# setpriv there, libinput-dev + libudev-dev for the CInput module (touchscreens; libinput10
# brings libinput-bin, its device quirks), libmicrohttpd-dev for the CMicroHTTPD module (the browser panel),
# fonts-materialdesignicons-webfont for the cells' icons (its SVG font, read by tapgrid check and tapgridd).
DEB_PACKAGES ?= python3 procps libsystemd-dev pkg-config systemd util-linux libinput-dev libudev-dev libmosquitto-dev libmicrohttpd-dev fonts-materialdesignicons-webfont
BIN        := .build/debug
# Release builds link the Swift runtime in statically, so the installed programs run on a kiosk
# without the toolchain (ldd shows only libc, libm, libstdc++, libgcc_s and, for the daemon,
# libsystemd, libinput and libudev with theirs).
RELEASE_FLAGS := -c release --static-swift-stdlib
# Where `make install` puts things (under $(DESTDIR)); the units name $(PREFIX)/bin/tapgridd.
BINDIR      = $(PREFIX)/bin
UNITDIR     = $(PREFIX)/lib/systemd/system
USERUNITDIR = $(PREFIX)/lib/systemd/user
SYSUSERSDIR = $(PREFIX)/lib/sysusers.d
DOCDIR      = $(PREFIX)/share/doc/tapgrid
# The reference the README links to, installed beside it (the pictures too).
DOC_PAGES  := $(wildcard docs/*.md docs/*.png docs/*.svg)
CONFDIR     = /etc/tapgrid

.PHONY: all build release deps test test-lint test-docs test-panel test-systemd test-install test-systemd-e2e run bench bench-quick bench-engine install uninstall clean check-example

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
	$(SWIFT) build -j $(JOBS) $(RELEASE_FLAGS) --product tapgridd
	$(SWIFT) build -j $(JOBS) $(RELEASE_FLAGS) --product tapgrid

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
	$(MAKE) test-lint test-docs test-panel test-systemd test-install test-systemd-e2e bench-quick faults-quick fuzz-quick

# The one JSON rule: no JSON built by hand in Sources/ outside TapgridCore (Tests/lint/json-rule.sh
# names file:line of each #"{"..., "{\"...", "\"key\":" or #""text""#; sh and grep only).
test-lint:
	Tests/lint/json-rule.sh

# Every relative link of README.md and docs/*.md names a file that exists, and each #anchor into a
# markdown file a heading there (Tests/docs/check-links.py; python3 only).
test-docs:
	python3 Tests/docs/check-links.py

# The browser panel against the built daemon: its HTTP server without a browser (every guard,
# tokens, 50 event streams, sessions), then the page in a real headless Chromium driven over the
# DevTools protocol (Debian's chromium and python3-websocket; nothing is downloaded).
test-panel: DEB_PACKAGES += chromium python3-websocket
test-panel: build
	python3 Tests/panel/test_server.py --daemon $(BIN)/tapgridd --cli $(BIN)/tapgrid
	python3 Tests/panel/test_browser.py --daemon $(BIN)/tapgridd

# The units: systemd-analyze verify and security (exposure at most 1.0); no systemd needed.
test-systemd: build
	Tests/systemd/check-units.sh $(BIN)/tapgridd

# `make install` and `make uninstall` into a scratch DESTDIR, checked file by file.
test-install: release
	Tests/systemd/check-install.sh

# The units under a real systemd 252 as PID 1 of private namespaces (root, cgroup2, overlayfs;
# skips with a message where they are missing); part of `make test`. E2E_MODE=legacy runs the
# harness with a daemon that does not speak sd_notify.
test-systemd-e2e: release
	Tests/systemd/run-systemd-e2e.sh || [ $$? = 77 ]

# The daemon in the foreground on examples/tapgrid.json; socket and event log in ./run/.
run: build
	@mkdir -p run
	@echo "tapgridd: socket run/tapgrid.sock, event log run/events.jsonl, panel http://127.0.0.1:8480/"
	@echo "  open http://127.0.0.1:8480/ in a browser, or in another terminal:"
	@echo "  $(BIN)/tapgrid tap 100 100 --socket run/tapgrid.sock"
	$(BIN)/tapgridd --config examples/tapgrid.json

check-example: build
	$(BIN)/tapgrid check examples/tapgrid.json

# tapgridd against a C epoll server (the machine's limit) and a Python asyncio server (what users
# write), driven by the same C load clients: one table of medians of interleaved runs, with
# callgrind's instructions per tap (Benchmarks/bench.py; a few minutes; gcc, valgrind).
bench: DEB_PACKAGES += gcc valgrind mosquitto mosquitto-clients chromium python3-websocket
bench: release
	python3 Benchmarks/bench.py
	python3 Benchmarks/fleet-bench.py
	python3 Benchmarks/panel-bench.py
	python3 Benchmarks/drag-bench.py

# The same in one short round (about 20 s), part of `make test`: every server answers every
# shape, the three give the same answers, the table prints (figures too noisy to judge here).
bench-quick: DEB_PACKAGES += gcc mosquitto mosquitto-clients chromium python3-websocket
bench-quick: release
	python3 Benchmarks/bench.py --quick
	python3 Benchmarks/fleet-bench.py --quick
	python3 Benchmarks/panel-bench.py --quick
	python3 Benchmarks/drag-bench.py --quick

# Engine figures: resolve throughput, hit-test latency against a naive scan, config load time,
# memory per grid (Benchmarks/tapgrid-bench).
bench-engine: deps
	$(SWIFT) build -j $(JOBS) -c release --product tapgrid-bench
	.build/release/tapgrid-bench

# Both programs, the units (their /usr/local paths rewritten to $(PREFIX)), the sysusers file,
# the README with docs/ (so its links to docs/ hold there too), the backlight's udev rule beside
# them (inert there: backlight.conf says how to put it in /etc/udev/rules.d), and the example
# config only where /etc/tapgrid/tapgrid.json does not exist yet.
# Without DESTDIR, as root, it also creates the group tapgrid-clients with systemd-sysusers.
install: release
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR)/tapgridd.service.d $(DESTDIR)$(USERUNITDIR) \
	  $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(DOCDIR)/docs
	install -m 0755 .build/release/tapgridd .build/release/tapgrid $(DESTDIR)$(BINDIR)/
	for unit in tapgridd.service tapgridd.socket tapgridd-panel.socket tapgridd.service.d/touch.conf tapgridd.service.d/mqtt.conf \
	  tapgridd.service.d/panel.conf tapgridd.service.d/backlight.conf; do \
	  sed 's|/usr/local/|$(PREFIX)/|g' systemd/$$unit > $(DESTDIR)$(UNITDIR)/$$unit && chmod 0644 $(DESTDIR)$(UNITDIR)/$$unit; done
	for unit in tapgridd.service tapgridd.socket; do \
	  sed 's|/usr/local/|$(PREFIX)/|g' systemd/user/$$unit > $(DESTDIR)$(USERUNITDIR)/$$unit && chmod 0644 $(DESTDIR)$(USERUNITDIR)/$$unit; done
	install -m 0644 systemd/sysusers.d/tapgrid.conf $(DESTDIR)$(SYSUSERSDIR)/tapgrid.conf
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	sed 's|/usr/local/|$(PREFIX)/|g' systemd/udev/70-tapgrid-backlight.rules > $(DESTDIR)$(DOCDIR)/70-tapgrid-backlight.rules \
	  && chmod 0644 $(DESTDIR)$(DOCDIR)/70-tapgrid-backlight.rules
	install -m 0644 $(DOC_PAGES) $(DESTDIR)$(DOCDIR)/docs/
	@if [ -e $(DESTDIR)$(CONFDIR)/tapgrid.json ]; then \
	  echo "kept the existing $(DESTDIR)$(CONFDIR)/tapgrid.json"; \
	else \
	  echo "install -D -m 0644 examples/installed/tapgrid.json $(DESTDIR)$(CONFDIR)/tapgrid.json"; \
	  install -D -m 0644 examples/installed/tapgrid.json $(DESTDIR)$(CONFDIR)/tapgrid.json; \
	fi
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v systemd-sysusers >/dev/null; then \
	  echo "systemd-sysusers $(SYSUSERSDIR)/tapgrid.conf"; systemd-sysusers $(SYSUSERSDIR)/tapgrid.conf; \
	fi
	@echo "next: systemctl daemon-reload && systemctl enable --now tapgridd.socket"

# Removes what `make install` put there except the config (yours now), the event log in
# /var/lib/tapgrid and the group tapgrid-clients. Stop the units first.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tapgridd $(DESTDIR)$(BINDIR)/tapgrid
	rm -f $(DESTDIR)$(UNITDIR)/tapgridd.service $(DESTDIR)$(UNITDIR)/tapgridd.socket $(DESTDIR)$(UNITDIR)/tapgridd-panel.socket \
	  $(DESTDIR)$(UNITDIR)/tapgridd.service.d/touch.conf $(DESTDIR)$(UNITDIR)/tapgridd.service.d/mqtt.conf \
	  $(DESTDIR)$(UNITDIR)/tapgridd.service.d/panel.conf $(DESTDIR)$(UNITDIR)/tapgridd.service.d/backlight.conf
	rmdir $(DESTDIR)$(UNITDIR)/tapgridd.service.d 2>/dev/null || true
	rm -f $(DESTDIR)$(USERUNITDIR)/tapgridd.service $(DESTDIR)$(USERUNITDIR)/tapgridd.socket
	rm -f $(DESTDIR)$(SYSUSERSDIR)/tapgrid.conf $(DESTDIR)$(DOCDIR)/README.md $(DESTDIR)$(DOCDIR)/70-tapgrid-backlight.rules $(addprefix $(DESTDIR)$(DOCDIR)/,$(DOC_PAGES))
	rmdir $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR) 2>/dev/null || true
	rm -f $(DESTDIR)$(BASH_COMPLETION_DIR)/tapgrid $(DESTDIR)$(ZSH_COMPLETION_DIR)/_tapgrid \
	  $(DESTDIR)$(FISH_COMPLETION_DIR)/tapgrid.fish $(DESTDIR)$(MAN_DIR)/man1/tapgrid.1 $(DESTDIR)$(MAN_DIR)/man8/tapgridd.8
	@echo "kept $(DESTDIR)$(CONFDIR)/tapgrid.json, /var/lib/tapgrid and the group tapgrid-clients"

clean:
	rm -rf .build run

# ---- Shell completions and manual pages -------------------------------------------------------
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

# The touchscreen end-to-end tests fake a touchscreen with umockdev (no hardware, no uinput) and
# build a small LD_PRELOAD shim with the C compiler (Tests/touch/umockdev-shim.c).
test: DEB_PACKAGES += umockdev gcc libc6-dev mosquitto mosquitto-clients

# ---- Reliability: fuzzing, sanitizers, soak and faults (see SECURITY.md, "Running the checks") --
# libFuzzer over TapgridCore's sources (Fuzz/README.md): every target for FUZZ_SECONDS each.
FUZZ_SECONDS ?= 300
.PHONY: fuzz fuzz-quick asan tsan soak faults faults-quick
fuzz:
	Fuzz/fuzz.sh run $(FUZZ_SECONDS)

# The short run `make test` makes: a few seconds per target from the seed corpus.
fuzz-quick:
	Fuzz/fuzz.sh run 3

# The whole suite under AddressSanitizer and ThreadSanitizer, each in its own scratch folder so
# the normal build is not rebuilt; the end-to-end tests start the daemon and CLI built there, so
# those are sanitized too (TAPGRID_SANITIZER tells the tests; memory bounds are then skipped, the
# sanitizer's own memory being most of it). SAN_FILTER picks suites (default: all).
# Tests/sanitizers/lsan.supp names the one leak report that is not ours (XCTest's runtime).
SAN_FILTER ?= .
asan: deps
	@mkdir -p $(SWIFT_TMP)
	TAPGRID_SANITIZER=address LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/sanitizers/lsan.supp TMPDIR=$(SWIFT_TMP) $(SWIFT) test -j $(JOBS) --no-parallel --sanitize=address --scratch-path .build-asan --filter '$(SAN_FILTER)'
tsan: deps
	@mkdir -p $(SWIFT_TMP)
	TAPGRID_SANITIZER=thread TMPDIR=$(SWIFT_TMP) $(SWIFT) test -j $(JOBS) --no-parallel --sanitize=thread --scratch-path .build-tsan --filter '$(SAN_FILTER)'

# Mixed traffic for DURATION (30m, 2h, 90s) with a row of figures every minute (Tests/load/soak.py).
DURATION ?= 10m
soak: build
	python3 Tests/load/soak.py --duration $(DURATION)

# Faults and load (Tests/load/faults.py): every scenario at full size, or the quick ones.
faults: build
	python3 Tests/load/faults.py all
faults-quick: build
	python3 Tests/load/faults.py quick
