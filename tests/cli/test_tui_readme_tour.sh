#!/usr/bin/env bash
# test_tui_readme_tour.sh — the README's "Five minutes with fusiondbg" saves
# an edit (step 5): it must save into a copy the tour makes first, never into
# a tracked file (a saved sample then fails the tests that read it). The
# README's own commands are run, with the copy's directory moved into a
# scratch directory: the copy, the TUI opened as step 1 says with step 2-5's
# keys, and the save must land in the copy with the shipped sample
# untouched. (tests/tui/tour.script checks each step's screen.)
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tour=$(sed -n '/^## Five minutes with fusiondbg/,/^## /p' README.md | tr '\n' ' ')
copy=$(grep -o '`mkdir -p [^`]* && cp samples/rules/\*\.yaml [^`]*`' <<<"$tour" | head -1 | tr -d '`')
open=$(grep -o '`build/fusiondbg samples/conv_add_silu\.onnx -r [^`]*`' <<<"$tour" | head -1 | tr -d '`')
save=$(grep -o '5\. \*\*Save\*\*: `s` writes [^`]*`[^`]*\.yaml`' <<<"$tour" | grep -o '`[^`]*\.yaml`$' | tr -d '`')
[ -n "$copy" ] || bad "the tour does not start by copying samples/rules (mkdir -p DIR && cp samples/rules/*.yaml DIR/)"
[ -n "$open" ] || bad "no step 1 command (build/fusiondbg samples/conv_add_silu.onnx -r ...)"
[ -n "$save" ] || bad "step 5 names no file it saves into"
[ $fail = 0 ] || exit 1

dir=${copy#mkdir -p }
dir=${dir%% *}
case "$save" in
"$dir"/*) ;;
*) bad "step 5 saves into $save, not into the copy $dir"; exit 1 ;;
esac
if git ls-files --error-unmatch "$save" >/dev/null 2>&1; then
	bad "step 5 saves into $save, a tracked file"; exit 1
fi
case " $open " in
*" -r $dir "*) ;;
*) bad "step 1 does not open the copy $dir: $open"; exit 1 ;;
esac

# the README's commands with the copy in the scratch directory
scratch=$tmp/copy
eval "${copy//$dir/$scratch}" || bad "the copy command failed: $copy"
cat >"$tmp/keys" <<'EOF'
2
w
jjjjjjj<Enter>
++
s
EOF
before=$(git status --porcelain -- samples rules 2>/dev/null)
cmd=${open//$dir/$scratch}
cmd=${cmd/build\/fusiondbg/$FUSIONDBG}
env -i PATH="$PATH" HOME="$tmp" TERM=xterm-256color LINES=30 COLUMNS=100 LANG=C.UTF-8 LC_ALL=C.UTF-8 \
	XDG_CONFIG_HOME="$tmp/config" XDG_STATE_HOME="$tmp/state" FUSIONDBG_TEST_SCRIPT="$tmp/keys" \
	$cmd >"$tmp/out" 2>&1 || { bad "step 1's command exited $?"; cat "$tmp/out"; }
saved=${save//$dir/$scratch}
grep -q '^priority: 160' "$saved" || bad "step 5 did not save priority 160 into the copy ($save)"
[ -e "$saved.orig" ] || bad "step 5 kept no .orig beside the copy"
cmp -s "$saved.orig" "samples/rules/$(basename "$save")" || bad "the .orig is not the shipped file"
[ "$(git status --porcelain -- samples rules 2>/dev/null)" = "$before" ] || bad "the tour changed a shipped file"

[ $fail = 0 ] && echo "ok   README tour: step 5 saves into the copy the tour makes, the samples untouched"
exit $fail
