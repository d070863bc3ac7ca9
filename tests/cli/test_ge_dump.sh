#!/usr/bin/env bash
# test_ge_dump.sh — a GE graph dump (ge_proto_*.txt) opens like an ONNX
# model: info on tests/data/ge/small_ub.txt says its format and what the
# compiler recorded (UB groups, the failed one, absorbed originals and their
# passes) in text and JSON alike, match, mem and export run on it, and
# compare --with a dump sets its groups against fusiondbg's. The
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
            "^graph  *main$" \
            "^  Data  *2  (GE's own: no ONNX operator)$" \
            "^  Conv2D  *1  Conv$"; do
	grep -q "$want" "$tmp/info.txt" || bad "info text lacks /$want/"
done
# a dump has no ONNX version or opsets, and its GE types are no unknown ONNX ops
grep -q "^ir_version\|^opsets\|^unknown ops\|^stage" "$tmp/info.txt" && bad "info on a dump speaks as of ONNX (or of a stage its name lacks)"

"$FUSIONDBG" info $D --format json >"$tmp/info.json" 2>"$tmp/err" || bad "info json: exit $?: $(cat "$tmp/err")"
"$PYTHON" - "$tmp/info.json" <<'PY' || bad "info json: not what the dump records"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "GE graph dump (ModelDef, protobuf text)", d["format"]
assert d["op_histogram"]["Conv2D"] == 1, d["op_histogram"]
assert d["unknown_ops"] == [] and d["ge_graph"] == "main" and d["ge_stage"] is None, d["unknown_ops"]
t = {x["type"]: (x["count"], x["onnx"]) for x in d["ge_op_types"]}
assert t["Conv2D"] == (1, ["Conv"]) and t["Data"] == (2, []), t
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

# compare --with a dump: on the dump itself its nodes are found by name;
# the graph fusions' originals are gone from it, the failed group is apart
F=tests/data/ge/conv_bn_relu_ub.txt
CR=rules/conv_bn_relu_fusion.yaml
"$FUSIONDBG" compare $F -r $CR --with $F >"$tmp/cmp.txt" 2>"$tmp/err"
[ $? = 1 ] || bad "compare dump with itself: want exit 1 (differs): $(cat "$tmp/err")"
for want in "(GE graph dump, its nodes found by name): the compiler's record holds 2 UB groups (1 failed to compile) and 2 graph fusions; 2 compared" \
            "  not compared: 1 group: none of its nodes is a node of the model" \
            "  not compared: 1 group: one node of the model, the others are not (fused before the model was written)" \
            "  same 0, compiler only 2, fusiondbg only 0, different 0" \
            "  compiler UB group 1 TbeConvElemwiseFusion: conv1, relu1, trans_relu1" \
            "matched, failed to compile (the compiler's UB groups) (1)" \
            "  compiler_only: compiler UB group 4 (failed to compile) TbeEltwiseFusionPass: cast_out, relu_tail"; do
	grep -qF -- "$want" "$tmp/cmp.txt" || bad "compare dump text lacks /$want/"
done
# on the ONNX model it came from, through the original names: conv1 stands
# for conv1 and bn1, the TransData is the compiler's own
"$FUSIONDBG" compare samples/conv_bn_relu.onnx -r $CR --with $F >"$tmp/cmpx.txt" 2>"$tmp/err" ||
	bad "compare onnx with dump: exit $?: $(cat "$tmp/err")"
for want in "its nodes found through their original names): the compiler's record holds 2 UB groups (1 failed to compile) and 1 graph fusion; 1 compared" \
            "  not compared: 2 groups: none of its nodes is a node of the model" \
            "  compared on the nodes that map: 1 group with 1 node not in the model (the compiler's own)" \
            "  compiler UB group 1 TbeConvElemwiseFusion: conv1, bn1, relu1 (+1 not in the model); fusiondbg Conv_BN_Relu_Fusion: conv1, bn1, relu1 -> ConvBNReluFusion"; do
	grep -qF -- "$want" "$tmp/cmpx.txt" || bad "compare onnx/dump text lacks /$want/"
done
"$FUSIONDBG" compare samples/conv_bn_relu.onnx -r $CR --with $F --format json >"$tmp/cmpx.json" 2>/dev/null ||
	bad "compare onnx with dump json: exit $?"
"$PYTHON" - "$tmp/cmpx.json" <<'PY' || bad "compare json: not what the text says"
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["kind"], d["mapping"]) == ("ge_dump", "original_names"), d
assert d["record"] == {"ub_groups": 2, "ub_failed": 1, "graph_fusions": 1, "compared": 1}, d["record"]
assert d["not_compared"]["absent"] == 2 and sum(d["not_compared"].values()) == 2, d["not_compared"]
assert d["counts"] == {"same": 1, "compiler_only": 0, "predicted_only": 0, "different": 0}, d["counts"]
c = d["rows"][0]["compiler"]
assert (c["source"], c["scope"], c["failed"], c["not_in_model"], c["nodes"]) == ("ub", 1, False, 1, ["conv1", "bn1", "relu1"]), c
PY
exit $fail
