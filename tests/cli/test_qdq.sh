#!/usr/bin/env bash
# test_qdq.sh — the feeds condition and rules/onnxruntime's QDQ rules: on a
# uint8 QDQ model each quantized Conv is one QLinearConv of DQ(X), DQ(W),
# DQ(B), Conv and Q (its DQs found as producers of the Conv's inputs); on the
# int8-activation model a Conv whose int8 pairs run as uint8 fires, and `why`
# on one whose input's Q feeds two DQs says that it stays int8 (qdq_dtype); feeds naming a
# later op is a verify error at file:line:col; the trace words a feeds event;
# a Shape of a group's DQ that feeds the group back is no cycle, in the
# match and in the next round's graph.
set -u
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
m=tests/data/qdq/qdq_resnet18_blocks_u8.onnx
"$FUSIONDBG" match "$m" -r rules/onnxruntime --format json >"$tmp/m.json" || { echo "FAIL: match"; fail=1; }
n=$("$PYTHON" -c '
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["fusions"] if x["rule"] == "ORT_QDQ_QLinearConv"]
print(len(f), sorted({len(x["nodes"]) for x in f}))' "$tmp/m.json")
[ "$n" = "6 [4, 5]" ] || { echo "FAIL: QLinearConv fusions: $n (want 6 of 4 or 5 nodes)"; fail=1; }
grep -qF '"nodes": ["w1_DequantizeLinear", "w2_DequantizeLinear", "x_DequantizeLinear", "conv_1", "relu_2_QuantizeLinear"]' "$tmp/m.json" \
	|| { echo "FAIL: conv_1's DQs and Q are not its fusion"; fail=1; }
s8=tests/data/qdq/qdq_resnet18_blocks_s8.onnx
out=$("$FUSIONDBG" why "$s8" -r rules/onnxruntime --rule ORT_QDQ_QLinearConv --node conv_1)
case $out in *"fires on conv_1"*) ;; *) echo "FAIL: why s8 conv_1 (its int8 pairs run as uint8): $out"; fail=1;; esac
w=$("$FUSIONDBG" why "$s8" -r rules/onnxruntime --rule ORT_QDQ_QLinearConv --node conv_4)
case $w in *"did not fire on conv_4"*"maxpool_3_QuantizeLinear_Output) runs as int8 [FD-NM20]"*"read 2 times"*) ;;
	*) echo "FAIL: why s8 conv_4 (its input's Q feeds two DQs): $w"; fail=1;; esac
case $out in *"op1 DequantizeLinear feeds @ x_DequantizeLinear"*"the producer of op0's input0"*) ;;
	*) echo "FAIL: the trace lacks the feeds event"; fail=1;; esac
# a DQ two quantized ops read belongs to the first reader's group (feeds.first_reader)
p=tests/data/qdq/qdq_pan_mobilenetv3_seg_u8.onnx
w=$("$FUSIONDBG" why "$p" -r rules/onnxruntime --rule ORT_QDQ_QLinearConv --node Conv_585)
case $w in *"fires on Conv_585"*"produces 1062_DequantizeLinear_Output, read first by GlobalAveragePool_569"*) ;;
	*) echo "FAIL: why Conv_585 (its X DQ is GlobalAveragePool_569's): $w"; fail=1;; esac
# a MatMul whose output a Q reads is no MatMulIntegerToFloat, even when the QLinearMatMul fails (outputs.not_read_by)
d=tests/data/qdq/qdq_tiny_distilbert_sst2_s8.onnx
w=$("$FUSIONDBG" why "$d" -r rules/onnxruntime --rule ORT_QDQ_MatMulIntegerToFloat --node MatMul_47)
case $w in *"did not fire on MatMul_47"*"read by 114_QuantizeLinear (QuantizeLinear) [FD-NM15]"*) ;;
	*) echo "FAIL: why MatMul_47 MatMulIntegerToFloat: $w"; fail=1;; esac
# a path out of a group and back through a Shape of its DQ's output only computes constants:
# no cycle, and the next round's graph has none either (the fused node does not read that shape)
out=$("$FUSIONDBG" match tests/data/lang/qdq_pairs.onnx -r tests/data/lang/qdq_shape_path.yaml 2>&1) \
	|| { echo "FAIL: match with a Shape path: $out"; fail=1; }
case $out in *"in 2 rounds"*"dq_shape, reshape_shape, q2_shape -> QuantizedReshape"*) ;;
	*) echo "FAIL: the Shape-path group: $out"; fail=1;; esac
sed 's/feeds: {op: 0, input: 1}/feeds: {op: 2, input: 1}/' rules/onnxruntime/qdq_conv.yaml >"$tmp/bad.yaml"
err=$("$FUSIONDBG" verify "$tmp/bad.yaml" 2>&1) && { echo "FAIL: verify accepted feeds of a later op"; fail=1; }
line=$(grep -n 'feeds: {op: 0, input: 1}' rules/onnxruntime/qdq_conv.yaml | head -1 | cut -d: -f1)
case $err in *"bad.yaml:$line:19: error: match.ops[2].feeds.op: 2 is not an earlier op"*) ;;
	*) echo "FAIL: verify: $err"; fail=1;; esac
finish $fail
