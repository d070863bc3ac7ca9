#!/usr/bin/env bash
# test_rounds.sh — rules over rules (fusiondbg-rules(5), ROUNDS AND PASSES):
#  1. a rule set without rules that name a target_op runs one round: no round
#     in the text or the trace (the goldens hold the rest);
#  2. the two-round pipeline in JSON: fusions carry round, members and
#     original nodes; the rounds object; trace attempts carry round;
#  3. why across rounds: fired in round 2 on the node round 1 made (and how it
#     was made); not fired, claimed by a rule of round 1, no later round;
#     "in round k" after what the rule is on, whatever the rule's name says;
#  4. a set that never settles: --max-rounds bounds it, the rules that keep
#     firing are named (text, stderr, JSON); apply still writes a valid model;
#  5. passes: pass keys order the rules; a pass list file does, and leaves out
#     the rules it does not name; its errors at line and column;
#  6. what-if over rounds: a target_op the op table knows (Conv) feeds a
#     Conv2d rule in the next round, and --diff compares the final fusions;
#  7. check --strict knows fused op types.
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
M2=samples/rounds_conv_bn_relu.onnx
R2=samples/rounds/two_rounds.yaml

# 1. one round, as before
out=$("$FUSIONDBG" match samples/conv_bn_relu.onnx -r rules -r samples/rules --trace)
grep -qi "round" <<<"$out" && bad "a rule set without round-dependent rules shows rounds: $(grep -i round <<<"$out" | head -2)"
"$FUSIONDBG" match samples/conv_bn_relu.onnx -r rules --format json >"$tmp/one.json"
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["rounds"]; assert r["count"] == 1 and r["settled"] and all(f["round"] == 1 and f["members"] == f["nodes"] and f["final"] for f in d["fusions"]), r' "$tmp/one.json" \
	|| bad "one round: JSON rounds"

# 2. two rounds in JSON
"$FUSIONDBG" match "$M2" -r "$R2" --format json --trace >"$tmp/two.json"
"$PYTHON" - "$tmp/two.json" <<'EOF' || bad "two rounds: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rounds"]["count"] == 2 and d["rounds"]["settled"] and d["rounds"]["keep_firing"] == [], d["rounds"]
f = [x for x in d["fusions"] if x["round"] == 2]
assert len(f) == 1 and f[0]["rule"] == "ConvBN_Relu_Fusion" and f[0]["nodes"] == ["conv1", "bn1", "relu1"] \
    and f[0]["members"] == ["fused_conv1", "relu1"] and f[0]["final"], f
# the round-1 Conv+BN that round 2 fused again is not final; the others are
r1 = {tuple(x["nodes"]): x["final"] for x in d["fusions"] if x["round"] == 1}
assert r1 == {("conv1", "bn1"): False, ("conv2", "bn2"): True, ("conv3", "relu3"): True}, r1
rules = {r["name"]: r for r in d["rules"]}
assert rules["ConvBN_Relu_Fusion"]["fired_in_rounds"] == [2] and rules["Conv_BN_Fusion"]["fired_in_rounds"] == [1]
assert rules["ConvBN_Relu_Fusion"]["effect_times"] == 1 and rules["Conv_BN_Fusion"]["effect_times"] == 2
assert {a["round"] for a in d["trace"]["attempts"]} == {1, 2}
assert any(r["round"] == 2 and r["anchor"] == "fused_conv2" for r in d["rejections"]), d["rejections"]
EOF

# 3. why across rounds
expect_why() {   # EXIT NODE RULE FRAGMENT...
	local want=$1 node=$2 rule=$3; shift 3
	local out rc
	out=$("$FUSIONDBG" why "$M2" -r "${R:-$R2}" --rule "$rule" --node "$node" 2>&1); rc=$?
	[ "$rc" = "$want" ] || { bad "why $rule $node: exit $rc, want $want"; return; }
	local first=${out%%$'\n'*}
	for f in "$@"; do
		case "$first" in *"$f"*) ;; *) bad "why $rule $node lacks '$f': $first"; return;; esac
	done
	echo "ok: $first"
}
expect_why 0 relu1 ConvBN_Relu_Fusion "fires on relu1 (Relu) in round 2" "fused_conv1 (ConvBN) was made from conv1, bn1 by Conv_BN_Fusion in round 1"
expect_why 0 bn1 ConvBN_Relu_Fusion "fires on fused_conv1 (ConvBN) in round 2" "fused_conv1 (ConvBN)"
expect_why 1 relu3 ConvBN_Relu_Fusion "did not fire on relu3 (Relu) in round 1" "in round 1 relu3 was fused by Conv_Relu_Fusion (into ConvRelu)" "no later round offered it again"
expect_why 1 conv2 ConvBN_Relu_Fusion "did not fire on fused_conv2 (ConvBN) in round 2" "op1 Relu type: expected Relu, actual ConvRelu" "fused_conv2 (ConvBN) was made from conv2, bn2 by Conv_BN_Fusion in round 1"
# the round is written with the line, after what the rule is on: a rule
# name holding the verbs of a why line leaves it where it belongs
sed 's/^name: "ConvBN_Relu_Fusion"/name: "ConvBN fires, Relu did not fire: did not run"/' "$R2" >"$tmp/verbs.yaml"
grep -q "did not run" "$tmp/verbs.yaml" || bad "no rule renamed in $tmp/verbs.yaml"
R=$tmp/verbs.yaml expect_why 0 relu1 "ConvBN fires, Relu did not fire: did not run" \
	"why: ConvBN fires, Relu did not fire: did not run fires on relu1 (Relu) in round 2: part of the fusion at"
R=$tmp/verbs.yaml expect_why 1 conv2 "ConvBN fires, Relu did not fire: did not run" \
	"why: ConvBN fires, Relu did not fire: did not run did not fire on fused_conv2 (ConvBN) in round 2: op1 Relu type"
# a node claimed in round 1 by another rule, for a rule no later round runs
cat >"$tmp/bn_relu.yaml" <<'EOF'
name: BN_Relu_Low
priority: 50
match:
  ops:
    - type: BatchNorm
    - type: Relu
rewrite:
  target_op: BNRelu
EOF
R="$R2 -r $tmp/bn_relu.yaml"
out=$("$FUSIONDBG" why "$M2" -r "$R2" -r "$tmp/bn_relu.yaml" --rule BN_Relu_Low --node bn1); rc=$?
[ "$rc" = 1 ] || bad "why BN_Relu_Low bn1: exit $rc"
first=${out%%$'\n'*}
case "$first" in *"did not fire on bn1"*" in round 1"*"claimed by Conv_BN_Fusion"*"no later round ran the rule"*) echo "ok: $first" ;;
*) bad "why BN_Relu_Low bn1: $first" ;; esac
unset R
out=$("$FUSIONDBG" why "$M2" -r "$R2" --rule ConvBN_Relu_Fusion)
grep -q "fired 1 time (match_times 1, attempts 2; in round 2)" <<<"$out" || bad "why without --node: $(head -1 <<<"$out")"
grep -q "^\[round 2\] why: ConvBN_Relu_Fusion did not fire on fused_conv2" <<<"$out" || bad "why without --node: the near-miss of round 2"

# 4. never settles
"$FUSIONDBG" match "$M2" -r samples/rounds/never_settles.yaml --max-rounds 3 --format json >"$tmp/ns.json" 2>"$tmp/ns.err"
"$PYTHON" -c 'import json,sys; r=json.load(open(sys.argv[1]))["rounds"]; assert r["count"] == 3 and not r["settled"] and sorted(r["keep_firing"]) == ["Clip_To_Relu", "Relu_To_Clip"] and not r["passes"][0]["settled"], r' "$tmp/ns.json" \
	|| bad "never settles: JSON"
grep -q "warning: not settled: still fired in round 3, the last of 3 allowed (--max-rounds): Relu_To_Clip, Clip_To_Relu keep firing" "$tmp/ns.err" \
	|| bad "never settles: the warning on stderr: $(cat "$tmp/ns.err")"
# a rule whose target_op is its own op type re-fuses its own output every
# round and changes nothing: not settled after the first repeat (round 2),
# the rule named, however many rounds are allowed (10,000 took minutes)
"$PYTHON" - "$tmp/one_relu.onnx" <<'PY' || bad "cannot make the one-node model"
import sys, onnx
from onnx import helper, TensorProto
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
PY
printf 'version: "1.0"\nname: "Relu_Again"\npriority: 100\nmatch:\n  ops:\n    - type: "Relu"\nrewrite:\n  target_op: "Relu"\n' >"$tmp/self.yaml"
"$FUSIONDBG" match "$tmp/one_relu.onnx" -r "$tmp/self.yaml" --max-rounds 10000 --format json >"$tmp/self.json" 2>"$tmp/self.err"; rc=$?
[ $rc = 0 ] || bad "a self-refusing rule: exit $rc: $(cat "$tmp/self.err")"
[ "$(cat "$tmp/self.err")" = "fusiondbg: warning: not settled: round 2 only re-fused what round 1 made (it would repeat up to --max-rounds 10000): Relu_Again keeps re-fusing its own output" ] ||
	bad "a self-refusing rule: the warning: $(cat "$tmp/self.err")"
"$PYTHON" -c 'import json,sys; r=json.load(open(sys.argv[1]))["rounds"]; assert r["count"] == 2 and not r["settled"] and r["keep_firing"] == ["Relu_Again"] and r["max_rounds"] == 10000, r' "$tmp/self.json" \
	|| bad "a self-refusing rule: JSON"
"$FUSIONDBG" apply "$M2" -r samples/rounds/never_settles.yaml --max-rounds 3 -o "$tmp/ns.onnx" >/dev/null 2>&1 || bad "apply of a set that never settles"
"$PYTHON" -c '
import onnx, sys
m = onnx.load(sys.argv[1]); onnx.checker.check_model(m, full_check=True)
n = [x for x in m.graph.node if x.domain == "fusiondbg.fused"]
assert len(n) == 2 and all(x.op_type == "Clip" for x in n), [(x.name, x.op_type) for x in n]
a = {x.name: x for x in n[0].attribute}
assert "relu.clip.fused_nodes" in a and a["relu.clip.fusion_round"].i == 1 and a["fusion_round"].i == 3, sorted(a)' "$tmp/ns.onnx" || bad "never settles: the nested fused nodes"
for v in 0 -1 x 10001; do
	"$FUSIONDBG" match "$M2" -r "$R2" --max-rounds "$v" >/dev/null 2>"$tmp/err" && bad "--max-rounds $v accepted"
	grep -q "max-rounds wants a number from 1 to 10000" "$tmp/err" || bad "--max-rounds $v: $(cat "$tmp/err")"
done

# 5. passes: keys, a file, errors
sed -e 's/^priority: 100$/priority: 300\npass: 2/' -e 's/^priority: 200$/priority: 200\npass: 1/' -e 's/^priority: 150$/priority: 150\npass: 1/' "$R2" >"$tmp/keys.yaml"
out=$("$FUSIONDBG" match "$M2" -r "$tmp/keys.yaml")
grep -q "^  pass 1: Conv_BN_Fusion, Conv_Relu_Fusion — round 1$" <<<"$out" && grep -q "^  pass 2: ConvBN_Relu_Fusion — round 2$" <<<"$out" \
	|| bad "pass keys: $(sed -n 2,5p <<<"$out")"
grep -q "4 fusions in 2 rounds" <<<"$out" || bad "pass keys: the highest priority waits for its pass"
"$FUSIONDBG" check --strict "$tmp/keys.yaml" >/dev/null 2>&1 || bad "pass keys: not clean under check --strict"
printf 'activation: ConvBN_Relu_Fusion\nfold: Conv_BN_Fusion\n' >"$tmp/order.txt"
out=$("$FUSIONDBG" match "$M2" -r "$R2" --passes "$tmp/order.txt")
grep -q "not in any pass (not run): Conv_Relu_Fusion" <<<"$out" || bad "pass file: the rule it leaves out: $out"
grep -q "2 fusions in 2 rounds" <<<"$out" || bad "pass file: activation first fires nothing: $(head -1 <<<"$out")"
out=$("$FUSIONDBG" why "$M2" -r "$R2" --passes "$tmp/order.txt" --rule Conv_Relu_Fusion --node conv3)
grep -q "did not run: the pass list .*order.txt puts it in no pass" <<<"$out" || bad "pass file: why for a rule left out: $out"
pass_error() {   # FILE-TEXT EXPECTED-MESSAGE
	printf '%b' "$1" >"$tmp/p.txt"
	"$FUSIONDBG" match "$M2" -r "$R2" --passes "$tmp/p.txt" >/dev/null 2>"$tmp/err"; local rc=$?
	[ "$rc" = 2 ] || bad "pass list '$1': exit $rc, want 2"
	grep -qF "$2" "$tmp/err" || bad "pass list '$1': $(cat "$tmp/err"), want '$2'"
}
pass_error 'fold: Conv_BN_Fusion\n  act: Nope\n' "p.txt:2:8: error: pass list: no rule is named 'Nope'"
pass_error 'Conv_BN_Fusion, Conv_Relu_Fusion\n# again\nConv_BN_Fusion\n' "p.txt:3:1: error: pass list: rule 'Conv_BN_Fusion' is already in the pass of line 1"
pass_error 'empty:\n' "p.txt:1:1: error: pass list: the pass 'empty' names no rule"
pass_error '# nothing\n\n' "p.txt: error: pass list: no pass in the file"
pass_error 'a\0b\n' "p.txt:1:1: error: pass list: a NUL byte: not a text file"
"$FUSIONDBG" match "$M2" -r "$R2" --passes "$tmp/none.txt" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] || bad "a missing pass list: exit $rc, $(cat "$tmp/err")"

# 6. what-if over rounds
out=$("$FUSIONDBG" match "$M2" -r "$R2" --set Conv_BN_Fusion.rewrite.target_op=Conv --diff)
grep -q "~ ConvBN_Relu_Fusion \[conv1 bn1 relu1\] -> Conv_Relu_Fusion \[conv1 bn1 relu1\]" <<<"$out" \
	|| bad "target_op Conv: the diff of the final fusions: $(grep -A3 '^diff' <<<"$out")"
grep -q "Conv_Relu_Fusion: fused_conv1 (Conv of conv1, bn1), relu1 -> ConvRelu" <<<"$out" || bad "target_op Conv: round 2"
"$FUSIONDBG" match "$M2" -r "$R2" --set ConvBN_Relu_Fusion.match.ops.0.type=ConvRelu >/dev/null 2>"$tmp/err" \
	|| bad "a what-if to a fused op type is refused: $(cat "$tmp/err")"
"$FUSIONDBG" match "$M2" -r "$R2" --set ConvBN_Relu_Fusion.match.ops.0.type=ConvRelx >/dev/null 2>"$tmp/err" \
	&& bad "a what-if to an unknown op type is taken"

# 8. memory and pictures of the graph after every round
out=$("$FUSIONDBG" mem samples/rounds_residual.onnx -r samples/rounds/three_rounds.yaml)
grep -q "^fusions: 2 " <<<"$out" && grep -q "ConvBNAdd_Relu_Fusion @ conv1 (4 nodes) -> ConvBNAddRelu" <<<"$out" \
	|| bad "mem over rounds: the final fusions: $(head -3 <<<"$out")"
grep -q "peak 192 KiB -> 128 KiB" <<<"$out" || bad "mem over rounds: the peak after every round: $(grep peak <<<"$out")"
"$FUSIONDBG" match samples/rounds_residual.onnx -r samples/rounds/three_rounds.yaml --format json | "$PYTHON" -c '
import json, sys
d = json.load(sys.stdin)
assert d["memory"]["peak_after_bytes"] == 131072, d["memory"]' || bad "match JSON memory: the peak after every round"
"$FUSIONDBG" export samples/rounds_residual.onnx -r samples/rounds/three_rounds.yaml -o "$tmp/r.dot" >/dev/null || bad "export over rounds"
[ "$(grep -c '^\s*subgraph cluster_' "$tmp/r.dot")" = 2 ] || bad "export over rounds: two clusters of four nodes"

# 7. the lint knows fused op types
for f in samples/rounds/*.yaml; do
	"$FUSIONDBG" check --strict "$f" >/dev/null 2>"$tmp/err" || bad "check --strict $f: $(cat "$tmp/err")"
done
"$FUSIONDBG" check --strict --verbose "$R2" 2>&1 | grep -q "'ConvBN' is the fused op of rule 'Conv_BN_Fusion'" || bad "check --verbose: the fused op's note"
[ "$fail" = 0 ] && echo "rounds: all checks passed"
exit "$fail"
