#!/usr/bin/env bash
# test_compare_transpose.sh — `compare` of a rule set with the transpose
# optimizer (rules/onnxruntime) against onnxruntime-node's level-1 graph
# (tests/peer/optimize.js) on the models of make_transpose_models.py where
# the optimizer adds nodes: the Transposes it moves and the Unsqueeze and
# Transpose it gives a broadcast input are named as onnxruntime names them,
# so they pair with the compiler's and are no fusion of anything; two moved
# Transposes get two tensor names (tpose_two_moved was refused: "node 'b'
# writes 'c_before_transpose', which node 'c_before_transpose' also writes").
set -u
. "$(dirname "$0")/../lib.sh"
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
need_onnxruntime
make_tmp
for m in tpose_two_moved tpose_moved tpose_rotary; do
	NODE_PATH=$NODE_DIR/node_modules node tests/peer/optimize.js basic "$tmp" "tests/data/transpose/$m.onnx" >"$tmp/ort.json" 2>&1
	[ -f "$tmp/$m.basic.onnx" ] || { bad "onnxruntime did not optimize $m: $(cat "$tmp/ort.json")"; continue; }
	"$FUSIONDBG" compare "tests/data/transpose/$m.onnx" -r rules/onnxruntime --with "$tmp/$m.basic.onnx" >"$tmp/out" 2>&1
	rc=$?
	[ $rc = 0 ] && grep -qF "same 0, compiler only 0, fusiondbg only 0, different 0" "$tmp/out" ||
		bad "compare $m: exit $rc: $(cat "$tmp/out")"
done
[ $fail = 0 ] && echo "test_compare_transpose: all good"
exit $fail
