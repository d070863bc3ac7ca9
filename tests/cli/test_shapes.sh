#!/usr/bin/env bash
# test_shapes.sh — shapes in and out of fusiondbg:
#  1. `infer MODEL -o OUT.onnx` on every sample and shared model: the file
#     passes onnx.checker.check_model(full_check=True), and onnx reads back,
#     for every node output of every graph, exactly the shape fusiondbg
#     inferred (`info --tensors --format json`: numbers as dim_value,
#     expressions and symbols as dim_param); with --dim the bound dims are
#     numbers, the inputs included;
#  2. `info --tensors` in text and JSON: shapes as expressions, sizes as
#     formulas, the unbound symbols named;
#  3. --input-shape as CANN ATC takes it: binding unnamed dims, names with
#     ':' in them, -1, a replaced static dim (a warning), and every bad form
#     a one-line error with exit 2 (unknown input, rank, syntax, a symbol
#     bound twice);
#  4. unknown is not zero: where sizes cannot be known, mem, its JSON and
#     the picture say unknown (null), never 0 B, ×1.00 or a red peak edge;
#  5. --shapes onnx and the rule set's shapes: onnx: a Reshape to a shape
#     computed through a Div has no dims the rules can compare, one through
#     Gather and Concat keeps its numbers; the trace says which shapes
#     decided; the command line wins; bad values are errors; an Expand to
#     a shape of unknown values keeps the dims above 1; ONNX's inference
#     functions as the op's version has them: a Reshape below opset 14 to
#     a computed shape has no shape at all (from 14 on its target's length
#     gives the rank), and what reads a tensor without a shape has none.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bad() { echo "FAIL: $*"; fail=1; }

# 1. infer
cat >"$tmp/readback.py" <<'EOF'
import json, sys
import onnx
sys.path.insert(0, "tests/tools")
from shape_coverage import graphs, onnx_dims as dims   # the same walk and reading as the agreement test
written, ours_path = sys.argv[1], sys.argv[2]
m = onnx.load(written)
onnx.checker.check_model(m, full_check=True)
ours = {(t["graph"], t["name"]): t for t in json.load(open(ours_path))["tensors"]}

bad = n = 0
for gi, g in enumerate(graphs(m.graph)):
    declared = {vi.name: vi for vi in list(g.value_info) + list(g.output)}
    for node in g.node:
        for name in node.output:
            mine = ours.get((gi, name))
            if not name or not mine or mine["dtype"] == "undefined":
                continue
            n += 1
            want = mine["shape_at_bindings"] if "shape_at_bindings" in mine else mine["shape"]
            if "shape_at_bindings" in mine:   # a number where bound, else the expression
                want = [b if b is not None else s for b, s in zip(mine["shape_at_bindings"], mine["shape"])]
            got = dims(declared[name]) if name in declared else "missing"
            if got != want and not (name in {o.name for o in g.output} and got is not None and
                                    all(w is None or w == x for w, x in zip(want or [], got))):
                print(f"{written}: graph {gi} {name}: onnx reads {got}, fusiondbg inferred {want}")
                bad += 1
print(f"{n} shapes read back")
sys.exit(1 if bad else 0)
EOF
n=0
for model in samples/*.onnx "$MODELS"/*.onnx; do
	[ -e "$model" ] || continue
	name=$(basename "$model" .onnx)
	if ! "$FUSIONDBG" infer "$model" -o "$tmp/$name.inferred.onnx" >"$tmp/infer.out" 2>&1; then
		bad "infer $model:"; cat "$tmp/infer.out"; continue
	fi
	"$FUSIONDBG" info --tensors --format json "$model" >"$tmp/ours.json" 2>/dev/null || { bad "info --tensors $model"; continue; }
	"$PYTHON" "$tmp/readback.py" "$tmp/$name.inferred.onnx" "$tmp/ours.json" >"$tmp/rb.out" 2>&1 ||
		{ bad "$model: read back"; head -5 "$tmp/rb.out"; }
	n=$((n + 1))
done
echo "infer: $n models written, checked and read back"
# with bindings the file is static where bound
"$FUSIONDBG" infer samples/audio_frontend.onnx --dim batch=2 --dim samples=16000 -o "$tmp/a2.onnx" >/dev/null || bad "infer --dim"
"$PYTHON" - "$tmp/a2.onnx" <<'EOF' || fail=1
import sys, onnx
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
dims = lambda vi: [d.dim_value if d.HasField("dim_value") else d.dim_param for d in vi.type.tensor_type.shape.dim]
vi = {v.name: v for v in m.graph.value_info}
want = {"audio": [2, 16000], "/stft_real/Conv_output_0": [2, 65, 501], "features": [2, 501, 40]}
got = {"audio": dims(m.graph.input[0]), "/stft_real/Conv_output_0": dims(vi["/stft_real/Conv_output_0"]),
       "features": dims(m.graph.output[0])}
if got != want:
    print("FAIL infer --dim:", got); sys.exit(1)
EOF
# -o - is standard output, the words go to standard error
"$FUSIONDBG" infer samples/vad_if.onnx -o - >"$tmp/out.onnx" 2>"$tmp/words.txt" || bad "infer -o -"
grep -qF "standard output: " "$tmp/words.txt" || bad "infer -o -: no summary on stderr"
"$PYTHON" -c 'import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)' "$tmp/out.onnx" ||
	bad "infer -o -: standard output is not the model"
"$FUSIONDBG" infer samples/vad_if.onnx -o "$tmp/no/such/dir/x.onnx" >/dev/null 2>"$tmp/e.txt"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/e.txt")" -eq 1 ] || { bad "infer into a missing directory:"; cat "$tmp/e.txt"; }
"$FUSIONDBG" infer samples/vad_if.onnx >/dev/null 2>&1
[ $? -eq 2 ] || bad "infer without -o should exit 2"

# 2. info --tensors
"$FUSIONDBG" info --tensors samples/audio_frontend.onnx >"$tmp/t.txt" || bad "info --tensors"
for want in "batch×65×(floor(samples/32)+1)" "260 B × batch × floor(samples/32) + 260 B × batch" \
	"/stft_real/Conv (Conv)" "unbound symbols (sizes above are formulas in them; bind with --dim NAME=V): batch samples"; do
	grep -qF -- "$want" "$tmp/t.txt" || bad "info --tensors: '$want' not in the output"
done
"$FUSIONDBG" info --tensors --format json --dim batch=4 samples/audio_frontend.onnx >"$tmp/t.json" || bad "info --tensors json"
"$PYTHON" - "$tmp/t.json" <<'EOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["name"]: x for x in d["tensors"]}
c = t["/stft_real/Conv_output_0"]
want = {"shape": ["batch", 65, "floor(samples/32)+1"], "shape_at_bindings": [4, 65, None], "bytes": None,
        "bytes_formula": "1040 B × floor(samples/32) + 1040 B", "producer": "/stft_real/Conv", "producer_op": "Conv",
        "kind": "activation", "dtype": "float32"}
bad = {k: c.get(k) for k, v in want.items() if c.get(k) != v}
if d["unbound_symbols"] != ["samples"]: bad["unbound_symbols"] = d["unbound_symbols"]
if t["stft_real.weight"]["bytes"] != 65 * 128 * 4: bad["weight bytes"] = t["stft_real.weight"]["bytes"]
if bad: print("FAIL info --tensors json:", bad)
sys.exit(1 if bad else 0)
EOF

# 3. --input-shape
"$FUSIONDBG" info --format json --input-shape "input:4,16000;sr:" samples/vad_if.onnx >"$tmp/i.json" 2>"$tmp/i.err" || bad "--input-shape"
"$PYTHON" -c '
import json, sys
d = {s["name"]: s for s in json.load(open(sys.argv[1]))["symbolic_dims"]}
ok = d["input_dim0"]["value"] == 4 and d["input_dim1"]["value"] == 16000
sys.exit(0 if ok else print("FAIL --input-shape binds", d) or 1)' "$tmp/i.json" || fail=1
"$FUSIONDBG" mem samples/vad_if.onnx -r samples/dynamic_rules --input-shape "input:1,16000" >"$tmp/m.txt" 2>&1 || bad "mem --input-shape"
grep -qF "(at input_dim0=1, input_dim1=16000)" "$tmp/m.txt" || { bad "mem does not name the binding"; cat "$tmp/m.txt"; }
grep -qF "fusions: 4" "$tmp/m.txt" || bad "vad_if bound: 4 fusions"
# -1 leaves a dim unbound; a name with ':' splits at its last ':'
"$FUSIONDBG" info --format json --input-shape " input : -1, 8000 " samples/vad_if.onnx >"$tmp/i2.json" 2>&1 || bad "--input-shape -1"
"$PYTHON" -c '
import json, sys
d = {s["name"]: s for s in json.load(open(sys.argv[1]))["symbolic_dims"]}
sys.exit(0 if d["input_dim0"]["value"] is None and d["input_dim1"]["value"] == 8000 else print("FAIL -1:", d) or 1)' "$tmp/i2.json" || fail=1
# the symbol binds through the input; shapes keep the expression, the numbers follow
"$FUSIONDBG" info --tensors --format json --input-shape "x:1,64,100" samples/conv1d_symbolic_len.onnx >"$tmp/s.json" 2>"$tmp/s.err" || bad "--input-shape symbol"
"$PYTHON" -c '
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))["tensors"]}
c = t["/conv_a/Conv_output_0"]
sys.exit(0 if c["shape_at_bindings"] == [1, 16, 50] and c["bytes"] == 3200 else print("FAIL length=100:", c) or 1)' "$tmp/s.json" || fail=1
# a static dim replaced, with a warning
"$FUSIONDBG" info --input-shape "x:2,64,100" samples/conv1d_symbolic_len.onnx >/dev/null 2>"$tmp/w.err" || bad "replacing a static dim"
grep -qF "warning: --input-shape x (dim 0): the model says 1, using 2" "$tmp/w.err" || { bad "no warning for a replaced dim"; cat "$tmp/w.err"; }
for spec in "nosuch:1,2" "input:1" "input:1,a" "input1,2" "input:1,2,3" "input:-2,3"; do
	"$FUSIONDBG" info --input-shape "$spec" samples/vad_if.onnx >/dev/null 2>"$tmp/e.txt"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e.txt")" -eq 1 ] && grep -q -- '--input-shape' "$tmp/e.txt" ||
		{ bad "--input-shape '$spec': exit $rc, $(cat "$tmp/e.txt")"; }
done
grep -qF "inputs: input, sr" <("$FUSIONDBG" info --input-shape "nosuch:1" samples/vad_if.onnx 2>&1) || bad "unknown input: list the inputs"
"$FUSIONDBG" info --dim batch=8 --input-shape "x:4,16,64,64" samples/symbolic_batch.onnx >/dev/null 2>"$tmp/e.txt"
[ $? -eq 2 ] && grep -qF "binds batch to 4, but it is bound to 8 already" "$tmp/e.txt" || { bad "a symbol bound twice:"; cat "$tmp/e.txt"; }
# a dim past INT64_MAX is an error (it was clamped with a warning); an input
# given twice, in one --input-shape or across two, is an error naming both
# (the last silently won)
shape_error() {   # shape_error WANT ARGS…: exit 2 and exactly the stderr line WANT
	local want=$1; shift
	"$FUSIONDBG" info samples/conv_add_silu.onnx "$@" >/dev/null 2>"$tmp/e.txt"; local rc=$?
	[ $rc -eq 2 ] && [ "$(cat "$tmp/e.txt")" = "samples/conv_add_silu.onnx: error: $want" ] ||
		bad "$*: exit $rc, '$(cat "$tmp/e.txt")', want '$want'"
}
shape_error "--input-shape: in 'x:99999999999999999999', the dim 99999999999999999999 is out of range (at most 9223372036854775807)" \
	--input-shape x:99999999999999999999
shape_error "--input-shape: x is given twice ('x:1,3' and 'x:1,4')" --input-shape "x:1,3;x:1,4"
shape_error "--input-shape: x is given twice ('x:1,16,32,32' and 'x : 1,16,32,64')" \
	--input-shape "x:1,16,32,32" --input-shape " x : 1,16,32,64 ; "
"$FUSIONDBG" info samples/conv_add_silu.onnx --input-shape "x:1,16,32,32" >/dev/null 2>"$tmp/e.txt" || bad "x once: $(cat "$tmp/e.txt")"
# 4. unknown sizes
U=tests/data/shapes/unknown_sizes.onnx
"$FUSIONDBG" mem "$U" -r rules >"$tmp/u.txt" 2>&1 || bad "mem unknown_sizes"
for want in "memory (main graph, activations): peak unknown -> unknown" "removed unknown" "est. n/a" \
	"kernel peak unknown" "4 of 4 activations have an unknown size"; do
	grep -qF -- "$want" "$tmp/u.txt" || bad "mem unknown_sizes: '$want' not in the output"
done
grep -q ' 0 B\|×1\.0' "$tmp/u.txt" && { bad "mem unknown_sizes shows 0 B or ×1.0:"; grep ' 0 B\|×1\.0' "$tmp/u.txt"; }
"$FUSIONDBG" mem "$U" -r rules --format json >"$tmp/u.json" || bad "mem json unknown_sizes"
"$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
m, f = d["memory"], d["fusions"][0]["memory"]
bad = [k for k in ("peak_before_bytes", "peak_after_bytes") if m[k] is not None]
bad += [k for k in ("intermediate_bytes_removed", "outputs_bytes", "kernel_peak_bytes") if f[k] is not None]
if f["speedup_estimate"] != 0: bad.append("speedup_estimate")
sys.exit(1 if bad else 0) if not bad else (print("FAIL unknown json:", bad), sys.exit(1))' "$tmp/u.json" || fail=1
"$FUSIONDBG" export "$U" -r rules -o "$tmp/u.dot" >/dev/null 2>&1 || bad "export unknown_sizes"
grep -qF "speed-up n/a (est.) · removes unknown" "$tmp/u.dot" || bad "cluster label of unknown sizes"
grep -q 'penwidth=3' "$tmp/u.dot" && bad "red peak edges for a peak nobody knows"
grep -qF "no peak marked: it is not known" "$tmp/u.dot" || bad "legend does not say the peak is not known"
# 5. --shapes onnx
M5=tests/data/lang/shapes_onnx.onnx R5=tests/data/lang/same_dims_add.yaml
out=$("$FUSIONDBG" match $M5 -r $R5 2>&1)
grep -q "add1 -> SameDimsAdd" <<<"$out" && grep -q "add2 -> SameDimsAdd" <<<"$out" || bad "full shapes: both Adds fuse: $out"
out=$("$FUSIONDBG" match $M5 -r $R5 --shapes onnx 2>&1)
grep -q "add1 -> SameDimsAdd" <<<"$out" || bad "--shapes onnx: the Gather/Concat reshape keeps [?, 2, 3]: $out"
grep -q "add2 -> SameDimsAdd" <<<"$out" && bad "--shapes onnx: the Div reshape still has dims"
grep -qF "actual reshape2_out rank 3 [?×?×?] (shapes: onnx)" <<<"$out" || bad "--shapes onnx: the trace does not say so: $out"
mkdir -p "$tmp/set5" && cp $R5 "$tmp/set5/" && printf 'ruleset:\n  shapes: onnx\n' >"$tmp/set5/ruleset.yaml"
out=$("$FUSIONDBG" match $M5 -r "$tmp/set5" 2>&1)
grep -q "add2 -> SameDimsAdd" <<<"$out" && bad "the rule set's shapes: onnx not applied"
grep -q "add1 -> SameDimsAdd" <<<"$out" || bad "the rule set's shapes: onnx: $out"
out=$("$FUSIONDBG" match $M5 -r "$tmp/set5" --shapes full 2>&1)
grep -q "add2 -> SameDimsAdd" <<<"$out" || bad "--shapes full does not win over the rule set: $out"
"$FUSIONDBG" match $M5 -r $R5 --shapes bogus >"$tmp/o5" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q "shapes wants full or onnx, not 'bogus'" "$tmp/o5" || bad "--shapes bogus: exit $rc, $(cat "$tmp/o5")"
printf 'ruleset:\n  shapes: partial\n' >"$tmp/set5/ruleset.yaml"
"$FUSIONDBG" check "$tmp/set5" >"$tmp/o5" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "ruleset.yaml:2:11: error: ruleset.shapes: expected full or onnx, got 'partial'" "$tmp/o5" \
	|| bad "ruleset shapes: partial: exit $rc, $(cat "$tmp/o5")"

# Expand to a shape whose values are not known keeps the dims above 1 (ViT's class token)
"$FUSIONDBG" info tests/data/torch/torch_vit_opset17.onnx --tensors 2>&1 | grep "/Expand_output_0 " | grep -q "×32 " \
	|| bad "Expand of the class token lost its last dim"

# --shapes onnx: a Reshape's inference by its version (ViT's patches: Conv -> Reshape to a computed shape -> Transpose)
for v in 13 14; do
	"$FUSIONDBG" info tests/data/torch/torch_vit_opset$v.onnx --tensors --shapes onnx --format json >"$tmp/v$v.json" || bad "info vit $v"
done
"$PYTHON" - "$tmp/v13.json" "$tmp/v14.json" <<'EOF' || fail=1
import json, sys
def shapes(p):
    return {t["name"]: t["shape"] for t in json.load(open(p))["tensors"]}
s13, s14 = shapes(sys.argv[1]), shapes(sys.argv[2])
for name in ("/Reshape_output_0", "/Transpose_output_0", "/Concat_2_output_0"):
    if s13[name] is not None:
        sys.exit("FAIL: opset 13, --shapes onnx: %s has shape %s; ONNX's Reshape-13 infers none" % (name, s13[name]))
if s14["/Reshape_output_0"] is None or len(s14["/Reshape_output_0"]) != 3:
    sys.exit("FAIL: opset 14, --shapes onnx: /Reshape_output_0 is %s, not of rank 3" % s14["/Reshape_output_0"])
if s13["/conv_proj/Conv_output_0"] is None:
    sys.exit("FAIL: opset 13: the Conv before the Reshape lost its shape")
EOF
"$FUSIONDBG" info tests/data/torch/torch_vit_opset13.onnx --tensors 2>&1 | grep "^main   /Reshape_output_0 " | grep -q "batch×32×16 " \
	|| bad "--shapes full: the opset-13 Reshape's dims are not known"

echo "test_shapes: done"
finish $fail
