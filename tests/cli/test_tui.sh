#!/usr/bin/env bash
# test_tui.sh — the TUI, headless, tig's way: every tests/tui/NAME.script is a
# key script fed through FUSIONDBG_TEST_SCRIPT in a fixed environment (TERM,
# LINES, COLUMNS, LANG, TZ); each ":save-display NAME-k.screen" it writes is
# compared with tests/tui/expected/NAME-k.screen. A script's header lines say
#   # args: ARGS        the command line after the program (may use $SAMPLES, a copy of samples/, and $ROOT)
#   # setup: CMD        shell run before, in the test's directory
#   # check: CMD        shell run after; must succeed (may use $FUSIONDBG, $EXPECTED)
#   # exit: N           expected exit status (default 0)
#   # models: yes       it opens a shared model ($MODELS): skipped when there are none
# NAME.2.script, when present, runs next in the same directory (reload,
# restore). Each test runs in a fresh directory holding copies of rules/
# (as rules) and samples/rules (as srules), with its own XDG config and state.
# Then: the compiled-in keys equal ui/keys.default, man/keys.inc is what
# --print-keys-roff prints, the first screen is the same under the other TERMs
# and NO_COLOR, and a real terminal run in tmux (keys, SIGTERM → recovery
# file, terminal restored). UPDATE=1 rewrites the expected screens.
# CASE=GLOB runs only the scripts it names (`make check T=test_tui
# CASE=save UPDATE=1`: tests/tui/save.script, its screens rewritten) and
# none of the parts after them; skipped when it names none.
set -u
. "$(dirname "$0")/../lib.sh"
ROOT=$(pwd)
FUSIONDBG=$(cd "$(dirname "$FUSIONDBG")" && pwd)/$(basename "$FUSIONDBG")
export ROOT FUSIONDBG SAMPLES=$ROOT/samples EXPECTED=$ROOT/tests/tui/expected
MODELS=$(cd "$MODELS" 2>/dev/null && pwd || echo "$MODELS")
export MODELS
fail=0
tmpdirs=()
trap 'rm -rf "${tmpdirs[@]}"' EXIT

header() { sed -n "s/^# $2: //p" "$1"; }

run_script() {   # run_script SCRIPT DIR [TERM]
	local script=$1 dir=$2 term=${3:-xterm-256color}
	local args want rc
	args=$(header "$script" args)
	want=$(header "$script" exit); want=${want:-0}
	(cd "$dir" && header "$script" setup | while IFS= read -r c; do sh -c "$c" || exit 1; done) || {
		echo "FAIL $(basename "$script"): setup failed"; return 1; }
	(cd "$dir" && SAMPLES=$dir/samples && eval "env -i PATH=\"$PATH\" HOME=\"$dir\" TERM=$term LINES=30 COLUMNS=100 LANG=C.UTF-8 \
		LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME=\"$dir/config\" XDG_STATE_HOME=\"$dir/state\" \
		${NO_COLOR_ENV:-} FUSIONDBG_TEST_SCRIPT=\"$script\" \"$FUSIONDBG\" $args" >"$dir/stdout" 2>"$dir/stderr")
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL $(basename "$script"): exit $rc, want $want"; cat "$dir/stderr"; return 1
	fi
	local ok=0
	while IFS= read -r c; do
		(cd "$dir" && FUSIONDBG=$FUSIONDBG sh -c "$c") || { echo "FAIL $(basename "$script"): check failed: $c"; ok=1; }
	done < <(header "$script" check)
	return $ok
}

compare_screens() {   # compare_screens NAME DIR
	local name=$1 dir=$2 ok=0 s
	for s in "$dir"/"$name"-*.screen; do
		[ -e "$s" ] || continue
		sed -i "s|$dir|\$TMP|g" "$s"   # the test directory's name (fixed length, see fresh_dir)
		sed -i "s|$ROOT|\$ROOT|g" "$s"   # the checkout's (a path a recovery prompt shows)
		# the recovery file's name hashes absolute paths, which differ per checkout
		sed -i -E 's/recovery-[0-9a-f]{16}/recovery-XXXXXXXXXXXXXXXX/g' "$s"
		# and the copy of a stale one the process id that kept it
		sed -i -E 's/(recovery-X{16})-[0-9]+\.txt\.old/\1-PID.txt.old/g' "$s"
		local e="$EXPECTED/$(basename "$s")"
		if [ "${UPDATE:-}" = 1 ]; then
			cp "$s" "$e"
		elif [ ! -e "$e" ]; then
			echo "FAIL $name: no expected screen $(basename "$e") (UPDATE=1 writes it)"; ok=1
		elif ! diff -u "$e" "$s"; then
			echo "FAIL $name: $(basename "$s") differs"; ok=1
		fi
	done
	for e in "$EXPECTED"/"$name"-*.screen; do
		[ -e "$e" ] || continue
		[ -e "$dir/$(basename "$e")" ] || { echo "FAIL $name: $(basename "$e") was not written"; ok=1; }
	done
	return $ok
}

fresh_dir() {
	local d
	d=$(mktemp -d /tmp/fdbg-tui.XXXXXX)
	tmpdirs+=("$d")
	cp -r "$ROOT/rules" "$d/rules"
	cp -r "$ROOT/samples/rules" "$d/srules"
	cp -r "$ROOT/samples" "$d/samples"   # paths on screen then have one length in every checkout
	mkdir -p "$d/config" "$d/state"
	echo "$d"
}

n=0
for script in "$ROOT"/tests/tui/*.script; do
	case $script in *.2.script) continue ;; esac
	name=$(basename "$script" .script)
	# shellcheck disable=SC2053   # CASE is a glob
	[[ -z ${CASE:-} || $name == $CASE ]] || continue
	if [ "$(header "$script" models)" = yes ] && ! have_models; then
		echo "skip tui/$name: no models in $MODELS (FUSIONDBG_MODELS)"; continue
	fi
	dir=$(fresh_dir)
	ok=0
	run_script "$script" "$dir" || ok=1
	if [ -e "$ROOT/tests/tui/$name.2.script" ]; then
		run_script "$ROOT/tests/tui/$name.2.script" "$dir" || ok=1
	fi
	compare_screens "$name" "$dir" || ok=1
	if [ $ok = 0 ]; then echo "ok   tui/$name"; n=$((n + 1)); else fail=1; fi
done
if [ -n "${CASE:-}" ]; then   # the scripts CASE names: not the keys, the TERMs, the real terminal
	[ $n -gt 0 ] || [ $fail = 1 ] || { echo "skipped: CASE=$CASE names no tests/tui script"; exit $SKIPPED; }
	exit $fail
fi
[ $n -gt 0 ] || { echo "FAIL: no tests/tui/*.script ran"; fail=1; }

# ---- the compiled-in keys are ui/keys.default; the man page's key list is generated
if ! "$FUSIONDBG" --print-default-keys | diff -u "$ROOT/ui/keys.default" -; then
	echo "FAIL: ui/keys_default.c differs from ui/keys.default (sh tests/tui/gen_keys_default.sh)"; fail=1
else
	echo "ok   keys_default.c == keys.default"
fi
if [ -e "$ROOT/man/keys.inc" ]; then
	if ! "$FUSIONDBG" --print-keys-roff | diff -u "$ROOT/man/keys.inc" -; then
		echo "FAIL: man/keys.inc is stale: fusiondbg --print-keys-roff > man/keys.inc"; fail=1
	else
		echo "ok   man/keys.inc == --print-keys-roff"
	fi
fi

# ---- the same first screen under every supported TERM and with NO_COLOR
first=$ROOT/tests/tui/views.script
for term in screen-256color tmux-256color linux xterm-256color:NO_COLOR; do
	dir=$(fresh_dir)
	t=${term%%:*}
	if [ "$term" != "$t" ]; then NO_COLOR_ENV="NO_COLOR=1"; else NO_COLOR_ENV=; fi
	if NO_COLOR_ENV=$NO_COLOR_ENV run_script "$first" "$dir" "$t" && \
	   diff -q "$EXPECTED/views-1.screen" "$dir/views-1.screen" >/dev/null; then
		echo "ok   TERM=$term"
	else
		echo "FAIL: TERM=$term: the first screen differs or the run failed"; fail=1
	fi
done
NO_COLOR_ENV=

# ---- a real terminal: tmux send-keys / capture-pane, SIGTERM writes the recovery file
if command -v tmux >/dev/null && command -v pgrep >/dev/null; then
	dir=$(fresh_dir)
	sock="fdbg-test-$$"
	tm() { tmux -L "$sock" "$@"; }
	tm -f /dev/null new-session -d -x 100 -y 30 -e XDG_STATE_HOME="$dir/state" -e XDG_CONFIG_HOME="$dir/config" \
		-c "$dir" "TERM=tmux-256color LANG=C.UTF-8 $FUSIONDBG $SAMPLES/conv_add_silu.onnx -r rules -r srules; echo EXITED \$?; sleep 30"
	wait_for() {  # wait_for TEXT
		for _ in $(seq 1 100); do
			tm capture-pane -p -t 0 2>/dev/null | grep -q -- "$1" && return 0
			sleep 0.1
		done
		echo "tmux pane:"; tm capture-pane -p -t 0; return 1
	}
	ok=0
	wait_for "Conv_Add_SiLU_Fusion" || ok=1
	tm send-keys -t 0 j j j j j j + ; wait_for "unsaved" || ok=1
	# the pane's shell runs fusiondbg as its child: kill that process by its id
	pid=$(pgrep -P "$(tm display-message -p -t 0 '#{pane_pid}')" | head -1)
	if [ -n "$pid" ]; then kill -TERM "$pid"; else echo "no pid"; ok=1; fi
	wait_for "EXITED 143" || ok=1
	# terminal restored: the alternate screen is gone, the shell's line is back
	tm capture-pane -p -t 0 | grep -q "Conv_Add_SiLU_Fusion" && { echo "screen not restored"; ok=1; }
	tm capture-pane -p -t 0 | grep -q "written to" || { echo "no recovery note on stderr"; ok=1; }
	ls "$dir"/state/fusiondbg/recovery-*.txt >/dev/null 2>&1 || { echo "no recovery file"; ok=1; }
	grep -q "priority=150" "$dir"/state/fusiondbg/recovery-*.txt 2>/dev/null || { echo "recovery file lacks the edit"; ok=1; }
	tm kill-server 2>/dev/null
	if [ $ok = 0 ]; then echo "ok   tmux: real terminal, SIGTERM → recovery file, terminal restored"; else
		echo "FAIL: tmux run"; fail=1; fi

	# TERM=xterm-256color inside tmux: tmux sends its own Home / End / Delete
	# (ESC [ 1 ~, ESC [ 4 ~, ESC [ 3 ~), which xterm's terminfo does not list;
	# each must still be one key (not Esc [ 1 ~: "~ is not bound")
	dir=$(fresh_dir)
	tm -f /dev/null new-session -d -x 100 -y 30 -e XDG_STATE_HOME="$dir/state" -e XDG_CONFIG_HOME="$dir/config" \
		-c "$dir" "TERM=xterm-256color LANG=C.UTF-8 $FUSIONDBG $SAMPLES/conv_add_silu.onnx -r rules -r srules; echo EXITED \$?; sleep 30"
	ok=0
	wait_for "Conv_Add_SiLU_Fusion" || ok=1
	tm send-keys -t 0 3 j j j j j; wait_for "#5/#233" || ok=1
	tm send-keys -t 0 Home; wait_for "#0/#233" || ok=1
	tm send-keys -t 0 End; wait_for "#233/#233" || ok=1
	tm capture-pane -p -t 0 | grep -q "is not bound" && { echo "a key sequence read as several keys"; ok=1; }
	tm send-keys -t 0 1 b B; wait_for "rule Conv_BN_Relu_Fusion" || ok=1
	tm send-keys -t 0 DC; wait_for "breakpoint removed" || ok=1
	tm send-keys -t 0 IC; wait_for "<Ins> is not bound" || ok=1
	tm send-keys -t 0 Q; wait_for "EXITED 0" || ok=1
	tm kill-server 2>/dev/null
	if [ $ok = 0 ]; then echo "ok   tmux, TERM=xterm-256color: Home, End, Delete, Insert are one key each"; else
		echo "FAIL: tmux with TERM=xterm-256color: a key decoded as several"; fail=1; fi
fi

exit $fail
