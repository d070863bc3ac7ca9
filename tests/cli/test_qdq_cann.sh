#!/usr/bin/env bash
# test_qdq_cann.sh — rules/cann_quant, CANN's quantized patterns in its own
# format: the set passes check --strict; samples/quant is what its script
# writes (byte for byte, the checker passing); on quant_conv_matmul.onnx each
# quantized Conv, Conv + Relu and MatMul is one fusion of its DQ, op and Q,
# and the MatMul fed by an int32 accumulator fails dtype_match (FD-CF01),
# which an edit of allowed_dtypes lifts. The trace is golden in test_match.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
R=rules/cann_quant
m=samples/quant/quant_conv_matmul.onnx
"$FUSIONDBG" check --strict $R >"$tmp/c" 2>&1 || bad "check --strict $R: $(cat "$tmp/c")"
"$PYTHON" samples/quant/make_quant_samples.py "$tmp" || bad "make_quant_samples.py"
for f in samples/quant/*.onnx; do
	cmp -s "$f" "$tmp/$(basename "$f")" || bad "$f is not what make_quant_samples.py writes"
done
"$FUSIONDBG" match $m -r $R --format json >"$tmp/m.json" || bad "match"
got=$("$PYTHON" - "$tmp/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["fusions"]:
    print(f["rule"], " ".join(f["nodes"]))
for r in d["rejections"]:
    if r["code"] == "FD-CF01":
        print("CF01", r["rule"], r["anchor"])
PY
)
[ "$got" = "Quant_Conv_Relu_Fusion conv1_out_DequantizeLinear conv2 relu2 relu2_out_QuantizeLinear
Quant_Conv_Fusion x_DequantizeLinear conv1 conv1_out_QuantizeLinear
Quant_MatMul_Fusion flatten_out_DequantizeLinear matmul1 matmul1_out_QuantizeLinear
CF01 Quant_MatMul_Fusion acc_DequantizeLinear" ] || bad "fusions and rejections: $got"
out=$("$FUSIONDBG" match $m -r $R --set 'Quant_MatMul_Fusion.constraints.0.allowed_dtypes=[int8, uint8, float32, int32]' --diff)
case $out in *"+ Quant_MatMul_Fusion"*"acc_DequantizeLinear"*) ;; *) bad "the edit of allowed_dtypes: $out";; esac
exit $fail
