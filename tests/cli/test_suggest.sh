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
#  3. bad usage exits 2 with one line.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
make_tmp
models=(samples/*.onnx)
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
for args in "--write 0 -o $tmp/x.yaml" "--write 1" "--max-ops 1" "--top x" "--write 9999 -o $tmp/x.yaml"; do
	# shellcheck disable=SC2086
	"$FUSIONDBG" suggest samples/conv_add_silu.onnx -r rules $args >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -ge 1 ] || bad "suggest $args: exit $rc, $(cat "$tmp/err")"
done
finish $fail
