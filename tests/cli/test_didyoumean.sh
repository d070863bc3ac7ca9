#!/usr/bin/env bash
# test_didyoumean.sh — a misspelt name gets the nearest names in its error
# (src/base/nearest.c): commands, options, --rule, --node, --around, --set
# rule names, paths, constraint types, params and op types, the rule lint's
# op types and params, unknown keys, and GRAPH_AUTOFUSION_RULES; a node
# name too far for did-you-mean gets the closest names; check lints a rule
# its schema rejected. Each message is checked
# whole; the exit status is 2 (bad usage) or 1 (a lint error).
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
M=samples/conv_add_silu.onnx
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect EXIT LINE -- ARGS: the first line of stderr is LINE
expect() {
	local want_rc=$1 want=$2; shift 3
	local rc
	"$FUSIONDBG" "$@" >/dev/null 2>"$tmp/err"; rc=$?
	local got
	got=$(head -1 "$tmp/err")
	if [ "$rc" != "$want_rc" ] || [ "$got" != "$want" ]; then
		echo "FAIL fusiondbg $*: exit $rc (want $want_rc)"; echo "  got:  $got"; echo "  want: $want"; fail=1
	else
		echo "ok   $want"
	fi
}

expect 2 "fusiondbg: unknown command 'mach' (did you mean 'match'?)" -- mach $M -r rules
expect 2 "fusiondbg: unknown command 'expor' (did you mean 'export'?)" -- help expor
expect 2 "fusiondbg: nosuch.onnx: no such file (and no command of that name)" -- nosuch.onnx
expect 2 "fusiondbg: unknown option '--tarce' (did you mean '--trace'?)" -- match $M -r rules --tarce
expect 2 "fusiondbg: unknown option '-rules' (did you mean '--rules'?)" -- match $M -rules rules
expect 2 "fusiondbg: unknown option '--dept=3' (did you mean '--depth'?)" -- export $M -r rules -o x.dot --dept=3
expect 2 "fusiondbg: why takes no option '--after' (see fusiondbg why --help)" -- why $M -r rules --rule X --after
expect 2 "fusiondbg: no rule named 'Conv_Add_SiLU_Fusio' in the given rules (did you mean 'Conv_Add_SiLU_Fusion'?)" -- \
	why $M -r rules --rule Conv_Add_SiLU_Fusio
expect 2 "fusiondbg: samples/conv_add_silu.onnx: no node named 'conv' (did you mean 'conv1', 'conv2' or 'conv3'?)" -- \
	why $M -r rules --rule Conv_Add_SiLU_Fusion --node conv
expect 2 "samples/conv_add_silu.onnx: error: no node named 'cnv1' (--around) (did you mean 'conv1'?)" -- \
	export $M -r rules -o "$tmp/x.dot" --around cnv1
# a name holding the typed text beats a nearer typo: conv2/Conv is not /conv1/Conv
expect 2 "fusiondbg: tests/data/torch/torch_resnet18_opset17.onnx: no node named 'conv2/Conv' (did you mean '/layer1/layer1.0/conv2/Conv', '/layer1/layer1.1/conv2/Conv' or '/layer2/layer2.0/conv2/Conv'?)" -- \
	why tests/data/torch/torch_resnet18_opset17.onnx -r rules --rule Conv_Add_SiLU_Fusion --node conv2/Conv
# a name typed from memory is too far for did-you-mean: the names holding most of it
expect 2 "tests/data/torch/torch_swin_t_opset17.onnx: error: no node named '/features.1/attn/Softmax' (--around) (the closest names: '/features/features.1/features.1.0/attn/Softmax', '/features/features.1/features.1.1/attn/Softmax' or '/features/features.3/features.3.1/attn/Softmax')" -- \
	export tests/data/torch/torch_swin_t_opset17.onnx -r rules -o "$tmp/x.dot" --around /features.1/attn/Softmax
expect 2 "fusiondbg: tests/data/torch/torch_transformer_encoder_prenorm_opset17.onnx: no node named '/0/norm1/ReduceMean' (the closest names: '/encoder/layers.0/norm1/LayerNormalization', '/encoder/layers.0/norm2/LayerNormalization' or '/encoder/layers.1/norm1/LayerNormalization')" -- \
	why tests/data/torch/torch_transformer_encoder_prenorm_opset17.onnx -r rules --rule Conv_Add_SiLU_Fusion --node /0/norm1/ReduceMean
expect 2 "error: no rule named 'Conv_Add_SiLU' is loaded (did you mean 'Conv_Add_SiLU_Fusion'?)" -- \
	export $M -r rules -o "$tmp/x.dot" --rule Conv_Add_SiLU
S="fusiondbg: --set Conv_Add_SiLU_Fusion"
expect 2 "fusiondbg: --set Conv_Add_SiLU_Fusio.priority=1: no rule named 'Conv_Add_SiLU_Fusio' (did you mean 'Conv_Add_SiLU_Fusion'?)" -- \
	match $M -r rules --set Conv_Add_SiLU_Fusio.priority=1
expect 2 "$S.priorty=1: 'priorty' is not a field a what-if can change; did you mean 'priority'? (see fusiondbg(1), WHAT-IF)" -- \
	match $M -r rules --set Conv_Add_SiLU_Fusion.priorty=1
expect 2 "$S.constraints.channel_divisibilty.divisor=8: constraints has no entry of type 'channel_divisibilty' (did you mean 'channel_divisibility'?)" -- \
	match $M -r rules --set Conv_Add_SiLU_Fusion.constraints.channel_divisibilty.divisor=8
expect 2 "$S.constraints.channel_divisibility.divisr=8: 'constraints.channel_divisibility.divisr' is not a field a what-if can change; did you mean 'constraints.channel_divisibility.divisor'? (see fusiondbg(1), WHAT-IF)" -- \
	match $M -r rules --set Conv_Add_SiLU_Fusion.constraints.channel_divisibility.divisr=8
expect 2 "$S.match.branches.0.ops.1.typ=Relu: 'match.branches.0.ops.1.typ' is not a field a what-if can change; did you mean 'match.branches.0.ops.1.type'? (see fusiondbg(1), WHAT-IF)" -- \
	match $M -r rules --set Conv_Add_SiLU_Fusion.match.branches.0.ops.1.typ=Relu
expect 2 "$S.match.ops.0.params.grops=1: match.ops[0].params: Conv2d has no param 'grops' (did you mean 'groups'? its params: groups, kernel_size, strides, dilations, pads, auto_pad, activation_type)" -- \
	match $M -r rules --set Conv_Add_SiLU_Fusion.match.ops.0.params.grops=1
expect 2 "$S.match.ops.2.type=Swsh: match.ops[2].type: unknown op type 'Swsh' (did you mean 'Swish'?)" -- \
	match $M -r rules --set Conv_Add_SiLU_Fusion.match.ops.2.type=Swsh
GRAPH_AUTOFUSION_RULES=Conv_Add_SiLU_Fusio expect 0 "warning: GRAPH_AUTOFUSION_RULES names 'Conv_Add_SiLU_Fusio', which no loaded rule is (did you mean 'Conv_Add_SiLU_Fusion'?)" -- \
	match $M -r rules

# the lint: op types and params
cat >"$tmp/typo.yaml" <<'YAML'
name: Conv_Sigmoid_Typo
priority: 50
match:
  ops:
    - type: Conv2d
      params:
        grops: 1
    - type: Sigmiod
rewrite:
  target_op: ConvSigmoid
YAML
"$FUSIONDBG" check "$tmp/typo.yaml" >/dev/null 2>"$tmp/err"
want="$tmp/typo.yaml:7:9: error: match.ops[0].params: Conv2d has no param 'grops' (did you mean 'groups'? its params: groups, kernel_size, strides, dilations, pads, auto_pad, activation_type)
$tmp/typo.yaml:8:13: error: match.ops[1].type: unknown op type 'Sigmiod' (did you mean 'Sigmoid'?)"
if [ "$(cat "$tmp/err")" != "$want" ]; then echo "FAIL check typo.yaml:"; diff <(echo "$want") "$tmp/err"; fail=1; else echo "ok   check: did you mean 'groups', 'Sigmoid'"; fi

# check shows every finding in one round: a rule its schema rejects (priority
# is not a number) is linted all the same, and an unknown key gets its
# did-you-mean
cat >"$tmp/both.yaml" <<'YAML'
name: Conv_Sigmoid_Both
priority: high
match:
  ops:
    - type: Conv2d
    - type: Sigmiod
rewrite:
  target_op: ConvSigmoid
constraint:
  - type: memory_limit
    max_intermediate_size: 64KiB
YAML
"$FUSIONDBG" check "$tmp/both.yaml" >"$tmp/out" 2>"$tmp/err"; rc=$?
want="$tmp/both.yaml:9:1: error: unknown key 'constraint' in the rule, did you mean 'constraints'? (known: version, name, priority, enabled, scope, description, source, sources, match, rewrite, constraints, output, pass, run_once)
$tmp/both.yaml:2:11: error: priority: expected an integer, got string 'high'
$tmp/both.yaml:6:13: error: match.ops[1].type: unknown op type 'Sigmiod' (did you mean 'Sigmoid'?)"
if [ "$rc" != 1 ] || [ "$(cat "$tmp/err")" != "$want" ] || [ "$(cat "$tmp/out")" != "$tmp/both.yaml: 0 rules in 1 file, 3 errors, 0 warnings" ]; then
	echo "FAIL check both.yaml: exit $rc"; diff <(echo "$want") "$tmp/err"; cat "$tmp/out"; fail=1
else echo "ok   check: schema error, lint finding and did-you-mean key in one round"; fi
exit $fail
