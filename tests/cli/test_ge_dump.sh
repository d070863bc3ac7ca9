#!/usr/bin/env bash
# test_ge_dump.sh — a GE graph dump (ge_proto_*.txt) opens like an ONNX
# model: info on tests/data/ge/small_ub.txt says its format and what the
# compiler recorded (UB groups, the failed one, absorbed originals and their
# passes) in text and JSON alike, and match, mem and export run on it. The
# real dumps: test_ge_dump_cann.sh.
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
make_tmp
D=tests/data/ge/small_ub.txt

"$FUSIONDBG" info $D >"$tmp/info.txt" 2>"$tmp/err" || bad "info: exit $?: $(cat "$tmp/err")"
for want in "^format  *GE graph dump (ModelDef, protobuf text)$" \
            "^UB fusion groups (the compiler's): 2, 1 failed$" \
            "^  scope 1  TbeConvElemwiseFusion  2 nodes: conv relu$" \
            "^  failed 7  TbeEltwiseFusionPass  1 nodes: add$" \
            "^nodes with absorbed originals: 1 (3 original names, 1 with a pass chain)$" \
            "^    originals: conv1 (Convolution), bn1 (BatchNorm), scale1 (Scale)$" \
            "^    passes: ConvBatchnormFusionPass -> ConvScaleFusionPass$" \
            "^  Conv2D  *1$"; do
	grep -q "$want" "$tmp/info.txt" || bad "info text lacks /$want/"
done

"$FUSIONDBG" info $D --format json >"$tmp/info.json" 2>"$tmp/err" || bad "info json: exit $?: $(cat "$tmp/err")"
"$PYTHON" - "$tmp/info.json" <<'PY' || bad "info json: not what the dump records"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "GE graph dump (ModelDef, protobuf text)", d["format"]
assert d["op_histogram"]["Conv2D"] == 1, d["op_histogram"]
c = d["compiler_record"]
assert (c["ub_groups"], c["ub_groups_failed"], c["nodes_with_originals"], c["original_names"]) == (2, 1, 1, 3), c
g = c["groups"]
assert [(x["id"], x["failed"], x["pass_name_ub"], x["nodes"]) for x in g] == [
    (1, False, "TbeConvElemwiseFusion", ["conv", "relu"]), (7, True, "TbeEltwiseFusionPass", ["add"])], g
a = c["absorbing"][0]
assert a["node"] == "conv" and a["original_names"] == ["conv1", "bn1", "scale1"], a
assert a["original_types"] == ["Convolution", "BatchNorm", "Scale"], a
assert a["pass_names"] == ["ConvBatchnormFusionPass", "ConvScaleFusionPass"], a
PY

# an ONNX model says nothing of a compiler's record
"$FUSIONDBG" info samples/conv_add_silu.onnx >"$tmp/onnx.txt" 2>&1
grep -q "^format\|compiler's" "$tmp/onnx.txt" && bad "info on ONNX speaks of a compiler's record"
"$FUSIONDBG" info samples/conv_add_silu.onnx --format json | "$PYTHON" -c \
	'import json,sys; d=json.load(sys.stdin); assert "format" not in d and "compiler_record" not in d' ||
	bad "info --format json on ONNX has the dump's keys"

# the other commands read it as a model
"$FUSIONDBG" match $D -r rules >"$tmp/match.txt" 2>"$tmp/err" || bad "match: exit $?: $(cat "$tmp/err")"
grep -q "^model small_ub.txt" "$tmp/match.txt" || bad "match: $(head -1 "$tmp/match.txt")"
"$FUSIONDBG" mem $D -r rules >/dev/null 2>"$tmp/err" || bad "mem: exit $?: $(cat "$tmp/err")"
"$FUSIONDBG" export $D -r rules -o "$tmp/x.dot" >/dev/null 2>"$tmp/err" || bad "export: exit $?: $(cat "$tmp/err")"
grep -q '^	*conv	' "$tmp/x.dot" || bad "export: no node conv in the DOT"
"$FUSIONDBG" apply $D -r rules -o "$tmp/x.onnx" >/dev/null 2>"$tmp/err" && bad "apply wrote ONNX from a dump"
grep -q "apply writes ONNX and the model is a GE graph dump" "$tmp/err" || bad "apply: $(cat "$tmp/err")"

# the compiler's UB groups are clusters of their own, apart from fusiondbg's:
# a fusion inside one group is drawn inside its cluster; --after has none
R=tests/data/ge/conv_relu_rule.yaml
"$FUSIONDBG" export $D -r $R -o "$tmp/ub.dot" >/dev/null 2>"$tmp/err" || bad "export: exit $?: $(cat "$tmp/err")"
"$PYTHON" - "$tmp/ub.dot" <<'PY' || bad "export: the compiler's clusters are not as the dump says"
import re, sys
dot = open(sys.argv[1]).read()
labels = re.findall(r'label="(compiler: [^"]*)"', dot)
assert labels == [r"compiler: TbeConvElemwiseFusion scope 1\l", r"compiler: TbeEltwiseFusionPass failed scope 7\l"], labels
ub = dot.index("subgraph cluster_ub_0"); ours = dot.index("subgraph cluster_0"); other = dot.index("subgraph cluster_ub_1")
assert ub < ours < other, "fusiondbg's fusion is not inside the compiler's scope 1"
assert 'style="dotted,filled"' in dot and 'style="dashed,rounded,filled"' in dot, "the two kinds of cluster look alike"
PY
"$FUSIONDBG" export $D -r $R --after -o "$tmp/after.dot" >/dev/null 2>&1 || bad "export --after failed"
grep -q "cluster_ub" "$tmp/after.dot" && bad "export --after draws the compiler's groups"
exit $fail
