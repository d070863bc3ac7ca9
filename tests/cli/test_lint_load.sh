#!/usr/bin/env bash
# test_lint_load.sh — no silent rule mistakes at run time: every command that
# loads rules (match, why, mem, export, apply) says on stderr what `check`
# would of each rule (unknown op types, params the op does not have, with
# did-you-mean), as warnings, and still runs (exit as usual); a rule with
# an unknown op type is reported as not run (FD-NR03), never as "tried and
# never fired"; the shipped rules load without a word.
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
M=samples/conv_add_silu.onnx
T=tests/data/typo_rules
Y=$T/conv_sigmoid_mul_fusion.yaml
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
want="$Y:13:9: warning: match.ops[0].params: Conv2d has no param 'grops' (did you mean 'groups'? its params: groups, kernel_size, strides, dilations, pads, auto_pad, activation_type)
$Y:14:13: warning: match.ops[1].type: unknown op type 'Sigmiod' (did you mean 'Sigmoid'?)"

# run EXIT NAME ARGS...: exit status EXIT, and exactly the two warnings on stderr
run() {
	local want_rc=$1 name=$2 rc; shift 2
	"$FUSIONDBG" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ "$rc" != "$want_rc" ]; then echo "FAIL $name: exit $rc, want $want_rc"; cat "$tmp/err"; fail=1; return; fi
	if [ "$(grep -v '^wrote\|^fusiondbg: note' "$tmp/err")" != "$want" ]; then
		echo "FAIL $name: stderr:"; diff <(echo "$want") "$tmp/err"; fail=1; return
	fi
	echo "ok   $name warns about Sigmiod and grops"
}
run 0 match match $M -r rules -r $T
run 1 why why $M -r rules -r $T --rule Conv_Sigmoid_Mul_Fusion
run 0 mem mem $M -r rules -r $T
run 0 export export $M -r rules -r $T -o "$tmp/x.dot"
run 0 apply apply $M -r rules -r $T -o "$tmp/x.onnx"
run 0 "match --format json" match $M -r rules -r $T --format json

# the typo rule did not run, and says why
"$FUSIONDBG" why $M -r $T --rule Conv_Sigmoid_Mul_Fusion 2>/dev/null | head -1 >"$tmp/why"
# ("why" answers for the rule as written: the file has the slip, so every load says so)
grep -q "did not run: rule: expected a pattern of known op types, actual op1 type Sigmiod unknown \[FD-NR03\] at $Y:14:13" "$tmp/why" \
	|| { echo "FAIL why on the typo rule:"; cat "$tmp/why"; fail=1; }
# the shipped rules and the samples' load quietly
for r in rules samples/rules; do
	"$FUSIONDBG" match $M -r $r >/dev/null 2>"$tmp/err"
	[ -s "$tmp/err" ] && { echo "FAIL: $r is not quiet:"; cat "$tmp/err"; fail=1; }
done
echo "ok   rules/ and samples/rules load without warnings"
exit $fail
