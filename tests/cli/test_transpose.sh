#!/usr/bin/env bash
# test_transpose.sh — the rule set's transpose optimizer (src/transpose/,
# `ruleset: {transpose_optimizer: onnxruntime}`) as the commands show it, on
# the models of tests/tools/make_transpose_models.py: `why --node` on a
# removed Transpose and on a removed DequantizeLinear says what removed it,
# `match --trace` lists the events before the rounds, `match --format json`
# has the transpose_optimizer object (the peer reads its absorbed_by), a
# Transpose the pass does not follow is said to be not modelled, a rule set
# without the setting sees the model as read, and `apply` refuses in one line.
set -u
. "$(dirname "$0")/../lib.sh"
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=tests/data/transpose
R=rules/onnxruntime

has() {
	local f=$1; shift
	for frag in "$@"; do grep -qF -- "$frag" "$f" || { bad "$(basename "$f") lacks '$frag':"; head -n 5 "$f"; }; done
}

"$FUSIONDBG" why "$D/tpose_cancel_qdq.onnx" -r "$R" --rule ORT_QDQ_Drop --node Transpose_0 >"$tmp/why" 2>&1
[ $? -eq 1 ] || bad "why on a cancelled Transpose should exit 1"
has "$tmp/why" "why: Transpose_0 is not in the graph the rules see: cancelled by the transpose optimizer against Transpose_2, pushed through Unsqueeze_0, Concat, Slice_2 and 8 QuantizeLinear/DequantizeLinear (perm [0, 1, 3, 2], HandleTranspose)"
"$FUSIONDBG" why "$D/tpose_cancel_qdq.onnx" -r "$R" --rule ORT_QDQ_Drop --node Slice_0_out_DQ >"$tmp/why2" 2>&1
has "$tmp/why2" "why: Slice_0_out_DQ is not in the graph the rules see: removed by the transpose optimizer with Transpose_0_out_Q: an empty DequantizeLinear -> QuantizeLinear pair (TryRemoveEmptyDQQ); Transpose_0_out_DQ now reads Slice_0_out_q"
"$FUSIONDBG" why "$D/tpose_cancel_qdq.onnx" -r "$R" --rule ORT_QDQ_Drop --node Slice_2 >"$tmp/why3" 2>&1
has "$tmp/why3" "note: Slice_2: axes [2], a new constant const_transpose_optimizer: a Transpose was pushed through it (HandleSlice)"

"$FUSIONDBG" match "$D/tpose_cancel_float.onnx" -r "$R" --trace >"$tmp/trace" 2>&1 || bad "match --trace exited $?"
has "$tmp/trace" "transpose optimizer: 4 Transposes cancelled, 0 Q/DQ removed with them, 2 nodes changed, 0 Transposes not modelled" \
	"  Transpose_3 (Transpose): cancelled by the transpose optimizer against Transpose_0, which was pushed here through Unsqueeze_0, Concat, Slice_3"
"$FUSIONDBG" match "$D/tpose_not_modelled.onnx" -r "$R" --trace >"$tmp/trace2" 2>&1
has "$tmp/trace2" "  Transpose_0 (Transpose): left as it is: onnxruntime's transpose optimizer pushes it on, and at Softmax onnxruntime would push it through this node, which fusiondbg does not model"

"$FUSIONDBG" match "$D/tpose_cancel_qdq.onnx" -r "$R" --format json >"$tmp/m.json" 2>&1 || bad "match --format json exited $?"
"$PYTHON" - "$tmp/m.json" <<'PY' || fail=1
import json, sys
t = json.load(open(sys.argv[1]))["transpose_optimizer"]
want = {"cancelled": 4, "qdq_removed": 8, "changed": 2, "not_modelled": 0}
got = {k: t[k] for k in want}
assert got == want, got
ev = {(e["kind"], e["node"]): e for e in t["events"]}
assert ev[("empty_qdq", "Transpose_0_out_Q")]["absorbed_by"] == "Transpose_0_out_DQ", ev
c = ev[("cancelled", "Transpose_0")]
assert c["against"] == "Transpose_2" and c["through"][-3:] == ["Slice_2", "Slice_2_out_Q", "Slice_2_out_DQ"], c
PY

# without the setting the rules see the model as read
mkdir "$tmp/rs" && cp "$R"/qdq_drop.yaml "$tmp/rs/"
"$FUSIONDBG" match "$D/tpose_cancel_qdq.onnx" -r "$tmp/rs" --format json >"$tmp/m2.json" 2>&1 || bad "match without the setting exited $?"
grep -q '"transpose_optimizer"' "$tmp/m2.json" && bad "a rule set without transpose_optimizer has its JSON object"
"$FUSIONDBG" why "$D/tpose_cancel_qdq.onnx" -r "$tmp/rs" --rule ORT_QDQ_Drop --node Transpose_0 >"$tmp/why4" 2>&1
has "$tmp/why4" "why: ORT_QDQ_Drop fires on Transpose_0 (Transpose)"

"$FUSIONDBG" apply "$D/tpose_cancel_qdq.onnx" -r "$R" -o "$tmp/out.onnx" >"$tmp/apply" 2>&1
[ $? -eq 2 ] || bad "apply over a transposed model should exit 2"
has "$tmp/apply" "fusiondbg: $D/tpose_cancel_qdq.onnx: the rule set's transpose optimizer rewrote the model (4 Transposes cancelled, 8 Q/DQ removed); apply cannot write fusions over that rewrite yet"
[ -e "$tmp/out.onnx" ] && bad "apply wrote a file"
finish "$fail"
