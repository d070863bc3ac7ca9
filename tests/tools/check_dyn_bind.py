#!/usr/bin/python3
"""check_dyn_bind.py — binds every subset of a dynamic model's symbols and
checks what fusiondbg shows against onnx's own shape inference at the same
binding, computed here without fusiondbg:

  shapes  every dim fusiondbg gives as a number (info --tensors --format
          json, shape_at_bindings) is the number onnx infers, every dim onnx
          infers as a number fusiondbg has as that number, and no unbound
          symbol is shown as a number;
  text    info's text shows each input and output shape with the bound dims
          as numbers (no bound symbol's name or alias left in it);
  peak    mem --format json: with every symbol bound, the peak is the
          liveness peak of onnx's shapes (topological order, inputs from step
          0, outputs to the end, weights and what only they compute left
          out, a node running an If holding its branch's own peak less its
          outputs), up to 64 B of int64 shape vectors (activations while
          their input's shape is symbolic, folded constants once bound); with
          some left unbound, the formula (or max of formulas)
          evaluated at two values of the rest is that peak within the
          rounding of its printed coefficients, and a "≥" bound is below it.

Usage: check_dyn_bind.py FUSIONDBG RULES MODEL [NAME=V ...] [--value NAME=V]
The NAME=V pairs are the values each symbol is bound to (default 2 for
every symbol); exits 1 on the first disagreement, printing it.
"""
import itertools
import json
import math
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

FD, RULES, MODEL = sys.argv[1:4]
VALUES, SCALARS = {}, {}
args = sys.argv[4:]
i = 0
ALLOW_UNKNOWN = False   # --allow-unknown-peak: a peak "unknown" with symbols unbound is let through (counted)
FULL_PEAK_ONLY = False  # --full-peak-only: the peak checked with every symbol bound only (shapes at every subset)
UNKNOWN_PEAKS = []
while i < len(args):
    if args[i] in ("--allow-unknown-peak", "--full-peak-only"):
        ALLOW_UNKNOWN |= args[i] == "--allow-unknown-peak"
        FULL_PEAK_ONLY |= args[i] == "--full-peak-only"
        i += 1
        continue
    if args[i] == "--value":
        k, v = args[i + 1].split("=")
        SCALARS[k] = int(v)
        i += 2
        continue
    k, v = args[i].rsplit("=", 1)
    VALUES[k] = int(v)
    i += 1

UNKNOWN = []   # the tensor whose size onnx's shapes leave unknown, for the message
ELEM = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 16: 2}


def fail(msg):
    print("FAIL %s: %s" % (MODEL, msg))
    sys.exit(1)


def run(*a):
    p = subprocess.run([FD] + list(a), capture_output=True, text=True,
                       env={"GRAPH_AUTOFUSION_RULES_DIR": RULES, "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"})
    if p.returncode != 0:
        fail("%s exits %d: %s" % (" ".join(a), p.returncode, p.stderr.strip()))
    return p.stdout


def symbols(model):
    """The symbols of the main graph's inputs, in order."""
    out = []
    for vi in model.graph.input:
        for d in vi.type.tensor_type.shape.dim:
            if d.dim_param and d.dim_param not in out:
                out.append(d.dim_param)
    return out


def bound_model(model, binding):
    """A copy with the bound dims as numbers, --value inputs as constants,
    and onnx's inference run on it (data propagation for shape arithmetic)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    del m.graph.value_info[:]
    for vi in m.graph.input:
        for d in vi.type.tensor_type.shape.dim:
            if d.dim_param in binding:
                d.dim_value = binding[d.dim_param]
    for o in m.graph.output:   # what the file declares is not what onnx is to find
        o.type.tensor_type.ClearField("shape")
    return shape_inference.infer_shapes(m, data_prop=True)


def dims_of(t):
    if not t.type.HasField("tensor_type") or not t.type.tensor_type.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in t.type.tensor_type.shape.dim]


def graph_shapes(g, out):
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        out.setdefault(g.name, {})[vi.name] = (dims_of(vi), vi.type.tensor_type.elem_type)
    for init in g.initializer:
        out.setdefault(g.name, {})[init.name] = (list(init.dims), init.data_type)
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                graph_shapes(a.g, out)
            elif a.type == onnx.AttributeProto.TENSOR and n.op_type == "Constant":
                out.setdefault(g.name, {})[n.output[0]] = (list(a.t.dims), a.t.data_type)
    return out


def size(shape, dt):
    if shape is None or any(d is None for d in shape) or dt not in ELEM:
        return None
    return int(np.prod(shape, dtype=np.int64)) * ELEM[dt]


def branch_of(g, node, shapes):
    """The If's branch onnx's values pick (a --value), else None."""
    if node.op_type != "If":
        return None
    for n in g.node:   # Equal(x, Constant) on a --value input
        if node.input[0] in n.output and n.op_type == "Equal" and n.input[0] in SCALARS:
            k = [c for c in g.node if c.op_type == "Constant" and n.input[1] in c.output]
            if k:
                v = int(numpy_helper.to_array(k[0].attribute[0].t))
                return "then_branch" if SCALARS[n.input[0]] == v else "else_branch"
    return None


FALLBACK = {}   # (graph, tensor) -> bytes fusiondbg gives, for what onnx leaves unknown
BORROWED = set()


def peak(g, shapes, outer=()):
    """Liveness peak of graph g in onnx's shapes (None when a size is not
    known); a tensor whose size onnx's inference leaves unknown takes the
    bytes fusiondbg gives it (counted in BORROWED, said in the report)."""
    sh = shapes[g.name]
    weights = {i.name for i in g.initializer}
    for n in g.node:   # constants, what only they compute, and the Shape of a static shape
        static_shape = n.op_type == "Shape" and size(*sh.get(n.input[0], (None, 1))) is not None
        if n.op_type == "Constant" or static_shape or (n.input and all(x in weights or x == "" for x in n.input)
                                                         and not any(a.type == onnx.AttributeProto.GRAPH
                                                                     for a in n.attribute)):
            weights |= set(n.output)
    steps = list(g.node)
    start, end = {}, {}
    for vi in g.input:
        if vi.name not in weights:
            start[vi.name] = end[vi.name] = 0
    for k, n in enumerate(steps):
        for x in n.output:
            if x and x not in weights:
                start[x] = end[x] = k
        used = list(n.input)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                used += outer_reads(a.g)
        for x in used:
            if x in start:
                end[x] = max(end[x], k)
    for o in g.output:
        if o.name in start:
            end[o.name] = len(steps) - 1
    # what onnx's inference leaves unknown that a rule of ONNX gives: a
    # Reshape keeps its input's size; an If's output is its branch's (the
    # larger, when no --value picks one)
    sizes = {t: size(*sh.get(t, (None, None))) for t in start}
    for n in steps:
        if n.op_type == "Reshape" and sizes.get(n.output[0]) is None and n.output[0] in start:
            src = sh.get(n.input[0], (None, None))
            out_dt = sh.get(n.output[0], (None, src[1]))[1] or src[1]
            sizes[n.output[0]] = size(src[0], out_dt)
        if n.op_type == "If":
            bodies = {a.name: a.g for a in n.attribute if a.type == onnx.AttributeProto.GRAPH}
            pick = branch_of(g, n, shapes)
            for k, x in enumerate(n.output):
                if x in start and sizes.get(x) is None:
                    cand = [size(*shapes[b.name].get(b.output[k].name, (None, None)))
                            for name, b in bodies.items() if pick in (None, name)]
                    sizes[x] = None if None in cand else max(cand)
    for t in sizes:
        if sizes[t] is None and FALLBACK.get((g.name, t)) is not None:
            sizes[t] = FALLBACK[(g.name, t)]
            BORROWED.add((g.name, t))
    best = 0
    for k, n in enumerate(steps):
        live = 0
        for t in start:
            if start[t] <= k <= end[t]:
                s = sizes[t]
                if s is None:
                    UNKNOWN.append(t)
                    return None
                live += s
        bodies = {a.name: a.g for a in n.attribute if a.type == onnx.AttributeProto.GRAPH}
        if bodies:
            pick = branch_of(g, n, shapes)
            peaks = {name: peak(b, shapes) for name, b in bodies.items()}
            if pick:
                extra = peaks[pick]
            else:
                extra = None if None in peaks.values() else max(peaks.values())
            if extra is None:
                return None
            outs = sum(sizes.get(x) or 0 for x in n.output)
            live += extra - outs if extra >= outs else extra
        best = max(best, live)
    return best


def outer_reads(b):
    made = {x for n in b.node for x in n.output} | {i.name for i in b.initializer} | {i.name for i in b.input}
    reads = []
    for n in b.node:
        reads += [x for x in n.input if x and x not in made]
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                reads += outer_reads(a.g)
    return reads


UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}


def eval_formula(text, values):
    """A formula as mem prints it ("292 KiB × batch_size + 24 B", "max(…)"),
    at values; returns (value, relative rounding of its coefficients)."""
    text = text.strip()
    if text.startswith("max(") and text.endswith(")"):
        parts, depth, cur = [], 0, ""
        for ch in text[4:-1]:
            depth += ch == "("
            depth -= ch == ")"
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
        return max(eval_formula(p, values) for p in parts)
    total, tol = 0.0, 0.0
    # terms: split on " + " and " - " outside parentheses
    terms, depth, cur, sign = [], 0, "", 1
    i = 0
    while i < len(text):
        ch = text[i]
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and text[i:i + 3] in (" + ", " - "):
            terms.append((sign, cur))
            sign = 1 if text[i + 1] == "+" else -1
            cur = ""
            i += 3
            continue
        cur += ch
        i += 1
    terms.append((sign, cur))
    for sign, term in terms:
        factors = [f.strip() for f in term.split("×")]
        num, unit = factors[0].split()
        if num.startswith("-"):
            sign, num = -sign, num[1:]
        c = float(num) * UNITS[unit]
        digits = len(num.split(".")[1]) if "." in num else 0
        rel = (0.5 * 10 ** -digits * UNITS[unit]) / c if unit != "B" else 0
        v = c
        for f in factors[1:]:
            v *= eval_dim(f, values)
        total += sign * v
        tol += abs(v) * rel
    return total, tol


def eval_dim(f, values):
    expr = f
    if re.search(r"[A-Za-z_]\w*\.\w", re.sub(r"(?<![\w.])(%s)(?![\w.])" % "|".join(map(re.escape, values)), "", f)):
        fail("a formula in a symbol no input carries: %s" % f)
    for name in sorted(values, key=len, reverse=True):
        expr = re.sub(r"(?<![\w.])" + re.escape(name) + r"(?![\w.])", "(%d)" % values[name], expr)
    expr = expr.replace("floor", "math.floor").replace("/", "//").replace("^", "**")
    return eval(expr, {"math": math})


def main():
    model = onnx.load(MODEL)
    syms = symbols(model)
    for sym in syms:
        VALUES.setdefault(sym, 2)
    checked = 0
    for r in range(len(syms) + 1):
        for subset in itertools.combinations(syms, r):
            binding = {s: VALUES[s] for s in subset}
            flags = sum((["--dim", "%s=%d" % kv] for kv in binding.items()), [])
            flags += sum((["--value", "%s=%d" % kv] for kv in SCALARS.items()), [])
            ours = json.loads(run("info", "--tensors", "--format", "json", MODEL, *flags))
            shapes = graph_shapes(bound_model(model, binding).graph, {})
            gname = {}
            for t in ours["tensors"]:
                want = shapes.get(t["graph_name"] if t["graph"] else model.graph.name, {})
                got = t.get("shape_at_bindings", t["shape"])
                if t["graph"] == 0 and t["name"] in want and got is not None and want[t["name"]][0] is not None:
                    w = want[t["name"]][0]
                    if len(w) != len(got):
                        fail("%s at %s: rank %d, onnx %d" % (t["name"], binding, len(got), len(w)))
                    for k, (a, b) in enumerate(zip(got, w)):
                        if isinstance(a, int) and b is not None and a != b:
                            fail("%s dim %d at %s: %s, onnx %s" % (t["name"], k, binding, a, b))
                        if b is not None and a is None and not isinstance(t["shape"][k], str):
                            fail("%s dim %d at %s: unknown, onnx %s" % (t["name"], k, binding, b))
                        if b is not None and a is None and t["shape"][k] in binding:
                            fail("%s dim %d at %s: bound symbol not a number" % (t["name"], k, binding))
                checked += 1
            text = run("info", MODEL, *flags)
            for s in subset:
                for line in text.split("\n\n")[1:3]:   # inputs, outputs
                    if re.search(r"(?<![\w.=])" + re.escape(s) + r"(?![\w.])", line.split("symbolic dims")[0]):
                        fail("info still shows bound %s in: %s" % (s, line.strip()))
            mem = json.loads(run("mem", "--format", "json", MODEL, *flags))["memory"]
            rest = [s for s in syms if s not in binding]
            if FULL_PEAK_ONLY and rest:
                continue
            samples = [dict(binding, **{s: VALUES[s] for s in rest}),
                       dict(binding, **{s: VALUES[s] + 7 for s in rest})] if rest else [binding]
            for full in samples:
                fl = sum((["--dim", "%s=%d" % kv] for kv in full.items()), [])
                fl += sum((["--value", "%s=%d" % kv] for kv in SCALARS.items()), [])
                FALLBACK.clear()
                for t in json.loads(run("info", "--tensors", "--format", "json", MODEL, *fl))["tensors"]:
                    FALLBACK[(t["graph_name"] if t["graph"] else model.graph.name, t["name"])] = t["bytes"]
                want = peak(bound_model(model, full).graph, graph_shapes(bound_model(model, full).graph, {}))
                if want is None:
                    fail("onnx leaves the size of %s unknown at %s" % (UNKNOWN[-1:], full))
                if mem["peak_before_bytes"] is not None:
                    if rest or abs(mem["peak_before_bytes"] - want) > 64:   # the shape vectors, as below
                        fail("peak at %s: %s, onnx's shapes give %d" % (binding, mem["peak_before_bytes"], want))
                    continue
                al = mem["peak_before_at_least"]
                f = mem["peak_before_formula"] or (al if al not in (None, "max_of") else None)
                terms = mem["peak_before_max_of"]
                if f is None and not terms and ALLOW_UNKNOWN and rest:
                    UNKNOWN_PEAKS.append(binding)
                    continue
                if f is None and not terms:
                    fail("peak at %s: no number, formula or max (%s)" % (binding, mem))
                vals = [eval_formula(x, full) for x in ([f] if f else terms)]
                got = max(v for v, _ in vals)
                # + the int64 shape vectors: activations while their input's
                # shape is symbolic, constants (Shape folded) once it is bound
                tol = max(t for _, t in vals) + 64
                lower = mem["peak_before_at_least"] is not None
                if (abs(got - want) > tol and not lower) or (lower and got > want + tol):
                    fail("peak at %s evaluated at %s: %s%.0f, onnx's shapes give %d" %
                         (binding, full, ">= " if lower else "", got, want))
    print("ok   %s: %d bindings of %s, %d tensor shapes%s" % (
        MODEL, 2 ** len(syms), ",".join(syms) or "-", checked,
        "; %d sizes onnx leaves unknown taken from fusiondbg" % len(BORROWED) if BORROWED else "") +
        ("; peak unknown at %d partial bindings" % len(UNKNOWN_PEAKS) if UNKNOWN_PEAKS else ""))


main()
