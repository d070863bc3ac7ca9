#!/usr/bin/env bash
# test_compare.sh — `fusiondbg compare MODEL -r RULES --with FILE`:
#  1. onnxruntime-node (make check and make check-peer install it; without
#     it the test is skipped) optimizes the samples and every shared model at
#     level 'extended' (kept gzipped in $BUILD/compare, keyed by the model's
#     bytes: weights onnxruntime folds are hundreds of MB that compress
#     to little); the fused nodes compare derives from each
#     optimized graph, and the original nodes each replaced, are those
#     onnxruntime 1.30.0 makes (pinned below: per model the number of fused
#     nodes and of each fused op type, and the exact node sets on samples);
#  2. planted differences: the two-round rule set predicts onnxruntime's
#     Conv+BN+Relu → FusedConv exactly (exit 0); with its round-2 rule off,
#     compare says "different" and why; with every rule off, "compiler
#     only" with why; a rule the compiler has no counterpart of, "fusiondbg
#     only";
#  3. --with fusion_result.json: per pass match_times / effect_times, the
#     record's shapes (one object, an array, concatenated objects), and bad
#     records named at their line and column;
#  4. bad input: a missing file, a file that is neither ONNX nor JSON, no --with;
#  and on what onnxruntime writes: no-ops it removed are not fusions of their
#  neighbours, an initializer listed twice is read when both copies are the same.
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
need_onnxruntime
CACHE=$BUILD/compare
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
mkdir -p "$CACHE" "$tmp/ort"
rm -f "$CACHE"/*.extended.onnx   # kept unpacked by an older version of this test

# optimized MODEL -> onnxruntime's optimized graph, unpacked in $tmp ("" when it refused the model)
optimized() {
	local m=$1 base kept out
	base=$(basename "$m" .onnx).$(md5sum <"$m" | cut -c1-12).extended.onnx
	kept=$CACHE/$base.gz out=$tmp/ort/$base
	if [ ! -f "$kept" ] && [ ! -f "$CACHE/$base.refused" ]; then
		local line
		line=$(NODE_PATH="$NODE_DIR/node_modules" node tests/peer/optimize.js extended "$tmp/ort" "$m")
		case "$line" in
		*'"out"'*) mv "$tmp/ort/$(basename "$m" .onnx).extended.onnx" "$out" &&
			gzip -1 <"$out" >"$kept.tmp" && mv "$kept.tmp" "$kept" ;;
		*) echo "$line" >"$CACHE/$base.refused" ;;
		esac
	fi
	[ -f "$out" ] || { [ -f "$kept" ] && gzip -dc <"$kept" >"$out"; }
	[ -f "$out" ] && echo "$out"
}

# groups MODEL OPT -> "N op_type=count ..." of the compiler's fused nodes
groups() {
	"$FUSIONDBG" compare "$1" -r rules --with "$2" --format json 2>"$tmp/err" | "$PYTHON" -c '
import json, sys, collections
d = json.load(sys.stdin)
g = {}
for r in d["rows"]:
    if r["compiler"]:
        g[(r["compiler"]["fused_node"], tuple(r["compiler"]["nodes"]))] = r["compiler"]["op_type"]
c = collections.Counter(g.values())
print(len(g), " ".join("%s=%d" % kv for kv in sorted(c.items())))'
}

# 1. the derived groups: onnxruntime 1.30.0, CPU, extended
expect_groups() {   # MODEL "N op=count…"
	local m=$1 want=$2 opt got
	[ -e "$m" ] || return
	opt=$(optimized "$m")
	[ -n "$opt" ] || { bad "onnxruntime refused $m: $(cat "$CACHE"/"$(basename "$m" .onnx)".*.refused)"; return; }
	got=$(groups "$m" "$opt")
	if [ "$got" = "$want" ]; then echo "ok: $(basename "$m"): $got"; else bad "$(basename "$m"): groups '$got', want '$want'"; fi
}
expect_groups samples/conv_add_silu.onnx "4 Conv=1 QuickGelu=3"
expect_groups samples/conv_bn_relu.onnx "1 FusedConv=1"
expect_groups samples/attention_masked.onnx "3 Gemm=3"
expect_groups samples/gelu_erf.onnx "2 Gelu=1 Gemm=1"
expect_groups samples/if_subgraph.onnx "3 FusedConv=3"
expect_groups samples/layernorm_decomposed.onnx "1 LayerNormalization=1"
expect_groups samples/rounds_conv_bn_relu.onnx "3 Conv=1 FusedConv=2"
expect_groups samples/attention.onnx "0 "
if have_models; then
	expect_groups "$MODELS/light_densenet121.onnx" "59 FusedConv=59"
	expect_groups "$MODELS/light_inception_v1.onnx" "55 FusedConv=55"
	expect_groups "$MODELS/light_resnet50.onnx" "53 Conv=20 FusedConv=33"
	expect_groups "$MODELS/light_shufflenet.onnx" "49 Conv=32 FusedConv=17"
	expect_groups "$MODELS/light_squeezenet.onnx" "26 FusedConv=26"
	expect_groups "$MODELS/light_vgg19.onnx" "18 FusedConv=16 FusedGemm=2"
	expect_groups "$MODELS/ultraface_version-RFB-320.onnx" "9 FusedConv=9"
	expect_groups "$MODELS/litemono_tiny_decoder.onnx" "0 "
	expect_groups "$MODELS/pan_mobilenetv3_seg.onnx" "40 Conv=3 FusedConv=37"
	expect_groups "$MODELS/xfeat_256x256.onnx" "26 FusedConv=24 Split=2"
	expect_groups "$MODELS/xfeat_interp_bilinear.onnx" "0 "
	expect_groups "$MODELS/tiny_distilbert_sst2.onnx" "8 FusedGemm=1 Gelu=2 LayerNormalization=5"
	expect_groups "$MODELS/tiny_gpt2_ort_fused.onnx" "0 "
fi
# node sets, exactly, on a sample: what onnxruntime replaced, and what it only removed
opt=$(optimized samples/conv_add_silu.onnx)
"$FUSIONDBG" compare samples/conv_add_silu.onnx -r rules --with "$opt" --format json >"$tmp/cas.json" 2>/dev/null
"$PYTHON" - "$tmp/cas.json" <<'EOF' || bad "conv_add_silu: the compiler's node sets"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((r["compiler"]["fused_node"], r["compiler"]["op_type"], tuple(r["compiler"]["nodes"])) for r in d["rows"] if r["compiler"])
want = [("conv2", "Conv", ("conv2", "add2")), ("mul1/QuickGeluFusion/", "QuickGelu", ("sigmoid1", "mul1")),
        ("mul2/QuickGeluFusion/", "QuickGelu", ("sigmoid2", "mul2")), ("mul3/QuickGeluFusion/", "QuickGelu", ("sigmoid3", "mul3"))]
assert got == want, got
# rules/ fuses each whole block: every row is "different", the compiler's nodes a part of fusiondbg's
assert d["counts"] == {"same": 0, "compiler_only": 0, "predicted_only": 0, "different": 4}, d["counts"]
EOF
if have_models; then
	opt=$(optimized "$MODELS/light_inception_v1.onnx")
	"$FUSIONDBG" compare "$MODELS/light_inception_v1.onnx" -r rules --with "$opt" --format json >"$tmp/inc.json" 2>/dev/null
	"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["removed"]; assert r.get("common subexpression", 0) >= 4 and r.get("dropout removed") == 1, r' "$tmp/inc.json" \
		|| bad "light_inception_v1: CSE and dropout removal told apart from fusion"
fi

# no-ops onnxruntime removes between two nodes it keeps (tests/tools/make_compare_models.py):
# Sub of 0, Dropout, a Cast to its own type, Identity are removed, not fused with a neighbour
opt=$(optimized tests/data/compare/noops.onnx)
out=$("$FUSIONDBG" compare tests/data/compare/noops.onnx -r rules/onnxruntime --with "$opt"); rc=$?
[ "$rc" = 0 ] || bad "noops: exit $rc, want 0 (nothing fused): $out"
grep -q "the compiler made 0 fused nodes" <<<"$out" || bad "noops: a removed no-op taken for a fusion: $out"
grep -q "removed (not fusions): dropout removed 1, identity removed 1, no-op cast removed 1, no-op arithmetic removed 1" \
	<<<"$out" || bad "noops: what was removed: $out"
# an optimized graph that lists an initializer twice: read with a warning when the copies are identical,
# refused naming it when they differ; the model itself is still refused (no compiler wrote it)
D=tests/data/compare
out=$("$FUSIONDBG" compare $D/dup_init.onnx -r rules/onnxruntime --with $D/dup_init_same.onnx 2>"$tmp/err"); rc=$?
[ "$rc" = 0 ] && grep -q "dup_init_same.onnx: warning: initializer 'b' is listed twice, both copies identical: read once" \
	"$tmp/err" || bad "identical duplicate initializer: exit $rc, $(cat "$tmp/err")"
"$FUSIONDBG" compare $D/dup_init.onnx -r rules/onnxruntime --with $D/dup_init_diff.onnx >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "dup_init_diff.onnx: error: initializer 'b' is listed twice with different values" "$tmp/err" \
	|| bad "differing duplicate initializer: exit $rc, $(cat "$tmp/err")"
"$FUSIONDBG" match $D/dup_init_same.onnx -r rules/onnxruntime >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "error: initializer 'b' is listed twice$" "$tmp/err" || bad "a model listing an initializer twice: exit $rc, $(cat "$tmp/err")"

# 2. planted differences on a two-round pipeline
m=samples/rounds_conv_bn_relu.onnx
opt=$(optimized "$m")
# the copy the TUI's compare view is tested with still says what onnxruntime says
for f in "$opt" tests/data/compare/rounds_conv_bn_relu.ort.onnx; do
	"$FUSIONDBG" compare "$m" -r samples/rounds/two_rounds.yaml --with "$f" --format json | "$PYTHON" -c '
import json, sys
print(sorted((r["compiler"]["op_type"], tuple(r["compiler"]["nodes"])) for r in json.load(sys.stdin)["rows"]))'
done >"$tmp/ort2"
[ "$(sort -u "$tmp/ort2" | wc -l)" = 1 ] || bad "tests/data/compare/rounds_conv_bn_relu.ort.onnx is stale: $(cat "$tmp/ort2")"
R="-r samples/rounds/two_rounds.yaml"
# shellcheck disable=SC2086
out=$("$FUSIONDBG" compare "$m" $R --with "$opt"); rc=$?
[ "$rc" = 0 ] || bad "two rounds vs onnxruntime: exit $rc, want 0 (no difference): $out"
grep -q "same 3, compiler only 0, fusiondbg only 0, different 0" <<<"$out" || bad "two rounds: $(head -2 <<<"$out")"
# shellcheck disable=SC2086
out=$("$FUSIONDBG" compare "$m" $R --with "$opt" --set ConvBN_Relu_Fusion.enabled=false); rc=$?
[ "$rc" = 1 ] || bad "round 2 off: exit $rc, want 1"
grep -q "only the compiler: relu1; only fusiondbg: -" <<<"$out" || bad "round 2 off: the different row: $out"
grep -q "why: ConvBN_Relu_Fusion did not run" <<<"$out" || bad "round 2 off: why names the disabled rule: $out"
# --differences: the same rows counted, not listed (text and JSON)
# shellcheck disable=SC2086
out=$("$FUSIONDBG" compare "$m" $R --with "$opt" --set ConvBN_Relu_Fusion.enabled=false --differences); rc=$?
[ "$rc" = 1 ] && grep -q "only the compiler: relu1" <<<"$out" || bad "--differences: exit $rc, the different row: $out"
grep -q "^same (" <<<"$out" && bad "--differences lists the same rows: $out"
grep -q "same 2, compiler only 0, fusiondbg only 0, different 1" <<<"$out" || bad "--differences: the counts: $(head -2 <<<"$out")"
# shellcheck disable=SC2086
"$FUSIONDBG" compare "$m" $R --with "$opt" --set ConvBN_Relu_Fusion.enabled=false --differences --format json \
	| "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); assert d["counts"]["same"] == 2 and [r["kind"] for r in d["rows"]] == ["different"], d["rows"]' \
	|| bad "--differences: JSON rows"
"$FUSIONDBG" compare "$m" -r samples/rounds/two_rounds.yaml --with "$opt" --format json \
	--set Conv_BN_Fusion.enabled=false --set Conv_Relu_Fusion.enabled=false --set ConvBN_Relu_Fusion.enabled=false >"$tmp/off.json"
"$PYTHON" - "$tmp/off.json" <<'EOF' || bad "every rule off: compiler only, with why"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["counts"]["compiler_only"] == 3 and d["differences"] == 3, d["counts"]
r = [x for x in d["rows"] if x["node"] == "conv1"][0]
assert r["kind"] == "compiler_only" and r["fusiondbg"] is None and "did not run" in r["why"], r
EOF
"$FUSIONDBG" compare samples/matmul_reshape.onnx -r rules --with "$(optimized samples/matmul_reshape.onnx)" >"$tmp/mr.out"; rc=$?
[ "$rc" = 1 ] || bad "matmul_reshape: exit $rc, want 1"
grep -q "fusiondbg predicts a fusion the compiler did not make (1)" "$tmp/mr.out" && grep -q "MatMul_Reshape_Fusion: matmul1, reshape1" "$tmp/mr.out" \
	|| bad "matmul_reshape: fusiondbg only: $(cat "$tmp/mr.out")"

# 3. fusion_result.json
cat >"$tmp/fr.json" <<'EOF'
{"session_and_graph_id": "0_0",
 "graph_fusion": {"Conv_BN_Fusion": {"match_times": "2", "effect_times": "2"},
                  "Conv_Relu_Fusion": {"match_times": "3", "effect_times": "1"},
                  "ConvBatchnormFusionPass": {"match_times": "53", "effect_times": "53"}},
 "ub_fusion": {}}
EOF
# shellcheck disable=SC2086
"$FUSIONDBG" compare "$m" $R --with "$tmp/fr.json" --format json >"$tmp/frout.json"; rc=$?
[ "$rc" = 1 ] || bad "fusion_result: exit $rc, want 1"
"$PYTHON" - "$tmp/frout.json" <<'EOF' || bad "fusion_result: per pass"
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["name"]: x for x in d["passes"]}
assert p["Conv_BN_Fusion"]["same"] and p["Conv_BN_Fusion"]["compiler"] == {"match_times": 2, "effect_times": 2}, p["Conv_BN_Fusion"]
assert not p["Conv_Relu_Fusion"]["same"] and p["Conv_Relu_Fusion"]["fusiondbg"] == {"match_times": 1, "effect_times": 1}, p["Conv_Relu_Fusion"]
assert p["ConvBatchnormFusionPass"]["fusiondbg"]["match_times"] == -1
assert p["ConvBN_Relu_Fusion"]["compiler"]["match_times"] == -1 and p["ConvBN_Relu_Fusion"]["fusiondbg"]["effect_times"] == 1
assert d["differences"] == 3, d["differences"]
EOF
# several graphs, one after another, and as an array: counts summed
printf '%s\n%s\n' '{"graph_fusion": {"Conv_BN_Fusion": {"match_times": 1, "effect_times": 1}}}' \
	'{"graph_fusion": {"Conv_BN_Fusion": {"match_times": "1", "effect_times": "1"}}, "ub_fusion": {"Conv_Relu_Fusion": {"match_times": "1", "effect_times": "1"}}}' >"$tmp/two.json"
# shellcheck disable=SC2086
out=$("$FUSIONDBG" compare "$m" $R --with "$tmp/two.json")
grep -Eq "Conv_BN_Fusion +2 / 2 +2 / 2 +same" <<<"$out" || bad "concatenated records: $out"
printf '[%s, %s]' '{"graph_fusion": {}}' '{"graph_fusion": {"Conv_Relu_Fusion": {"match_times": "1", "effect_times": "1"}}}' >"$tmp/arr.json"
# shellcheck disable=SC2086
"$FUSIONDBG" compare "$m" $R --with "$tmp/arr.json" | grep -Eq "Conv_Relu_Fusion +1 / 1 +1 / 1 +same" || bad "an array of records"
printf '{"graph_fusion": {"A": {"match_times": 1,}}}' >"$tmp/broken.json"
# shellcheck disable=SC2086
"$FUSIONDBG" compare "$m" $R --with "$tmp/broken.json" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "broken.json:1:42: error: JSON: expected a member name in quotes" "$tmp/err" || bad "broken JSON: exit $rc, $(cat "$tmp/err")"
printf '{"nodes": []}' >"$tmp/other.json"
# shellcheck disable=SC2086
"$FUSIONDBG" compare "$m" $R --with "$tmp/other.json" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "other.json:1:1: error: no \"graph_fusion\"" "$tmp/err" || bad "not a record: exit $rc, $(cat "$tmp/err")"
# counts are whole numbers from 0 to INT64_MAX, read from their text: a sum
# across records past INT64_MAX (it wrapped negative), -1 (the "not in the
# record" marker), a 23-digit count (clamped), a fraction, a word are errors
# naming the pass and the line, one line each, exit 2
bad_count() {   # bad_count NAME TEXT WANT: the record TEXT gives exactly the line WANT
	printf '%s' "$2" >"$tmp/$1.json"
	# shellcheck disable=SC2086
	"$FUSIONDBG" compare "$m" $R --with "$tmp/$1.json" >"$tmp/out" 2>"$tmp/err"; local rc=$?
	[ "$rc" = 2 ] && [ "$(cat "$tmp/err")" = "$tmp/$1.json:$3" ] && [ ! -s "$tmp/out" ] ||
		bad "count $1: exit $rc, stderr '$(cat "$tmp/err")', want '$tmp/$1.json:$3'"
}
bad_count wrap '{"graph_fusion": {"Conv_BN_Fusion": {"match_times": 9223372036854775807, "effect_times": 1}}}
{"graph_fusion": {"Conv_BN_Fusion": {"match_times": 1, "effect_times": 1}}}' \
	"2:53: error: pass 'Conv_BN_Fusion': match_times summed over the records is past 9223372036854775807"
bad_count minus_one '{"graph_fusion": {
 "Conv_BN_Fusion": {"match_times": -1, "effect_times": 1}}}' \
	"2:36: error: pass 'Conv_BN_Fusion': match_times -1 is negative"
bad_count digits23 '{"graph_fusion": {
 "Conv_BN_Fusion": {"match_times": "12345678901234567890123", "effect_times": 1}}}' \
	"2:36: error: pass 'Conv_BN_Fusion': match_times 12345678901234567890123 is out of range (at most 9223372036854775807)"
bad_count number23 '{"graph_fusion": {
 "Conv_BN_Fusion": {"match_times": 12345678901234567890123, "effect_times": 1}}}' \
	"2:36: error: pass 'Conv_BN_Fusion': match_times 12345678901234567890123 is out of range (at most 9223372036854775807)"
bad_count fraction '{"graph_fusion": {
 "Conv_BN_Fusion": {"match_times": 2, "effect_times": 1.5}}}' \
	"2:55: error: pass 'Conv_BN_Fusion': effect_times '1.5' is not a count (a whole number)"
bad_count word '{"ub_fusion": {"Conv_BN_Fusion": {"match_times": "two"}}}' \
	"1:50: error: pass 'Conv_BN_Fusion': match_times 'two' is not a count (a whole number)"
# INT64_MAX itself is a count, and an absent count is no number: the pass is in the record
printf '{"graph_fusion": {"Conv_BN_Fusion": {"match_times": 9223372036854775807}}}' >"$tmp/max.json"
# shellcheck disable=SC2086
out=$("$FUSIONDBG" compare "$m" $R --with "$tmp/max.json")
grep -Eq "Conv_BN_Fusion +9223372036854775807 / 0 +[0-9]+ / [0-9]+ +differs" <<<"$out" || bad "INT64_MAX: $out"

# a torch export at opset 13 whose differences go with the shapes onnxruntime
# knows: compare --shapes full says how many remain with --shapes onnx
m13=tests/data/torch/torch_transformer_encoder_opset13.onnx
opt13=$(optimized "$m13")
if [ -n "$opt13" ]; then
	out=$("$FUSIONDBG" compare "$m13" -r rules/onnxruntime --with "$opt13" --shapes full)
	grep -qF "with --shapes onnx (the shapes ONNX's own inference derives, which is what onnxruntime knows) 0 of these 8 differences remain: try it" <<<"$out" \
		|| bad "--shapes onnx suggestion: $out"
	"$FUSIONDBG" compare "$m13" -r rules/onnxruntime --with "$opt13" --shapes full --format json >"$tmp/s13.json"
	"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["differences"] == 8 and d["differences_shapes_onnx"] == 0))' \
		"$tmp/s13.json" || bad "--shapes onnx suggestion in JSON: $(head -c 300 "$tmp/s13.json")"
	out=$("$FUSIONDBG" compare "$m13" -r rules/onnxruntime --with "$opt13")
	grep -q "with --shapes onnx" <<<"$out" && bad "a suggestion when the rule set's shapes are onnx already: $out"
	# the copy the TUI's compare view is tested on (tests/tui/compareshapes.script) still says the same
	kept=tests/data/compare/torch_transformer_encoder_opset13.ort.onnx
	[ "$("$FUSIONDBG" compare "$m13" -r rules/onnxruntime --with "$opt13" --shapes full | sed 1d)" = \
	  "$("$FUSIONDBG" compare "$m13" -r rules/onnxruntime --with "$kept" --shapes full | sed 1d)" ] ||
		bad "$kept is no longer what onnxruntime writes (make it again: tests/data/compare/README)"
else
	bad "onnxruntime refused $m13"
fi
# the same on a shared model: DistilBERT's shape-built Reshapes
if have_models; then
	mdb="$MODELS/tiny_distilbert_sst2.onnx"
	optdb=$(optimized "$mdb")
	out=$("$FUSIONDBG" compare "$mdb" -r rules/onnxruntime --with "$optdb" --shapes full)
	grep -qF "with --shapes onnx (the shapes ONNX's own inference derives, which is what onnxruntime knows) 0 of these 6 differences remain: try it" <<<"$out" \
		|| bad "--shapes onnx suggestion on tiny_distilbert_sst2: $out"
fi

# 4. bad input
# shellcheck disable=SC2086
"$FUSIONDBG" compare "$m" $R --with "$tmp/none.onnx" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] || bad "missing --with file: exit $rc, $(cat "$tmp/err")"
printf 'garbage that is not protobuf \x01\x02' >"$tmp/junk.onnx"
# shellcheck disable=SC2086
"$FUSIONDBG" compare "$m" $R --with "$tmp/junk.onnx" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "junk.onnx" "$tmp/err" || bad "junk --with: exit $rc, $(cat "$tmp/err")"
# shellcheck disable=SC2086
"$FUSIONDBG" compare "$m" $R >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] || bad "no --with: exit $rc"
[ "$fail" = 0 ] && echo "compare: all checks passed"
finish "$fail"
