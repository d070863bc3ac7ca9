#!/usr/bin/python3
"""onnx_counts.py MODEL... — node and tensor counts of ONNX models, computed
independently of fusiondbg with python3-onnx, for the loader tests.

Prints one JSON object per model, one per line:
  {"model": path, "nodes": N, "nodes_total": N, "graphs": G, "tensors": T,
   "op_histogram": {key: count}}

Definitions (the same as src/model_info.h):
- nodes: nodes of the main graph; nodes_total: of every graph, bodies of
  If / Loop / Scan (attributes of type GRAPH and GRAPHS, recursively) included.
- tensors: per graph, the distinct non-empty names among its inputs,
  initializers (dense and sparse) and node outputs; summed over every graph.
  Names a body only reads from an enclosing graph are not counted again.
- op_histogram over every graph; key "Conv" for the default domain
  ("" or "ai.onnx"), "com.microsoft.Attention" for any other.
"""
import json
import sys

import onnx


def graphs_of(graph):
    """The graph and every body below it, depth first."""
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH or attr.HasField("g"):
                yield from graphs_of(attr.g)
            for body in attr.graphs:
                yield from graphs_of(body)


def tensor_names(graph):
    names = {vi.name for vi in graph.input}
    names |= {t.name for t in graph.initializer}
    names |= {s.values.name for s in graph.sparse_initializer}
    for node in graph.node:
        names |= set(node.output)
    names.discard("")
    return len(names)


def op_key(node):
    if node.domain in ("", "ai.onnx"):
        return node.op_type
    return node.domain + "." + node.op_type


def counts(path):
    model = onnx.load(path, load_external_data=False)
    graphs = list(graphs_of(model.graph))
    hist = {}
    for g in graphs:
        for node in g.node:
            hist[op_key(node)] = hist.get(op_key(node), 0) + 1
    return {
        "model": path,
        "nodes": len(model.graph.node),
        "nodes_total": sum(len(g.node) for g in graphs),
        "graphs": len(graphs),
        "tensors": sum(tensor_names(g) for g in graphs),
        "op_histogram": hist,
    }


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    for path in argv[1:]:
        print(json.dumps(counts(path), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
