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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect EXIT FIRST-LINE-FRAGMENT... -- why arguments
expect() {
	local want_rc=$1; shift
	local frags=()
	while [ "$1" != "--" ]; do frags+=("$1"); shift; done
	shift
	local out rc
	# the answer is on stdout; a usage error (exit 2) on stderr, where the rules' lint warnings go too
	out=$("$FUSIONDBG" why "$@" 2>"$tmp/err"); rc=$?
	[ "$rc" = 2 ] && out=$(grep -v ': warning: ' "$tmp/err")
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
# lines LINE... -- why ARGS: stdout begins with exactly these lines
lines() {
	local want=()
	while [ "$1" != "--" ]; do want+=("$1"); shift; done
	shift
	"$FUSIONDBG" why "$@" >"$tmp/out" 2>/dev/null
	local got
	got=$(head -n ${#want[@]} "$tmp/out")
	if [ "$got" != "$(printf '%s\n' "${want[@]}")" ]; then
		echo "FAIL why $*:"; diff <(printf '%s\n' "${want[@]}") <(echo "$got"); fail=1
	else
		echo "ok: ${want[0]}"
	fi
}
# a rule that fires on some anchors lists the others' deepest failures, every one
# of them ranked (no cap: 300 fired attempts rank above the 20 misses), --limit N
$PYTHON tests/tools/gen_family_models.py "$tmp" || { echo "FAIL: gen_family_models.py"; fail=1; }
MISS="why: Conv_BN_Relu_Fusion did not fire on b0_conv (Conv): op2 Relu type: expected Relu, actual Sigmoid [FD-NM01] at rules/conv_bn_relu_fusion.yaml:27:13"
lines "Conv_BN_Relu_Fusion fired 300 times (match_times 300, attempts 320); on the other 20 anchors, deepest failure first:" \
	"$MISS" "${MISS/b0_conv/b16_conv}" "... and 18 more (--limit 0 lists them all)" -- "$tmp/many_fired.onnx" -r rules --rule Conv_BN_Relu_Fusion --limit 2
n=$("$FUSIONDBG" why "$tmp/many_fired.onnx" -r rules --rule Conv_BN_Relu_Fusion | grep -c '^why: .*did not fire')
[ "$n" = 10 ] || { echo "FAIL: --limit defaults to 10, got $n lines"; fail=1; }
n=$("$FUSIONDBG" why "$tmp/many_fired.onnx" -r rules --rule Conv_BN_Relu_Fusion --limit 0 | grep -c '^why: .*did not fire')
[ "$n" = 20 ] && echo "ok: --limit 0 lists all 20" || { echo "FAIL: --limit 0 lists $n, want 20"; fail=1; }
expect 2 "--limit wants a number >= 0, not 'x'" -- "$tmp/many_fired.onnx" -r rules --rule Conv_BN_Relu_Fusion --limit x
lines "Conv_Add_SiLU_Fusion fired 3 times, on every anchor it tried (match_times 3, attempts 3)" -- \
	samples/conv_add_silu.onnx $R --rule Conv_Add_SiLU_Fusion
# a rule without an anchor names the nearest candidates: another rank (bodies counted), another domain, another case
lines "why: Conv_BN_Relu_Fusion had no anchor in the model (no node of op0's type):" \
	"  5 Conv nodes have 1 spatial dim (Conv1d, 2 of them inside subgraph bodies); op0 asks Conv2d" -- \
	"$tmp/vad1d.onnx" -r rules --rule Conv_BN_Relu_Fusion
cat >"$tmp/alone.yaml" <<'YAML'
name: Relu_Alone
priority: 10
match:
  ops:
    - type: Relu
rewrite:
  target_op: R
---
name: FastGelu_Alone
priority: 10
match:
  ops:
    - type: FastGelu
rewrite:
  target_op: R
YAML
lines "why: Relu_Alone had no anchor in the model (no node of op0's type):" \
	"  1 'relu' node in domain com.acme: op types compare exactly, op0 is 'Relu'" -- "$tmp/vad1d.onnx" -r "$tmp/alone.yaml" --rule Relu_Alone
lines "why: FastGelu_Alone had no anchor in the model (no node of op0's type):" \
	"  1 FastGelu node in domain com.acme; op0 FastGelu matches com.microsoft" -- "$tmp/vad1d.onnx" -r "$tmp/alone.yaml" --rule FastGelu_Alone
lines "why: Attention_QKV_Fusion had no anchor in the model (no node of op0's type):" \
	"  nothing near op0 MatMul; the model's op types: Add ×3, Conv ×3, Mul ×3, Sigmoid ×3" -- samples/conv_add_silu.onnx $R --rule Attention_QKV_Fusion
# a disabled rule: did not run, and why
lines "why: Conv_Add_SiLU_Fusion did not run: rule: expected enabled, actual disabled [FD-NR01] at rules/conv_add_silu_fusion.yaml:16:1" -- \
	samples/conv_add_silu.onnx $R --rule Conv_Add_SiLU_Fusion --set Conv_Add_SiLU_Fusion.enabled=false

# an attempt that fired through a canonical form has no failing row: the direct
# form's type checks read "direct form absent, canonical form matched", as info
"$FUSIONDBG" why samples/conv_add_silu.onnx $R --rule Conv_Add_SiLU_Fusion --node conv1 >"$tmp/out" 2>/dev/null
if grep -q ' FAIL ' "$tmp/out" || ! grep -q '#29 info op2 Swish type @ sigmoid1 (Sigmoid): expected Swish, actual Sigmoid — direct form absent, canonical form matched: mul1 (Swish: silu of sigmoid1, mul1) (rules/conv_add_silu_fusion.yaml:41:13)' "$tmp/out"; then
	echo "FAIL: a fired attempt through Swish's canonical form shows a failure:"; grep -n 'op2' "$tmp/out"; fail=1
else
	echo "ok: direct form absent, canonical form matched (no FAIL in a fired attempt)"
fi
"$FUSIONDBG" match samples/conv_add_silu.onnx -r rules --trace --format json 2>/dev/null | $PYTHON -c '
import json, sys
t = json.load(sys.stdin)["trace"]
ev = [e for a in t["attempts"] for e in a["events"] if e["index"] == 29][0]
assert ev["status"] == "info" and ev["code"] == "" and ev["reason"].startswith("direct form absent, canonical form matched"), ev
' && echo "ok: JSON: the superseded check is info, no code" || { echo "FAIL: JSON of a superseded check"; fail=1; }

# a real model: DenseNet's BN -> Mul -> Add -> Relu breaks the chain after BN
if [ -e "$MODELS/light_densenet121.onnx" ]; then
	expect 1 "did not fire on n0 (Conv)" "op2 Relu type: expected Relu, actual Mul" "[FD-NM01]" -- "$MODELS/light_densenet121.onnx" -r rules --rule Conv_BN_Relu_Fusion --node n0
	expect 1 "never fired" -- "$MODELS/light_densenet121.onnx" -r rules --rule Conv_BN_Relu_Fusion
fi
if [ -e "$MODELS/light_resnet50.onnx" ]; then
	expect 0 "fired 33 times" "on the other 20 anchors, deepest failure first:" -- "$MODELS/light_resnet50.onnx" -r rules --rule Conv_BN_Relu_Fusion
fi
finish $fail
