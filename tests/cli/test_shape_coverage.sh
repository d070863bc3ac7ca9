#!/usr/bin/env bash
# test_shape_coverage.sh — on every sample, on Loop/Scan/If bodies over symbols
# (tests/data/shapes/control_symbolic.onnx), on the PyTorch exports of
# tests/data/torch (an If per sample rate in torch_vad) and on every model in
# $MODELS, fusiondbg knows the shape of at least as many intermediate
# tensors as onnx's own
# infer_shapes(model, data_prop=True) does (python3-onnx from apt), counted
# the same way (tests/tools/shape_coverage.py says how): known (numbers or
# names, invented ones included) and named (no invented unk__N / fresh
# symbol); o.sym counts ours that carry a symbol or an expression (shown,
# not judged). Prints the table per model; fails when ours is lower. Then, tensor
# by tensor, every shape python knows must agree with ours up to renaming of
# symbols (`info --tensors --format json`, nothing bound), and on onnx's
# operator test cases our shapes and folded values must equal the reference
# outputs.
set -u
. "$(dirname "$0")/../lib.sh"
DUMPER=$BUILD/tests/test_shape_infer
fail=0 n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-34s %6s  %-13s %-13s %5s  %s\n' model inter "ours kn/named" "onnx kn/named" "o.sym" verdict
for model in samples/*.onnx tests/data/shapes/control_symbolic.onnx tests/data/torch/*.onnx "$MODELS"/*.onnx; do
	[ -e "$model" ] || continue
	n=$((n + 1))
	name=$(basename "$model")
	if ! "$FUSIONDBG" info --format json "$model" >"$tmp/info.json" 2>"$tmp/info.err" ||
	   ! "$FUSIONDBG" info --tensors --format json "$model" >"$tmp/tensors.json" 2>>"$tmp/info.err"; then
		echo "$name: fusiondbg info failed:"; cat "$tmp/info.err"; fail=1; continue
	fi
	ours=$("$PYTHON" -c 'import json,sys; c=json.load(open(sys.argv[1]))["shape_coverage"]; print(c["known"], c["total"])' "$tmp/info.json") || {
		echo "$name: no shape_coverage {known,total} in info --format json"; fail=1; continue; }
	"$PYTHON" tests/tools/shape_coverage.py --agree "$model" "$tmp/tensors.json" >"$tmp/agree.txt" 2>&1
	agreed=$?
	row=$(sed -n 's/^ROW //p' "$tmp/agree.txt")
	if [ -z "$row" ]; then
		echo "$name: shape_coverage.py --agree failed:"; cat "$tmp/agree.txt"; fail=1; continue
	fi
	set -- $ours $("$PYTHON" -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["total"], r["ours"], r["ours_named"], r["onnx"], r["onnx_named"], r["ours_symbolic"])' "$row")
	ok=$1 ot=$2 total=$3 mine=$4 named=$5 theirs=$6 tnamed=$7 sym=$8
	verdict=ok
	if [ "$ot" -ne "$total" ]; then
		verdict="FAIL: intermediate tensor totals differ ($ot vs $total)"; fail=1
	elif [ "$ok" -ne "$mine" ]; then
		verdict="FAIL: info says $ok known, its tensors $mine"; fail=1
	elif [ "$mine" -lt "$theirs" ] || [ "$named" -lt "$tnamed" ]; then
		verdict="FAIL: ours knows fewer"; fail=1
	elif [ "$agreed" -ne 0 ]; then
		verdict="FAIL: shapes disagree"; fail=1
	fi
	printf '%-34s %6s  %5s/%-7s %5s/%-7s %5s  %s\n' "$name" "$total" "$mine" "$named" "$theirs" "$tnamed" "$sym" "$verdict"
	[ "$agreed" -eq 0 ] || grep -v '^ROW' "$tmp/agree.txt" | sed 's/^/    /'
done

# onnx's own operator test cases: our shapes and folded values against the
# reference outputs numpy computed for them
if [ -x "$DUMPER" ]; then
	cases=$tmp/node
	if ! "$PYTHON" tests/tools/shape_coverage.py --node-cases "$cases" >"$tmp/cases.log" 2>&1; then
		echo "shape_coverage.py --node-cases failed:"; tail -5 "$tmp/cases.log"; fail=1
	else
		"$DUMPER" --dump-cases "$cases"/*.onnx 2>"$tmp/cases.err" |
			awk '$2 == 0 { print $1, $3, $5, ($6 == "" ? "-" : $6) }' >"$cases/ours.txt"
		"$PYTHON" tests/tools/shape_coverage.py --node-compare "$cases" || fail=1
	fi
else
	echo "note: $DUMPER not built, shapes not compared tensor by tensor"
fi
finish $fail
