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

# the language beyond the seed: one edit per extension changes the fusions as it should
L=tests/data/lang
lang_before=$(cat $L/*.yaml | md5sum)
lang() {   # MODEL RULES OUT SPEC... (then expect on OUT)
	local m=$1 r=$2 out=$3; shift 3
	local sets=()
	for spec in "$@"; do sets+=(--set "$spec"); done
	"$FUSIONDBG" match "$L/$m.onnx" -r "$L/$r.yaml" --diff "${sets[@]}" >"$tmp/$out" 2>&1
}
lang conv_fold conv_fold types.txt 'Conv_Fold_Act.match.ops.4.type=[Relu, Sigmoid, Tanh, LeakyRelu, HardSigmoid, Clip, Elu]'
expect "$tmp/types.txt" "1 gained, 0 lost, 0 changed, 5 unchanged" "  + Conv_Fold_Act [conv8 elu8]  @ conv8"
lang conv_fold conv_fold optional.txt 'Conv_Fold_Act.match.ops.1.optional=false'
expect "$tmp/optional.txt" "0 gained, 3 lost" "  - Conv_Fold_Act [conv3 relu3]  @ conv3"
lang conv_fold conv_fold shape.txt 'Conv_Fold_Act.match.ops.3.input_sources.input1.shape=[[C], [C, 1, 1], [1, C, 1, 1]]'
expect "$tmp/shape.txt" "  + Conv_Fold_Act [conv5 add5 relu5]  @ conv5"
lang conv_fold conv_fold position.txt 'Conv_Fold_Act.match.ops.2.input_sources.input1.position=any'
expect "$tmp/position.txt" "  + Conv_Fold_Act [conv4 mul4 relu4]  @ conv4"
lang conv_fold conv_fold optin.txt 'Conv_Fold_Act.match.ops.4.input_sources.input2.source_type=any'
expect "$tmp/optin.txt" "  + Conv_Fold_Act [conv7 clip7]  @ conv7"
lang quickgelu quickgelu same.txt 'QuickGelu.match.ops.1.input_sources.input1.same_as={op: 0, input: 0}'
expect "$tmp/same.txt" "0 gained, 0 lost, 0 changed, 1 unchanged"
lang operands operands operand.txt 'MatMul_Add_Gemm.match.ops.0.input_sources.input0.static=false' \
	'Div_Erf.match.ops.0.input_sources.input1.value=1.5' 'Div_Erf.match.ops.0.input_sources.input0.dtype=[float64]'
expect "$tmp/operand.txt" "1 gained, 2 lost" "  + MatMul_Add_Gemm [mm1 add1]  @ mm1" "  - Div_Erf [div1 erf1]  @ div1"
lang operands operands rank.txt 'MatMul_Add_Gemm.match.ops.1.input_sources.input1.rank=[2]'
expect "$tmp/rank.txt" "  - MatMul_Add_Gemm [mm2 add2]  @ mm2" "FD-NM08"
lang graph_out graph_out outputs.txt 'Add_Tanh.match.ops.1.outputs.graph_output=true'
expect "$tmp/outputs.txt" "  + Add_Tanh [add1 tanh1]  @ add1" "  - Add_Tanh [add2 tanh2]  @ add2"
lang transpose_matmul transpose_matmul where.txt \
	'MatMul_Transpose_Fold.match.ops.0.where="perm[-2:] == [rank - 1, rank - 2] || perm == [0, 2, 1, 3]"'
expect "$tmp/where.txt" "  + MatMul_Transpose_Fold [tattn tattn_mm]  @ tattn"
# a key whose map the op lacks: the map is added with it (outputs: {count: 1})
grep -v "outputs: {count: 1}" "$L/declared_outputs.yaml" >"$tmp/no_outputs.yaml"
"$FUSIONDBG" match "$L/declared_outputs.onnx" -r "$tmp/no_outputs.yaml" --diff \
	--set 'Conv_BN_Inference.match.ops.1.outputs.count=1' >"$tmp/newmap.txt" 2>&1
expect "$tmp/newmap.txt" "0 gained, 1 lost" "  - Conv_BN_Inference [bn2_conv bn2]  @ bn2_conv"
# a peak over unbound dims is its formula, not a number
"$FUSIONDBG" match samples/symbolic_batch.onnx -r rules --diff --set 'Conv_BN_Relu_Fusion.priority=1' >"$tmp/sympeak.txt" 2>&1
expect "$tmp/sympeak.txt" "peak memory (main graph): 768 KiB × batch -> 768 KiB × batch"
lang slice_groups slice_groups siblings_min.txt 'Slices_To_Split.match.ops.0.siblings.min=1'
expect "$tmp/siblings_min.txt" "1 gained, 0 lost, 0 changed, 1 unchanged" "  + Slices_To_Split [single_a]  @ single_a"
lang slice_groups slice_groups siblings_cover.txt 'Slices_To_Split.match.ops.0.siblings.cover=none'
expect "$tmp/siblings_cover.txt" "3 gained, 0 lost" "  + Slices_To_Split [gap_a gap_b]  @ gap_a" \
	"  + Slices_To_Split [overlap_a overlap_b]  @ overlap_a" "  + Slices_To_Split [step_a step_b]  @ step_a"
lang slice_groups slice_groups siblings_max.txt 'Slices_To_Split.match.ops.0.siblings.max=2'
expect "$tmp/siblings_max.txt" "0 gained, 1 lost" "  - Slices_To_Split [cover_a cover_b cover_c]  @ cover_a"
langbad() {   # MODEL SPEC TEXT
	"$FUSIONDBG" match "$L/$1.onnx" -r "$L/$1.yaml" --set "$2" >/dev/null 2>"$tmp/bad.txt"
	local rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/bad.txt")" -ne 1 ] || ! grep -qF -- "$3" "$tmp/bad.txt"; then
		echo "FAIL --set $2: exit $rc, expected 2 and one line with '$3':"; cat "$tmp/bad.txt"; fail=1
	fi
}
langbad transpose_matmul 'MatMul_Transpose_Fold.match.ops.0.where="perm[-1] = 2"' "'=' is not a comparison; write '=='"
langbad conv_fold 'Conv_Fold_Act.match.ops.3.input_sources.input1.rank=-1' "input1.rank: must be >= 0, got -1"
langbad conv_fold 'Conv_Fold_Act.match.ops.3.input_sources.input1.shape=[C, -1]' "expected a dim"
langbad conv_fold 'Conv_Fold_Act.match.ops.4.type=[Relu, Nope]' "unknown op type 'Nope'"
langbad conv_fold 'Conv_Fold_Act.match.ops.2.input_sources.input1.position=first' "expected fixed, either or any, got string 'first'"
langbad conv_fold 'Conv_Fold_Act.match.ops.0.optional=true' "op 0 is the anchor and cannot be optional"
langbad quickgelu 'QuickGelu.match.ops.1.input_sources.input1.same_as={op: 0}' "needs 'op' and 'input'"
langbad quickgelu 'QuickGelu.match.ops.1.input_sources.input1.same_as={op: 0, input: 1}' "Sigmoid (op 0) takes 1 input"
langbad slice_groups 'Slices_To_Split.match.ops.0.siblings.max=300' "siblings.max: 300 is beyond the members a group may have (256)"
langbad slice_groups 'Slices_To_Split.match.ops.0.siblings.cover=rows' "siblings.cover: expected axis or none, got 'rows'"
[ "$lang_before" = "$(cat $L/*.yaml | md5sum)" ] || { echo "FAIL: --set changed a rule file in $L"; fail=1; }

# a size stays a formula: a memory_limit decided for every batch (256 KiB x
# batch over 100 KiB) says the formula in match, why, the trace and JSON,
# never the figure at batch=1
SB="samples/symbolic_batch.onnx -r rules --set Conv_Add_SiLU_Fusion.constraints.memory_limit.max_output_size=100KiB"
want="expected <= 100.0 KiB (102400), actual 256 KiB × batch y [FD-CF03]"
for cmd in "match $SB" "match $SB --trace" "why $SB --rule Conv_Add_SiLU_Fusion"; do
	# shellcheck disable=SC2086
	"$FUSIONDBG" $cmd >"$tmp/sb.txt" 2>&1
	grep -qF "$want" "$tmp/sb.txt" && ! grep -q "actual 256.0 KiB" "$tmp/sb.txt" ||
		{ echo "FAIL ${cmd%% *}: the size as a formula"; grep "FD-CF03" "$tmp/sb.txt" | head -2; fail=1; }
done
# shellcheck disable=SC2086
"$FUSIONDBG" match $SB --trace --format json >"$tmp/sb.json" 2>/dev/null
"$PYTHON" - "$tmp/sb.json" <<'EOF' || fail=1
import json, sys
acts = []
def walk(v):
    if isinstance(v, dict):
        if v.get("code") == "FD-CF03" and "actual" in v:
            acts.append(v.get("actual"))
        for x in v.values(): walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
walk(json.load(open(sys.argv[1])))
ok = acts and all(a == "256 KiB × batch y" for a in acts)
sys.exit(0 if ok else print("FAIL json: the size as a formula:", acts) or 1)
EOF

after=$(cat rules/*.yaml samples/rules/*.yaml | md5sum)
[ "$before" = "$after" ] || { echo "FAIL: --set changed a rule file"; fail=1; }
exit $fail
