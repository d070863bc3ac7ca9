#!/usr/bin/env bash
# test_whatif.sh — what-if from the command line: --set RULE.PATH=VALUE
# (priority, enabled, a constraint with units, a param, by type and by index)
# and --diff on mem, apply, match and why; bad edits exit 2 with one line
# naming the edit; several --set apply in order; the rule files are never
# touched; an --set of enabled overrides GRAPH_AUTOFUSION_ENABLE.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R="-r rules -r samples/rules"

expect() {   # FILE TEXT...
	local f=$1; shift
	for t in "$@"; do
		if ! grep -qF -- "$t" "$f"; then
			echo "FAIL: '$t' not in $f:"; sed 's/^/    /' "$f" | head -30; fail=1
		fi
	done
}
before=$(cat rules/*.yaml samples/rules/*.yaml | md5sum)

# priority: BN_Relu above Conv_BN_Relu takes the BN+Relu pairs
"$FUSIONDBG" mem samples/priority_conflict.onnx $R --set BN_Relu_Fusion.priority=500 --diff >"$tmp/p.txt" 2>&1
expect "$tmp/p.txt" "diff against the rules as loaded: 0 gained, 0 lost, 1 changed, 1 unchanged" \
	"  ~ Conv_BN_Relu_Fusion [conv1 bn1 relu1] -> BN_Relu_Fusion [bn1 relu1]  @ conv1" \
	"rule Conv_BN_Relu_Fusion: fired 1 -> 0" "rule BN_Relu_Fusion: priority 100 -> 500 fired 1 -> 2"
# a constraint with units, by type and by index (index wins: applied last)
"$FUSIONDBG" mem samples/conv_bn_relu.onnx -r rules --diff \
	--set Conv_BN_Relu_Fusion.constraints.memory_limit.max_intermediate_size=16KiB >"$tmp/c.txt" 2>&1
expect "$tmp/c.txt" "0 gained, 1 lost, 0 changed" "  - Conv_BN_Relu_Fusion [conv1 bn1 relu1]  @ conv1" \
	"peak memory (main graph): 128 KiB -> 128 KiB"
"$FUSIONDBG" mem samples/conv_bn_relu.onnx -r rules --diff \
	--set Conv_BN_Relu_Fusion.constraints.memory_limit.max_intermediate_size=16KiB \
	--set Conv_BN_Relu_Fusion.constraints.1.max_intermediate_size=64MiB >"$tmp/c2.txt" 2>&1
expect "$tmp/c2.txt" "0 gained, 0 lost, 0 changed, 1 unchanged"
# a param
"$FUSIONDBG" mem samples/conv_bn_relu.onnx -r rules --diff --set Conv_BN_Relu_Fusion.match.ops.1.params.epsilon=0.5 >"$tmp/e.txt" 2>&1
expect "$tmp/e.txt" "0 gained, 1 lost"
# JSON diff
"$FUSIONDBG" mem samples/conv_bn_relu.onnx -r rules --format json --diff --set Conv_BN_Relu_Fusion.enabled=false >"$tmp/j.json" 2>&1
"$PYTHON" - "$tmp/j.json" <<'EOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))["diff"]
ok = d["lost"] == [{"rule": "Conv_BN_Relu_Fusion", "nodes": ["conv1", "bn1", "relu1"]}] and d["gained"] == [] \
    and d["changed"] == [] and d["rules"][0]["enabled_after"] is False and d["peak_before_bytes"] == 131072
if not ok: print("FAIL json diff:", d)
sys.exit(0 if ok else 1)
EOF
# apply with an edit
"$FUSIONDBG" apply samples/priority_conflict.onnx $R -o "$tmp/f.onnx" --set BN_Relu_Fusion.priority=500 >"$tmp/a.txt" 2>&1
expect "$tmp/a.txt" "2 fused nodes"
"$PYTHON" -c "
import onnx, sys
m = onnx.load(sys.argv[1])
rules = sorted({a.s.decode() for n in m.graph.node for a in n.attribute if a.name == 'fusion_rule'})
sys.exit(0 if rules == ['BN_Relu_Fusion'] else 1)" "$tmp/f.onnx" || { echo "FAIL apply --set: fusion rules"; fail=1; }
# match and why take the same edits
"$FUSIONDBG" match samples/priority_conflict.onnx $R --set BN_Relu_Fusion.priority=500 --diff >"$tmp/m.txt" 2>&1
expect "$tmp/m.txt" "BN_Relu_Fusion: bn1, relu1 -> BNReluFusion" "0 gained, 0 lost, 1 changed, 1 unchanged"
"$FUSIONDBG" match samples/priority_conflict.onnx $R --set BN_Relu_Fusion.priority=500 --diff --format json >"$tmp/m.json" 2>&1
"$PYTHON" -c "
import json, sys
d = json.load(open(sys.argv[1]))
ok = len(d['diff']['changed']) == 1 and 'peak_before_bytes' in d['memory'] and 'kernel_peak_bytes' in d['fusions'][0]['memory']
sys.exit(0 if ok else 1)" "$tmp/m.json" || { echo "FAIL match --format json --set --diff"; fail=1; }
"$FUSIONDBG" why samples/priority_conflict.onnx $R --rule Conv_BN_Relu_Fusion --node conv1 >"$tmp/w0.txt" 2>&1
w0=$?
"$FUSIONDBG" why samples/priority_conflict.onnx $R --rule Conv_BN_Relu_Fusion --node conv1 \
	--set BN_Relu_Fusion.priority=500 >"$tmp/w1.txt" 2>&1
w1=$?
if [ $w0 -ne 0 ] || [ $w1 -ne 1 ]; then
	echo "FAIL why --set: exit $w0 without, $w1 with the edit (want 0 and 1)"; fail=1
fi
expect "$tmp/w1.txt" "FD-CL01"

# enabled overrides the environment
GRAPH_AUTOFUSION_ENABLE=0 "$FUSIONDBG" mem samples/conv_add_silu.onnx -r rules >"$tmp/env0.txt" 2>&1
expect "$tmp/env0.txt" "fusions: 0"
GRAPH_AUTOFUSION_ENABLE=0 "$FUSIONDBG" mem samples/conv_add_silu.onnx -r rules \
	--set Conv_Add_SiLU_Fusion.enabled=true >"$tmp/env1.txt" 2>&1
expect "$tmp/env1.txt" "fusions: 3"

# bad edits: exit 2, one line naming the edit
bad() {   # SPEC TEXT
	"$FUSIONDBG" mem samples/conv_bn_relu.onnx -r rules --set "$1" >/dev/null 2>"$tmp/bad.txt"
	local rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/bad.txt")" -ne 1 ] || ! grep -qF -- "$2" "$tmp/bad.txt"; then
		echo "FAIL --set $1: exit $rc, expected 2 and one line with '$2':"; cat "$tmp/bad.txt"; fail=1
	fi
}
bad "Conv_BN_Relu_Fusion.priority=high" "--set Conv_BN_Relu_Fusion.priority=high: priority: expected an integer, got string 'high'"
bad "Conv_BN_Relu_Fusion.constraints.memory_limit.max_output_size=lots" "expected a byte count (33554432, 32MiB, 64MB), got string 'lots'"
bad "Conv_BN_Relu_Fusion.constraints.workspace_size.max_workspace=1MiB" "has no entry of type 'workspace_size'"
bad "Conv_BN_Relu_Fusion.match.ops.2.params.alpha=1" "match.ops[2].params: Relu has no param 'alpha' (Relu has no params"
bad "Conv_BN_Relu_Fusion.match.ops.9.type=Relu" "has 3 item(s); no index 9"
bad "Conv_BN_Relu_Fusion.match.ops.0.type=Conv9d" "unknown op type 'Conv9d'"
bad "Conv_BN_Relu_Fusion.enabled=maybe" "expected true or false"
bad "Conv_BN_Relu_Fusion.bogus=1" "'bogus' is not a field a what-if can change"
bad "No_Such_Rule.priority=1" "no rule named 'No_Such_Rule'"
"$FUSIONDBG" mem samples/conv_bn_relu.onnx -r rules --set Conv_BN_Relu_Fusion.priority >/dev/null 2>"$tmp/bad.txt"
[ $? -eq 2 ] && grep -q "wants RULE.PATH=VALUE" "$tmp/bad.txt" || { echo "FAIL --set without '='"; fail=1; }

after=$(cat rules/*.yaml samples/rules/*.yaml | md5sum)
[ "$before" = "$after" ] || { echo "FAIL: --set changed a rule file"; fail=1; }
exit $fail
