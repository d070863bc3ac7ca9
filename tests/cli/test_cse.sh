#!/usr/bin/env bash
# test_cse.sh — the rule set's common-subexpression elimination (src/cse/,
# `ruleset: {common_subexpression_elimination: onnxruntime}`) as the
# commands show it, on tests/data/cse (tests/tools/make_cse_models.py):
# `why --node` on a merged node names the node it merged into, a rule set
# without the setting sees the model as read, and `apply` refuses in one line.
set -u
. "$(dirname "$0")/../lib.sh"
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
M=tests/data/cse/cse_merge.onnx
R=rules/onnxruntime

"$FUSIONDBG" why "$M" -r "$R" --rule ORT_GatherSliceToSplitFusion --node gather_a >"$tmp/why" 2>&1
[ $? -eq 1 ] || bad "why on a merged node should exit 1"
grep -qF "why: gather_a is not in the graph the rules see: merged into gather_b (Gather of the same inputs and attributes: common-subexpression elimination)" "$tmp/why" \
	|| { bad "why on gather_a:"; cat "$tmp/why"; }

# the setting off: the rules see gather_a
mkdir -p "$tmp/rules"
cp "$R"/*.yaml "$tmp/rules/"
sed -i 's/common_subexpression_elimination: onnxruntime/common_subexpression_elimination: none/' "$tmp/rules/ruleset.yaml"
"$FUSIONDBG" why "$M" -r "$tmp/rules" --rule ORT_GatherSliceToSplitFusion --node gather_a >"$tmp/why_off" 2>&1
grep -qF "is not in the graph the rules see" "$tmp/why_off" && { bad "without the setting gather_a was merged:"; cat "$tmp/why_off"; }

"$FUSIONDBG" apply "$M" -r "$R" -o "$tmp/out.onnx" >"$tmp/apply" 2>&1
[ $? -eq 2 ] || bad "apply over a merged model should exit 2"
grep -qF "the rule set's common-subexpression elimination merged 3 nodes; apply cannot write fusions over that rewrite yet" "$tmp/apply" \
	|| { bad "apply:"; cat "$tmp/apply"; }
exit $fail
