#!/usr/bin/env python3
"""gen_model.py NODES OUT.onnx — the bench's second synthetic model, made with
python3-onnx's helper API and composed unlike gen_model.c's: the names a
PyTorch export writes (/model/layer.3/conv1/Conv, .../Conv_output_0), every
attribute an exporter writes spelled out (Conv's dilations, group, pads and
strides, BatchNormalization's epsilon and momentum, Constant nodes for the
small values), weights inline (no external data), and Reshapes whose shape is
built from Shape -> Gather -> Unsqueeze -> Concat, as exporters build them
for a dynamic batch. Blocks repeat until the node count is reached:

  layer: Conv-BN-Relu, Conv-BN-LeakyRelu, x * HardSigmoid(x) (hard-swish), + residual
  every 4th layer also a head: the shape-built Reshape to [N, C, H*W], Softmax
  over the last axis, and a Reshape back through Shape of the input.

Deterministic: the same NODES give the same bytes."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

C, HW = 4, 8                      # channels and spatial side: small weights, many nodes


class Builder:
    def __init__(self):
        self.nodes, self.inits = [], []

    def node(self, scope, op, inputs, attrs=None, outputs=1, suffix=""):
        name = f"{scope}/{op}{suffix}"
        outs = [f"{name}_output_{k}" for k in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **(attrs or {})))
        return outs[0] if outputs == 1 else outs

    def weight(self, name, shape, seed):
        values = (np.arange(int(np.prod(shape)), dtype=np.float32) % 7 + seed % 5) / 8.0
        self.inits.append(numpy_helper.from_array(values.reshape(shape), name))
        return name

    def constant(self, scope, values, suffix=""):
        t = numpy_helper.from_array(np.array(values, dtype=np.int64), f"{scope}/Constant{suffix}_value")
        return self.node(scope, "Constant", [], {"value": t}, suffix=suffix)

    def conv_bn(self, scope, x, kernel, seed):
        w = self.weight(f"{scope}.conv.weight", [C, C, kernel, kernel], seed)
        pad = kernel // 2
        y = self.node(f"{scope}/conv", "Conv", [x, w], {
            "dilations": [1, 1], "group": 1, "kernel_shape": [kernel, kernel],
            "pads": [pad, pad, pad, pad], "strides": [1, 1]})
        bn = [self.weight(f"{scope}.bn.{p}", [C], seed + k) for k, p in
              enumerate(("weight", "bias", "running_mean", "running_var"))]
        return self.node(f"{scope}/bn", "BatchNormalization", [y] + bn,
                         {"epsilon": 1e-5, "momentum": 0.9})

    def layer(self, i, x):
        s = f"/model/layer.{i}"
        y = self.conv_bn(f"{s}/block1", x, 3, i)
        y = self.node(f"{s}/act1", "Relu", [y])
        y = self.conv_bn(f"{s}/block2", y, 1, i + 1)
        y = self.node(f"{s}/act2", "LeakyRelu", [y], {"alpha": 0.01})
        h = self.node(f"{s}/act2", "HardSigmoid", [y], {"alpha": 1 / 6, "beta": 0.5})
        y = self.node(f"{s}/act2", "Mul", [y, h])
        return self.node(s, "Add", [x, y])

    def head(self, i, x):
        s = f"/model/head.{i}"
        shape = self.node(s, "Shape", [x], {"start": 0})
        batch = self.node(s, "Gather", [shape, self.constant(s, 0)], {"axis": 0})
        batch = self.node(s, "Unsqueeze", [batch, self.constant(s, [0], "_1")])
        rest = self.constant(s, [C, HW * HW], "_2")
        target = self.node(s, "Concat", [batch, rest], {"axis": 0})
        y = self.node(s, "Reshape", [x, target], {"allowzero": 0})
        y = self.node(s, "Softmax", [y], {"axis": -1})
        back = self.node(s, "Shape", [x], {"start": 0}, suffix="_1")
        return self.node(s, "Reshape", [y, back], {"allowzero": 0}, suffix="_1")


def build(n_nodes):
    b = Builder()
    x = "input"
    i = 0
    while len(b.nodes) < n_nodes:
        x = b.layer(i, x)
        if i % 4 == 3:
            x = b.head(i, x)
        i += 1
    graph = helper.make_graph(
        b.nodes, "main_graph",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", C, HW, HW])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", C, HW, HW])],
        b.inits)
    return helper.make_model(graph, producer_name="pytorch", producer_version="2.1.0",
                             opset_imports=[helper.make_opsetid("", 15)])


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen_model.py NODES OUT.onnx")
    model = build(int(sys.argv[1]))
    onnx.save(model, sys.argv[2])
    print(f"{sys.argv[2]}: {len(model.graph.node)} nodes, {len(model.graph.initializer)} initializers")


if __name__ == "__main__":
    main()
