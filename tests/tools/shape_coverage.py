#!/usr/bin/python3
"""shape_coverage.py — how many intermediate tensors onnx's own shape
inference (onnx.shape_inference.infer_shapes(model, data_prop=True)) knows,
counted exactly as fusiondbg's model_shape_coverage() counts them.

Intermediate: a non-empty output name of a node other than Constant (whose
output fusiondbg calls a constant, not an activation), in the main graph and
every If/Loop/Scan body, that is not an output of the graph it lives in. Names are
unique per graph, so a tensor produced twice is counted once.
Known: python gives it a tensor type with a shape, and every dim has a
dim_value or a dim_param — as fusiondbg counts a dim that is a number or an
expression over symbols. That includes the "unk__N" names onnx invents for a
dim it could not compute (and fusiondbg's fresh symbols of the same name);
--agree also counts "named" shapes, without those. A dim with neither is
unknown.

Usage:
  shape_coverage.py MODEL.onnx [...]       prints "known total path" per model
  shape_coverage.py --agree MODEL OURS.json  coverage and agreement, tensor
      by tensor, against OURS.json (`fusiondbg info --tensors --format json
      MODEL`, nothing bound); see agree(). Prints each disagreement, then
      "ROW {total, ours, ours_named, ours_symbolic, onnx, onnx_named}"; exit 1 on any
      disagreement.
  shape_coverage.py --node-cases DIR       writes onnx's operator test cases
      (onnx.backend.test.case.node) into DIR as models without output shapes
      plus DIR/expected.txt, the reference output shapes and small values
  shape_coverage.py --node-compare DIR     compares DIR/ours.txt (the dumps)
      with DIR/expected.txt: a differing shape or value fails
"""
import json
import os
import re
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


UNK = re.compile(r"\bunk__\d+\b")


def model_params(m):
    """Every dim_param the model itself spells, in any graph."""
    out = set()
    for g in graphs(m.graph):
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            t = vi.type
            if t.HasField("tensor_type") and t.tensor_type.HasField("shape"):
                out.update(d.dim_param for d in t.tensor_type.shape.dim if d.HasField("dim_param"))
    return out


def onnx_dims(vi):
    """[int | str | None] or None (no shape)."""
    t = vi.type
    if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else d.dim_param if d.HasField("dim_param") else None
            for d in t.tensor_type.shape.dim]


def agree(model_path, ours_path):
    """Tensor by tensor, onnx's inferred shapes against ours (the JSON of
    `fusiondbg info --tensors --format json`, nothing bound).

    Coverage over the intermediates (coverage() says which): known = a rank
    and every dim a number or a name (onnx's invented unk__N counted, as our
    fresh symbols are); named = known without one of those; symbolic (ours)
    = known with at least one dim a symbol or an expression.

    Agreement over every node output, up to renaming: a number of onnx's
    must be the same number in ours; a name of onnx's stands for one dim of
    ours throughout the model (the graph inputs fix the model's own names:
    "batch" is batch), so that where onnx repeats a name ours repeats a dim,
    whatever onnx called it. A name the model declares (an output's or a
    value_info's dim_param) that no graph input carries is only the
    exporter's claim, which onnx keeps and fusiondbg replaces when it infers
    the dim (torch names an If's else-branch outputs after the then-branch's,
    though the branches compute different lengths): such a name is not
    compared. A shape onnx knows and ours does not, or a
    number of onnx's that is an expression in ours, is a failure too.
    Returns (row dict, [problems])."""
    original = onnx.load(model_path)
    params = model_params(original)
    inferred = shape_inference.infer_shapes(original, data_prop=True)
    with open(ours_path) as f:
        doc = json.load(f)
    ours = {(t["graph"], t["name"]): t for t in doc["tensors"]}
    rename = {}
    problems = []
    input_params = {d.dim_param for vi in original.graph.input if vi.type.HasField("tensor_type")
                    for d in vi.type.tensor_type.shape.dim if d.HasField("dim_param")}
    declared_only = params - input_params

    def same(name, mine, where):
        if name not in rename:
            rename[name] = mine
        elif rename[name] != mine:
            problems.append(f"{where}: onnx's {name} is {rename[name]!r} elsewhere, here ours is {mine!r}")

    gs = list(graphs(inferred.graph))
    # the model's own names first: a graph input's symbol is that dim of ours
    for vi in gs[0].input:
        mine = ours.get((0, vi.name))
        theirs = onnx_dims(vi)
        if mine and mine["shape"] is not None and theirs and len(theirs) == len(mine["shape"]):
            for d, m in zip(theirs, mine["shape"]):
                if isinstance(d, str):
                    same(d, m, f"input {vi.name}")
    row = dict(total=0, ours=0, ours_named=0, ours_symbolic=0, onnx=0, onnx_named=0)
    for gi, g in enumerate(gs):
        info = {}
        for vi in list(g.value_info) + list(g.output):
            info.setdefault(vi.name, vi)
        outputs = {o.name for o in g.output}
        seen = set()
        for n in g.node:
            for name in n.output:
                if not name or name in seen:
                    continue
                seen.add(name)
                mine = ours.get((gi, name))
                theirs = onnx_dims(info[name]) if name in info else None
                mshape = mine["shape"] if mine else None
                m_known = mshape is not None and all(d is not None for d in mshape)
                t_known = theirs is not None and all(d is not None for d in theirs)
                if not (n.op_type == "Constant" and n.domain in ("", "ai.onnx")) and name not in outputs:
                    row["total"] += 1
                    row["ours"] += m_known
                    row["onnx"] += t_known
                    row["ours_symbolic"] += m_known and any(isinstance(d, str) for d in mshape)
                    row["ours_named"] += m_known and not any(
                        isinstance(d, str) and UNK.search(d) and d not in params for d in mshape)
                    row["onnx_named"] += t_known and not any(
                        isinstance(d, str) and d.startswith("unk__") and d not in params for d in theirs)
                if theirs is None:
                    continue
                where = f"{model_path}: graph {gi} {name}"
                if mshape is None or len(mshape) != len(theirs):
                    problems.append(f"{where}: onnx {theirs}, ours {mshape}")
                    continue
                for k, (d, m) in enumerate(zip(theirs, mshape)):
                    if d is None:
                        continue
                    if m is None:
                        problems.append(f"{where}: dim {k} onnx {d!r}, ours unknown ({mshape})")
                    elif isinstance(d, int) and m != d:
                        problems.append(f"{where}: dim {k} onnx {d}, ours {m!r} ({mshape})")
                    elif isinstance(d, str) and d not in declared_only:
                        same(d, m, f"{where} dim {k}")
    return row, problems


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
    if len(argv) == 4 and argv[1] == "--agree":
        row, problems = agree(argv[2], argv[3])
        for p in problems[:20]:
            print(p)
        if len(problems) > 20:
            print(f"... and {len(problems) - 20} more")
        print("ROW", json.dumps(row))
        return 1 if problems else 0
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
