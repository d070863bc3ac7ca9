#!/usr/bin/env bash
# test_tui_signals.sh — the TUI on a real terminal (tmux) gives the terminal
# back on every exit path, and never loses an edit:
#   1. SIGINT, SIGTERM, SIGHUP, SIGSEGV (and SIGQUIT, SIGUSR1: any signal
#      whose default is to end the process) sent to the TUI's pid: before, the
#      pane's tty is raw (-icanon -echo) on the alternate screen; after, the
#      tty has icanon and echo again, the alternate screen is left and the
#      cursor is visible (checked with stty -F on the pane's tty and tmux's
#      #{alternate_on} / #{cursor_flag}).
#   2. kill -9 during an edit: the recovery file (written as edits happen)
#      holds the edit; the next start offers it and y brings it back.
#   3. A write-back that fails for real — the rules on a full tmpfs (ENOSPC)
#      and on a read-only mount (EROFS), in a private mount namespace — leaves
#      the rule file byte-identical, no temp file, and the edit in memory
#      (title still says unsaved) and in the recovery file. Skipped with a
#      note when the machine does not allow unshare -m / mount. The same with
#      a file-size limit (ulimit -f: EFBIG, SIGXFSZ must not kill the TUI),
#      which needs no privileges.
# Runs from the repository root (tests/run-all).
set -u
. "$(dirname "$0")/../lib.sh"
ROOT=$(pwd)
FUSIONDBG=$(cd "$(dirname "$FUSIONDBG")" && pwd)/$(basename "$FUSIONDBG")
fail=0
bad() { echo "FAIL: $*"; fail=1; }

if ! command -v tmux >/dev/null || ! command -v pgrep >/dev/null; then
	echo "SKIP: tmux or pgrep missing"; exit 0
fi
# Under valgrind or a sanitizer a TUI start takes seconds: allow for it.
slow=1; [ -n "${FUSIONDBG_WRAPPER:-}${FUSIONDBG_SANITIZED:-}" ] && slow=10
RUN=$FUSIONDBG   # under check-valgrind, tests/run-all made it a wrapper script

tmp=$(mktemp -d /tmp/fdbg-sig.XXXXXX)
sock="fdbg-sig-$$-0" starts=0
tm() { tmux -L "$sock" "$@"; }
cleanup() { tm kill-server 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

fresh() {   # fresh NAME: a directory with rules/ and srules/ copies and its own XDG dirs
	local d="$tmp/$1"
	mkdir -p "$d/state" "$d/config"
	cp -r "$ROOT/rules" "$d/rules"; cp -r "$ROOT/samples/rules" "$d/srules"
	echo "$d"
}

wait_for() {   # wait_for TEXT [TENTHS]: the pane shows TEXT
	local n=${2:-$((100 * slow))}
	for _ in $(seq 1 "$n"); do
		tm capture-pane -p -t 0 2>/dev/null | grep -q -- "$1" && return 0
		sleep 0.1
	done
	echo "  (waited for '$1'; the pane:)"; tm capture-pane -p -t 0 | sed 's/^/  | /'; return 1
}

# start DIR: a fresh tmux server running the TUI in DIR; after it ends the pane
# prints EXITED <status> and stays (sleep) so it can be inspected.
start() {
	local d=$1
	tm kill-server 2>/dev/null
	# a new socket each time: a client can reach a server that is still exiting
	# ("server exited unexpectedly") when the name is reused at once
	starts=$((starts + 1)); sock="fdbg-sig-$$-$starts"
	tm -f /dev/null new-session -d -x 100 -y 30 -e XDG_STATE_HOME="$d/state" -e XDG_CONFIG_HOME="$d/config" \
		-c "$d" "TERM=tmux-256color LANG=C.UTF-8 $RUN $ROOT/samples/conv_add_silu.onnx -r rules -r srules; echo EXITED \$?; sleep 60"
	wait_for "Conv_BN_Relu_Fusion"   # the first row: the restore prompt covers the middle
}

tui_pid() {   # the pane's shell runs fusiondbg as its child
	local p
	p=$(pgrep -P "$(tm display-message -p -t 0 '#{pane_pid}')" | head -1)
	# under valgrind the child is valgrind itself: same pid, fine
	echo "$p"
}

tty_state() {   # "icanon echo" / "-icanon -echo" of the pane's tty
	local t
	t=$(tm display-message -p -t 0 '#{pane_tty}')
	stty -a -F "$t" | tr ' ' '\n' | grep -E '^-?(icanon|echo)$' | tr '\n' ' '
}

# ---- 1. every catchable exit path restores the terminal ---------------------
declare -A want_rc=([INT]=130 [TERM]=143 [HUP]=129 [SEGV]=139 [QUIT]=131 [USR1]=138)
for sig in INT TERM HUP SEGV QUIT USR1; do
	d=$(fresh "sig-$sig")
	ok=0
	start "$d" || { bad "SIG$sig: the TUI did not start"; continue; }
	before=$(tty_state)
	case "$before" in *-icanon*-echo*) ;; *) echo "  SIG$sig: tty before: $before"; ok=1 ;; esac
	[ "$(tm display-message -p -t 0 '#{alternate_on}')" = 1 ] || { echo "  SIG$sig: not on the alternate screen"; ok=1; }
	# an edit, so the exit has something to keep
	tm send-keys -t 0 j j j j j j +; wait_for "unsaved" || ok=1
	pid=$(tui_pid)
	[ -n "$pid" ] || { bad "SIG$sig: no TUI pid"; continue; }
	kill "-$sig" "$pid"
	wait_for "EXITED" || ok=1
	got=$(tm capture-pane -p -t 0 | sed -n 's/.*EXITED \([0-9]*\).*/\1/p' | tail -1)
	[ "$got" = "${want_rc[$sig]}" ] || { echo "  SIG$sig: exit status $got, want ${want_rc[$sig]}"; ok=1; }
	after=$(tty_state)
	case "$after" in *-icanon*|*-echo*) echo "  SIG$sig: tty after: $after (want icanon echo)"; ok=1 ;; esac
	[ "$(tm display-message -p -t 0 '#{alternate_on}')" = 0 ] || { echo "  SIG$sig: alternate screen still on"; ok=1; }
	[ "$(tm display-message -p -t 0 '#{cursor_flag}')" = 1 ] || { echo "  SIG$sig: cursor still hidden"; ok=1; }
	tm capture-pane -p -t 0 | grep -q "Conv_Add_SiLU_Fusion" && { echo "  SIG$sig: the TUI's screen is still shown"; ok=1; }
	grep -qs "priority=150" "$d"/state/fusiondbg/recovery-*.txt || { echo "  SIG$sig: the recovery file lacks the edit"; ok=1; }
	if [ $ok = 0 ]; then echo "ok   SIG$sig: exit ${want_rc[$sig]}, tty '$after', alternate screen left, edit in the recovery file"
	else bad "SIG$sig"; tm capture-pane -p -t 0 | tail -n 5 | sed 's/^/  | /'; fi
done

# ---- 2. kill -9 while editing: the recovery file brings the edit back -------
d=$(fresh kill9)
ok=0
if start "$d"; then
	tm send-keys -t 0 j j j j j j +; wait_for "unsaved" || ok=1
	pid=$(tui_pid)
	kill -9 "$pid"
	wait_for "EXITED 137" || ok=1
	grep -qs "priority=150" "$d"/state/fusiondbg/recovery-*.txt || { echo "  kill -9: no recovery file with the edit"; ok=1; }
	cmp -s "$d/srules/conv_add_allow_outputs.yaml" samples/rules/conv_add_allow_outputs.yaml || { echo "  kill -9: the rule file changed"; ok=1; }
	# SIGKILL cannot be caught: the shell gets a raw tty; a new start on a sane one
	tm kill-server 2>/dev/null
	start "$d" || ok=1
	wait_for "restore these edits" || ok=1
	tm send-keys -t 0 y
	wait_for "unsaved" || { echo "  kill -9: y did not bring the edit back"; ok=1; }
	wait_for "150" || ok=1
	cmp -s "$d/srules/conv_add_allow_outputs.yaml" samples/rules/conv_add_allow_outputs.yaml || { echo "  kill -9: the restore wrote the rule file"; ok=1; }
else
	ok=1
fi
if [ $ok = 0 ]; then echo "ok   kill -9: the recovery file restores the edit on the next start"; else bad "kill -9 recovery"; fi
tm kill-server 2>/dev/null

# ---- 3. a write-back that fails for real: ENOSPC and EROFS -------------------
# The TUI runs headless (FUSIONDBG_TEST_SCRIPT, as in test_tui.sh) inside a
# private mount namespace whose srules/ is a small tmpfs.
write_fail() {   # write_fail full|ro
	local how=$1 d script
	d=$(fresh "wf-$how")
	script="$d/edit.script"
	printf 'jjjjjj\n+\ns\n:save-display %s/after.screen\n' "$d" >"$script"
	unshare -m --propagation private bash -c '
		set -e
		d=$1 how=$2 script=$3 run=$4 root=$5
		mkdir -p "$d/mnt"
		cp -r "$d/srules" "$d/srules.copy"
		mount -t tmpfs -o size=64k tmpfs "$d/srules"
		cp "$d/srules.copy"/* "$d/srules/"
		if [ "$how" = full ]; then
			dd if=/dev/zero of="$d/srules/filler" bs=4k 2>/dev/null || true
		else
			mount -o remount,ro "$d/srules"
		fi
		cd "$d"
		env -i PATH="$PATH" HOME="$d" TERM=xterm-256color LINES=30 COLUMNS=100 LANG=C.UTF-8 LC_ALL=C.UTF-8 \
			XDG_CONFIG_HOME="$d/config" XDG_STATE_HOME="$d/state" FUSIONDBG_TEST_SCRIPT="$script" \
			$run "$root/samples/conv_add_silu.onnx" -r rules -r srules >"$d/stdout" 2>"$d/stderr" || echo "exit $?" >"$d/rc"
		cmp "$d/srules/conv_add_allow_outputs.yaml" "$root/samples/rules/conv_add_allow_outputs.yaml"
		ls -a "$d/srules" >"$d/listing"
	' _ "$d" "$how" "$script" "$RUN" "$ROOT" >"$d/ns.log" 2>&1
	local rc=$?
	if grep -qE "mount: .*(permission denied|not permitted)|unshare: .*(not permitted|Operation)" "$d/ns.log"; then
		echo "SKIP write-back ($how): no private mounts here: $(head -1 "$d/ns.log")"; return 0
	fi
	local ok=0
	[ $rc = 0 ] || { echo "  write-back ($how): the rule file changed or the run failed (rc $rc):"; sed 's/^/  | /' "$d/ns.log"; ok=1; }
	grep -q "tmp" "$d/listing" 2>/dev/null && { echo "  write-back ($how): a temp file was left: $(cat "$d/listing")"; ok=1; }
	grep -q "NOT saved: " "$d/after.screen" 2>/dev/null || { echo "  write-back ($how): no 'NOT saved' message"; ok=1; }
	head -1 "$d/after.screen" 2>/dev/null | grep -q "unsaved" || { echo "  write-back ($how): the edit is not kept in memory"; ok=1; }
	grep -qs "priority=150" "$d"/state/fusiondbg/recovery-*.txt || { echo "  write-back ($how): the recovery file lacks the edit"; ok=1; }
	if [ $ok = 0 ]; then
		echo "ok   write-back ($how): $(tail -n 1 "$d/after.screen" | cut -c1-90)"
	else
		bad "write-back ($how)"; [ -e "$d/after.screen" ] && tail -n 2 "$d/after.screen" | sed 's/^/  | /'
	fi
}
write_fail full
write_fail ro

# ulimit -f 32 (KiB): the recovery file and the screen dump fit, the rule
# file (grown past 64 KiB by a comment) does not
d=$(fresh wf-fsize)
for _ in $(seq 1 1000); do echo "# a long comment line, so the file is larger than the size limit"; done >>"$d/srules/conv_add_allow_outputs.yaml"
cp "$d/srules/conv_add_allow_outputs.yaml" "$d/before.yaml"
printf 'jjjjjj\n+\ns\n:save-display %s/after.screen\n' "$d" >"$d/edit.script"
(cd "$d" && ulimit -f 32 && exec env -i PATH="$PATH" HOME="$d" TERM=xterm-256color LINES=30 COLUMNS=100 \
	LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_CONFIG_HOME="$d/config" XDG_STATE_HOME="$d/state" \
	FUSIONDBG_TEST_SCRIPT="$d/edit.script" $RUN "$ROOT/samples/conv_add_silu.onnx" -r rules -r srules) >"$d/stdout" 2>"$d/stderr"
rc=$?
ok=0
[ $rc = 0 ] || { echo "  write-back (ulimit -f): exit $rc (SIGXFSZ is $((rc - 128)))"; ok=1; }
cmp -s "$d/srules/conv_add_allow_outputs.yaml" "$d/before.yaml" || { echo "  write-back (ulimit -f): the rule file changed"; ok=1; }
ls "$d/srules" | grep -q tmp && { echo "  write-back (ulimit -f): a temp file was left"; ok=1; }
grep -q "NOT saved: " "$d/after.screen" 2>/dev/null || { echo "  write-back (ulimit -f): no 'NOT saved' message"; ok=1; }
head -1 "$d/after.screen" 2>/dev/null | grep -q "unsaved" || { echo "  write-back (ulimit -f): the edit is not kept in memory"; ok=1; }
grep -qs "priority=150" "$d"/state/fusiondbg/recovery-*.txt || { echo "  write-back (ulimit -f): the recovery file lacks the edit"; ok=1; }
if [ $ok = 0 ]; then echo "ok   write-back (ulimit -f): $(tail -n 1 "$d/after.screen" | cut -c1-90)"; else bad "write-back (ulimit -f)"; fi

[ $fail = 0 ] && echo "test_tui_signals: all good"
exit $fail
