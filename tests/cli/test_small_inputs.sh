#!/usr/bin/env bash
# test_small_inputs.sh — small inputs that once went wrong quietly:
# GRAPH_AUTOFUSION_RULES=",,," warns and keeps every rule (it turned them
# all off without a word); -r "" names the problem; a FIFO given as MODEL or
# as a rule file is refused as not a regular file (it blocked); an escaped
# \0 in a YAML string is an error (it cut the string); a model importing the
# default domain twice or with a negative opset version is warned about; a
# one-op rule runs (it passed NULL to memcpy: make check-asan sees that).
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
M=samples/conv_add_silu.onnx

GRAPH_AUTOFUSION_RULES=",,," "$FUSIONDBG" match $M -r rules >"$tmp/out" 2>"$tmp/err"
grep -q "names no rule: ignored" "$tmp/err" || bad "GRAPH_AUTOFUSION_RULES=',,,': no warning: $(cat "$tmp/err")"
grep -q "3 fusions" "$tmp/out" || bad "GRAPH_AUTOFUSION_RULES=',,,' turned rules off: $(head -1 "$tmp/out")"

"$FUSIONDBG" match $M -r "" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -qF 'an empty rules path (-r ""?)' "$tmp/err" || bad "-r '': exit $rc: $(cat "$tmp/err")"

mkfifo "$tmp/fifo"
timeout 10 "$FUSIONDBG" info "$tmp/fifo" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "not a regular file (a FIFO)" "$tmp/err" || bad "FIFO as MODEL: exit $rc: $(cat "$tmp/err")"
timeout 10 "$FUSIONDBG" verify "$tmp/fifo" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "not a regular file" "$tmp/err" || bad "FIFO as a rule file: exit $rc: $(cat "$tmp/err")"
timeout 10 "$FUSIONDBG" match $M -r "$tmp/fifo" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "not a regular file" "$tmp/err" || bad "FIFO as -r: exit $rc: $(cat "$tmp/err")"

printf 'name: "a\\0b"\npriority: 1\nmatch:\n  ops:\n    - type: Relu\nrewrite:\n  target_op: X\n' >"$tmp/nul.yaml"
"$FUSIONDBG" verify "$tmp/nul.yaml" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "nul.yaml:1:7: error: a NUL character" "$tmp/err" || bad "\\0 in a string: exit $rc: $(cat "$tmp/err")"

"$PYTHON" - "$tmp" <<'PY' || bad "cannot make the opset models"
import sys, onnx
from onnx import helper, TensorProto
d = sys.argv[1]
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
for name, ops in (("dup", [("", 13), ("ai.onnx", 17)]), ("neg", [("", -3)])):
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(dm, v) for dm, v in ops])
    m.ir_version = 8
    open("%s/%s.onnx" % (d, name), "wb").write(m.SerializeToString())
PY
"$FUSIONDBG" info "$tmp/dup.onnx" >/dev/null 2>"$tmp/err"
grep -q "opset import of domain 'ai.onnx' given twice (version 13, then 17); the first is used" "$tmp/err" ||
	bad "a duplicate default-domain opset import: $(cat "$tmp/err")"
"$FUSIONDBG" info "$tmp/neg.onnx" >/dev/null 2>"$tmp/err"
grep -q "has version -3, below 0" "$tmp/err" || bad "a negative opset version: $(cat "$tmp/err")"

printf 'name: One\npriority: 1\nmatch:\n  ops:\n    - type: Relu\nrewrite:\n  target_op: X\n' >"$tmp/one.yaml"
"$FUSIONDBG" apply samples/conv_bn_relu.onnx -r "$tmp/one.yaml" -o "$tmp/one.onnx" >"$tmp/out" 2>&1 ||
	bad "a one-op rule: $(cat "$tmp/out")"
exit $fail
