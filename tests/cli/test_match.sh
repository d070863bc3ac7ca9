#!/usr/bin/env bash
# test_match.sh — the matcher end to end:
#  1. golden traces: `match --trace` on every sample (and on the matcher's own
#     models) equals tests/golden/trace/<case>.trace; regenerate with
#     `tests/cli/test_match.sh --update` (or UPDATE=1);
#  2. the same run twice is byte-identical, text and JSON;
#  3. every reason code of the table (src/trace/reason.h) is reached by some case;
#     every condition of the list (src/match/conditions.h) has its man page
#     section, a rule under tests/data/lang and its event in some case's trace;
#  4. the shipped attention rule fuses the scaled scores of BERT and GPT-2;
#  5. on every model in $MODELS, fusions per rule equal the independent count
#     of tests/tools/count_fusions.py, for tests/rules/ and for rules/.
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
update=${UPDATE:-0}
[ "${1:-}" = "--update" ] && update=1
fail=0
GOLD=tests/golden/trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
COV=tests/data/match/coverage_rules.yaml

# case name | environment (or -) | arguments
cases() {
	for s in samples/*.onnx; do
		n=$(basename "$s" .onnx)
		echo "$n|-|$s -r rules -r samples/rules"
	done
	echo "coverage_conv_add_silu|-|samples/conv_add_silu.onnx -r rules -r samples/rules -r $COV"
	echo "coverage_conv_bn_relu|-|samples/conv_bn_relu.onnx -r rules -r $COV"
	echo "coverage_shape_mismatch|-|tests/data/match/shape_mismatch.onnx -r $COV"
	echo "coverage_unknown_shape|-|tests/data/match/unknown_shape.onnx -r rules -r $COV"
	echo "env_only_conv_bn_relu|GRAPH_AUTOFUSION_RULES=Conv_BN_Relu_Fusion|samples/conv_bn_relu.onnx -r rules"
	echo "target_other|-|samples/conv_bn_relu.onnx -r rules --target ai_vector"
	echo "no_canonicalize_gelu|-|samples/gelu_erf.onnx -r rules -r samples/rules --no-canonicalize"
	# the language beyond the seed: one model and rule file each (tests/tools/make_lang_models.py)
	for m in conv_fold transpose_matmul quickgelu graph_out operands fan_out qdq_pairs dtype_tied conv_any_rank declared_outputs slice_groups qdq_slice_groups; do
		echo "lang_$m|-|tests/data/lang/$m.onnx -r tests/data/lang/$m.yaml"
	done
	echo "lang_many_alternatives|-|samples/conv_bn_relu.onnx -r tests/data/lang/many_alternatives.yaml"
	echo "lang_where_eval|-|tests/data/lang/transpose_matmul.onnx -r tests/data/lang/where_eval.yaml"
	# conditions after the match (effect, change) and a rule that runs once (FD-NM25)
	echo "lang_effect_change|-|tests/data/lang/declared_outputs.onnx -r tests/data/lang/effect_change.yaml --set Conv_BN_Once.enabled=true"
	# the search budget (tests/tools/make_search_models.py): an attempt out of steps, FD-NM19
	echo "search_budget|FUSIONDBG_SEARCH_STEPS=20|tests/data/lang/fan_out.onnx -r tests/data/search/fan_out_from_op.yaml"
	# rounds (samples/rounds): two and three rounds, ordered passes, a set that never settles
	echo "rounds_two|-|samples/rounds_conv_bn_relu.onnx -r samples/rounds/two_rounds.yaml"
	echo "rounds_three|-|samples/rounds_residual.onnx -r samples/rounds/three_rounds.yaml"
	echo "rounds_passes|-|samples/rounds_residual.onnx -r samples/rounds/three_rounds.yaml --passes samples/rounds/ge_passes.txt"
	# CANN's quantized patterns (rules/cann_quant) on a QDQ model (samples/quant/make_quant_samples.py)
	echo "cann_quant|-|samples/quant/quant_conv_matmul.onnx -r rules/cann_quant"
	echo "rounds_never_settles|-|samples/rounds_conv_bn_relu.onnx -r samples/rounds/never_settles.yaml --max-rounds 4"
}

run_case() { # env args...
	local env=$1; shift
	if [ "$env" = - ]; then "$FUSIONDBG" match "$@"; else env "$env" "$FUSIONDBG" match "$@"; fi
}

[ -d samples ] && ls samples/*.onnx >/dev/null 2>&1 || { echo "no samples"; exit 1; }
while IFS='|' read -r name env args; do
	# shellcheck disable=SC2086
	run_case "$env" $args --trace >"$tmp/$name.trace" 2>"$tmp/$name.err"
	rc=$?
	if [ $rc -ne 0 ]; then echo "FAIL $name: exit $rc"; cat "$tmp/$name.err"; fail=1; continue; fi
	# shellcheck disable=SC2086
	run_case "$env" $args --trace >"$tmp/$name.again" 2>/dev/null
	cmp -s "$tmp/$name.trace" "$tmp/$name.again" || { echo "FAIL $name: two runs differ"; fail=1; }
	# shellcheck disable=SC2086
	run_case "$env" $args --format json --trace >"$tmp/$name.json" 2>/dev/null
	# shellcheck disable=SC2086
	run_case "$env" $args --format json --trace >"$tmp/$name.json2" 2>/dev/null
	cmp -s "$tmp/$name.json" "$tmp/$name.json2" || { echo "FAIL $name: two JSON runs differ"; fail=1; }
	"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(k in d for k in ("model","rules","fusions","rejections")), d.keys()' "$tmp/$name.json" \
		|| { echo "FAIL $name: JSON keys"; fail=1; }
	if [ "$update" = 1 ]; then
		cp "$tmp/$name.trace" "$GOLD/$name.trace"
	elif ! diff -u "$GOLD/$name.trace" "$tmp/$name.trace" >"$tmp/$name.diff" 2>&1; then
		echo "FAIL $name: trace differs from $GOLD/$name.trace (UPDATE=1 to accept)"; head -40 "$tmp/$name.diff"; fail=1
	fi
done < <(cases)
[ "$update" = 1 ] && echo "goldens written to $GOLD"

# 3. every reason code reached
want=$(grep -o '"FD-[A-Z0-9]*"' src/trace/reason.h | tr -d '"' | sort -u)
[ -n "$want" ] || { echo "FAIL: no reason codes found in src/trace/reason.h"; fail=1; }
seen=$(cat "$tmp"/*.trace | grep -o 'FD-[A-Z0-9]*' | sort -u)
missing=$(comm -23 <(echo "$want") <(echo "$seen"))
if [ -n "$missing" ]; then echo "FAIL reason codes never reached: $missing"; fail=1; else echo "ok: all $(echo "$want" | wc -l) reason codes reached"; fi
# ... and every one is in the man page's table (fusiondbg(1), THE TRACE)
for code in $want; do
	grep -q "^FD\\\\-${code#FD-}	" man/fusiondbg.1 || { echo "FAIL: $code is not in man/fusiondbg.1's table of reason codes"; fail=1; }
done

# 3b. every condition of the list (src/match/conditions.h, FD_CONDITIONS) has
#     its section in fusiondbg-rules(5), a rule under tests/data/lang that
#     states it, and its event kind in the trace of some case above
gfail=0
rows=$(awk '/^#define FD_CONDITIONS\(X\)/ { on = 1; next } on { print; if ($0 !~ /\\$/) exit }' src/match/conditions.h |
	sed -nE 's/^[[:space:]]*X\(([A-Z_]+),[[:space:]]*([A-Z_]+),[[:space:]]*"([a-z_]+)",[[:space:]]*([A-Z_]+),.*/\1 \2 \3 \4/p')
[ "$(echo "$rows" | wc -l)" -ge 20 ] || { echo "FAIL: the condition list of src/match/conditions.h was not read"; gfail=1; }
kinds=$(cat "$tmp"/*.json | grep -o '"kind": "[a-z ]*"' | sort -u)
while read -r id scope key event; do
	grep -qE "^\.(B|BR|SS|TP|IP) .*\<$key\>" man/fusiondbg-rules.5 ||
		{ echo "FAIL: condition $id: no section for '$key' in man/fusiondbg-rules.5"; gfail=1; }
	if [ "$scope" = CONSTRAINT ]; then use="type: *\"?$key\"?\$"; else use="(^|[ {,])$key:"; fi
	grep -qE "$use" tests/data/lang/*.yaml ||
		{ echo "FAIL: condition $id: no rule under tests/data/lang states '$key'"; gfail=1; }
	name=$(grep -oE "X\($event,[[:space:]]*\"[a-z ]+\"" src/trace/trace.h | sed -E 's/.*"(.*)"/\1/')
	echo "$kinds" | grep -qF "\"kind\": \"$name\"" ||
		{ echo "FAIL: condition $id: no case's trace has a '$name' event"; gfail=1; }
done <<<"$rows"
if [ "$gfail" = 0 ]; then echo "ok: every condition of the list has its man page section, a rule and an event"; else fail=1; fi

# 4. the shipped attention rule on real exports: the scaled scores of
#    Hugging Face BERT (Div, Add mask) and GPT-2 (Div, Where causal mask)
expect_fusion() { # model fusion-line
	"$FUSIONDBG" match "$1" -r rules/attention.yaml 2>/dev/null | grep -qF "$2" ||
		bad "match $1 -r rules/attention.yaml: no fusion '$2'"
}
expect_fusion tests/data/suggest/torch_bert_opset17.onnx \
	"Attention_QK_Softmax_Fusion: /layers.0/MatMul, /layers.0/Div, /layers.0/Add, /layers.0/Softmax -> QKSoftmaxFusion"
expect_fusion tests/data/torch/torch_gpt_opset17.onnx \
	"Attention_QK_Softmax_Fusion: /blocks.1/MatMul, /blocks.1/Div_3, /blocks.1/Where, /blocks.1/Softmax -> QKSoftmaxFusion"
expect_fusion tests/data/torch/torch_transformer_encoder_opset17.onnx \
	"Attention_QK_Softmax_Fusion: /encoder/layers.0/self_attn/MatMul_1, /encoder/layers.0/self_attn/Softmax -> QKSoftmaxFusion"

# 5. independent fusion counts on the shared models
count_ours() { # model rules...
	local m=$1; shift
	"$FUSIONDBG" match "$m" "$@" --format json 2>/dev/null |
		"$PYTHON" -c 'import json,sys; [print(r["name"], r["effect_times"]) for r in json.load(sys.stdin)["rules"]]' | sort
}
have_models || finish "$fail"
n_models=0
for m in "$MODELS"/*.onnx; do
	[ -e "$m" ] || continue
	n_models=$((n_models + 1))
	ours=$(count_ours "$m" -r tests/rules)
	theirs=$("$PYTHON" tests/tools/count_fusions.py "$m" test | sort)
	if [ "$ours" != "$theirs" ]; then echo "FAIL counts tests/rules on $m"; diff <(echo "$theirs") <(echo "$ours"); fail=1; fi
	ours=$(count_ours "$m" -r rules)
	theirs=$("$PYTHON" tests/tools/count_fusions.py "$m" shipped | grep -v ' n/a$' | sort)
	ours=$(echo "$ours" | grep -F -f <(echo "$theirs" | cut -d' ' -f1))
	if [ "$ours" != "$theirs" ]; then echo "FAIL counts rules/ on $m"; diff <(echo "$theirs") <(echo "$ours"); fail=1; fi
	echo "ok: $(basename "$m"): $(count_ours "$m" -r tests/rules | tr '\n' ' ')"
done
[ "$n_models" -gt 0 ] || { echo "FAIL: no models in $MODELS"; fail=1; }
finish $fail
