#!/usr/bin/env bash
# test_messages.sh — messages that say what happened: a canonical form of one
# node is not "1 nodes recognised as one"; a disabled or never-run rule
# counts no attempt (its not-run record still says why); a passing Softmax
# axis -1 against an export's 3 says the axis was normalised; a PNG refused
# as too tall does not suggest the --rule it was given; when no rule fires,
# match names the nearest misses (the TUI's first screen: tests/tui/nofire.script). (The TUI's save
# message, naming FILE.orig and what it holds: tests/tui/tour.script.)
set -u
. "$(dirname "$0")/../lib.sh"
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
make_tmp

out=$("$FUSIONDBG" match samples/vad_if.onnx -r rules --trace 2>/dev/null)
grep -q "1 nodes" <<<"$out" && bad "a plural for one node: $(grep -m1 '1 nodes' <<<"$out")"
grep -q "canonical form biasadd_conv @ Conv_42 .* — 1 node read as its canonical form" <<<"$out" ||
	bad "the one-node canonical form: $(grep -m1 'canonical form' <<<"$out")"

out=$("$FUSIONDBG" match samples/conv_add_silu.onnx -r rules --set Conv_Add_SiLU_Fusion.enabled=false 2>/dev/null)
grep -qE '^  Conv_Add_SiLU_Fusion +150 +0 +0 +0  \(disabled\)$' <<<"$out" ||
	bad "a disabled rule counts an attempt: $(grep 'Conv_Add_SiLU_Fusion  ' <<<"$out")"
grep -q "Conv_Add_SiLU_Fusion FD-NR01 x1: Conv_Add_SiLU_Fusion did not run" <<<"$out" || bad "the not-run record is gone"
json=$("$FUSIONDBG" match samples/conv_add_silu.onnx -r rules --set Conv_Add_SiLU_Fusion.enabled=false --format json 2>/dev/null)
grep -q '"name": "Conv_Add_SiLU_Fusion", "priority": 150, "enabled": false, "attempts": 0' <<<"$json" ||
	bad "JSON counts an attempt of a disabled rule"

out=$("$FUSIONDBG" match samples/attention.onnx -r rules --set Attention_QK_Softmax_Fusion.match.ops.1.params.axis=3 --trace 2>/dev/null)
want="pass op1 Softmax param axis @ softmax (Softmax): expected 3, actual -1 — the same axis once normalised: -1 counts from the end, axis 3 of the rank-4 input"
grep -qF "$want" <<<"$out" || bad "axis 3 against -1: $(grep 'param axis' <<<"$out")"
out=$("$FUSIONDBG" match samples/attention.onnx -r rules --trace 2>/dev/null)
grep 'param axis @ softmax ' <<<"$out" | grep -q "normalised" && bad "an axis written as the model has it says normalised"

# no rule fires: match says so and lists the nearest misses, deepest first,
# one per rule and reason; a run where a rule fires has no such section
out=$("$FUSIONDBG" match samples/param_mismatch.onnx -r rules 2>/dev/null)
want="no rule fired; the nearest misses (the attempts that got furthest):
  Conv_BN_Relu_Fusion did not fire on conv2 (Conv): op1 BatchNorm param epsilon: expected 1e-5, actual 0.00100000005 [FD-NM03] at rules/conv_bn_relu_fusion.yaml:26:18
  Conv_BN_Relu_Fusion did not fire on gconv1 (Conv): op1 BatchNorm type: expected BatchNorm, actual Add [FD-NM01] at rules/conv_bn_relu_fusion.yaml:24:13
  Conv_Add_SiLU_Fusion did not fire on conv2 (Conv): op1 Add type: expected Add, actual BatchNormalization [FD-NM01] at rules/conv_add_silu_fusion.yaml:31:13"
[ "$(tail -4 <<<"$out")" = "$want" ] || { bad "match with nothing fired:"; diff <(echo "$want") <(tail -4 <<<"$out"); }
"$FUSIONDBG" match samples/conv_add_silu.onnx -r rules 2>/dev/null | grep -q "no rule fired" && bad "nearest misses where rules fired"
out=$("$FUSIONDBG" match samples/conv_bn_relu.onnx -r samples/rules/matmul_bias_gelu.yaml 2>/dev/null)
grep -q "^no rule fired, and no rule found an anchor in this model" <<<"$out" || bad "no anchor at all: $out"

R50="$MODELS/light_resnet50.onnx"
if have_models; then
	"$FUSIONDBG" export "$R50" -r rules --rule Conv_BN_Relu_Fusion --near-misses --max-side 0 -o "$tmp/r.png" 2>"$tmp/err"
	grep -q "too tall to read as a PNG" "$tmp/err" || bad "no refusal: $(cat "$tmp/err")"
	grep -q -- "--rule NAME" "$tmp/err" && bad "the refusal suggests the --rule it was given: $(cat "$tmp/err")"
	grep -q -- "draw less with a smaller --depth (now 2) or --around NODE --depth K" "$tmp/err" ||
		bad "the refusal with --rule: $(cat "$tmp/err")"
	"$FUSIONDBG" export "$R50" -r rules --around n14 --depth 40 --max-side 0 -o "$tmp/a.png" 2>"$tmp/err"
	grep -q -- "too tall to read as a PNG (limit 10000 px a side); draw less with a smaller --depth (now 40), write" "$tmp/err" ||
		bad "the refusal with --around: $(cat "$tmp/err")"
fi
# the rules table: each heading ends where its numbers end, a long rule name included
sed 's/^name: "Conv_Add_SiLU_Fusion"/name: "Conv_Add_SiLU_Fusion_With_A_Long_Name"/' rules/conv_add_silu_fusion.yaml >"$tmp/long.yaml"
for r in rules "$tmp/long.yaml"; do
	"$FUSIONDBG" match samples/conv_add_silu.onnx -r "$r" 2>/dev/null | awk '
		/^rules \(run order\)/ { for (i = 1; i <= length($0); i++) if (substr($0, i, 1) != " " && substr($0, i + 1, 1) ~ /^( |)$/) head[i] = 1; on = 1; next }
		on && /^$/ { exit }
		on { for (i = 1; i <= length($0); i++) if (substr($0, i, 1) ~ /[0-9]/ && substr($0, i + 1, 1) ~ /^( |)$/ && !head[i]) { print; bad = 1 } }
		END { exit bad }' >"$tmp/misaligned" || bad "rules table ($r): numbers not under their headings: $(head -1 "$tmp/misaligned")"
done
# a rule that matched and was refused says so, not "never fired (match_times 2, …)"
out=$("$FUSIONDBG" why samples/conv_add_silu.onnx -r rules -r samples/rules --rule Conv_Residual_SiLU_Fusion 2>/dev/null | head -1)
[ "$out" = "Conv_Residual_SiLU_Fusion matched 2 times but never fired (match_times 2, effect_times 0, attempts 3); closest near-misses:" ] ||
	bad "a matched rule that never fired: $out"
# mem's peak list: a tensor of unknown size says so, not "0 B 1×8×16×?"
out=$("$FUSIONDBG" mem tests/data/lang/conv_fold.onnx -r rules 2>/dev/null)
grep -qE '^    unknown +1×8×16×\? +y5$' <<<"$out" || bad "an unknown size in mem: $(grep -m1 ' y5$' <<<"$out")"
grep -qE '^    0 B ' <<<"$out" && bad "mem lists 0 B: $(grep -m1 '^    0 B ' <<<"$out")"
finish $fail
