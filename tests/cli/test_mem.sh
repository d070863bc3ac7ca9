#!/usr/bin/env bash
# test_mem.sh — `fusiondbg mem`:
#  1. the hand-computed sample (tests/unit/test_estimate.c has the working):
#     conv_add_silu peak 196608 -> 131072 B, peak tensors, fusion bytes, the
#     speed-up label, the same numbers in text and JSON;
#  2. an independent liveness count in python (onnx shape inference, weights =
#     initializers, Constant outputs and what only they feed) gives the same
#     peak before and after the fusions of `match --format json`, on every
#     sample and every shared model where it knows every activation's dims;
#  3. the JSON keys fusiondbg(1) documents, --peak-warn and its advice, --set / --diff,
#     bad usage exits 2.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() {   # FILE TEXT...
	local f=$1; shift
	for t in "$@"; do
		if ! grep -qF -- "$t" "$f"; then
			echo "FAIL: '$t' not in the output of $f:"; sed 's/^/    /' "$f" | head -40; fail=1
		fi
	done
}

# 1. the hand-computed sample
"$FUSIONDBG" mem samples/conv_add_silu.onnx -r rules >"$tmp/t.txt" 2>&1 || { echo "FAIL mem exit"; fail=1; }
expect "$tmp/t.txt" "memory (main graph, activations): peak 192 KiB -> 128 KiB" \
	"Conv_Add_SiLU_Fusion @ conv1 (4 nodes) -> ConvAddSiLUFusion  est. ×2.4" \
	"in 73 KiB (act 64 KiB, const 9 KiB)  out 64 KiB  removed 192 KiB" \
	"workspace 576 KiB  kernel peak 777 KiB" "before 192 KiB at add1 (3 tensors live)" \
	"after  128 KiB at mul1 (2 tensors live)" "roofline estimates on ascend910-class"
"$FUSIONDBG" mem samples/conv_add_silu.onnx -r rules --format json >"$tmp/t.json" || fail=1
"$PYTHON" - "$tmp/t.json" <<'EOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
for k in ("model", "rules", "fusions", "memory"):
    if k not in d: bad.append("no key " + k)
m = d["memory"]
want = {"peak_before_bytes": 196608, "peak_after_bytes": 131072}
for k, v in want.items():
    if m.get(k) != v: bad.append("%s = %s, want %s" % (k, m.get(k), v))
if [t["name"] for t in m["peak_tensors"]] != ["mul1_out", "x"]: bad.append("peak_tensors %s" % m["peak_tensors"])
if [t["name"] for t in m["peak_tensors_before"]] != ["add1_out", "conv1_out", "x"]: bad.append("peak_tensors_before")
f = d["fusions"][0]["memory"]
want = {"inputs_bytes": 74752, "outputs_bytes": 65536, "intermediate_bytes_removed": 196608,
        "workspace_bytes": 589824, "kernel_peak_bytes": 795648}
for k, v in want.items():
    if f.get(k) != v: bad.append("fusion memory %s = %s, want %s" % (k, f.get(k), v))
if not 2.42 < f.get("speedup_estimate", 0) < 2.44: bad.append("speedup_estimate %s" % f.get("speedup_estimate"))
for r in d["rules"]:
    for k in ("name", "priority", "match_times", "effect_times"):
        if k not in r: bad.append("rule without " + k)
for b in bad: print("FAIL json:", b)
sys.exit(1 if bad else 0)
EOF

# 2. independent liveness
cat >"$tmp/live.py" <<'EOF'
import json, sys
import onnx
from onnx import shape_inference, numpy_helper, helper
model_path, match_path = sys.argv[1], sys.argv[2]
m = onnx.load(model_path, load_external_data=False)
try:
    m = shape_inference.infer_shapes(m)
except Exception:
    pass
g = m.graph
# A dim is known when it is a number or a symbol the graph inputs declare
# (bound to 2 on fusiondbg's side too, --dim NAME=2); a symbol onnx's inference
# made up (unk__N) or a dim without either is unknown, and a model with an
# activation of unknown size is not compared.
declared = {d.dim_param for i in g.input for d in i.type.tensor_type.shape.dim if d.HasField("dim_param")}
def size_of(vi):
    t = vi.type.tensor_type
    if not t.HasField("shape") or t.elem_type == 0:
        return None
    n = 1
    for d in t.shape.dim:
        if d.HasField("dim_value"): n *= d.dim_value
        elif d.HasField("dim_param") and d.dim_param in declared: n *= 2
        else: return None
    bits = {1: 32, 2: 8, 3: 8, 4: 16, 5: 16, 6: 32, 7: 64, 9: 8, 10: 16, 11: 64, 12: 32, 13: 64, 16: 16}.get(t.elem_type)
    return None if bits is None else n * bits // 8
info = {}
for vi in list(g.input) + list(g.value_info) + list(g.output):
    info[vi.name] = size_of(vi)
inits = {i.name for i in g.initializer}
const = set(inits)
producer, consumers = {}, {}
for i, n in enumerate(g.node):
    for o in n.output:
        if o: producer[o] = i
    for x in n.input:
        if x: consumers.setdefault(x, []).append(i)
# weights: Constant outputs and nodes fed only by constants (not Shape of an activation)
for n in g.node:
    ins = [x for x in n.input if x]
    if n.op_type == "Constant" or (ins and all(x in const for x in ins) and n.op_type not in ("RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial")):
        const.update(o for o in n.output if o)
    if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in n.attribute):
        sys.exit(3)   # bodies: outer reads make this count differ; skip
names = [x for x in set(producer) | {i.name for i in g.input}] 
acts = [t for t in names if t not in const]
if any(info.get(t) is None for t in acts):
    sys.exit(3)   # onnx cannot size everything: not comparable
outputs = {o.name for o in g.output}
N = len(g.node)
def peak(step_of, skip):
    delta = [0] * (N + 1)
    for t in acts:
        if t in skip: continue
        s = step_of[producer[t]] if t in producer else 0
        e = max([s] + [step_of[c] for c in consumers.get(t, [])])
        if t in outputs: e = N - 1
        delta[s] += info[t]; delta[e + 1] -= info[t]
    best, live = 0, 0
    for k in range(N):
        live += delta[k]; best = max(best, live)
    return best
ident = list(range(N))
before = peak(ident, set())
fus = json.load(open(match_path))["fusions"]
name_of = [n.name or "%s_%d" % (n.op_type, i) for i, n in enumerate(g.node)]
index = {nm: i for i, nm in enumerate(name_of)}
step = list(ident)
skip = set()
for f in fus:
    if f.get("graph", 0) != 0: continue
    ids = [index[x] for x in f["nodes"]]
    last = max(ids)
    for i in ids: step[i] = last
    members = set(ids)
    for i in ids:
        for o in g.node[i].output:
            if o and o not in outputs and all(c in members for c in consumers.get(o, [])) and consumers.get(o):
                skip.add(o)
after = peak(step, skip)
print(before, after)
EOF
n=0 skipped=""
for model in samples/*.onnx "$MODELS"/*.onnx; do
	[ -e "$model" ] || continue
	binds=$("$PYTHON" -c '
import sys, onnx
g = onnx.load(sys.argv[1], load_external_data=False).graph
print(" ".join(sorted({"--dim=%s=2" % d.dim_param for i in g.input for d in i.type.tensor_type.shape.dim
                       if d.HasField("dim_param")})))' "$model")
	"$FUSIONDBG" match "$model" -r rules -r samples/rules --format json $binds >"$tmp/m.json" 2>/dev/null
	"$FUSIONDBG" mem "$model" -r rules -r samples/rules --format json $binds >"$tmp/mem.json" 2>/dev/null || { echo "FAIL mem $model"; fail=1; continue; }
	want=$("$PYTHON" "$tmp/live.py" "$model" "$tmp/m.json" 2>"$tmp/py.err"); rc=$?
	if [ $rc -eq 3 ]; then skipped="$skipped $(basename "$model")"; continue; fi
	if [ $rc -ne 0 ]; then echo "FAIL python on $model:"; cat "$tmp/py.err"; fail=1; continue; fi
	got=$("$PYTHON" -c "
import json, sys
m = json.load(open(sys.argv[1]))['memory']
print(m['peak_before_bytes'], m['peak_after_bytes'])" "$tmp/mem.json")
	if [ "$got" != "$want" ]; then
		echo "FAIL $model: peak before/after $got, independent count $want"; fail=1
	fi
	n=$((n + 1))
done
echo "mem: peak compared on $n models (not comparable:$skipped)"

# 2b. nothing bound: the sizes are formulas in the symbols, never 1
"$FUSIONDBG" mem samples/symbolic_batch.onnx -r rules >"$tmp/s.txt" 2>&1 || fail=1
expect "$tmp/s.txt" "memory (main graph, activations): peak 768 KiB × batch -> 768 KiB × batch" \
	"unbound symbols (sizes above are formulas in them; bind with --dim NAME=V or --input-shape): batch"
"$FUSIONDBG" mem samples/symbolic_batch.onnx -r rules --format json >"$tmp/s.json" || fail=1
"$PYTHON" - "$tmp/s.json" <<'EOF' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))["memory"]
want = {"peak_before_bytes": None, "peak_before_formula": "768 KiB × batch", "unbound_symbols": ["batch"],
        "bindings": {}}
bad = {k: m.get(k) for k, v in want.items() if m.get(k) != v}
if bad:
    print("FAIL json symbolic:", bad)
sys.exit(1 if bad else 0)
EOF
"$FUSIONDBG" mem samples/symbolic_batch.onnx -r rules --dim batch=8 >"$tmp/b.txt" 2>&1 || fail=1
expect "$tmp/b.txt" "memory (main graph, activations): peak 6 MiB -> 4 MiB (at batch=8)"
# a model whose memory is all formulas over unnamed dims: named, and no 0 B
"$FUSIONDBG" mem samples/vad_if.onnx -r rules >"$tmp/v.txt" 2>&1 || fail=1
expect "$tmp/v.txt" "unbound symbols (sizes above are formulas in them; bind with --dim NAME=V or --input-shape): input_dim0 input_dim1"
if grep -q ' 0 B' "$tmp/v.txt"; then echo "FAIL vad_if: a size of 0 B"; grep ' 0 B' "$tmp/v.txt"; fail=1; fi

# the voice-activity sample (its network inside If branches, its input dims
# unnamed, sr unknown): a peak no one step makes for every binding is the
# max of the step formulas, in text and JSON; the If's step counts either
# branch's own peak formulas, so the max is exact (not a lower bound): at
# every binding it is the peak mem gives with that binding; each constraint
# on an unbound size ends "unknown: depends on" its symbols (FD-CF06) in why
# and in the trace
"$FUSIONDBG" mem samples/vad_if.onnx -r samples/dynamic_rules >"$tmp/vm.txt" 2>&1 || fail=1
expect "$tmp/vm.txt" "memory (main graph, activations): peak max(64 B × floor(input_dim1/16) × input_dim0 + 8 B × input_dim0 × input_dim1 - 64 B × input_dim0 + 1 B, "
if grep -q 'peak ≥\|unknown (its own peak)' "$tmp/vm.txt"; then echo "FAIL vad_if: a lower bound or an unknown branch peak"; fail=1; fi
"$FUSIONDBG" mem samples/vad_if.onnx -r samples/dynamic_rules --format json >"$tmp/vm.json" || fail=1
for b in "1 16000" "2 16000" "3 8000" "1 512" "4 48000"; do
	read -r d0 d1 <<<"$b"
	"$FUSIONDBG" mem samples/vad_if.onnx -r samples/dynamic_rules --dim input_dim0=$d0 --dim input_dim1=$d1 --format json \
		>"$tmp/vb.json" || fail=1
	"$PYTHON" -c '
import json, math, re, sys
m = json.load(open(sys.argv[1]))["memory"]
bound = json.load(open(sys.argv[2]))["memory"]
env = {"input_dim0": int(sys.argv[3]), "input_dim1": int(sys.argv[4]), "floor": math.floor}
def value(f):   # "64 B × floor(input_dim1/16) × input_dim0 - 64 B" in python
    return eval(re.sub(r" B\b", "", f).replace("×", "*"), env)
ok = m["peak_before_bytes"] is None and m.get("peak_before_at_least") is None and m["peak_before_max_of"]
got = max(value(f) for f in m["peak_before_max_of"]) if ok else None
sys.exit(0 if ok and got == bound["peak_before_bytes"] else
         print("FAIL vad_if max at", sys.argv[3:], got, "bound:", bound["peak_before_bytes"]) or 1)' \
		"$tmp/vm.json" "$tmp/vb.json" "$d0" "$d1" || fail=1
done
"$FUSIONDBG" why samples/vad_if.onnx -r samples/dynamic_rules --rule Conv1d_Relu_Fusion >"$tmp/vw.txt" 2>&1
expect "$tmp/vw.txt" "actual 64 B × floor(input_dim1/16) × input_dim0 - 64 B × input_dim0 input.43 — unknown: depends on input_dim0, input_dim1 (bind with --dim or --input-shape) [FD-CF06]"
if grep -q "FD-CF0[345]" "$tmp/vw.txt"; then echo "FAIL vad_if unbound: a memory pass or fail on unbound dims"; fail=1; fi
"$FUSIONDBG" match samples/vad_if.onnx -r samples/dynamic_rules --trace >"$tmp/vt.txt" 2>&1
[ "$(grep -c '\[FD-CF06\] — unknown: depends on input_dim0, input_dim1' "$tmp/vt.txt")" -eq 4 ] ||
	{ echo "FAIL vad_if trace: four FD-CF06 events naming input_dim0, input_dim1"; fail=1; }

# 2c. --sweep: per value the peak and the memory rejections; per rule where it
# stops firing, bisected between the swept values (batch <= 64 fits the 16 MiB
# output limit: 256 KiB x batch); the same numbers as one run per binding
"$FUSIONDBG" mem samples/symbolic_batch.onnx -r rules --sweep batch=128,1,8,32 >"$tmp/sw.txt" 2>&1 || fail=1
expect "$tmp/sw.txt" "sweep batch over 1, 8, 32, 128" \
	"           1  768 KiB                512 KiB                      1       0      0      0      0" \
	"         128  96 MiB                 96 MiB                       0       1      0      0      0" \
	"      rejected Conv_Add_SiLU_Fusion @ conv1 [FD-CF03]" \
	"  Conv_Add_SiLU_Fusion         1 1 1 0   stops firing at batch=65"
"$FUSIONDBG" mem samples/symbolic_batch.onnx -r rules --sweep batch=1,8,32,128 --format json >"$tmp/sw.json" || fail=1
for v in 1 8 32 128; do
	"$FUSIONDBG" mem samples/symbolic_batch.onnx -r rules --dim batch=$v --format json >"$tmp/one$v.json" || fail=1
done
"$PYTHON" - "$tmp" <<'EOF' || fail=1
import json, sys
d = sys.argv[1]
sw = json.load(open(d + "/sw.json"))["sweep"]
bad = []
for run in sw["runs"]:
    one = json.load(open("%s/one%d.json" % (d, run["value"])))
    m = one["memory"]
    if (run["peak_before_bytes"], run["peak_after_bytes"], run["fusions"]) != \
       (m["peak_before_bytes"], m["peak_after_bytes"], len(one["fusions"])):
        bad.append("value %d: sweep %s, one run %s" % (run["value"], run, (m["peak_before_bytes"], m["peak_after_bytes"])))
rule = [r for r in sw["rules"] if r["name"] == "Conv_Add_SiLU_Fusion"][0]
if (rule["effect_times"], rule["loses_at"], rule["stops_at"]) != ([1, 1, 1, 0], 65, 65):
    bad.append("rule %s" % rule)
if sw["runs"][3]["rejected"]["FD-CF03"] != 1: bad.append("CF03 at 128")
for b in bad: print("FAIL sweep json:", b)
sys.exit(1 if bad else 0)
EOF
# two symbols: the other bound as given, named in the heading; a rule that loses some fusions
"$FUSIONDBG" mem samples/vad_if.onnx -r samples/dynamic_rules --dim input_dim1=16000 --sweep input_dim0=1,8,32,128 >"$tmp/sv.txt" 2>&1 || fail=1
expect "$tmp/sv.txt" "sweep input_dim0 over 1, 8, 32, 128 with input_dim1=16000" \
	"  Conv1d_Relu_Fusion           4 4 4 2   loses one at input_dim0=66"
for bad_sweep in "nope=1" "batch=1,x" "batch=" "=1" "batch=-1"; do
	"$FUSIONDBG" mem samples/symbolic_batch.onnx -r rules --sweep "$bad_sweep" >/dev/null 2>"$tmp/e.txt"
	[ $? -eq 2 ] && [ "$(wc -l <"$tmp/e.txt")" -eq 1 ] || { echo "FAIL --sweep $bad_sweep:"; cat "$tmp/e.txt"; fail=1; }
done

# 3. threshold and advice, --set / --diff, usage
"$FUSIONDBG" mem samples/conv_add_silu.onnx -r rules --peak-warn 100000 >"$tmp/w.txt" 2>&1
expect "$tmp/w.txt" "warning: kernel peak 777 KiB over 98 KiB: the workspace dominates: set spill_to_l2" \
	"enable tile_policy: chunked" "warning: 3 fusion(s) with a kernel peak over 98 KiB"
"$FUSIONDBG" mem samples/conv_add_silu.onnx -r rules --set Conv_Add_SiLU_Fusion.enabled=false --diff >"$tmp/d.txt" 2>&1
expect "$tmp/d.txt" "fusions: 0" "diff against the rules as loaded: 0 gained, 3 lost, 0 changed, 0 unchanged" \
	"  - Conv_Add_SiLU_Fusion [conv1 add1 sigmoid1 mul1]  @ conv1" \
	"rule Conv_Add_SiLU_Fusion: enabled true -> false fired 3 -> 0" "peak memory (main graph): 128 KiB -> 192 KiB"
"$FUSIONDBG" mem samples/conv_add_silu.onnx -r rules --peak-warn lots >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL --peak-warn lots should exit 2"; fail=1; }
"$FUSIONDBG" mem samples/conv_add_silu.onnx >/dev/null 2>"$tmp/e.txt"
[ $? -eq 2 ] || { echo "FAIL mem without rules should exit 2"; fail=1; }
"$FUSIONDBG" mem no_such.onnx -r rules >/dev/null 2>"$tmp/e.txt"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/e.txt")" -eq 1 ] || { echo "FAIL mem on a missing model:"; cat "$tmp/e.txt"; fail=1; }
finish $fail
