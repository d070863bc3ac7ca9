#!/usr/bin/env bash
# test_cann_rules.sh — rules/cann's graph passes on the probes of
# tests/data/cann/make_cann_probes.py: per pass, `why` on its probe says
# where it fuses and, for each condition its rule states, where it matched
# and declined (or took effect without a change), against
# tests/golden/cann/probes.txt (UPDATE=1 rewrites it); every condition of
# a probe's cases is there. The same rule file on samples/conv_bn_relu.onnx
# and on tests/data/ge/conv_bn_relu_ub.txt (GE's dump of that network,
# after graph fusion) matches the same Conv and fuses the same Conv + Relu,
# a rule written with ONNX types reading GE's types. compare --with a
# real record names the rule's own condition where effect falls short.
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR FUSIONDBG_CANN_CATALOGUE
make_tmp
P=tests/data/cann
GOLDEN=tests/golden/cann/probes.txt

# probe : the passes its cases are for
probes="conv_batchnorm:ConvBatchnormFusionPass
conv_to_fullyconnection:ConvToFullyConnectionFusionPass
matmul_biasadd:MatMulBiasAddFusionPass
batch_matmul:BatchMatMulFusionPass
batchnorm_bninfer:BatchNormBnInferFusionPass,HostBNFusionPass
avgpool_v2:AvgPoolV2FusionPass
const_to_attr:ConstToAttrPass,ConstToAttrStridedSliceV2Fusion,TransposedUpdateFusionPass
splitv:ZSplitVFusionPass,ZSplitVDFusionPassV2,ZSplitVDFusionPass
conv_concat:ConvConcatFusionPass
realdiv_pow:RealDiv2MulsFusionPass,Pow2SquareFusionPass"
for line in $probes; do
	probe=${line%%:*}
	[ -f "$P/probe_$probe.onnx" ] || bad "$P/probe_$probe.onnx missing (make_cann_probes.py makes it)"
	for rule in $(echo "${line#*:}" | tr ',' ' '); do
		echo "== $probe $rule"
		"$FUSIONDBG" why "$P/probe_$probe.onnx" -r rules/cann --rule "$rule" --limit 0 2>&1 |
			grep -E '^(\[round [0-9]+\] )?why: |fired|never fired|matched' | grep -v '^  '
	done
done >"$tmp/probes.txt"
if [ "${UPDATE:-0}" = 1 ]; then
	mkdir -p "$(dirname "$GOLDEN")"
	cp "$tmp/probes.txt" "$GOLDEN"
	echo "updated $GOLDEN"
else
	diff -u "$GOLDEN" "$tmp/probes.txt" >"$tmp/diff" || bad "why on the probes differs from $GOLDEN:
$(head -40 "$tmp/diff")"
fi

# every case of a probe is decided: the fusing case fires, each refused case
# names the condition (its node's name says which) and is no plain no-match
"$PYTHON" - "$tmp/probes.txt" <<'PY' || bad "a probe case is not where the golden says"
import re, sys
text = open(sys.argv[1]).read()
want = {
    "ConvBatchnormFusionPass": {"two_readers_conv": "took effect without change: op0 Conv outputs",
                                "multi_output_conv": "then declined: op1 BatchNorm outputs",
                                "variable_scale_conv": "then declined: op1 BatchNorm input1"},
    "ConvToFullyConnectionFusionPass": {"kernel_smaller_conv": "then declined: op0 Conv2d where",
                                        "padded_conv": "then declined: op0 Conv2d param pads",
                                        "grouped_conv": "then declined: op0 Conv2d param groups",
                                        "two_readers_conv": "then declined: op0 Conv2d outputs",
                                        "dynamic_conv": "then declined: op0 Conv2d where"},
    "MatMulBiasAddFusionPass": {"two_readers_matmul": "then declined: op0 MatMul outputs",
                                "variable_bias_matmul": "then declined: op1 Add input1",
                                "wide_bias_matmul": "then declined: op1 Add input1"},
    "BatchMatMulFusionPass": {"batch_moved_transpose": "then declined: op0 TransposeD where",
                              "two_readers_transpose": "then declined: op0 TransposeD outputs",
                              "int_transpose": "then declined: op1 MatMul input0"},
    "BatchNormBnInferFusionPass": {"multi_output_bn": "then declined: op0 BatchNorm outputs"},
    "AvgPoolV2FusionPass": {"stride64_pool": "then declined: op0 AvgPool where"},
    "ConstToAttrStridedSliceV2Fusion": {"variable_end_slice": "did not fire on variable_end_slice (Slice): op0 Slice input2"},
    "ZSplitVFusionPass": {"variable_sizes_split": "then declined: op0 Split input1"},
    "ZSplitVDFusionPass": {"ok_split": "took effect without change: op0 SplitVD where"},
    "ConvConcatFusionPass": {"batch_concat": "then declined: op0 Concat param axis",
                             "from_mul_concat": "then declined: op0 Concat input0",
                             "c8_concat": "then declined: op0 Concat where"},
    "RealDiv2MulsFusionPass": {"variable_div": "then declined: op0 Div input1",
                               "by_zero_div": "then declined: op0 Div where",
                               "vector_div": "then declined: op0 Div input1"},
    "Pow2SquareFusionPass": {"cube_pow": "then declined: op0 Pow input1"},
}
ok = True
for rule, cases in want.items():
    block = re.search(r"== \S+ %s\n(.*?)(?=\n== |\Z)" % rule, text, re.S)
    if not block:
        print("no block for", rule); ok = False; continue
    b = block.group(1)
    if not re.search(r"%s fired [1-9]" % rule, b):
        print(rule, "fires nowhere"); ok = False
    for node, words in cases.items():
        if not re.search(r"%s (matched|did not fire on) (fused_)?%s\b.*" % (rule, node) + re.escape(words.split(": ", 1)[-1]), b) \
                or words not in b:
            print(rule, node, "not refused by", repr(words)); ok = False
sys.exit(0 if ok else 1)
PY

# one rule file, the ONNX model and GE's dump of it: the same Conv matched
# and declined by ConvToFullyConnectionFusionPass (ONNX's Conv, GE's Conv2D),
# the same Conv + Relu fused by TbeCommonRules0FusionPass
for m in samples/conv_bn_relu.onnx tests/data/ge/conv_bn_relu_ub.txt; do
	"$FUSIONDBG" match "$m" -r rules/cann --format json >"$tmp/$(basename "$m").json" || [ $? = 1 ] ||
		bad "$m: match failed"
done
"$PYTHON" - "$tmp/conv_bn_relu.onnx.json" "$tmp/conv_bn_relu_ub.txt.json" <<'PY' || bad "the ONNX model and its GE dump differ"
import json, sys
onnx, ge = (json.load(open(f)) for f in sys.argv[1:])
def counts(d, rule):
    r = [x for x in d["rules"] if x["name"] == rule][0]
    return r["match_times"], r["effect_times"]
def fused(d, rule):
    return [set(f["nodes"]) for f in d["fusions"] if f["rule"] == rule]
assert counts(onnx, "ConvToFullyConnectionFusionPass") == counts(ge, "ConvToFullyConnectionFusionPass") == (1, 0)
a, b = fused(onnx, "TbeCommonRules0FusionPass"), fused(ge, "TbeCommonRules0FusionPass")
assert len(a) == len(b) == 1 and {"conv1", "relu1"} <= a[0] and {"conv1", "relu1"} <= b[0], (a, b)
# the dump is after graph fusion: the BatchNorm the ONNX model folds is in its Conv already
assert counts(onnx, "ConvBatchnormFusionPass") == (1, 1) and counts(ge, "ConvBatchnormFusionPass") == (0, 0)
print("ok: conv_bn_relu as ONNX and as GE's dump: the same Conv, the same Conv + Relu")
PY
# compare --with a real record: where the record's effect falls short of its
# match, the rule's own condition says why (no guess), in text and JSON
REC=${FUSIONDBG_CANN:-../shared/cann}/fusion_result/keyed__BlueDarkUP__AIRS-RM-2025.json
if [ -f "$REC" ]; then
	"$FUSIONDBG" compare $P/yolov5s_like.onnx -r rules/cann --with "$REC" >"$tmp/cmp.txt" 2>&1
	for row in "ConvConcatFusionPass +17 / 0 +17 / 0  same .*the rule declines 17 of 17: op0 Concat" \
	           "ConvToFullyConnectionFusionPass +60 / 0 +52 / 0  differs .*the rule declines 52 of 52: op0 Conv2d" \
	           "ZSplitVDFusionPass +3 / 3 +3 / 3  same .*3 of the rule's effects change nothing: op0 SplitVD where" \
	           "ZSplitVDFusionPassV2 +3 / 3 +3 / 3  same"; do
		grep -qE "^  $row" "$tmp/cmp.txt" || bad "compare with AIRS-RM: no row '$row'"
	done
	"$FUSIONDBG" compare $P/yolov5s_like.onnx -r rules/cann --with "$REC" --format json >"$tmp/cmp.json" 2>/dev/null
	"$PYTHON" - "$tmp/cmp.json" <<'PY' || bad "compare's JSON does not say what declined"
import json, sys
p = {x["name"]: x for x in json.load(open(sys.argv[1]))["passes"]}
f = p["ConvConcatFusionPass"]["fusiondbg"]
assert f["declined"] == 17 and f["unchanged"] == 0 and "op0 Concat" in f["decided_by"], f
assert p["ZSplitVDFusionPass"]["fusiondbg"]["unchanged"] == 3, p["ZSplitVDFusionPass"]
assert "declined" not in p["Pow2SquareFusionPass"]["fusiondbg"]
PY
	echo "ok: compare with AIRS-RM's record names the rules' own conditions"
fi
exit $fail
