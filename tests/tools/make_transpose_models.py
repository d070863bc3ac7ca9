#!/usr/bin/python3
"""make_transpose_models.py — writes the small models that
tests/unit/test_transpose.c runs the transpose optimizer (src/transpose/)
on and that tests/peer compares with onnxruntime, into tests/data/transpose/.

  tpose_cancel_float   two Slices of x, each Transposed [0,1,3,2] and
                       Unsqueezed, a Concat, two Slices of it, each Transposed
                       [0,1,2,4,3]: every Transpose cancels (xfeat's pattern);
  tpose_cancel_qdq     the same quantized as a QDQ quantizer writes it (uint8,
                       one scale per tensor, equal values under other names):
                       the DQ -> Transpose -> Q units go with their Transposes;
  tpose_blocked        a Transpose, an Elu (no onnxruntime handler), its
                       inverse: nothing moves;
  tpose_not_modelled   a Transpose pushed through a Softmax to its inverse:
                       onnxruntime's HandleSoftHardMax, which fusiondbg does
                       not model, so the pass leaves it and says so;
  tpose_layernorm2d    ConvNeXt's LayerNorm2d as torch exports it below
                       opset 17: Transpose [0,2,3,1], LayerNorm decomposed
                       over the last axis (ReduceMean, Sub, Pow, Add, Sqrt,
                       Div, Mul and Add of per-channel constants), Transpose
                       back: both cancel (HandleReduceOps,
                       HandleSimpleNodeBroadcast), the reductions go to axis
                       1, the constants become 1xCx1x1;
  tpose_gather         a Transpose [1,0,2,3] read by a Gather of a scalar
                       index on axis 0 (HandleGather): the Gather reads axis
                       1 of x and what is left of the perm is the identity,
                       so the Transpose goes without a partner;
  tpose_shared_const   a Transpose pushed through a Mul of a constant that
                       another Mul reads too, to its inverse: onnxruntime
                       edits the constant in place and gives the other Mul a
                       Squeeze and a Transpose of it, new nodes fusiondbg
                       does not model, so the pass leaves it and says so;
  tpose_reduce_sum     a Transpose [0,2,3,1] read by a ReduceSum over the
                       last axis without keepdims, its axes an input (opset
                       13): the new axes constant is [1] and the perm left
                       once that axis is gone is the identity;
  tpose_moved          Swin's qkv pattern: a Transpose [1,2,0,3] read by two
                       Gathers of scalar indices; the push through one ends
                       in a Transpose [0,2,1], which takes the merged perm
                       [1,2,0], the other stops before an Elu, where a
                       Transpose [1,0,2] stays (TransposeOutputs);
  tpose_rotary         the LLaMA rotary pattern: a Transpose [0,2,1,3] read
                       by a Shape (HandleShape: a new Gather of the dims) and
                       by a Mul with a computed rank-2 tensor, which gets a
                       new Unsqueeze and Transpose, then merged into a
                       Transpose [0,1,3,2], which becomes [0,2,3,1];
  tpose_two_moved      a Transpose [1,2,0,3] of the input b read by two
                       Gathers, each before an Elu, so a Transpose stays
                       after each (TransposeOutputs), and each Gather makes a
                       new tensor named as onnxruntime's MoveOutput names it,
                       after the Gather: c_before_transpose, and b_token_N
                       (the input has b); the new Transposes are Transpose
                       and Transpose_token_N.

The expected outcome is written by hand in the C test, not taken from here.
Usage: make_transpose_models.py [OUTDIR]   (default tests/data/transpose)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "data", "transpose")


def ints(name, vals):
    return nh.from_array(np.array(vals, dtype=np.int64), name)


def save(name, nodes, inputs, outputs, inits):
    g = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)], producer_name="make_transpose_models.py")
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(OUT, name + ".onnx"))


class Builder:
    """Nodes of one graph; q() puts a QuantizeLinear -> DequantizeLinear pair
    after a tensor when the model is quantized."""

    def __init__(self, quantized):
        self.nodes, self.inits, self.quantized = [], [], quantized

    def const(self, name, vals):
        self.inits.append(ints(name, vals))
        return name

    def op(self, op, name, inputs, **attrs):
        self.nodes.append(h.make_node(op, inputs, [name + "_out"], name=name, **attrs))
        return self.q(name + "_out")

    def q(self, t):
        if not self.quantized:
            return t
        s, z = t + "_scale", t + "_zp"
        self.inits.append(nh.from_array(np.array(0.05, dtype=np.float32), s))
        self.inits.append(nh.from_array(np.array(128, dtype=np.uint8), z))
        self.nodes.append(h.make_node("QuantizeLinear", [t, s, z], [t + "_q"], name=t + "_Q"))
        self.nodes.append(h.make_node("DequantizeLinear", [t + "_q", s, z], [t + "_dq"], name=t + "_DQ"))
        return t + "_dq"


def cancel(quantized):
    b = Builder(quantized)
    x = b.q("x")
    ax3, ax2 = b.const("axes3", [3]), b.const("axes2", [2])
    s0, s3, s6 = b.const("s0", [0]), b.const("s3", [3]), b.const("s6", [6])
    s1, s2 = b.const("s1", [1]), b.const("s2", [2])
    ups = []
    for i, (lo, hi) in enumerate(((s0, s3), (s3, s6))):
        sl = b.op("Slice", "Slice_%d" % i, [x, lo, hi, ax3])
        tr = b.op("Transpose", "Transpose_%d" % i, [sl], perm=[0, 1, 3, 2])
        ups.append(b.op("Unsqueeze", "Unsqueeze_%d" % i, [tr, ax2]))
    cat = b.op("Concat", "Concat", ups, axis=2)
    outs = []
    for i, (lo, hi) in enumerate(((s0, s1), (s1, s2))):
        sl = b.op("Slice", "Slice_%d" % (i + 2), [cat, lo, hi, ax2])
        outs.append(b.op("Transpose", "Transpose_%d" % (i + 2), [sl], perm=[0, 1, 2, 4, 3]))
    b.nodes.append(h.make_node("Add", outs, ["y"], name="Add"))
    save("tpose_cancel_" + ("qdq" if quantized else "float"), b.nodes,
         [h.make_tensor_value_info("x", TP.FLOAT, [1, 4, 8, 6])],
         [h.make_tensor_value_info("y", TP.FLOAT, [1, 4, 1, 8, 3])], b.inits)


def blocked():
    nodes = [h.make_node("Transpose", ["x"], ["t"], name="Transpose_0", perm=[0, 2, 3, 1]),
             h.make_node("Elu", ["t"], ["e"], name="Elu"),
             h.make_node("Transpose", ["e"], ["u"], name="Transpose_1", perm=[0, 3, 1, 2]),
             h.make_node("Relu", ["u"], ["y"], name="Relu")]
    save("tpose_blocked", nodes, [h.make_tensor_value_info("x", TP.FLOAT, [1, 4, 8, 6])],
         [h.make_tensor_value_info("y", TP.FLOAT, [1, 4, 8, 6])], [])


def not_modelled():
    nodes = [h.make_node("Transpose", ["x"], ["t"], name="Transpose_0", perm=[0, 2, 3, 1]),
             h.make_node("Softmax", ["t"], ["e"], name="Softmax", axis=-1),
             h.make_node("Transpose", ["e"], ["u"], name="Transpose_1", perm=[0, 3, 1, 2]),
             h.make_node("Relu", ["u"], ["y"], name="Relu")]
    save("tpose_not_modelled", nodes, [h.make_tensor_value_info("x", TP.FLOAT, [1, 4, 8, 6])],
         [h.make_tensor_value_info("y", TP.FLOAT, [1, 4, 8, 6])], [])


def floats(name, vals):
    return nh.from_array(np.array(vals, dtype=np.float32), name)


def layernorm2d():
    c = 4
    nodes = [h.make_node("Transpose", ["x"], ["t"], name="Transpose_0", perm=[0, 2, 3, 1]),
             h.make_node("ReduceMean", ["t"], ["mean"], name="ReduceMean", axes=[-1]),
             h.make_node("Sub", ["t", "mean"], ["d"], name="Sub"),
             h.make_node("Pow", ["d", "two"], ["sq"], name="Pow"),
             h.make_node("ReduceMean", ["sq"], ["var"], name="ReduceMean_1", axes=[-1]),
             h.make_node("Add", ["var", "eps"], ["ve"], name="Add"),
             h.make_node("Sqrt", ["ve"], ["std"], name="Sqrt"),
             h.make_node("Div", ["d", "std"], ["n"], name="Div"),
             h.make_node("Mul", ["n", "gamma"], ["g"], name="Mul"),
             h.make_node("Add", ["g", "beta"], ["b"], name="Add_1"),
             h.make_node("Transpose", ["b"], ["u"], name="Transpose_1", perm=[0, 3, 1, 2]),
             h.make_node("Relu", ["u"], ["y"], name="Relu")]
    inits = [floats("two", 2.0), floats("eps", 1e-6), floats("gamma", np.linspace(0.5, 2.0, c)),
             floats("beta", np.linspace(-1.0, 1.0, c))]
    save("tpose_layernorm2d", nodes, [h.make_tensor_value_info("x", TP.FLOAT, [1, c, 6, 8])],
         [h.make_tensor_value_info("y", TP.FLOAT, [1, c, 6, 8])], inits)


def gather():
    nodes = [h.make_node("Transpose", ["x"], ["t"], name="Transpose_0", perm=[1, 0, 2, 3]),
             h.make_node("Gather", ["t", "index"], ["g"], name="Gather", axis=0),
             h.make_node("Relu", ["g"], ["y"], name="Relu")]
    save("tpose_gather", nodes, [h.make_tensor_value_info("x", TP.FLOAT, [2, 3, 4, 5])],
         [h.make_tensor_value_info("y", TP.FLOAT, [2, 4, 5])], [nh.from_array(np.array(1, dtype=np.int64), "index")])


def shared_const():
    nodes = [h.make_node("Transpose", ["x"], ["t"], name="Transpose_0", perm=[0, 2, 3, 1]),
             h.make_node("Mul", ["t", "w"], ["m"], name="Mul"),
             h.make_node("Transpose", ["m"], ["u"], name="Transpose_1", perm=[0, 3, 1, 2]),
             h.make_node("Relu", ["u"], ["y"], name="Relu"),
             h.make_node("Mul", ["z", "w"], ["y2"], name="Mul_1")]
    save("tpose_shared_const", nodes,
         [h.make_tensor_value_info("x", TP.FLOAT, [1, 4, 6, 8]), h.make_tensor_value_info("z", TP.FLOAT, [1, 6, 8, 4])],
         [h.make_tensor_value_info("y", TP.FLOAT, [1, 4, 6, 8]), h.make_tensor_value_info("y2", TP.FLOAT, [1, 6, 8, 4])],
         [floats("w", np.linspace(0.5, 2.0, 4))])


def reduce_sum():
    nodes = [h.make_node("Transpose", ["x"], ["t"], name="Transpose_0", perm=[0, 2, 3, 1]),
             h.make_node("ReduceSum", ["t", "axes"], ["r"], name="ReduceSum", keepdims=0),
             h.make_node("Relu", ["r"], ["y"], name="Relu")]
    save("tpose_reduce_sum", nodes, [h.make_tensor_value_info("x", TP.FLOAT, [1, 4, 6, 8])],
         [h.make_tensor_value_info("y", TP.FLOAT, [1, 6, 8])], [ints("axes", [-1])])


def moved():
    nodes = [h.make_node("Transpose", ["x"], ["t"], name="Transpose_0", perm=[1, 2, 0, 3]),
             h.make_node("Gather", ["t", "i0"], ["a"], name="Gather_a", axis=0),
             h.make_node("Transpose", ["a"], ["at"], name="Transpose_1", perm=[0, 2, 1]),
             h.make_node("Elu", ["at"], ["y"], name="Elu"),
             h.make_node("Gather", ["t", "i1"], ["b"], name="Gather_b", axis=0),
             h.make_node("Elu", ["b"], ["y2"], name="Elu_b")]
    save("tpose_moved", nodes, [h.make_tensor_value_info("x", TP.FLOAT, [2, 3, 4, 5])],
         [h.make_tensor_value_info("y", TP.FLOAT, [4, 5, 2]), h.make_tensor_value_info("y2", TP.FLOAT, [4, 2, 5])],
         [nh.from_array(np.array(0, dtype=np.int64), "i0"), nh.from_array(np.array(1, dtype=np.int64), "i1")])


def rotary():
    nodes = [h.make_node("Transpose", ["x"], ["t"], name="Transpose_0", perm=[0, 2, 1, 3]),
             h.make_node("Shape", ["t"], ["shape"], name="Shape"),
             h.make_node("Cos", ["c_in"], ["c"], name="Cos"),
             h.make_node("Mul", ["t", "c"], ["m"], name="Mul"),
             h.make_node("Transpose", ["m"], ["mt"], name="Transpose_1", perm=[0, 1, 3, 2]),
             h.make_node("Elu", ["mt"], ["y"], name="Elu")]
    save("tpose_rotary", nodes, [h.make_tensor_value_info("x", TP.FLOAT, [1, 4, 3, 8]),
                                 h.make_tensor_value_info("c_in", TP.FLOAT, [4, 8])],
         [h.make_tensor_value_info("y", TP.FLOAT, [1, 3, 8, 4]), h.make_tensor_value_info("shape", TP.INT64, [4])], [])


def two_moved():
    nodes = [h.make_node("Transpose", ["b"], ["t"], name="Transpose_0", perm=[1, 2, 0, 3])]
    for k, (name, out) in enumerate((("c_before_transpose", "b_x"), ("b", "c"))):
        nodes += [h.make_node("Gather", ["t", "i%d" % k], [out], name=name, axis=0),
                  h.make_node("Elu", [out], ["y%d" % k], name="Elu_%d" % k)]
    save("tpose_two_moved", nodes, [h.make_tensor_value_info("b", TP.FLOAT, [2, 4, 4, 5])],
         [h.make_tensor_value_info("y%d" % k, TP.FLOAT, [4, 2, 5]) for k in range(2)],
         [nh.from_array(np.array(k, dtype=np.int64), "i%d" % k) for k in range(2)])


def main():
    os.makedirs(OUT, exist_ok=True)
    cancel(False)
    cancel(True)
    blocked()
    not_modelled()
    layernorm2d()
    gather()
    shared_const()
    reduce_sum()
    moved()
    rotary()
    two_moved()


if __name__ == "__main__":
    main()
