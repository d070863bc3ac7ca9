#!/usr/bin/python3
"""make_dense_model.py BLOCKS LAYERS OUT.onnx — a graph shaped like a DenseNet:
BLOCKS dense blocks of LAYERS layers, each layer a Concat of every earlier
output of its block and a Relu; each block ends in the Concat of them all.
Few nodes, but edges that span many ranks: what makes dot's layout slow
(tests/cli/test_export.sh, src/export/export_budget.c)."""
import sys

from onnx import TensorProto, helper


def dense(blocks, layers):
    nodes, prev = [], "x"
    for b in range(blocks):
        feats = [prev]
        for i in range(layers):
            cat, relu = f"b{b}l{i}_cat", f"b{b}l{i}"
            nodes.append(helper.make_node("Concat", list(feats), [cat], name=cat, axis=1))
            nodes.append(helper.make_node("Relu", [cat], [relu], name=relu))
            feats.append(relu)
        prev = f"b{b}_out"
        nodes.append(helper.make_node("Concat", list(feats), [prev], name=prev, axis=1))
    graph = helper.make_graph(nodes, "dense", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


if __name__ == "__main__":
    with open(sys.argv[3], "wb") as f:
        f.write(dense(int(sys.argv[1]), int(sys.argv[2])).SerializeToString())
