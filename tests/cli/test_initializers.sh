#!/usr/bin/env bash
# test_initializers.sh — initializers listed among the graph inputs, as ONNX
# reads them: from IR 4 on an overridable default (a graph input, not a
# constant), before IR 4 a constant; `--initializers constant` and the rule
# set's `ruleset: {initializers: constant}` make every initializer a weight,
# the command line winning. Shown by source_type const / const_or_param /
# param on the sample and on generated IR 3 / IR 8 models, by `info`'s input
# counts (every declared input, checked against python3-onnx on the shared
# models), and by the settings document's messages.
set -u
. "$(dirname "$0")/../lib.sh"
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
S=samples/initializer_inputs.onnx
SR=samples/rules/conv_add_source_types.yaml

# has OUTPUT_FILE FRAGMENT...: every fragment is in the file
has() {
	local f=$1; shift
	for frag in "$@"; do grep -qF -- "$frag" "$f" || { bad "$(basename "$f") lacks '$frag':"; head -n 5 "$f"; }; done
}

# ---- the sample: Conv_BiasAdd_SiLU_Fusion wants add2's input 1 const -------
"$FUSIONDBG" why "$S" -r "$SR" --rule Conv_BiasAdd_SiLU_Fusion --node conv2 >"$tmp/why" 2>&1
[ $? -eq 1 ] || bad "why on the overridable bias should exit 1"
has "$tmp/why" "op1 Add input1: expected source_type const, actual add2_b (initializer, overridable (also a graph input)) [FD-NM04] at $SR:32:11" \
	"input1 is an overridable initializer (also a graph input, IR >= 4): the caller may feed another value, so it is not a constant"
"$FUSIONDBG" why "$S" -r "$SR" --rule Conv_BiasAdd_SiLU_Fusion --node conv2 --initializers constant >"$tmp/why_c" 2>&1
[ $? -eq 0 ] || { bad "--initializers constant: Conv_BiasAdd_SiLU_Fusion should fire on conv2"; cat "$tmp/why_c"; }
has "$tmp/why_c" "fires on conv2 (Conv)"

# the rule set's setting, and the command line over it
mkdir -p "$tmp/rs"
cp "$SR" "$tmp/rs/"
printf 'ruleset:\n  initializers: constant   # CANN ATC fixes every weight\n' >"$tmp/rs/settings.yaml"
"$FUSIONDBG" match "$S" -r "$tmp/rs" --format json >"$tmp/m.json" 2>"$tmp/err" || bad "match with the settings document exited $?"
"$FUSIONDBG" match "$S" -r "$tmp/rs" --initializers onnx --format json >"$tmp/m_onnx.json" 2>>"$tmp/err" || bad "match --initializers onnx exited $?"
"$PYTHON" - "$tmp/m.json" "$tmp/m_onnx.json" <<'PY' || fail=1
import json, sys
def fired(p):
    return {(f["rule"], tuple(f["nodes"])) for f in json.load(open(p))["fusions"]}
const, onnx_ = fired(sys.argv[1]), fired(sys.argv[2])
want = ("Conv_BiasAdd_SiLU_Fusion", ("conv2", "add2", "sigmoid2", "mul2"))
ok = True
if want not in const:
    print("FAIL: settings initializers: constant: %s did not fire: %s" % (want, sorted(const))); ok = False
if want in onnx_:
    print("FAIL: --initializers onnx must win over the settings document: %s fired" % (want,)); ok = False
print("ok: settings constant %d fusions, --initializers onnx %d" % (len(const), len(onnx_)))
sys.exit(0 if ok else 1)
PY
[ ! -s "$tmp/err" ] || { bad "match printed on stderr:"; cat "$tmp/err"; }

# ---- const, const_or_param, param on generated models ------------------------
# x -> Relu -> Add(r, b) -> Relu, and r -> Add(r, Unsqueeze(c)) -> Relu, with b
# and c initializers listed among the inputs; IR 8 (overridable) and IR 3
# (constant). The Adds read r, an activation, so the commutative swap finds
# no graph input at input 1.
"$PYTHON" - "$tmp" <<'PY' || bad "could not build the generated models"
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
out = sys.argv[1]
for ir, opset in ((8, 13), (3, 8)):
    b = numpy_helper.from_array(np.ones([4], np.float32), "b")
    c = numpy_helper.from_array(np.ones([4], np.float32), "c")
    ax = numpy_helper.from_array(np.array([0], np.int64), "axes")
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu0"),
             helper.make_node("Add", ["r", "b"], ["add1_out"], name="add1"),
             helper.make_node("Relu", ["add1_out"], ["y1"], name="relu1")]
    if opset >= 13:
        nodes.append(helper.make_node("Unsqueeze", ["c", "axes"], ["c1"], name="unsq"))
    else:
        nodes.append(helper.make_node("Unsqueeze", ["c"], ["c1"], name="unsq", axes=[0]))
    nodes += [helper.make_node("Add", ["r", "c1"], ["add2_out"], name="add2"),
              helper.make_node("Relu", ["add2_out"], ["y2"], name="relu2")]
    f = TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info("x", f, [1, 4]),
              helper.make_tensor_value_info("b", f, [4]),
              helper.make_tensor_value_info("c", f, [4])]
    inits = [b, c]
    if opset >= 13:
        inits.append(ax)   # an initializer not listed among the inputs: a constant
    g = helper.make_graph(nodes, "g", inputs,
                          [helper.make_tensor_value_info("y1", f, [1, 4]),
                           helper.make_tensor_value_info("y2", f, [1, 4])], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    onnx.checker.check_model(m)
    onnx.save(m, "%s/ir%d.onnx" % (out, ir))
PY
for st in const const_or_param param; do
	cat >"$tmp/add_$st.yaml" <<EOF
name: "Add_$st"
priority: 10
match:
  ops:
    - type: "Add"
      input_sources:
        input1: {source_type: "$st"}
    - type: "Relu"
rewrite:
  target_op: "AddRelu"
EOF
done
# fired RULE MODEL OPTIONS... -> the anchors it fired on, space-separated
fired() {
	local st=$1 model=$2; shift 2
	"$FUSIONDBG" match "$model" -r "$tmp/add_$st.yaml" --format json "$@" 2>"$tmp/err" |
		"$PYTHON" -c 'import json,sys; print(" ".join(f["nodes"][0] for f in json.load(sys.stdin)["fusions"]))'
}
# IR 8, ONNX: b and c are graph inputs; Unsqueeze(c) is computed from one
check_fired() {
	local want=$1 st=$2 model=$3; shift 3
	local got
	got=$(fired "$st" "$model" "$@")
	[ "$got" = "$want" ] || bad "$(basename "$model") source_type $st $*: fired on '$got', want '$want'"
}
check_fired ""          const          "$tmp/ir8.onnx"
check_fired "add1"      const_or_param "$tmp/ir8.onnx"   # b as the graph input it is; Unsqueeze(c) is neither
check_fired "add1"      param          "$tmp/ir8.onnx"
check_fired "add1 add2" const          "$tmp/ir8.onnx" --initializers constant
check_fired "add1 add2" const_or_param "$tmp/ir8.onnx" --initializers constant
check_fired ""          param          "$tmp/ir8.onnx" --initializers constant
# IR 3 lists every initializer among the inputs: constants
check_fired "add1 add2" const          "$tmp/ir3.onnx"
check_fired ""          param          "$tmp/ir3.onnx"
"$FUSIONDBG" match "$tmp/ir8.onnx" -r "$tmp/add_const_or_param.yaml" --trace >"$tmp/trace" 2>&1
has "$tmp/trace" "actual b (initializer, overridable (also a graph input))" "actual c1 from unsq (Unsqueeze)"
"$FUSIONDBG" match "$tmp/ir3.onnx" -r "$tmp/add_param.yaml" --trace >"$tmp/trace3" 2>&1
has "$tmp/trace3" "actual b (initializer, also a graph input (a constant before IR 4))"
"$FUSIONDBG" match "$tmp/ir8.onnx" -r "$tmp/add_param.yaml" --trace --initializers constant >"$tmp/trace_c" 2>&1
has "$tmp/trace_c" "actual b (initializer, also a graph input (a weight: initializers constant))"

# ---- info: every declared input ---------------------------------------------
"$FUSIONDBG" info "$S" >"$tmp/info" || bad "info $S exited $?"
has "$tmp/info" "inputs           8 declared: 1 to feed, 7 initializers listed as inputs (overridable defaults, not constants)" \
	"initializers listed as inputs (overridable defaults, not constants)" "  add2_b     float32   1×16×1×1"
"$FUSIONDBG" info "$S" --initializers constant >"$tmp/info_c" || bad "info --initializers constant exited $?"
has "$tmp/info_c" "7 initializers listed as inputs (held constant: --initializers constant)"
"$FUSIONDBG" info "$tmp/ir3.onnx" >"$tmp/info3" || bad "info ir3 exited $?"
has "$tmp/info3" "inputs           3 declared: 1 to feed, 2 initializers listed as inputs (constants: IR < 4 lists every initializer)"
"$FUSIONDBG" info "$S" --initializers weights >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || bad "--initializers weights should exit 2"
has "$tmp/err" "fusiondbg: --initializers wants onnx or constant, not 'weights'"

# ---- the settings document: messages with their places ------------------------
printf 'ruleset:\n  initializers: weights\n  spare: 1\nname: "x"\n' >"$tmp/s_bad.yaml"
printf 'ruleset:\n  transpose_optimizer: tensorrt\n' >"$tmp/s_tpose.yaml"
"$FUSIONDBG" verify "$tmp/s_tpose.yaml" >"$tmp/out" 2>"$tmp/err"; [ $? -eq 1 ] || bad "verify s_tpose should exit 1"
has "$tmp/err" "$tmp/s_tpose.yaml:2:24: error: ruleset.transpose_optimizer: expected none or onnxruntime, got 'tensorrt'"
printf 'ruleset: [constant]\n' >"$tmp/s_list.yaml"
printf 'ruleset:\n  initializers: onnx\n' >"$tmp/s_onnx.yaml"
"$FUSIONDBG" verify "$tmp/s_bad.yaml" >"$tmp/out" 2>"$tmp/err"; [ $? -eq 1 ] || bad "verify s_bad should exit 1"
has "$tmp/err" "$tmp/s_bad.yaml:4:1: error: 'name' in the ruleset document: the rule set's settings go in a document of their own, rules in theirs (separate them with ---)" \
	"$tmp/s_bad.yaml:2:17: error: ruleset.initializers: expected onnx or constant, got 'weights'" \
	"$tmp/s_bad.yaml:3:3: warning: unknown key 'spare' in ruleset (known: initializers, shapes, transpose_optimizer, common_subexpression_elimination)"
"$FUSIONDBG" verify "$tmp/s_list.yaml" >"$tmp/out" 2>"$tmp/err"; [ $? -eq 1 ] || bad "verify s_list should exit 1"
has "$tmp/err" "$tmp/s_list.yaml:1:10: error: ruleset: expected a map of settings (initializers: onnx | constant), got a list"
"$FUSIONDBG" check --strict "$tmp/rs" >"$tmp/out" 2>"$tmp/err" || { bad "check --strict on a rule set with its settings exited $?"; cat "$tmp/err"; }
"$FUSIONDBG" match "$S" -r "$tmp/rs" -r "$tmp/s_onnx.yaml" >"$tmp/out" 2>"$tmp/err" || bad "match with two settings exited $?"
has "$tmp/err" "$tmp/s_onnx.yaml:2:17: warning: ruleset.initializers: onnx here, but constant at $tmp/rs/settings.yaml:2:17, which holds (--initializers decides)"

# ---- the shared models: info counts what python3-onnx counts -------------------
have_models || finish "$fail"
for model in "$MODELS"/*.onnx; do
	"$FUSIONDBG" info --format json "$model" >"$tmp/i.json" 2>/dev/null || { bad "info $(basename "$model") exited $?"; continue; }
	"$PYTHON" - "$model" "$tmp/i.json" <<'PY' || fail=1
import json, sys
import onnx
m = onnx.load(sys.argv[1], load_external_data=False)
got = json.load(open(sys.argv[2]))
g = m.graph
inits = {t.name for t in g.initializer} | {t.values.name for t in g.sparse_initializer}
listed = [i.name for i in g.input if i.name in inits]
want = {"declared_inputs": len(g.input),
        "overridable_initializers": len(listed) if m.ir_version >= 4 else 0,
        "inputs": len(g.input) - len(listed),
        "initializers_listed_as_inputs": len(listed)}
have = {k: got[k] if isinstance(got[k], int) else len(got[k]) for k in want}
name = sys.argv[1].rsplit("/", 1)[-1]
if have != want:
    print("FAIL: %s: %s, python3-onnx says %s" % (name, have, want))
    sys.exit(1)
print("ok: %-32s IR %d, %d declared inputs, %d initializers among them, %d overridable" % (
    name, m.ir_version, want["declared_inputs"], len(listed), want["overridable_initializers"]))
PY
done
# ultraface (IR 4) lists its 244 weights among its inputs: onnxruntime does
# not fold them, so a rule that wants BatchNorm's scale constant never fires
U=$MODELS/ultraface_version-RFB-320.onnx
if [ -e "$U" ]; then
	"$FUSIONDBG" info "$U" >"$tmp/info_u" || bad "info ultraface exited $?"
	has "$tmp/info_u" "inputs           245 declared: 1 to feed, 244 initializers listed as inputs (overridable defaults, not constants)" \
		"  base_net.0.0.weight               float32   16×3×3×3" "  … and 236 more (--format json lists every one)"
	cat >"$tmp/conv_bn.yaml" <<'EOF'
name: "Conv_BN_Const"
priority: 10
match:
  ops:
    - type: "Conv"
    - type: "BatchNorm"
      input_sources:
        input1: {source_type: "const"}
rewrite:
  target_op: "ConvBN"
EOF
	n_onnx=$("$FUSIONDBG" match "$U" -r "$tmp/conv_bn.yaml" --format json | "$PYTHON" -c 'import json,sys; print(len(json.load(sys.stdin)["fusions"]))')
	n_const=$("$FUSIONDBG" match "$U" -r "$tmp/conv_bn.yaml" --format json --initializers constant | "$PYTHON" -c 'import json,sys; print(len(json.load(sys.stdin)["fusions"]))')
	[ "$n_onnx" = 0 ] && [ "$n_const" = 35 ] || bad "ultraface Conv+BN with a const scale: $n_onnx fusions (want 0), with --initializers constant $n_const (want 35)"
	# onnxruntime's own rule says the same, naming the overridable weight
	"$FUSIONDBG" why "$U" -r rules/onnxruntime --rule ORT_ConvBNFusion --node Conv_0 >"$tmp/why_u" 2>&1
	has "$tmp/why_u" "did not fire on Conv_0 (Conv)" "base_net.0.0.weight (initializer, overridable (also a graph input))" \
		"input1 is an overridable initializer (also a graph input, IR >= 4)"
	echo "ok: ultraface Conv+BN, scale const: $n_onnx fusions as ONNX reads it, $n_const with --initializers constant"
fi
finish "$fail"
