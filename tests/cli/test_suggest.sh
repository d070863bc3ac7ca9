#!/usr/bin/env bash
# test_suggest.sh — `fusiondbg suggest`:
#  1. on every shared model and sample, with the shipped rules and with
#     rules/onnxruntime, the round trip of every pattern of the top 10
#     (tests/tools/suggest_roundtrip.py): --write, check --strict, match with
#     the rule added fires on exactly the instances, and mem's bytes of
#     those fusions are the bytes suggest gives; no instance holds a node
#     the rules fused or one the op table marks as not fusible; --max-ops;
#  2. against onnxruntime (its groups, which the peer test keeps in
#     $BUILD/peer): the groups it fuses that rules/ leaves unfused are in
#     the top 20 patterns (tests/peer/suggest_peer.py), at least 80% of them
#     per model;
#  3. the patterns are kernels (tests/data/suggest, PyTorch exports made by
#     tests/tools/make_suggest_models.py): on a YOLOX-nano-like net the
#     Conv -> Sigmoid -> Mul block ranks first with every one of its 104
#     instances; on a BERT encoder the bias-GELU (MatMul -> Add -> the erf
#     GELU's ops) is a pattern of its own, not merged with the next MatMul;
#     --max-heavy 2 lets two heavy ops in; instances that differ only by a
#     commutative op's operand order are one pattern, and the report says so;
#     two patterns of the same op types say where they differ;
#  4. words and files: the counts never contradict one another (nothing to
#     suggest, then --write 1 says the same reason); exporter names with '/'
#     are visible in the rule's header; a competing rule whose name holds a
#     line break does not break the rule's comment (the pattern stays);
#     --write replaces a file whole or not at all (a failed write leaves the
#     old bytes) and never blocks on a FIFO nobody reads;
#  5. bad usage exits 2 with one line.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
make_tmp
models=(samples/*.onnx tests/data/suggest/*.onnx)
have_models && models+=("$MODELS"/*.onnx)
for m in "${models[@]}"; do
	for r in rules rules/onnxruntime; do
		"$PYTHON" tests/tools/suggest_roundtrip.py "$FUSIONDBG" "$m" "$r" --dir "$tmp" >"$tmp/rt.out" 2>&1 ||
			bad "round trip on $m with $r: $(grep -v '^ok' "$tmp/rt.out" | head -3)"
	done
done
"$FUSIONDBG" suggest samples/conv_add_silu.onnx -r rules --max-ops 2 --format json >"$tmp/k2.json" || bad "--max-ops 2"
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["max_ops"] == 2 and all(len(p["op_types"]) == 2 for p in d["patterns"])' "$tmp/k2.json" || bad "--max-ops 2: a pattern of more ops"
if have_models && compgen -G "$BUILD/peer/*.json" >/dev/null; then
	"$PYTHON" tests/peer/suggest_peer.py --fusiondbg "$FUSIONDBG" --cache "$BUILD/peer" --rules rules --top 20 \
		--max-ops 10 --min-share 0.8 "$MODELS"/*.onnx || bad "suggest against onnxruntime"
else
	echo "onnxruntime part skipped: no groups of onnxruntime's in $BUILD/peer (make check-peer makes them)"
fi
# ---- 3. kernels
json() { "$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }
yolox=tests/data/suggest/torch_yolox_nano_opset13.onnx
bert=tests/data/suggest/torch_bert_opset17.onnx
"$FUSIONDBG" suggest "$yolox" -r rules --format json >"$tmp/yolox.json" || bad "suggest on $yolox"
json "$tmp/yolox.json" 'p=d["patterns"][0]; assert p["op_types"] == ["Conv", "Sigmoid", "Mul"] and p["count"] == 104, (p["title"], p["count"])' ||
	bad "YOLOX-nano: #1 is not Conv -> Sigmoid -> Mul x104"
"$FUSIONDBG" suggest "$bert" -r rules --format json >"$tmp/bert.json" || bad "suggest on $bert"
json "$tmp/bert.json" '
gelu = [p for p in d["patterns"] if "Erf" in p["op_types"]]
assert len(gelu) == 1, [p["title"] for p in gelu]
assert gelu[0]["op_types"] == ["MatMul", "Add", "Mul", "Div", "Erf", "Add", "Mul"] and gelu[0]["count"] == 2, gelu[0]["title"]
assert gelu[0]["rank"] == 1, gelu[0]["rank"]' || bad "BERT: the bias-GELU is not pattern #1 of its own"
# asked for two heavy ops, the FFN's two MatMuls with the GELU between them are one pattern
"$FUSIONDBG" suggest "$bert" -r rules --max-heavy 2 --format json >"$tmp/bert2.json" || bad "--max-heavy 2"
json "$tmp/bert2.json" 'assert d["max_heavy"] == 2 and d["patterns"][0]["op_types"].count("MatMul") == 2, d["patterns"][0]["title"]' ||
	bad "--max-heavy 2: #1 is not the FFN's two MatMuls"
"$FUSIONDBG" suggest samples/conv_add_silu.onnx -r samples/rules >"$tmp/order.txt" || bad "suggest on conv_add_silu"
grep -q '^#1  Sigmoid -> Mul  x3 ' "$tmp/order.txt" && ! grep -q '^#2 ' "$tmp/order.txt" &&
	grep -q 'operand order: 1 of the 3 instances read Mul.s two inputs the other way round' "$tmp/order.txt" ||
	bad "Sigmoid -> Mul with mul2's inputs swapped is not one pattern that says so: $(cat "$tmp/order.txt")"
"$FUSIONDBG" suggest samples/conv_add_silu.onnx -r rules/onnxruntime >"$tmp/same.txt" || bad "suggest -r rules/onnxruntime"
grep -q '^    same ops as #1; differs at op0 (Conv): where its inputs come from' "$tmp/same.txt" ||
	bad "two Conv -> Add patterns do not say where they differ: $(grep '^#' "$tmp/same.txt")"

# ---- 4. words and files
out=$("$FUSIONDBG" suggest samples/conv_add_silu.onnx -r rules)
grep -q '^Nothing to suggest: no node is left that a fusion could take\.$' <<<"$out" && ! grep -q '^#' <<<"$out" ||
	bad "everything fused: $out"
err=$("$FUSIONDBG" suggest samples/conv_add_silu.onnx -r rules --write 1 -o "$tmp/none.yaml" 2>&1)
[ $? -eq 2 ] && [ "$err" = "fusiondbg: suggest: no pattern 1: nothing to suggest (no node is left that a fusion could take)" ] ||
	bad "--write 1 with nothing to suggest: $err"
"$FUSIONDBG" suggest "$yolox" -r rules --write 1 -o "$tmp/silu.yaml" 2>"$tmp/err" || bad "--write 1 on $yolox: $(cat "$tmp/err")"
grep -q '^#   /backbone/backbone/stem/conv/conv/Conv, /backbone/backbone/stem/conv/act/Sigmoid, /backbone/backbone/stem/conv/act/Mul$' "$tmp/silu.yaml" ||
	bad "the rule's header hides the exporter's names: $(head -4 "$tmp/silu.yaml")"
grep -qx 'fusiondbg: wrote .*silu.yaml (rule Suggested_Conv_Sigmoid_Mul_Fusion, 104 instances)' "$tmp/err" ||
	bad "--write's message: $(cat "$tmp/err")"
"$FUSIONDBG" suggest samples/conv_add_silu.onnx -r samples/rules -r tests/data/suggest/newline_name.yaml \
	--write 1 -o "$tmp/nl.yaml" 2>"$tmp/err" || bad "a competing rule named with a line break: $(cat "$tmp/err")"
grep -qx '# its op types: Sigmoid_Tanh\\n: \[unclosed (120)\.' "$tmp/nl.yaml" && "$FUSIONDBG" check --strict "$tmp/nl.yaml" >/dev/null ||
	bad "the line break in a rule name reached the comment: $(grep -n Sigmoid_Tanh "$tmp/nl.yaml")"
printf 'keep me\n' >"$tmp/old.yaml"
# a write that fails (no byte may go to a file): the old file stays whole
(trap '' XFSZ; ulimit -f 0; "$FUSIONDBG" suggest samples/conv_add_silu.onnx -r samples/rules --write 1 -o "$tmp/old.yaml") \
	2>&1 | cat >"$tmp/err"
[ "$(cat "$tmp/old.yaml")" = "keep me" ] && grep -q 'cannot' "$tmp/err" && ! ls "$tmp"/old.yaml.tmp.* 2>/dev/null ||
	bad "a failed --write changed the file it replaces: [$(cat "$tmp/old.yaml")] $(cat "$tmp/err")"
mkfifo "$tmp/fifo"
timeout 20 "$FUSIONDBG" suggest samples/conv_add_silu.onnx -r samples/rules --write 1 -o "$tmp/fifo" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'a FIFO nobody reads' "$tmp/err" || bad "--write to a FIFO nobody reads: exit $rc, $(cat "$tmp/err")"
"$FUSIONDBG" suggest --help 2>&1 | grep -q '^usage: fusiondbg suggest MODEL -r RULES \[--top N\]' ||
	bad "suggest's synopsis does not show -r RULES as required: $("$FUSIONDBG" suggest --help 2>&1 | head -1)"

# ---- 5. bad usage
for args in "--write 0 -o $tmp/x.yaml" "--write 1" "--max-ops 1" "--max-heavy 0" "--top x" "--write 9999 -o $tmp/x.yaml"; do
	# shellcheck disable=SC2086
	"$FUSIONDBG" suggest samples/conv_add_silu.onnx -r rules $args >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -ge 1 ] || bad "suggest $args: exit $rc, $(cat "$tmp/err")"
done
finish $fail
