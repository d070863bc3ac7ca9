#!/usr/bin/env bash
# test_qdq_why.sh — `why --float`, the quantized question: for each op a
# quantized model leaves in float, one line from the QDQ rules' own deciding
# check — a Q the output lacks, a Q/DQ's zero point of the wrong kind or
# type — with the rule, its code and its file; an edit of that rule changes
# the answer (nothing is worded per op); the exits; the misuses.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
ORT=rules/onnxruntime
S=samples/quant

out=$("$FUSIONDBG" why $S/quant_conv_softmax.onnx -r $ORT --float); rc=$?
[ $rc -eq 1 ] || bad "conv_softmax: exit $rc (want 1: an op is left in float)"
case $out in "main graph: 1 op left in float
  conv2 (Conv) stayed float: its output has no QuantizeLinear (the next op, softmax (Softmax), is not quantized) — ORT_QDQ_QLinearConv (QLinearConv"*") [FD-NM01] at $ORT/"*) ;;
	*) bad "conv_softmax: $out";; esac

out=$("$FUSIONDBG" why $S/quant_zp_input.onnx -r $ORT --float --node conv1); rc=$?
[ $rc -eq 1 ] || bad "zp_input: exit $rc"
case $out in "conv1 (Conv) stayed float: QLinearConv needs a constant zero point in its input 1's DequantizeLinear: w_zp is a graph input — ORT_QDQ_QLinearConv (QLinearConv"*") [FD-NM13] at $ORT/"*) ;;
	*) bad "zp_input: $out";; esac
# the answer is the rule's: let the zero point be a graph input and conv1 is quantized
out=$("$FUSIONDBG" why $S/quant_zp_input.onnx -r $ORT --float \
	--set 'ORT_QDQ_QLinearConv.match.ops.2.input_sources.input2.source_type=const_or_param'); rc=$?
[ $rc -eq 0 ] && [ "$out" = "main graph: 0 ops left in float" ] || bad "after the edit: exit $rc: $out"

# the rule that would have made it switched off: its not-run record answers
out=$("$FUSIONDBG" why $S/quant_conv_softmax.onnx -r $ORT --float --node conv1 --set ORT_QDQ_QLinearConv.enabled=false)
case $out in "conv1 (Conv) stayed float: ORT_QDQ_QLinearConv did not run"*"expected enabled, actual disabled [FD-NR01]"*) ;;
	*) bad "disabled rule: $out";; esac
# the same question of CANN's rules, one round: no round said
out=$("$FUSIONDBG" why $S/quant_conv_softmax.onnx -r rules/cann_quant --float --node conv2)
[ "$out" = "conv2 (Conv) stayed float: its output has no QuantizeLinear (the next op, softmax (Softmax), is not quantized) — Quant_Conv_Fusion (QuantConv2D) [FD-NM01] at rules/cann_quant/quant_conv_fusion.yaml:30:13" ] \
	|| bad "cann_quant conv2: $out"
# int8 activations: onnxruntime turns an int8 Q -> DQ pair into uint8 unless
# the DQ is read twice (qdq_dtype's reason); conv_1 is quantized, conv_4 not
out=$("$FUSIONDBG" why tests/data/qdq/qdq_resnet18_blocks_s8.onnx -r $ORT --float --node conv_1); rc=$?
[ $rc -eq 0 ] && [ "$out" = "conv_1 (Conv) is not an op left in float: ORT_QDQ_QLinearConv made it QLinearConv" ] || bad "s8 conv_1: exit $rc: $out"
out=$("$FUSIONDBG" why tests/data/qdq/qdq_resnet18_blocks_s8.onnx -r $ORT --float --node conv_4)
case $out in "conv_4 (Conv) stayed float: QLinearConv needs the data of its input 0 to run as uint8: maxpool_3_QuantizeLinear_Output runs as int8, QDQS8ToU8Transformer leaves it: maxpool_3_DequantizeLinear is read 2 times, so maxpool_3_QuantizeLinear feeds 2 copies of it"*"[FD-NM20]"*) ;;
	*) bad "s8 conv_4: $out";; esac
# every op quantized: nothing to say, exit 0
out=$("$FUSIONDBG" why tests/data/qdq/qdq_resnet18_blocks_u8.onnx -r $ORT --float); rc=$?
[ $rc -eq 0 ] && [ "$out" = "main graph: 0 ops left in float" ] || bad "u8: exit $rc: $out"
# a Q/DQ node, a float model
out=$("$FUSIONDBG" why $S/quant_conv_softmax.onnx -r $ORT --float --node x_DequantizeLinear); rc=$?
[ $rc -eq 0 ] && case $out in *"is not an op left in float: it is a QuantizeLinear or DequantizeLinear") true;; *) false;; esac \
	|| bad "a DQ node: exit $rc: $out"
out=$("$FUSIONDBG" why $S/quant_conv_softmax.onnx -r $ORT --float --node conv1); rc=$?
[ $rc -eq 0 ] && [ "$out" = "conv1 (Conv) is not an op left in float: ORT_QDQ_QLinearConv made it QLinearConv" ] \
	|| bad "a quantized op: exit $rc: $out"
out=$("$FUSIONDBG" why samples/conv_add_silu.onnx -r rules --float); rc=$?
[ $rc -eq 0 ] && case $out in *"is not a quantized model"*) true;; *) false;; esac || bad "float model: exit $rc: $out"
# misuses
"$FUSIONDBG" why $S/quant_conv_softmax.onnx -r $ORT --float --rule ORT_QDQ_QLinearConv >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q 'not both' "$tmp/e" || bad "--float with --rule: exit $rc"
"$FUSIONDBG" why $S/quant_conv_softmax.onnx -r $ORT >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q 'why needs one MODEL and --rule NAME (or --float)' "$tmp/e" || bad "no --rule: exit $rc"
"$FUSIONDBG" why $S/quant_conv_softmax.onnx -r $ORT --float --node conv9 >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "no node named 'conv9'" "$tmp/e" || bad "unknown node: exit $rc"
# light_resnet50 quantized: its 16 Sums, which no QDQ rule has
"$FUSIONDBG" why tests/data/qdq/qdq_light_resnet50_u8.onnx -r $ORT --float >"$tmp/r.txt"
n=$(grep -c '(Sum) stayed float: no rule with QuantizeLinear or DequantizeLinear ops tried it (none has a Sum op)' "$tmp/r.txt")
[ "$(head -1 "$tmp/r.txt")" = "main graph: 16 ops left in float" ] && [ "$n" = 16 ] || bad "resnet50 u8: $n Sums; $(head -1 "$tmp/r.txt")"
exit $fail
