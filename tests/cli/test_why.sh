#!/usr/bin/env bash
# test_why.sh — `fusiondbg why` answers in one line, correctly, for every
# did-not-fire sample and for a real model; exit 0 fires, 1 does not, 2 bad
# usage / unknown rule / unknown node.
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
R="-r rules -r samples/rules"
fail=0

# expect EXIT FIRST-LINE-FRAGMENT... -- why arguments
expect() {
	local want_rc=$1; shift
	local frags=()
	while [ "$1" != "--" ]; do frags+=("$1"); shift; done
	shift
	local out rc
	out=$("$FUSIONDBG" why "$@" 2>&1); rc=$?
	local first=${out%%$'\n'*}
	if [ "$rc" != "$want_rc" ]; then echo "FAIL why $*: exit $rc, want $want_rc"; echo "$out" | head -5; fail=1; return; fi
	for f in "${frags[@]}"; do
		case "$first" in *"$f"*) ;; *) echo "FAIL why $*: first line lacks '$f':"; echo "  $first"; fail=1; return;; esac
	done
	echo "ok: $first"
}

expect 1 "did not fire on conv1 (Conv)" "dtype_match" "x is float64" "[FD-CF01]" "rules/conv_add_silu_fusion.yaml:" -- samples/dtype_mismatch.onnx $R --rule Conv_Add_SiLU_Fusion --node conv1
expect 1 "param epsilon: expected 1e-5, actual 0.00100000005" "[FD-NM03]" "samples/rules/bn_relu_low_priority.yaml:18:" -- samples/param_mismatch.onnx $R --rule BN_Relu_Fusion --node bn2
expect 1 "param groups: expected 1, actual 2" "[FD-NM03]" -- samples/param_mismatch.onnx $R --rule Conv_Add_SiLU_Fusion --node gconv1
expect 1 "also read by side_pool (GlobalAveragePool)" "[FD-NM05]" -- samples/escape_intermediate.onnx $R --rule Conv_Add_SiLU_Fusion --node conv1
expect 1 "max_intermediate_size" "64.0 MiB" "[FD-CF03]" -- samples/memory_limit.onnx $R --rule Conv_Add_SiLU_Fusion --node conv1
expect 1 "divisible by 16, actual 24" "[FD-CF05]" -- samples/channel_divisibility.onnx $R --rule Conv_Add_SiLU_Fusion --node conv1
expect 1 "conv1 -> relu1 -> conv2 -> add1" "[FD-WC01]" -- samples/would_cycle.onnx $R --rule Conv_Add_Residual_Fusion --node conv1
expect 1 "bn1 claimed by Conv_BN_Relu_Fusion" "[FD-CL01]" -- samples/priority_conflict.onnx $R --rule BN_Relu_Fusion --node bn1
expect 1 "op2 Relu param clip_max: expected 0.0, node has no such param [FD-NM03]" "samples/cann_rules/conv_bn_relu_fusion.yaml:" -- samples/conv_bn_relu.onnx -r samples/cann_rules --rule Conv_BN_Relu_Fusion --node conv1
expect 0 "fires on conv1 (Conv)" "[FD-OK]" -- samples/conv_bn_relu.onnx $R --rule Conv_BN_Relu_Fusion --node conv1
expect 0 "fires on bn1" "part of the fusion at conv1" -- samples/conv_bn_relu.onnx $R --rule Conv_BN_Relu_Fusion --node bn1
expect 1 "did not run" "[FD-NR02]" -- samples/conv_bn_relu.onnx $R --rule Conv_BN_Relu_Fusion --node conv1 --target ai_vector
expect 2 "no node named 'nosuch'" -- samples/conv_bn_relu.onnx $R --rule Conv_BN_Relu_Fusion --node nosuch
expect 2 "no rule named 'NoSuchRule'" -- samples/conv_bn_relu.onnx $R --rule NoSuchRule
expect 2 "why needs" -- samples/conv_bn_relu.onnx $R
# a real model: DenseNet's BN -> Mul -> Add -> Relu breaks the chain after BN
if [ -e "$MODELS/light_densenet121.onnx" ]; then
	expect 1 "did not fire on n0 (Conv)" "op2 Relu type: expected Relu, actual Mul" "[FD-NM01]" -- "$MODELS/light_densenet121.onnx" -r rules --rule Conv_BN_Relu_Fusion --node n0
	expect 1 "never fired" -- "$MODELS/light_densenet121.onnx" -r rules --rule Conv_BN_Relu_Fusion
fi
if [ -e "$MODELS/light_resnet50.onnx" ]; then
	expect 0 "fired 33 times" -- "$MODELS/light_resnet50.onnx" -r rules --rule Conv_BN_Relu_Fusion
fi
finish $fail
