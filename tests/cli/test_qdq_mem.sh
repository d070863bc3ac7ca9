#!/usr/bin/env bash
# test_qdq_mem.sh — memory and the pictures of a quantized model:
#  1. sizes by the quantized dtype: a uint8 activation is a quarter of its
#     float one, an int8 weight a quarter of its dequantized output;
#  2. export draws a QDQ fusion's Q and DQ nodes inside its cluster, and
#     marks (amber, "float (not quantized)", a legend row) exactly the ops
#     `why --float` lists; a float model gets no mark;
#  3. mem --baseline FLOAT.onnx (the shared float model quantized in
#     tests/data/qdq): both peaks as each model's own `mem` finds them, their
#     ratio, the steps side by side with no peak between rows; light_resnet50's
#     ratio is 1 because its peak is at a Sum left in float; the memory chart
#     with the same option; the misuses refused.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
ORT=rules/onnxruntime
Q=tests/data/qdq

# 1. sizes by dtype
"$FUSIONDBG" info $Q/qdq_light_resnet50_u8.onnx --tensors --format json >"$tmp/t.json" || bad "info --tensors"
out=$("$PYTHON" - "$tmp/t.json" <<'PY'
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))["tensors"]}
def q(a, b):   # a's bytes are four times b's, same shape, the dtypes as said
    x, y = t[a], t[b]
    assert x["shape"] == y["shape"], (a, b)
    return "%s %s %s %s %.2f" % (x["dtype"], y["dtype"], x["bytes"], y["bytes"], y["bytes"] / x["bytes"])
print(q("r2", "r2_QuantizeLinear_Output"))
print(q("gpu_0/res2_0_branch2b_w_0_bnfolded_DequantizeLinear_Output", "gpu_0/res2_0_branch2b_w_0_bnfolded_quantized"))
PY
)
[ "$out" = "float32 uint8 3211264 802816 0.25
float32 int8 147456 36864 0.25" ] || bad "sizes by dtype: $out"

# 2. clusters hold their Q/DQ; float ops marked as why --float lists them
"$FUSIONDBG" export $Q/qdq_resnet18_blocks_u8.onnx -r $ORT -o "$tmp/r.dot" >/dev/null || bad "export resnet18 u8"
members=$("$PYTHON" - "$tmp/r.dot" <<'PY'
import re, sys
dot = open(sys.argv[1]).read()
for m in re.finditer(r"subgraph (cluster_\d+) \{(.*?)\n\t\}", dot, re.S):
    nodes = re.findall(r"^\t\t([A-Za-z0-9_]+)\t\[label", m.group(2), re.M)
    if "conv_1" in nodes:
        print(" ".join(sorted(nodes)))
PY
)
[ "$members" = "conv_1 relu_2_QuantizeLinear w1_DequantizeLinear w2_DequantizeLinear x_DequantizeLinear" ] \
	|| bad "conv_1's cluster holds: '$members'"
grep -q 'left in float' "$tmp/r.dot" && bad "resnet18 u8 (every op quantized) has float marks"
m=samples/quant/quant_conv_softmax.onnx
"$FUSIONDBG" export $m -r $ORT -o "$tmp/s.dot" >/dev/null || bad "export conv_softmax"
marked=$(grep -B1 -A3 'fillcolor="#fff1c1"' "$tmp/s.dot" | grep -o '^	[a-z0-9_]*	\[' | tr -d '\t[' | sort | tr '\n' ' ')
listed=$("$FUSIONDBG" why $m -r $ORT --float | sed -n 's/^  \([^ ]*\) (.*stayed float.*/\1/p' | sort | tr '\n' ' ')
[ "$marked" = "conv2 " ] && [ "$listed" = "$marked" ] || bad "marked '$marked', why --float lists '$listed'"
grep -q 'float (not quantized)' "$tmp/s.dot" && grep -q '1 op left in float between Q/DQ' "$tmp/s.dot" \
	|| bad "conv2's mark or the legend row is missing"
"$FUSIONDBG" export samples/conv_add_silu.onnx -r rules -o "$tmp/f.dot" >/dev/null 2>&1 || bad "export float sample"
grep -q 'fff1c1\|left in float' "$tmp/f.dot" && bad "a float model has float marks"

# misuses
"$FUSIONDBG" export $m -r $ORT -o "$tmp/x.dot" --baseline $m >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'give --memory-chart FILE too' "$tmp/err" || bad "export --baseline without a chart: exit $rc"
"$FUSIONDBG" mem $m -r $ORT --baseline $m --sweep batch=1,2 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'one at a time' "$tmp/err" || bad "mem --sweep --baseline: exit $rc"
"$FUSIONDBG" mem $m -r $ORT --baseline "$tmp/none.onnx" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || bad "mem --baseline of a missing file: exit $rc"

# 3. against the float models
if have_models; then
	for pair in light_squeezenet:light_squeezenet_u8 light_resnet50:light_resnet50_u8 ultraface_version-RFB-320:ultraface_u8; do
		f=$MODELS/${pair%%:*}.onnx q=$Q/qdq_${pair##*:}.onnx name=${pair%%:*}
		"$FUSIONDBG" mem "$q" -r $ORT --baseline "$f" --format json >"$tmp/c.json" || { bad "mem --baseline $name"; continue; }
		"$FUSIONDBG" mem "$q" -r $ORT --format json >"$tmp/q.json" || bad "mem $q"
		"$FUSIONDBG" mem "$f" -r $ORT --format json >"$tmp/f.json" || bad "mem $f"
		got=$("$PYTHON" - "$tmp/c.json" "$tmp/q.json" "$tmp/f.json" <<'PY'
import json, sys
c, q, f = (json.load(open(p)) for p in sys.argv[1:])
b = c["baseline"]
assert b["compared"], b
assert b["peak_after"] == q["memory"]["peak_after_bytes"], (b["peak_after"], q["memory"]["peak_after_bytes"])
assert b["peak_before"] == q["memory"]["peak_before_bytes"]
assert b["baseline_peak_after"] == f["memory"]["peak_after_bytes"]
assert abs(b["ratio_after"] - b["peak_after"] / b["baseline_peak_after"]) < 1e-4
steps = b["steps"]
assert len([s for s in steps if s["after"] is not None]) == b["steps_aligned"] > 0
assert max(s["baseline_after"] for s in steps) == b["baseline_peak_after"]
assert max(s["after"] for s in steps if s["after"] is not None) == b["peak_after"], "a peak between rows"
print("%.2f" % b["ratio_after"])
PY
)
		case $name:$got in
		light_squeezenet:0.25|ultraface_version-RFB-320:0.23|light_resnet50:1.00) ;;
		*) bad "$name: mem --baseline: $got";;
		esac
	done
	# light_resnet50: the peak does not move because it sits at a Sum left in float
	"$FUSIONDBG" mem $Q/qdq_light_resnet50_u8.onnx -r $ORT >"$tmp/m.txt"
	at=$(sed -n 's/^  after .* at \([^ ]*\) .*/\1/p' "$tmp/m.txt")
	"$FUSIONDBG" why $Q/qdq_light_resnet50_u8.onnx -r $ORT --float --node "$at" >"$tmp/w.txt"
	grep -q "^$at (Sum) stayed float: no rule with QuantizeLinear or DequantizeLinear ops tried it" "$tmp/w.txt" \
		|| bad "resnet50's peak at '$at': $(cat "$tmp/w.txt")"
	# the text: both peaks, the ratio, the rows marked
	"$FUSIONDBG" mem $Q/qdq_light_squeezenet_u8.onnx -r $ORT --baseline $MODELS/light_squeezenet.onnx >"$tmp/c.txt"
	grep -q '^  peak after  fusion  959 KiB here, 3.7 MiB in the baseline (ratio 0.25)$' "$tmp/c.txt" \
		|| bad "the text's peaks: $(grep 'peak after' "$tmp/c.txt")"
	grep -q '<- peak here$' "$tmp/c.txt" && grep -q '<- baseline peak$' "$tmp/c.txt" || bad "peak rows not marked"
	# the chart with the same option
	"$FUSIONDBG" export $Q/qdq_light_squeezenet_u8.onnx -r $ORT --memory-chart "$tmp/c.dot" \
		--baseline $MODELS/light_squeezenet.onnx >/dev/null || bad "export --memory-chart --baseline"
	"$PYTHON" -c 'import sys; print(open(sys.argv[1]).read().replace("\\\n", ""))' "$tmp/c.dot" >"$tmp/c1.dot"   # DOT's long lines joined
	grep -q 'qdq_light_squeezenet_u8.onnx against light_squeezenet.onnx · peak after fusion 959 KiB against 3.7 MiB, ratio 0.25' \
		"$tmp/c1.dot" || bad "the chart's title"
	grep -q 'baseline: peak 3.7 MiB at' "$tmp/c1.dot" && grep -q 'this model: peak 959 KiB at' "$tmp/c1.dot" \
		|| bad "the chart's peak marks"
fi
finish $fail
