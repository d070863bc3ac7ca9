#!/usr/bin/env bash
# test_whatif_check.sh — a what-if value is judged exactly as verify and
# check judge the same text in a file: for each edit, the rule file is
# written with that value, `check` must reject it, and `--set` of the same
# value must be refused (exit 2, the rule files untouched) with one of
# check's messages, word for word. Values that check accepts, --set takes.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RULE=samples/rules/conv_add_allow_outputs.yaml
NAME=Conv_Add_Residual_Fusion
MODEL=samples/would_cycle.onnx
before=$(md5sum <"$RULE")

# variant PATH VALUE: the rule file with PATH set to VALUE (a YAML-aware edit)
variant() {
	"$PYTHON" - "$RULE" "$1" "$2" "$tmp/r.yaml" <<'PY'
import re, sys
src, path, value, out = sys.argv[1:]
text = open(src).read()
edits = {
    "match.ops.0.params.groups": lambda t, v: t.replace("        groups: 1\n", "        groups: %s\n" % v, 1),
    "match.ops.0.params.kernel_size": lambda t, v: t.replace("        groups: 1\n", "        groups: 1\n        kernel_size: %s\n" % v, 1),
    "match.ops.0.params.strides": lambda t, v: t.replace("        groups: 1\n", "        groups: 1\n        strides: %s\n" % v, 1),
    "match.ops.1.input_sources.input0.from_op": lambda t, v: t.replace("        input0:\n          from_op: 0\n", "        input0:\n          from_op: %s\n" % v, 1),
    "match.ops.0.type": lambda t, v: t.replace('    - type: "Conv2d"\n', "    - type: %s\n" % v, 1),
    "priority": lambda t, v: t.replace("\npriority: 140\n", "\npriority: %s\n" % v, 1),
    "constraints.memory_limit.max_intermediate_size": lambda t, v: t.replace("max_intermediate_size: 33554432", "max_intermediate_size: %s" % v, 1),
    "constraints.channel_divisibility.divisor": lambda t, v: t.replace("divisor: 16", "divisor: %s" % v, 1),
}
new = edits[path](text, value)
assert new != text, path
open(out, "w").write(new)
PY
}

# refused PATH VALUE: check rejects the file; --set says one of check's messages
refused() {
	variant "$1" "$2" || { echo "FAIL: cannot make the variant for $1"; fail=1; return; }
	"$FUSIONDBG" check "$tmp/r.yaml" >/dev/null 2>"$tmp/check.txt"
	local crc=$?
	sed -n 's/^[^ ]*:[0-9]*:[0-9]*: error: //p' "$tmp/check.txt" >"$tmp/check.msgs"
	"$FUSIONDBG" match "$MODEL" -r "$RULE" --set "$NAME.$1=$2" >/dev/null 2>"$tmp/set.txt"
	local src=$?
	local msg prefix="fusiondbg: --set $NAME.$1=$2: "
	msg=$(head -1 "$tmp/set.txt")
	[ "${msg#"$prefix"}" != "$msg" ] && msg=${msg#"$prefix"} || msg=""
	# the value's own text may hold regex characters: compare whole lines, fixed strings
	if [ $crc -eq 0 ] || [ $src -ne 2 ] || [ -z "$msg" ] || ! grep -qxF -- "$msg" "$tmp/check.msgs"; then
		echo "FAIL $1=$2: check exit $crc, --set exit $src"
		echo "  check said:"; sed 's/^/    /' "$tmp/check.txt"
		echo "  --set said:"; sed 's/^/    /' "$tmp/set.txt"
		fail=1
	else
		echo "ok   $1=$2: $msg"
	fi
}

refused match.ops.0.params.groups abc
refused match.ops.0.params.kernel_size 3
refused match.ops.0.params.strides "[1,1,1]"
refused match.ops.1.input_sources.input0.from_op 5
refused match.ops.1.input_sources.input0.from_op 1
refused match.ops.0.type Relu
refused match.ops.0.type Conv9d
refused priority 1e309
refused priority 99999999999999999999
refused constraints.memory_limit.max_intermediate_size -0.5
refused constraints.memory_limit.max_intermediate_size 1e309
refused constraints.channel_divisibility.divisor 0

# verify (the schema) rejects a from_op that does not name an earlier op, as fusiondbg(1) says
variant match.ops.1.input_sources.input0.from_op 1
"$FUSIONDBG" verify "$tmp/r.yaml" >/dev/null 2>"$tmp/verify.txt"
[ $? -eq 1 ] && grep -q "from_op: 1 does not come before op 1" "$tmp/verify.txt" ||
	{ echo "FAIL: verify takes from_op 1 on op 1:"; cat "$tmp/verify.txt"; fail=1; }

# what check takes, --set takes (exit 0)
for ok in "match.ops.0.params.kernel_size=[3,3]" "match.ops.0.params.strides=[1,1]" "priority=-5" \
	"constraints.memory_limit.max_intermediate_size=1.5MiB"; do
	"$FUSIONDBG" match "$MODEL" -r "$RULE" --set "$NAME.$ok" >/dev/null 2>"$tmp/ok.txt" ||
		{ echo "FAIL: --set $ok refused:"; cat "$tmp/ok.txt"; fail=1; }
done
[ "$before" = "$(md5sum <"$RULE")" ] || { echo "FAIL: --set changed $RULE"; fail=1; }
exit $fail
