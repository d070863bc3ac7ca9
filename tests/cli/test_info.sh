#!/usr/bin/env bash
# test_info.sh — `fusiondbg info --format json` on every shared model: the JSON
# parses, its counts (nodes, nodes_total, tensors, op_histogram) equal those
# python3-onnx computes (tests/tools/onnx_counts.py), the required keys are
# there; text output works; broken files exit 2 with one line on stderr.
set -u
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# broken inputs: exit 2, exactly one line on stderr naming the file
for f in empty garbage png_renamed truncated cycle dangling_input duplicate_output self_consume no_graph negative_dim deep_nesting body_dangling capture_cycle; do
	path=tests/data/bad_onnx/$f.onnx
	"$FUSIONDBG" info "$path" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 2 ] || bad "$f: exit $rc, want 2"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "$f: stderr is not one line: $(cat "$tmp/err")"
	grep -q "^$path: error: " "$tmp/err" || bad "$f: stderr does not name the file: $(cat "$tmp/err")"
	[ ! -s "$tmp/out" ] || bad "$f: printed on stdout"
done
"$FUSIONDBG" info >/dev/null 2>&1; [ $? -eq 2 ] || bad "info without MODEL should exit 2"
"$FUSIONDBG" info --format yaml samples/conv_bn_relu.onnx >/dev/null 2>&1; [ $? -eq 2 ] || bad "bad --format should exit 2"

have_models || finish "$fail"   # the rest is about the real models

n=0
for model in "$MODELS"/*.onnx; do
	n=$((n + 1))
	name=$(basename "$model")
	if ! "$FUSIONDBG" info --format json "$model" >"$tmp/out.json" 2>"$tmp/err"; then
		bad "$name: info exited $? ($(head -n 3 "$tmp/err"))"
		continue
	fi
	"$PYTHON" tests/tools/onnx_counts.py "$model" >"$tmp/expected.json" || { bad "$name: onnx_counts.py failed"; continue; }
	"$PYTHON" - "$tmp/out.json" "$tmp/expected.json" "$name" <<'PY' || fail=1
import json, sys
got_path, want_path, name = sys.argv[1:]
try:
    got = json.load(open(got_path))
except ValueError as e:
    print("FAIL: %s: info JSON does not parse: %s" % (name, e))
    sys.exit(1)
want = json.load(open(want_path))
ok = True
for key in ("ir_version", "opsets", "nodes", "nodes_total", "op_histogram", "tensors",
            "shape_coverage", "unknown_ops"):
    if key not in got:
        print("FAIL: %s: key %r missing" % (name, key)); ok = False
for key in ("nodes", "nodes_total", "tensors", "op_histogram", "graphs"):
    if got.get(key) != want[key]:
        print("FAIL: %s: %s is %r, python3-onnx says %r" % (name, key, got.get(key), want[key])); ok = False
cov = got.get("shape_coverage", {})
if not (0 <= cov.get("known", -1) <= cov.get("total", -1)):
    print("FAIL: %s: shape_coverage %r" % (name, cov)); ok = False
print("%-32s nodes %5d  nodes_total %5d  tensors %5d  coverage %d/%d" % (
    name, got["nodes"], got["nodes_total"], got["tensors"], cov.get("known", -1), cov.get("total", -1)))
sys.exit(0 if ok else 1)
PY
	"$FUSIONDBG" info "$model" >"$tmp/out.txt" 2>"$tmp/err" || bad "$name: text info exited $?"
	grep -q "^nodes  *[0-9]" "$tmp/out.txt" || bad "$name: text output has no nodes line"
done
[ "$n" -ge 9 ] || bad "only $n models in $MODELS"

# a real model big enough for both helper threads: its nodes are unpacked on
# the loader's decoder thread (src/onnx_stream.c, 4,096 nodes and more) and
# its trace is encoded on the trace's (src/trace_async.c, 32,768 events and
# more): resnet50 forty times over, renamed apart. Counts equal python's,
# every fusion of the single model is found forty times, and `why` on the
# last copy (read back from the encoded trace) says what it says on the model.
big=$tmp/resnet50_x40.onnx
"$PYTHON" - "$MODELS/light_resnet50.onnx" "$big" <<'PY' || bad "could not build resnet50 x40"
import sys, onnx
m = onnx.load(sys.argv[1])
g = m.graph
copies = []
def rn(k, name): return "c%d_%s" % (k, name) if name else name
for k in range(40):
	for n in g.node:
		c = onnx.NodeProto(); c.CopyFrom(n)
		c.name = rn(k, n.name)
		c.input[:] = [rn(k, x) for x in n.input]
		c.output[:] = [rn(k, x) for x in n.output]
		copies.append(c)
def renamed(items, k):
	out = []
	for x in items:
		c = type(x)(); c.CopyFrom(x); c.name = rn(k, x.name); out.append(c)
	return out
inits = [t for k in range(40) for t in renamed(g.initializer, k)]
inputs = [v for k in range(40) for v in renamed(g.input, k)]
outputs = [v for k in range(40) for v in renamed(g.output, k)]
infos = [v for k in range(40) for v in renamed(g.value_info, k)]
del g.node[:]; g.node.extend(copies)
del g.initializer[:]; g.initializer.extend(inits)
del g.input[:]; g.input.extend(inputs)
del g.output[:]; g.output.extend(outputs)
del g.value_info[:]; g.value_info.extend(infos)
onnx.save(m, sys.argv[2])
PY
"$FUSIONDBG" info --format json "$big" >"$tmp/big.json" 2>"$tmp/err" || bad "resnet50 x40: info exited $?"
"$PYTHON" tests/tools/onnx_counts.py "$big" >"$tmp/big_want.json" || bad "resnet50 x40: onnx_counts.py failed"
"$PYTHON" - "$tmp/big.json" "$tmp/big_want.json" <<'PY' || fail=1
import json, sys
got, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = [k for k in ("nodes", "nodes_total", "tensors", "op_histogram") if got.get(k) != want[k]]
if got["nodes"] < 4096: bad.append("fewer than 4096 nodes: the decoder thread is not used")
print("resnet50 x40: nodes %d tensors %d %s" % (got["nodes"], got["tensors"], "FAIL " + ", ".join(bad) if bad else "= python3-onnx"))
sys.exit(1 if bad else 0)
PY
one=$("$FUSIONDBG" match --format json "$MODELS/light_resnet50.onnx" -r rules 2>/dev/null | "$PYTHON" -c 'import json,sys; print(len(json.load(sys.stdin)["fusions"]))')
forty=$("$FUSIONDBG" match --format json "$big" -r rules 2>/dev/null | "$PYTHON" -c 'import json,sys; print(len(json.load(sys.stdin)["fusions"]))')
[ -n "$one" ] && [ "$one" -gt 0 ] && [ "$forty" = "$((one * 40))" ] && echo "resnet50 x40: $forty fusions = 40 x $one" \
	|| bad "resnet50 x40: $forty fusions, want 40 x $one"
events=$("$FUSIONDBG" match "$big" -r rules --trace 2>/dev/null | grep -o '#[0-9]*' | tr -d '#' | sort -n | tail -1)
[ "${events:-0}" -ge 32768 ] || bad "resnet50 x40: only ${events:-0} trace events: the encoder thread is not used"
why_one=$("$FUSIONDBG" why "$MODELS/light_resnet50.onnx" -r rules --rule Conv_Add_SiLU_Fusion --node n168 2>&1 | head -1)
why_big=$("$FUSIONDBG" why "$big" -r rules --rule Conv_Add_SiLU_Fusion --node c39_n168 2>&1 | head -1 | sed 's/c39_//g')
[ -n "$why_one" ] && [ "$why_one" = "$why_big" ] && echo "resnet50 x40: why on c39_n168 = why on n168 ($events events)" \
	|| bad "resnet50 x40: why differs: '$why_big' vs '$why_one'"

# the custom-domain ops of the ORT-fused GPT-2 load and are listed
"$FUSIONDBG" info --format json "$MODELS/tiny_gpt2_ort_fused.onnx" 2>/dev/null | "$PYTHON" -c '
import json, sys
u = json.load(sys.stdin)["unknown_ops"]
names = sorted(o["domain"] + ":" + o["op_type"] for o in u)
want = ["com.microsoft:Attention", "com.microsoft:EmbedLayerNormalization",
        "com.microsoft:FastGelu", "com.microsoft:SkipLayerNormalization"]
sys.exit(0 if names == want else print("FAIL: unknown_ops", names) or 1)' || fail=1

# --dim binds a symbolic dim; an unknown name is a warning, not an error
"$FUSIONDBG" info --format json --dim batch_size=8 "$MODELS/tiny_gpt2_ort_fused.onnx" 2>"$tmp/err" | "$PYTHON" -c '
import json, sys
d = {s["name"]: s for s in json.load(sys.stdin)["symbolic_dims"]}
ok = (d["batch_size"] == {"name": "batch_size", "value": 8, "bound": True, "used": True} and
      d["seq_len"] == {"name": "seq_len", "value": None, "bound": False, "used": True})
sys.exit(0 if ok else print("FAIL: symbolic_dims", d) or 1)' || fail=1

[ "$fail" -eq 0 ] && echo "test_info: all good"
finish "$fail"
