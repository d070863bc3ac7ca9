#!/usr/bin/python3
"""make_cann_probes.py [OUTDIR] — one small model per graph pass of
rules/cann (graph_fusion.yaml, graph_shape_fusion.yaml), each holding the
case the pass fuses and, side by side in the same graph, one case refused
for each condition its rule states (the node names say which: ok_*, or
the condition). tests/cli/test_cann_rules.sh runs `why` on each. Needs
python3-onnx only; weights are zeros (only shapes and a few values
matter), so the files stay small."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
F = TensorProto.FLOAT


class Graph:
    """A graph under construction: inputs, initializers, nodes, outputs."""

    def __init__(self, name):
        self.name, self.nodes, self.inits, self.inputs, self.outputs = name, [], [], [], []

    def input(self, name, shape, dtype=F):
        self.inputs.append(helper.make_tensor_value_info(name, dtype, shape))
        return name

    def const(self, name, value, dtype=np.float32):
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def node(self, op, name, inputs, n_out=1, **attrs):
        outs = [name + ("_out" if n_out == 1 else "_out%d" % k) for k in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if n_out == 1 else outs

    def output(self, name):
        self.outputs.append(helper.make_tensor_value_info(name, F, None))

    def save(self, opset=17):
        g = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_cann_probes")
        m.ir_version = 8
        onnx.checker.check_model(m, full_check=False) if all(o.type.tensor_type.HasField('shape') for o in g.output) else None
        onnx.save(m, os.path.join(OUT, "probe_%s.onnx" % self.name))


def conv(g, name, x, cin, cout, k=1, pads=0, group=1):
    w = g.const(name + "_w", np.zeros((cout, cin // group, k, k)))
    return g.node("Conv", name, [x, w], kernel_shape=[k, k], pads=[pads] * 4, group=group)


def bn(g, name, x, c, variable_input=None, n_out=1):
    ins = [x] + [g.const("%s_%s" % (name, p), np.ones(c)) for p in ("scale", "bias", "mean", "var")]
    if variable_input:
        ins[1] = variable_input
    return g.node("BatchNormalization", name, ins, n_out=n_out)


def conv_batchnorm():
    g = Graph("conv_batchnorm")
    x = g.input("x", [1, 8, 8, 8])
    g.output(g.node("Relu", "ok_relu", [bn(g, "ok_bn", conv(g, "ok_conv", x, 8, 8), 8)]))
    # :157 the Conv has a second reader: SUCCESS, nothing fused
    c = conv(g, "two_readers_conv", x, 8, 8)
    g.output(bn(g, "two_readers_bn", c, 8))
    g.output(g.node("Relu", "two_readers_relu", [c]))
    # :149 the BatchNorm declares its training outputs
    g.output(bn(g, "multi_output_bn", conv(g, "multi_output_conv", x, 8, 8), 8, n_out=3)[0])
    # :154, :168 its scale is no constant
    s = g.input("scale", [8])
    g.output(bn(g, "variable_scale_bn", conv(g, "variable_scale_conv", x, 8, 8), 8, variable_input=s))
    g.save()


def conv_to_fullyconnection():
    g = Graph("conv_to_fullyconnection")
    x = g.input("x", [1, 4, 4, 4])
    g.output(conv(g, "ok_conv", x, 4, 4, k=4))               # the kernel covers x
    g.output(conv(g, "kernel_smaller_conv", x, 4, 4, k=1))   # :252
    g.output(conv(g, "padded_conv", x, 4, 4, k=4, pads=1))   # :264
    g.output(conv(g, "grouped_conv", x, 4, 4, k=4, group=2)) # :258
    c = conv(g, "two_readers_conv", x, 4, 4, k=4)            # :231
    g.output(g.node("Relu", "reader1", [c]))
    g.output(g.node("Relu", "reader2", [c]))
    d = g.input("d", [1, 4, "h", "w"])                        # :230
    g.output(conv(g, "dynamic_conv", d, 4, 4, k=4))
    g.save()


def matmul_biasadd():
    g = Graph("matmul_biasadd")
    x = g.input("x", [4, 8])
    w = g.const("w", np.zeros((8, 16)))
    g.output(g.node("Add", "ok_add", [g.node("MatMul", "ok_matmul", [x, w]), g.const("ok_b", np.zeros(16))]))
    m = g.node("MatMul", "two_readers_matmul", [x, w])        # :202
    g.output(g.node("Add", "two_readers_add", [m, g.const("b2", np.zeros(16))]))
    g.output(g.node("Relu", "two_readers_relu", [m]))
    b = g.input("b", [16])                                    # :125 the bias a constant
    g.output(g.node("Add", "variable_bias_add", [g.node("MatMul", "variable_bias_matmul", [x, w]), b]))
    g.output(g.node("Add", "wide_bias_add", [g.node("MatMul", "wide_bias_matmul", [x, w]),
                                             g.const("b4", np.zeros((4, 16)))]))   # :155 length N
    g.save()


def batch_matmul():
    g = Graph("batch_matmul")
    a = g.input("a", [2, 8, 4])
    b = g.input("b", [2, 8, 6])
    g.output(g.node("MatMul", "ok_matmul", [g.node("Transpose", "ok_transpose", [a], perm=[0, 2, 1]), b]))
    t = g.node("Transpose", "batch_moved_transpose", [g.input("a2", [8, 2, 4])], perm=[1, 2, 0])   # :218
    g.output(g.node("MatMul", "batch_moved_matmul", [t, b]))
    t = g.node("Transpose", "two_readers_transpose", [a], perm=[0, 2, 1])   # :162
    g.output(g.node("MatMul", "two_readers_matmul", [t, b]))
    g.output(g.node("Relu", "two_readers_relu", [t]))
    ai = g.input("ai", [2, 8, 4], TensorProto.INT32)          # :113
    bi = g.input("bi", [2, 8, 6], TensorProto.INT32)
    g.outputs.append(helper.make_tensor_value_info(
        g.node("MatMul", "int_matmul", [g.node("Transpose", "int_transpose", [ai], perm=[0, 2, 1]), bi]),
        TensorProto.INT32, None))
    g.save()


def batchnorm_bninfer():
    g = Graph("batchnorm_bninfer")
    x = g.input("x", [1, 8, 4, 4])
    g.output(bn(g, "ok_bn", x, 8))
    g.output(bn(g, "multi_output_bn", x, 8, n_out=3)[0])      # :103
    g.save()


def avgpool_v2():
    g = Graph("avgpool_v2")
    x = g.input("x", [1, 8, 128, 128])
    g.output(g.node("AveragePool", "ok_pool", [x], kernel_shape=[2, 2], strides=[2, 2]))
    g.output(g.node("AveragePool", "stride64_pool", [x], kernel_shape=[64, 64], strides=[64, 64]))   # :730
    g.save()


def const_to_attr():
    g = Graph("const_to_attr")
    x = g.input("x", [1, 3, 8, 8])
    g.output(g.node("Transpose", "ok_transpose", [x], perm=[0, 2, 3, 1]))
    g.output(g.node("Slice", "ok_slice", [x, g.const("st", [0], np.int64), g.const("en", [4], np.int64),
                                          g.const("ax", [2], np.int64)]))
    e = g.input("end", [1], TensorProto.INT64)                # constant begin/end/axes/strides
    g.output(g.node("Slice", "variable_end_slice", [x, g.const("st2", [0], np.int64), e,
                                                    g.const("ax2", [2], np.int64)]))
    g.save()


def splitv():
    g = Graph("splitv")
    x = g.input("x", [1, 12, 4])
    for o in g.node("Split", "ok_split", [x, g.const("sizes", [4, 8], np.int64)], n_out=2, axis=1):
        g.output(o)
    s = g.input("s", [2], TensorProto.INT64)                  # :112 size_splits constant
    for o in g.node("Split", "variable_sizes_split", [x, s], n_out=2, axis=1):
        g.output(o)
    w = g.input("w", [1, 64, 4])                              # ZSplitVD :74-76: 64 outputs are split
    for o in g.node("Split", "wide_split", [w, g.const("ones", [1] * 64, np.int64)], n_out=64, axis=1):
        g.output(o)
    g.save()


def conv_concat():
    g = Graph("conv_concat")
    x = g.input("x", [1, 8, 4, 4])
    a, b = conv(g, "ok_conv1", x, 8, 16), conv(g, "ok_conv2", x, 8, 16)
    g.output(g.node("Concat", "ok_concat", [a, b], axis=1))
    a, b = conv(g, "batch_conv1", x, 8, 16), conv(g, "batch_conv2", x, 8, 16)
    g.output(g.node("Concat", "batch_concat", [a, b], axis=0))   # concat on C
    m = g.node("Mul", "silu_mul", [conv(g, "silu_conv", x, 8, 16), g.const("half", 0.5)])
    g.output(g.node("Concat", "from_mul_concat", [m, conv(g, "after_mul_conv", x, 8, 16)], axis=1))   # :433
    a, b = conv(g, "c8_conv1", x, 8, 8), conv(g, "c8_conv2", x, 8, 8)
    g.output(g.node("Concat", "c8_concat", [a, b], axis=1))   # C % 16
    g.save()


def realdiv_pow():
    g = Graph("realdiv_pow")
    x = g.input("x", [1, 8])
    g.output(g.node("Div", "ok_div", [x, g.const("two", 2.0)]))
    g.output(g.node("Div", "variable_div", [x, g.input("y", [1])]))            # :67
    g.output(g.node("Div", "by_zero_div", [x, g.const("zero", 0.0)]))          # :90
    g.output(g.node("Div", "vector_div", [x, g.const("v", np.ones(8))]))       # :77 one element
    g.output(g.node("Pow", "ok_pow", [x, g.const("p2", 2.0)]))
    g.output(g.node("Pow", "cube_pow", [x, g.const("p3", 3.0)]))               # :88-98
    g.save()


if __name__ == "__main__":
    for make in (conv_batchnorm, conv_to_fullyconnection, matmul_biasadd, batch_matmul, batchnorm_bninfer,
                 avgpool_v2, const_to_attr, splitv, conv_concat, realdiv_pow):
        make()
