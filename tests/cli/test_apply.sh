#!/usr/bin/env bash
# test_apply.sh — `fusiondbg apply` on every sample and every shared model
# (rules/ + samples/rules): the written model passes
# onnx.checker.check_model (full_check, i.e. with strict shape inference),
# declares the custom domain, has one fusiondbg.fused node per fusion of
# `match --format json` whose fused_nodes / fusion_rule / op_type / outputs
# are the fusion's, no member node left, every other node, initializer,
# input and output byte-identical to the original, and a node order that is
# topological. Also: --set changes what is fused; a write that cannot happen
# leaves nothing behind and exits 2.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {   # MODEL FUSED MATCH_JSON
	"$PYTHON" - "$1" "$2" "$3" <<'EOF'
import json, sys
import onnx
orig_path, fused_path, match_path = sys.argv[1:4]
orig, fused = onnx.load(orig_path, load_external_data=False), onnx.load(fused_path, load_external_data=False)
fusions = json.load(open(match_path))["fusions"]
bad = []
try:
    onnx.checker.check_model(fused, full_check=True)
except Exception as e:
    bad.append("checker: " + str(e).splitlines()[0][:300])
if fusions and not any(o.domain == "fusiondbg.fused" for o in fused.opset_import):
    bad.append("opset_import lacks fusiondbg.fused")

def graphs(g):
    yield g
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from graphs(a.g)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for b in a.graphs:
                    yield from graphs(b)

fused_nodes = [n for g in graphs(fused.graph) for n in g.node if n.domain == "fusiondbg.fused"]
if len(fused_nodes) != len(fusions):
    bad.append("%d fused nodes, match says %d fusions" % (len(fused_nodes), len(fusions)))
by_members = {}
for n in fused_nodes:
    a = {x.name: x for x in n.attribute}
    by_members[tuple(s.decode() for s in a["fused_nodes"].strings)] = n
members = set()
for f in fusions:
    n = by_members.get(tuple(f["nodes"]))
    members.update(f["nodes"])
    if n is None:
        bad.append("no fused node for %s %s" % (f["rule"], f["nodes"]))
        continue
    a = {x.name: x for x in n.attribute}
    if a["fusion_rule"].s.decode() != f["rule"]:
        bad.append("%s: fusion_rule %s" % (n.name, a["fusion_rule"].s))
    if n.op_type != f["target_op"]:
        bad.append("%s: op_type %s, rule says %s" % (n.name, n.op_type, f["target_op"]))
    if list(n.output) != f["outputs"]:
        bad.append("%s: outputs %s, fusion %s" % (n.name, list(n.output), f["outputs"]))
    if set(n.input) - {""} != set(f["inputs"]):
        bad.append("%s: inputs %s, fusion %s" % (n.name, list(n.input), f["inputs"]))

# everything else as it was
# (a node without a name is "<op_type>_<index in its graph>" in fusiondbg)
def named(g):
    return [(n.name or "%s_%d" % (n.op_type, i), n) for i, n in enumerate(g.node)]
o_nodes = [(name, n) for g in graphs(orig.graph) for name, n in named(g)]
f_nodes = {n.SerializeToString() for g in graphs(fused.graph) for n in g.node if n.domain != "fusiondbg.fused"}
kept = [n for name, n in o_nodes if name not in members]
for n in kept:
    if not any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in n.attribute) \
            and n.SerializeToString() not in f_nodes:
        bad.append("node %s changed or lost" % n.name)
left = [n.name for g in graphs(fused.graph) for n in g.node if n.domain != "fusiondbg.fused" and n.name and n.name in members]
if left:
    bad.append("member nodes left: %s" % left[:5])
for key in ("initializer", "input", "output"):
    if [x.SerializeToString() for x in getattr(orig.graph, key)] != [x.SerializeToString() for x in getattr(fused.graph, key)]:
        bad.append("graph %s differs" % key)

# every member's attributes, namespaced by member (conv.pads), the member list
# and its op types, and the shapes of every port the graph does not declare
o_by_name = {name: n for name, n in o_nodes}
declared = {x.name for g in graphs(fused.graph) for x in list(g.input) + list(g.output) + list(g.initializer) + list(g.value_info)}
for n in fused_nodes:
    a = {x.name: x for x in n.attribute}
    names = [s.decode() for s in a["fused_nodes"].strings]
    types = [s.decode() for s in a["fused_op_types"].strings]
    members = [o_by_name[x] for x in names if x in o_by_name]
    if len(members) != len(names) or types != [m.op_type for m in members]:
        bad.append("%s: fused_op_types %s, members %s" % (n.name, types, names))
        continue
    for k, m in enumerate(members):
        same = [j for j, x in enumerate(members) if x.op_type == m.op_type]
        prefix = m.op_type.lower() + ("_%d" % (same.index(k) + 1) if len(same) > 1 else "")
        for at in m.attribute:
            if at.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS, onnx.AttributeProto.TENSOR):
                continue
            got = a.get(prefix + "." + at.name)
            if got is None:
                bad.append("%s: member %s lost attribute %s (no %s.%s)" % (n.name, m.name, at.name, prefix, at.name))
            elif onnx.helper.get_attribute_value(got) != onnx.helper.get_attribute_value(at):
                bad.append("%s: %s.%s differs from %s's" % (n.name, prefix, at.name, m.name))
    for t in list(n.input) + list(n.output):
        if t and t not in declared:
            bad.append("%s: port %s has no value_info" % (n.name, t))

# topological order, main graph
known = {i.name for i in fused.graph.input} | {i.name for i in fused.graph.initializer} | {""}
for n in fused.graph.node:
    for i in n.input:
        if i not in known:
            bad.append("node %s reads %s before it is made" % (n.name, i))
    known.update(n.output)
for b in bad[:10]:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF
}

n=0
for model in samples/*.onnx "$MODELS"/*.onnx; do
	[ -e "$model" ] || continue
	name=$(basename "$model" .onnx)
	if ! "$FUSIONDBG" apply "$model" -r rules -r samples/rules -o "$tmp/$name.onnx" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
		echo "FAIL apply $model:"; cat "$tmp/$name.err"; fail=1; continue
	fi
	"$FUSIONDBG" match "$model" -r rules -r samples/rules --format json >"$tmp/$name.json" 2>/dev/null
	if ! check "$model" "$tmp/$name.onnx" "$tmp/$name.json" >"$tmp/$name.check" 2>&1; then
		echo "FAIL $model:"; cat "$tmp/$name.check"; fail=1
	fi
	n=$((n + 1))
done
echo "apply: $n models checked"

# rounds: fusions of fusions nest; every member attribute still there, the
# model's own nodes named; the output passes the full checker
"$FUSIONDBG" apply samples/rounds_residual.onnx -r samples/rounds/three_rounds.yaml -o "$tmp/rounds.onnx" >"$tmp/rounds.out" 2>&1 \
	|| { echo "FAIL apply rounds:"; cat "$tmp/rounds.out"; fail=1; }
grep -q ": 2 fused nodes; 8 nodes -> 2" "$tmp/rounds.out" || { echo "FAIL apply rounds: $(cat "$tmp/rounds.out")"; fail=1; }
"$PYTHON" - samples/rounds_residual.onnx "$tmp/rounds.onnx" <<'EOF' || fail=1
import sys, onnx
from onnx import helper
orig, fused = onnx.load(sys.argv[1]), onnx.load(sys.argv[2])
onnx.checker.check_model(fused, full_check=True)
o = {n.name: n for n in orig.graph.node}
bad = []
for n in fused.graph.node:
    a = {x.name: helper.get_attribute_value(x) for x in n.attribute}
    i = n.name[-1]
    want = {
        "original_nodes": [s.encode() for s in ("conv" + i, "bn" + i, "add" + i, "relu" + i)],
        "fused_nodes": [b"fused_conv" + i.encode(), b"relu" + i.encode()],
        "fused_op_types": [b"ConvBNAdd", b"Relu"],
        "fusion_round": 3, "fusion_rule": b"ConvBNAdd_Relu_Fusion",
        "convbnadd.fusion_round": 2, "convbnadd.fused_op_types": [b"ConvBN", b"Add"],
        "convbnadd.convbn.fused_nodes": [b"conv" + i.encode(), b"bn" + i.encode()],
        "convbnadd.convbn.fusion_rule": b"Conv_BN_Fold",
    }
    for at in o["conv" + i].attribute:
        want["convbnadd.convbn.conv." + at.name] = helper.get_attribute_value(at)
    for at in o["bn" + i].attribute:
        want["convbnadd.convbn.batchnormalization." + at.name] = helper.get_attribute_value(at)
    for k, v in want.items():
        if a.get(k) != v:
            bad.append("%s: %s is %r, want %r" % (n.name, k, a.get(k), v))
    if n.op_type != "ConvBNAddRelu" or n.domain != "fusiondbg.fused":
        bad.append("%s: %s.%s" % (n.name, n.domain, n.op_type))
for b in bad:
    print("FAIL apply rounds: " + b)
sys.exit(1 if bad else 0)
EOF

# --set changes what is fused
"$FUSIONDBG" apply samples/conv_add_silu.onnx -r rules -o "$tmp/a.onnx" \
	--set Conv_Add_SiLU_Fusion.enabled=false >"$tmp/set.out" 2>&1
if ! grep -q ": 0 fused nodes; 12 nodes -> 12" "$tmp/set.out"; then
	echo "FAIL apply --set enabled=false:"; cat "$tmp/set.out"; fail=1
fi
# the declared ports: Conv's main input at 0, the Add's input from outside at 1
# (add3 reads mul2_out and conv3_out; conv3_out is made inside), then the weight
"$FUSIONDBG" apply samples/conv_add_silu.onnx -r rules -o "$tmp/b.onnx" >/dev/null 2>&1
got=$("$PYTHON" -c "
import onnx, sys
m = onnx.load(sys.argv[1])
print(' '.join(m.graph.node[2].input))" "$tmp/b.onnx")
if [ "$got" != "mul2_out mul2_out conv3_w" ]; then
	echo "FAIL rewrite.inputs ports of fused_conv3: '$got'"; fail=1
fi
# a write that cannot happen: exit 2, one line, nothing left behind
if "$FUSIONDBG" apply samples/conv_bn_relu.onnx -r rules -o "$tmp/no/such/dir/x.onnx" >"$tmp/w.out" 2>"$tmp/w.err"; then
	echo "FAIL apply into a missing directory exited 0"; fail=1
fi
if [ "$(wc -l <"$tmp/w.err")" -ne 1 ] || ! grep -q "x.onnx" "$tmp/w.err"; then
	echo "FAIL apply into a missing directory: expected one line naming the file:"; cat "$tmp/w.err"; fail=1
fi
if "$FUSIONDBG" apply samples/conv_bn_relu.onnx -r rules >/dev/null 2>&1; then
	echo "FAIL apply without -o exited 0"; fail=1
fi
finish $fail
