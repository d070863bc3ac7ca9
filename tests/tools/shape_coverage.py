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
the same information as ours. A dim with neither is unknown.

Usage: shape_coverage.py MODEL.onnx [...]  prints "known total path" per model.
"""
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


def main(argv):
    status = 0
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
