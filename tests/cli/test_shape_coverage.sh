#!/usr/bin/env bash
# test_shape_coverage.sh — on every sample and every model in $MODELS, fusiondbg knows the
# shape of at least as many intermediate tensors as onnx's own
# infer_shapes(model, data_prop=True) does (python3-onnx from apt), counted
# the same way (tests/tools/shape_coverage.py says how). Prints both numbers
# per model; fails when ours is lower. Then, tensor by tensor, every shape
# python knows must be the shape we inferred (test_shape_infer --dump), and on
# onnx's operator test cases our shapes and folded values must equal the
# reference outputs.
set -u
. "$(dirname "$0")/../lib.sh"
DUMPER=$BUILD/tests/test_shape_infer
fail=0 n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-34s %12s %12s  %s\n' model "ours" "onnx" verdict
for model in samples/*.onnx "$MODELS"/*.onnx; do
	[ -e "$model" ] || continue
	n=$((n + 1))
	name=$(basename "$model")
	if ! "$FUSIONDBG" info --format json "$model" >"$tmp/info.json" 2>"$tmp/info.err"; then
		echo "$name: fusiondbg info failed:"; cat "$tmp/info.err"; fail=1; continue
	fi
	ours=$("$PYTHON" -c 'import json,sys; c=json.load(open(sys.argv[1]))["shape_coverage"]; print(c["known"], c["total"])' "$tmp/info.json") || {
		echo "$name: no shape_coverage {known,total} in info --format json"; fail=1; continue; }
	theirs=$("$PYTHON" tests/tools/shape_coverage.py "$model") || {
		echo "$name: shape_coverage.py failed"; fail=1; continue; }
	set -- $ours; ok=$1 ot=$2
	set -- $theirs; pk=$1 pt=$2
	verdict=ok
	if [ "$ot" -ne "$pt" ]; then
		verdict="FAIL: intermediate tensor totals differ ($ot vs $pt)"; fail=1
	elif [ "$ok" -lt "$pk" ]; then
		verdict="FAIL: ours knows fewer"; fail=1
	fi
	printf '%-34s %5s/%-6s %5s/%-6s  %s\n' "$name" "$ok" "$ot" "$pk" "$pt" "$verdict"

	# the shapes themselves: where python knows a shape, ours must be equal
	if [ -x "$DUMPER" ]; then
		if ! "$DUMPER" --dump "$model" >"$tmp/dump.txt" 2>"$tmp/dump.err"; then
			echo "$name: test_shape_infer --dump failed:"; cat "$tmp/dump.err"; fail=1
		elif ! "$PYTHON" tests/tools/shape_coverage.py --compare "$model" "$tmp/dump.txt"; then
			echo "$name: inferred shapes disagree with onnx (above)"; fail=1
		fi
	fi
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
