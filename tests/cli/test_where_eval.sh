#!/usr/bin/env bash
# test_where_eval.sh — where arithmetic is exact or an error: the issue's
# inputs through verify, check, match and why, with the messages they give.
# Constant overflow, division by zero, a literal beyond int64 and a constant
# range past the list budget are errors at file:line:col of the character
# (exit 1); the same on a node's values is FD-NM18 at the character, and the
# rule does not fire (it fired before: 9223372036854775807 + 1 < 0 held).
# readers() of a tensor read 4000 times, asked on each reader, finishes.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
M=tests/data/lang/transpose_matmul.onnx
# rule NAME WHERE: the Transpose + MatMul rule of tests/data/lang with that where
rule() {
	cat >"$tmp/$1.yaml" <<YAML
name: "W"
priority: 1
match:
  ops:
    - type: "Transpose"
      where: "$2"
    - type: "MatMul"
      input_sources:
        input0: {from_op: 0}
rewrite:
  target_op: "FusedMatMul"
YAML
}
# refused CMD NAME MESSAGE: CMD exits 1 and says MESSAGE (file:line:col included)
refused() {
	"$FUSIONDBG" "$1" "$tmp/$2.yaml" >"$tmp/out" 2>&1; rc=$?
	[ $rc = 1 ] && grep -qF -- "$tmp/$2.yaml:$3" "$tmp/out" || bad "$1 $2: exit $rc, want 1 and '$3': $(cat "$tmp/out")"
}
rule mod_min '(-9223372036854775807 - 1) % -1 == 0 && (-9223372036854775807 - 1) / -1 > 0'
rule add_max '9223372036854775807 + 1 < 0'
rule literal '99999999999999999999 == 9223372036854775807'
rule zero 'rank > 0 && perm[0] == 1 % 0'
rule range_all 'len(range(-9223372036854775807 - 1, 9223372036854775807)) > 0'
rule range_min 'len(range(-9223372036854775807 - 1, 1)) > 0'
rule range_sum 'len(range(1048576) + range(1048576) + range(1048576) + range(1048576) + range(1048576) + range(1048576)) > 0'
for cmd in verify check; do
	refused $cmd mod_min "6:55: error: match.ops[0].where: (-9223372036854775807 - 1) / -1 overflows the 64-bit integers (a constant part: the same on every node)"
	refused $cmd add_max "6:15: error: match.ops[0].where: 9223372036854775807 + 1 overflows the 64-bit integers (a constant part: the same on every node)"
	refused $cmd literal "6:15: error: match.ops[0].where: 99999999999999999999 is out of range (integers are 64-bit: -9223372036854775807 - 1 .. 9223372036854775807)"
	refused $cmd zero "6:38: error: match.ops[0].where: 1 % 0 divides by zero (a constant part: the same on every node)"
	refused $cmd range_all "6:19: error: match.ops[0].where: range(-9223372036854775807 - 1, 9223372036854775807) would build more than 8192 list items in one evaluation (the budget) (a constant part: the same on every node)"
	refused $cmd range_min "6:19: error: match.ops[0].where: range(-9223372036854775807 - 1, 1) would build more than 8192 list items in one evaluation (the budget) (a constant part: the same on every node)"
	refused $cmd range_sum "6:19: error: match.ops[0].where: range(1048576) would build more than 8192 list items in one evaluation (the budget) (a constant part: the same on every node)"
done
# match refuses the rule file the same way (no crash: SIGFPE and SIGSEGV before)
"$FUSIONDBG" match $M -r "$tmp/mod_min.yaml" >"$tmp/out" 2>&1; rc=$?
[ $rc != 0 ] && [ $rc -lt 128 ] && grep -qF "mod_min.yaml:6:55: error" "$tmp/out" || bad "match mod_min: exit $rc: $(cat "$tmp/out")"

# on a node's values: FD-NM18 at the character, and the rule does not fire
rule node_mul 'rank == 4 && perm[-1] * 9223372036854775807 > 0'
rule node_range 'len(range(rank - 4 - 9223372036854775807 - 1, rank)) > 0'
rule node_div 'perm[0] / (rank - 4) >= 0'
"$FUSIONDBG" verify "$tmp/node_mul.yaml" >"$tmp/out" 2>&1 || bad "verify node_mul: $(cat "$tmp/out")"
"$FUSIONDBG" match $M -r "$tmp/node_mul.yaml" >"$tmp/out" 2>&1 || bad "match node_mul: exit $?: $(cat "$tmp/out")"
grep -qF "W FD-NM18 x2: W did not fire on t4 (Transpose): op0 Transpose where: expected rank == 4 && perm[-1] * 9223372036854775807 > 0, actual not evaluated [FD-NM18] at $tmp/node_mul.yaml:6:28" "$tmp/out" ||
	bad "match node_mul: no FD-NM18 at 6:28: $(cat "$tmp/out")"
"$FUSIONDBG" why $M -r "$tmp/node_mul.yaml" --rule W --node t4 >"$tmp/out" 2>&1
grep -qF "cannot be evaluated at character 14: perm[-1] * 9223372036854775807 overflows the 64-bit integers ($tmp/node_mul.yaml:6:28)" "$tmp/out" ||
	bad "why node_mul: $(cat "$tmp/out")"
"$FUSIONDBG" why $M -r "$tmp/node_range.yaml" --rule W --node t4 >"$tmp/out" 2>&1
grep -qF "[FD-NM18] — cannot be evaluated at character 5: range(rank - 4 - 9223372036854775807 - 1, rank) would build more than 8192 list items in one evaluation (the budget) ($tmp/node_range.yaml:6:19)" "$tmp/out" ||
	bad "why node_range: $(cat "$tmp/out")"
"$FUSIONDBG" why $M -r "$tmp/node_div.yaml" --rule W --node t4 >"$tmp/out" 2>&1
grep -qF "cannot be evaluated at character 1: perm[0] / (rank - 4) divides by zero ($tmp/node_div.yaml:6:15)" "$tmp/out" ||
	bad "why node_div: $(cat "$tmp/out")"
# 9223372036854775807 + rank < 0 wrapped and fired; now nothing fires
rule node_add '9223372036854775807 + rank < 0'
"$FUSIONDBG" match $M -r "$tmp/node_add.yaml" >"$tmp/out" 2>&1
grep -q "W: .* -> FusedMatMul" "$tmp/out" && bad "match node_add: a wrapped sum fired: $(cat "$tmp/out")"
grep -qF "actual not evaluated [FD-NM18] at $tmp/node_add.yaml:6:15" "$tmp/out" || bad "match node_add: $(cat "$tmp/out")"
# readers() on a tensor of 2 x 2000 readers, asked on each of them: the
# readers are sorted once per model, a call copies them (an insertion sort
# per call took 25-50 s here; a timeout of 60 s makes that a failure)
"$PYTHON" - "$tmp/readers.onnx" <<'PY'
import sys
import onnx
from onnx import TensorProto, helper
nodes, outs = [], []
for k in range(2000):
    for op, name in (("Relu", "r%d" % k), ("Sigmoid", "s%d" % k)):
        nodes.append(helper.make_node(op, ["x"], [name], name=name))
        outs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 4]))
g = helper.make_graph(nodes, "readers", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])], outs)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 7
onnx.save(m, sys.argv[1])
PY
cat >"$tmp/readers.yaml" <<'YAML'
name: "R"
priority: 1
match:
  ops:
    - type: [Relu, Sigmoid]
      where: "readers(input0)[1999] == 'Relu' && readers(input0)[2000] == 'Sigmoid'"
rewrite:
  target_op: "Fused"
YAML
timeout 60 "$FUSIONDBG" match "$tmp/readers.onnx" -r "$tmp/readers.yaml" >"$tmp/out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "R .* 4000  *4000  *4000" "$tmp/out" || bad "readers() of 4000 readers: exit $rc: $(head -c 600 "$tmp/out")"
[ $fail = 0 ] && echo "test_where_eval: all good"
exit $fail
