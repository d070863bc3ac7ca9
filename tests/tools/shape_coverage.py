#!/usr/bin/python3
"""shape_coverage.py — how many intermediate tensors onnx's own shape
inference (onnx.shape_inference.infer_shapes(model, data_prop=True)) knows,
counted exactly as fusiondbg's model_shape_coverage() counts them.

Intermediate: a non-empty output name of a node other than Constant (whose
output fusiondbg calls a constant, not an activation), in the main graph and
every If/Loop/Scan body, that is not an output of the graph it lives in. Names are
unique per graph, so a tensor produced twice is counted once.
Known: python gives it a tensor type with a shape, and every dim has a
dim_value or a dim_param. A dim_param counts as known because fusiondbg binds
every symbolic dim (--dim, or assumed 1), so python's symbolic answer carries
the same information as ours. That includes the "unk__N" names onnx invents
for a dim it could not compute: counting those as known too makes python's
number an upper bound, the harder bar for fusiondbg to reach. A dim with
neither is unknown.

Usage:
  shape_coverage.py MODEL.onnx [...]       prints "known total path" per model
  shape_coverage.py --compare MODEL DUMP   checks every shape python knows
      against DUMP (the output of `test_shape_infer --dump MODEL`): a dim
      python gives as a number must be that number in ours; a dim python gives
      as a name must carry that name in ours or be its bound value (1 when
      not bound: the test binds nothing); an invented "unk__N" name means
      python does not know, so any value of ours is accepted. Prints each
      disagreement; exit 1.
  shape_coverage.py --node-cases DIR       writes onnx's operator test cases
      (onnx.backend.test.case.node) into DIR as models without output shapes
      plus DIR/expected.txt, the reference output shapes and small values
  shape_coverage.py --node-compare DIR     compares DIR/ours.txt (the dumps)
      with DIR/expected.txt: a differing shape or value fails
"""
import os
import sys

import onnx
from onnx import shape_inference


def graphs(g):
    yield g
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from graphs(a.g)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for sg in a.graphs:
                    yield from graphs(sg)


def known(vi):
    t = vi.type
    if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
        return False
    return all(d.HasField("dim_value") or d.HasField("dim_param")
               for d in t.tensor_type.shape.dim)


def coverage(model):
    inferred = shape_inference.infer_shapes(model, data_prop=True)
    n_known = n_total = 0
    for g in graphs(inferred.graph):
        outputs = {o.name for o in g.output}
        info = {}
        for vi in list(g.value_info) + list(g.output):
            info.setdefault(vi.name, vi)
        seen = set()
        for n in g.node:
            if n.op_type == "Constant" and n.domain in ("", "ai.onnx"):
                continue
            for name in n.output:
                if not name or name in outputs or name in seen:
                    continue
                seen.add(name)
                n_total += 1
                if name in info and known(info[name]):
                    n_known += 1
    return n_known, n_total


def parse_dump(path):
    """{(graph, name): (dtype, dims or None)} from `test_shape_infer --dump`."""
    ours = {}
    with open(path) as f:
        for line in f:
            g, name, dt, dims = line.split()[:4]
            if dims == "-":
                shape = None
            else:
                shape = []
                for d in dims[1:-1].split(",") if dims != "[]" else []:
                    sym, _, val = d.rpartition("=")
                    shape.append((sym or None, None if val == "?" else int(val)))
            ours[(int(g), name)] = (int(dt), shape)
    return ours


def compare(model_path, dump_path):
    inferred = shape_inference.infer_shapes(onnx.load(model_path), data_prop=True)
    ours = parse_dump(dump_path)
    bad = 0
    for gi, g in enumerate(graphs(inferred.graph)):
        info = {vi.name: vi for vi in list(g.value_info) + list(g.output)}
        for n in g.node:
            for name in n.output:
                if not name or name not in info or (gi, name) not in ours:
                    continue
                t = info[name].type.tensor_type
                dt, shape = ours[(gi, name)]
                if t.elem_type and dt and t.elem_type != dt:
                    print(f"{model_path}: {name}: dtype onnx {t.elem_type} ours {dt}")
                    bad += 1
                if not t.HasField("shape"):
                    continue
                want = t.shape.dim
                if shape is None or len(shape) != len(want):
                    print(f"{model_path}: {name}: rank onnx {len(want)} ours {shape}")
                    bad += 1
                    continue
                for k, d in enumerate(want):
                    sym, val = shape[k]
                    if d.HasField("dim_value") and val != d.dim_value:
                        ok = False
                    elif d.HasField("dim_param") and not d.dim_param.startswith("unk__"):
                        ok = sym == d.dim_param or val == 1
                    else:
                        ok = True
                    if not ok:
                        print(f"{model_path}: {name}: dim {k} onnx {d} ours {shape}".replace("\n", " "))
                        bad += 1
                        break
    return bad


def node_cases(outdir):
    """Writes onnx's own operator test cases (onnx.backend.test.case.node) as
    models with their output shapes removed and their small numeric inputs
    made initializers (so that constant folding runs too), and
    outdir/expected.txt: "case output shape values" with the reference
    outputs numpy computed ("-" when not compared)."""
    import numpy as np
    # the 1.12 cases still spell a few numpy aliases that numpy removed
    for alias, real in (("float", float), ("int", int), ("bool", bool), ("object", object)):
        if alias not in np.__dict__:
            setattr(np, alias, real)
    from onnx import numpy_helper
    from onnx.backend.test.case import node
    os.makedirs(outdir, exist_ok=True)
    seen = set()
    with open(os.path.join(outdir, "expected.txt"), "w") as out:
        for case in node.collect_testcases(""):
            if not case.data_sets or case.name in seen:
                continue
            seen.add(case.name)
            m = onnx.ModelProto()
            m.CopyFrom(case.model)
            inputs, outputs = case.data_sets[0]
            g = m.graph
            lines = []
            for i, o in enumerate(g.output):
                if i < len(outputs) and isinstance(outputs[i], (np.ndarray, np.generic)):
                    a = np.asarray(outputs[i])
                    small = a.dtype.kind in "biuf" and 0 < a.size <= 64
                    bf16 = o.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16
                    vals = ",".join(repr(float(v)) for v in a.flat) if small and not bf16 else "-"
                    dims = "x".join(map(str, a.shape)) if a.ndim else "scalar"
                    lines.append(f"{case.name} {o.name} {dims} {vals}\n")
                o.type.tensor_type.ClearField("shape")
            del g.value_info[:]
            for i, vi in enumerate(g.input):
                if i >= len(inputs) or not isinstance(inputs[i], (np.ndarray, np.generic)):
                    continue
                a = np.asarray(inputs[i])
                # bfloat16 data travels as uint16 bits in the cases: leave it out
                if (a.dtype.kind in "biuf" and a.size <= 64 and a.dtype != np.float16 and
                        vi.type.tensor_type.elem_type != onnx.TensorProto.BFLOAT16):
                    g.initializer.append(numpy_helper.from_array(a, vi.name))
            onnx.save(m, os.path.join(outdir, case.name + ".onnx"))
            out.writelines(lines)
    return 0


def node_compare(outdir):
    """Compares outdir/expected.txt with outdir/ours.txt ("case output dims
    values" from test_shape_infer --dump). A shape or value of ours that
    differs is an error; one we leave unknown is only counted."""
    import math
    ours = {}
    with open(os.path.join(outdir, "ours.txt")) as f:
        for line in f:
            case, name, dims, vals = line.split()
            if dims == "-":
                shape = "-"
            elif dims == "[]":
                shape = "scalar"
            else:
                shape = "x".join(d.split("=")[-1] for d in dims[1:-1].split(","))
            ours[(case, name)] = (shape, vals)
    ok = unknown = wrong = values = 0
    with open(os.path.join(outdir, "expected.txt")) as f:
        for line in f:
            case, name, want, wvals = line.split()
            shape, vals = ours.get((case, name), ("-", "-"))
            if shape == want:
                ok += 1
            elif shape == "-" or "?" in shape:
                unknown += 1
            else:
                print(f"{case}: {name}: shape {shape}, reference {want}")
                wrong += 1
            if vals != "-" and wvals != "-":
                values += 1
                a = [float(x) for x in vals.split(",")]
                b = [float(x) for x in wvals.split(",")]
                if len(a) != len(b) or any(
                        not (abs(x - y) <= 1e-4 * max(1.0, abs(y)) or (math.isnan(x) and math.isnan(y)))
                        for x, y in zip(a, b)):
                    print(f"{case}: {name}: values {vals[:60]}, reference {wvals[:60]}")
                    wrong += 1
    print(f"onnx node cases: {ok} shapes equal, {unknown} left unknown, "
          f"{values} folded values compared, {wrong} wrong")
    return 1 if wrong else 0


def main(argv):
    status = 0
    if len(argv) == 3 and argv[1] == "--node-cases":
        return node_cases(argv[2])
    if len(argv) == 3 and argv[1] == "--node-compare":
        return node_compare(argv[2])
    if len(argv) == 4 and argv[1] == "--compare":
        return 1 if compare(argv[2], argv[3]) else 0
    for path in argv[1:]:
        try:
            k, t = coverage(onnx.load(path))
        except Exception as e:  # report and go on with the other models
            print(f"{path}: error: {e}", file=sys.stderr)
            status = 1
            continue
        print(k, t, path)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
