# fusiondbg — plain GNU Makefile driven by pkg-config.
#   make run     install missing Debian packages, build, open a shipped sample
#   make check   the same set-up, then every test and how long it took
#                (T=PATTERN: only those tests, CASE=GLOB: only those cases of
#                them, UPDATE=1: rewrite the expected output they compare with)
#   make check-peer  the tests against onnxruntime-node alone (installs it)
#   make install / uninstall   PREFIX (default /usr/local) and DESTDIR
#   make V=1     show full commands;  BUILD=dir  build elsewhere (parallel work trees)
# Every target installs what it needs first and says what (see "set-up").

VERSION  := 0.4.0
BUILD    ?= build
CC       ?= cc
PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   := $(PREFIX)/bin
MANDIR   := $(PREFIX)/share/man
RULESDIR := $(PREFIX)/share/fusiondbg/rules
PKGS     := ncursesw yaml-0.1 libcgraph libgvc libprotobuf-c
ONNX_PROTO ?= /usr/include/onnx/onnx.proto
PYTHON   ?= /usr/bin/python3

# Debian packages the build and the tests need; `deps` installs the missing ones.
DEB_PKGS := build-essential pkg-config libncurses-dev libyaml-dev libgraphviz-dev graphviz \
            protobuf-c-compiler libprotobuf-c-dev libonnx-dev libcmocka-dev python3-onnx tmux time \
            groff-base bsdextrautils python3-yaml
DEB_FUZZ     := clang libclang-rt-14-dev
DEB_VALGRIND := valgrind
# node and npm may come from elsewhere (nodesource): a command on PATH is enough
DEB_NODE     := nodejs npm
# make bench exports a real ViT-B/16 (tests/bench/gen_vit.py) with these
DEB_TORCH    := python3-torch python3-torchvision
ORT_VERSION  := 1.30.0
NODE_DIR     := $(BUILD)/node

# every core unless told (-jN on the command line wins)
ifeq ($(filter -j% j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Wno-unused-parameter -MMD -MP -pthread
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CPPFLAGS += -Isrc -I$(BUILD)/gen

GEN_C    := $(BUILD)/gen/onnx.pb-c.c
GEN_H    := $(BUILD)/gen/onnx.pb-c.h
CORE_SRC := $(sort $(wildcard src/*/*.c))
CLI_SRC  := $(sort $(wildcard cli/*.c))
UI_SRC   := $(sort $(wildcard ui/*.c))
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))

CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/onnx.pb-c.o
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
UI_OBJ   := $(UI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
CASE_FILTER := $(BUILD)/tests/unit/case_filter.o

LIBCORE  := $(BUILD)/libfusiondbg.a
PROGRAM  := $(BUILD)/fusiondbg
SAMPLE   := samples/conv_add_silu.onnx

.PHONY: all deps run check install uninstall picture clean compile_commands.json
all: $(PROGRAM)

# ---- set-up: install what is missing, say what -----------------------------
# $(call install-missing,PACKAGES,FOR): apt-get installs the PACKAGES that are
# not installed (through sudo when not root), saying which and what FOR.
define install-missing
	$(Q)missing=""; for p in $(1); do \
	  case $$p in nodejs) command -v node >/dev/null && continue;; npm) command -v npm >/dev/null && continue;; esac; \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "fusiondbg: installing missing Debian packages for $(2):$$missing"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null \
	    || { echo "fusiondbg: apt-get install failed for:$$missing" >&2; exit 1; }; \
	fi
	$(Q)mkdir -p $(dir $@) && touch $@
endef

# One apt-get at a time (make runs jobs in parallel, apt takes a lock):
# each set waits for the one before it.
deps: $(BUILD)/.deps-ok
$(BUILD)/.deps-ok: Makefile
	$(call install-missing,$(DEB_PKGS),the build and the tests)
$(BUILD)/.deps-fuzz: Makefile | $(BUILD)/.deps-ok
	$(call install-missing,$(DEB_FUZZ),make fuzz (clang and libFuzzer))
$(BUILD)/.deps-valgrind: Makefile | $(BUILD)/.deps-ok
	$(call install-missing,$(DEB_VALGRIND),make check-valgrind and make bench (callgrind))
$(BUILD)/.deps-node: Makefile | $(BUILD)/.deps-ok
	$(call install-missing,$(DEB_NODE),onnxruntime-node)
$(BUILD)/.deps-torch: Makefile | $(BUILD)/.deps-valgrind
	$(call install-missing,$(DEB_TORCH),make bench (the real ViT-B/16 export))

# onnxruntime-node, the real compiler the peers compare against (npm, without
# its install scripts; 1.30 and later honour optimizedModelFilePath).
ORT := $(NODE_DIR)/node_modules/onnxruntime-node/package.json
$(ORT): | $(BUILD)/.deps-node
	@echo "fusiondbg: installing onnxruntime-node@$(ORT_VERSION) into $(NODE_DIR) (npm --ignore-scripts)"
	$(Q)mkdir -p $(NODE_DIR) && cd $(NODE_DIR) && \
	  { [ -f package.json ] || echo '{"name": "fusiondbg-peers", "private": true}' >package.json; } && \
	  npm install --ignore-scripts --no-audit --no-fund --loglevel=error onnxruntime-node@$(ORT_VERSION) >/dev/null

# What the build bakes in: the version and where the installed rules live.
# Rewritten only when a value changes, so a new PREFIX rebuilds what uses it.
CONFIG_H := $(BUILD)/gen/config.h
$(CONFIG_H): FORCE
	$(Q)mkdir -p $(dir $@) && printf '#define FUSIONDBG_VERSION "%s"\n#define FUSIONDBG_RULES_DIR "%s"\n' \
	  '$(VERSION)' '$(RULESDIR)' >$@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@; }
.PHONY: FORCE
FORCE:

# ---- generated ONNX code (never committed) ---------------------------------
# The system's onnx.proto comes with libonnx-dev: the package step makes it,
# so make must not look for it before that step has run.
$(ONNX_PROTO): | $(BUILD)/.deps-ok ;
$(GEN_C) $(GEN_H) &: $(ONNX_PROTO) | $(BUILD)/.deps-ok
	@echo "  PROTOC-C onnx.proto"
	$(Q)mkdir -p $(BUILD)/gen && cp $(ONNX_PROTO) $(BUILD)/gen/onnx.proto && \
	  cd $(BUILD)/gen && protoc-c --c_out=. onnx.proto

$(BUILD)/gen/onnx.pb-c.o: $(GEN_C)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -w $(PKG_CFLAGS) -c $< -o $@

# every object waits for the generated headers and the packages
$(BUILD)/%.o: %.c | $(GEN_H) $(CONFIG_H) $(BUILD)/.deps-ok
	@echo "  CC      $<"
	$(Q)mkdir -p $(dir $@) && $(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(LIBCORE): $(CORE_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(PROGRAM): $(CLI_OBJ) $(UI_OBJ) $(LIBCORE)
	@echo "  LINK    $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(UI_OBJ) $(LIBCORE) $(PKG_LIBS) -lm

# keep the test objects: make would delete them as intermediates and then not
# see that a test binary is older than the header its source includes
.SECONDARY: $(TEST_SRC:%.c=$(BUILD)/%.o) $(CASE_FILTER)
# the tests reach the curses-free parts of the front ends too
$(BUILD)/tests/unit/%.o: CPPFLAGS += -Iui -Icli
# ui/view_state.c is the TUI's logic without curses, tested on its own
$(BUILD)/tests/test_view_state: $(BUILD)/ui/view_state.o
# tests/unit/case_filter.c: CASE=GLOB runs only the cmocka cases it names
$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(CASE_FILTER) $(LIBCORE)
	@echo "  LINK    $@"
	$(Q)mkdir -p $(dir $@) && $(CC) $(CFLAGS) -Wl,--wrap=_cmocka_run_group_tests -o $@ $(filter %.o,$^) $(LIBCORE) \
	  $(PKG_LIBS) $(shell pkg-config --libs cmocka) -lm

# ---- use ---------------------------------------------------------------------
# The TUI on a terminal; without one (a script, CI) the same facts as text.
run: $(PROGRAM)
	$(Q)if [ -t 0 ] && [ -t 1 ]; then \
	  $(PROGRAM) $(SAMPLE) -r rules -r samples/rules; \
	else \
	  $(PROGRAM) info $(SAMPLE) && $(PROGRAM) match $(SAMPLE) -r rules -r samples/rules; \
	fi

# ---- tests -------------------------------------------------------------------
# make check T=PATTERN runs only the tests whose name contains PATTERN; CASE=GLOB
# only the cmocka cases and TUI scripts it names; UPDATE=1 rewrites what they
# compare with; JOBS=N runs N tests at once (default: one per core).
# tests/peer and test_compare compare with onnxruntime-node: plain `make check`
# and `make check-peer` (those tests alone) install it, `make check T=...` does
# not (a test it selects that needs onnxruntime-node is then skipped). Both
# end with how long they took since make started, the build included.
.PHONY: check-peer
CHECK_START := $(shell date +%s)
RUN_TESTS = FUSIONDBG=$(PROGRAM) BUILD=$(BUILD) PYTHON=$(PYTHON) NODE_DIR=$(NODE_DIR) tests/run-all
define took
s=$$(( $$(date +%s) - $(CHECK_START) )); echo "make $@ took $$((s / 60))m$$((s % 60))s"
endef
check: $(PROGRAM) $(TEST_BIN) $(if $(T),,$(ORT))
	$(Q)$(RUN_TESTS) $(T); rc=$$?; $(took); exit $$rc
check-peer: $(PROGRAM) $(ORT)
	$(Q)$(RUN_TESTS) --peer $(T); rc=$$?; $(took); exit $$rc

# ---- install -------------------------------------------------------------------
install: $(PROGRAM)
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(RULESDIR)
	$(Q)install -m 755 $(PROGRAM) $(DESTDIR)$(BINDIR)/fusiondbg
	$(Q)install -m 644 man/fusiondbg.1 $(DESTDIR)$(MANDIR)/man1/fusiondbg.1
	$(Q)install -m 644 man/fusiondbg-rules.5 $(DESTDIR)$(MANDIR)/man5/fusiondbg-rules.5
	$(Q)cd rules && find . -type d -exec install -d $(DESTDIR)$(RULESDIR)/{} \; && \
	  find . -type f \( -name '*.yaml' -o -name '*.yml' \) -exec install -m 644 {} $(DESTDIR)$(RULESDIR)/{} \;
	@echo "installed fusiondbg $(VERSION) in $(DESTDIR)$(PREFIX) (rules in $(DESTDIR)$(RULESDIR))"

uninstall:
	$(Q)rm -f $(DESTDIR)$(BINDIR)/fusiondbg $(DESTDIR)$(MANDIR)/man1/fusiondbg.1 $(DESTDIR)$(MANDIR)/man5/fusiondbg-rules.5
	$(Q)rm -rf $(DESTDIR)$(RULESDIR)
	$(Q)rmdir $(DESTDIR)$(PREFIX)/share/fusiondbg 2>/dev/null || true
	@echo "removed fusiondbg from $(DESTDIR)$(PREFIX)"

# ---- the README's picture, drawn by fusiondbg itself from a shipped sample --
PICTURE ?= doc/conv_add_silu.png
picture: $(PROGRAM)
	$(Q)$(PROGRAM) export samples/conv_add_silu.onnx -r rules -o $(PICTURE)

# ---- benchmark (never part of check; tests/bench/run, RESULTS.md) ----------
BENCH_DIR := $(BUILD)/bench
.PHONY: bench
bench: $(PROGRAM) $(BENCH_DIR)/gen_model $(BENCH_DIR)/bench_stages $(ORT) | $(BUILD)/.deps-valgrind $(BUILD)/.deps-torch
	$(Q)BUILD=$(BUILD) PYTHON=$(PYTHON) NODE_DIR=$(NODE_DIR) tests/bench/run

$(BENCH_DIR)/gen_model: tests/bench/gen_model.c $(BUILD)/src/base/arena.o $(BUILD)/gen/onnx.pb-c.o
	@echo "  LINK    $@"
	$(Q)mkdir -p $(dir $@) && $(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -o $@ $^ $(PKG_LIBS)

$(BENCH_DIR)/bench_stages: tests/bench/bench_stages.c $(LIBCORE) | $(GEN_H)
	@echo "  LINK    $@"
	$(Q)mkdir -p $(dir $@) && $(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(LIBCORE) $(PKG_LIBS) -lm

# ---- hardening: fuzzers, sanitizers, valgrind --------------------------
# make fuzz            each libFuzzer harness for FUZZ_SECONDS (clang, in $(BUILD)-fuzz;
#                      new inputs go to $(BUILD)-fuzz/corpus, crashes to $(BUILD)-fuzz/crashers)
# make check-asan      every test on a build with ASan + UBSan ($(BUILD)-asan; gcc's
#                      libasan and libubsan come with build-essential; the one
#                      onnxruntime-node of $(NODE_DIR))
# make check-valgrind  the cmocka binaries and the CLI tests under valgrind
# The committed crashers and seed corpora replay in `make check` through
# tests/fuzz/replay.c linked with each harness (tests/cli/test_fuzz_replay.sh).
FUZZ_HARNESSES := fuzz_onnx fuzz_rules fuzz_pipeline fuzz_edit fuzz_where fuzz_lang fuzz_ge fuzz_cann_record fuzz_cann_switch \
                  fuzz_suggest fuzz_transpose fuzz_switch_write fuzz_compare fuzz_export fuzz_apply fuzz_recovery fuzz_mmap fuzz_memo
FUZZ_SECONDS   ?= 600
FUZZ_JOBS      ?= 2
FUZZ_CC        ?= clang
FUZZ_BUILD     := $(BUILD)-fuzz
FUZZ_SAN       := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
ASAN_FLAGS     := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
REPLAY_BIN     := $(FUZZ_HARNESSES:%=$(BUILD)/fuzz-replay/%)
VALGRIND       ?= valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect --quiet \
                  --suppressions=$(CURDIR)/tests/sanitizers/valgrind.supp

.PHONY: fuzz fuzz-build check-asan check-valgrind
check: $(REPLAY_BIN)

$(BUILD)/fuzz-replay/%: tests/fuzz/%.c tests/fuzz/replay.c tests/fuzz/fuzz_file.h $(LIBCORE) | $(GEN_H)
	@echo "  LINK    $@"
	$(Q)mkdir -p $(dir $@) && $(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< tests/fuzz/replay.c $(LIBCORE) $(PKG_LIBS) -lm

fuzz-build: | $(BUILD)/.deps-ok $(BUILD)/.deps-fuzz
	$(Q)CFLAGS="-O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link" $(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) $(FUZZ_BUILD)/libfusiondbg.a
	$(Q)for h in $(FUZZ_HARNESSES); do \
	  echo "  LINK    $(FUZZ_BUILD)/$$h"; \
	  $(FUZZ_CC) -Isrc -I$(FUZZ_BUILD)/gen -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer $(PKG_CFLAGS) \
	    -o $(FUZZ_BUILD)/$$h tests/fuzz/$$h.c $(FUZZ_BUILD)/libfusiondbg.a $(PKG_LIBS) -lm || exit 1; \
	done

# two at a time on a 2-core machine; each run logs to $(FUZZ_BUILD)/<harness>.log; Graphviz's
# own caches (fuzz_export lays pages out) are the leaks tests/sanitizers/lsan.supp lists
fuzz: fuzz-build
	$(Q)printf '%s\n' $(FUZZ_HARNESSES) | xargs -P $(FUZZ_JOBS) -I{} sh -c '\
	  mkdir -p $(FUZZ_BUILD)/corpus/{} $(FUZZ_BUILD)/crashers/{}; \
	  echo "  FUZZ    {} for $(FUZZ_SECONDS) s (log: $(FUZZ_BUILD)/{}.log)"; \
	  LSAN_OPTIONS=$${LSAN_OPTIONS:-suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0} \
	  $(FUZZ_BUILD)/{} -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/crashers/{}/ $(FUZZ_BUILD)/corpus/{} tests/fuzz/corpus/{} \
	    >$(FUZZ_BUILD)/{}.log 2>&1; rc=$$?; \
	  grep -E "^stat::number_of_executed_units|^stat::peak_rss" $(FUZZ_BUILD)/{}.log | sed "s/^/  {} /"; \
	  exit $$rc'

# The leak suppressions are also compiled into every binary
# (__lsan_default_suppressions), since some tests run the program under env -i.
ASAN_SUPP_O := $(BUILD)-asan/lsan_default.o
check-asan: | $(BUILD)/.deps-ok
	$(Q)mkdir -p $(BUILD)-asan && { echo 'const char *__lsan_default_suppressions(void);'; \
	  echo 'const char *__lsan_default_suppressions(void) { return ""'; \
	  sed -n 's/^\(leak:.*\)$$/"\1\\n"/p' tests/sanitizers/lsan.supp; echo '; }'; } >$(BUILD)-asan/lsan_default.c && \
	  $(CC) -c -o $(ASAN_SUPP_O) $(BUILD)-asan/lsan_default.c
	$(Q)CFLAGS="$(ASAN_FLAGS)" ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
	  LSAN_OPTIONS=$${LSAN_OPTIONS:-suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0} \
	  UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} FUSIONDBG_SANITIZED=1 \
	  $(MAKE) --no-print-directory BUILD=$(BUILD)-asan NODE_DIR=$(NODE_DIR) PKG_LIBS="$(PKG_LIBS) $(abspath $(ASAN_SUPP_O))" check

check-valgrind: $(PROGRAM) $(TEST_BIN) $(REPLAY_BIN) | $(BUILD)/.deps-valgrind
	$(Q)FUSIONDBG_WRAPPER="$(VALGRIND)" FUSIONDBG=$(PROGRAM) BUILD=$(BUILD) PYTHON=$(PYTHON) tests/run-all $(T)

compile_commands.json:
	$(MAKE) clean && bear -- $(MAKE)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
