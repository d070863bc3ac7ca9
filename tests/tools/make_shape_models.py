#!/usr/bin/python3
"""make_shape_models.py — writes the small models that tests/unit/test_shape_infer.c
checks shape inference on, into tests/data/shapes/. Each model isolates one
rule (Conv padding, Pool ceil_mode, MatMul broadcasting, …); the expected
shapes are written by hand in the C test, not taken from this script.

Usage: make_shape_models.py [OUTDIR]   (default tests/data/shapes)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "data", "shapes")
BIG = 2**63 - 1


def vi(name, dims, dt=TP.FLOAT):
    return h.make_tensor_value_info(name, dt, dims)


def ints(name, vals):
    return nh.from_array(np.array(vals, dtype=np.int64), name)


def floats(name, vals):
    return nh.from_array(np.array(vals, dtype=np.float32), name)


def save(name, nodes, inputs, outputs, inits=(), opset=13, value_info=()):
    g = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits),
                     value_info=list(value_info))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)],
                     producer_name="make_shape_models.py")
    m.ir_version = 7
    # no checker: outputs are declared without a shape on purpose
    onnx.save(m, os.path.join(OUT, name + ".onnx"))


def conv():
    # weights from ConstantOfShape of a constant shape, as the light_* models do
    nodes = [
        h.make_node("ConstantOfShape", ["wshape"], ["w"],
                    value=nh.from_array(np.array([0.5], dtype=np.float32))),
        h.make_node("Conv", ["x", "w"], ["c1"], group=3, pads=[1, 2, 1, 2],
                    strides=[2, 2], dilations=[2, 2]),
        h.make_node("ConstantOfShape", ["wshape2"], ["w2"],
                    value=nh.from_array(np.array([0.5], dtype=np.float32))),
        h.make_node("Conv", ["c1", "w2"], ["c2"], auto_pad="SAME_UPPER", strides=[2, 2]),
        h.make_node("Conv", ["c2", "w3"], ["c3"], auto_pad="VALID", strides=[1, 1]),
        h.make_node("ConvTranspose", ["c3", "wt"], ["y"], strides=[2, 2], pads=[1, 1, 1, 1],
                    output_padding=[1, 1]),
    ]
    save("conv", nodes, [vi("x", [1, 3, 32, 32])], [vi("y", None)],
         [ints("wshape", [6, 1, 3, 3]), ints("wshape2", [8, 6, 3, 3]),
          floats("w3", np.zeros((4, 8, 3, 3))), floats("wt", np.zeros((4, 5, 3, 3)))])


def pool():
    nodes = [
        h.make_node("MaxPool", ["x"], ["p_floor"], kernel_shape=[3, 3], strides=[2, 2]),
        h.make_node("MaxPool", ["x"], ["p_ceil"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        # the last window would start in the end padding: dropped (ceil 4 -> 3)
        h.make_node("AveragePool", ["x6"], ["p_drop"], kernel_shape=[2, 2], strides=[2, 2],
                    pads=[0, 0, 1, 1], ceil_mode=1),
        h.make_node("MaxPool", ["x"], ["p_same"], kernel_shape=[3, 3], strides=[3, 3],
                    auto_pad="SAME_UPPER"),
        h.make_node("GlobalAveragePool", ["x"], ["y"]),
    ]
    save("pool", nodes, [vi("x", [1, 8, 10, 10]), vi("x6", [1, 2, 6, 6])], [vi("y", None)])


def matmul():
    nodes = [
        h.make_node("MatMul", ["a", "b"], ["batched"]),
        h.make_node("MatMul", ["v", "b"], ["vec_left"]),
        h.make_node("MatMul", ["a", "v"], ["vec_right"]),
        h.make_node("MatMul", ["v", "v"], ["dot"]),
        h.make_node("Gemm", ["g", "gw"], ["gemm"], transB=1),
        h.make_node("Add", ["batched", "bias"], ["y"]),
    ]
    save("matmul", nodes,
         [vi("a", [2, 1, 4, 5]), vi("b", [3, 5, 6]), vi("v", [5]), vi("g", [7, 5]),
          vi("gw", [9, 5]), vi("bias", [6])], [vi("y", None)])


def reshape():
    nodes = [
        h.make_node("Reshape", ["x", "s1"], ["r_zero_neg"]),
        h.make_node("Reshape", ["x", "s2"], ["r_neg"]),
        h.make_node("Reshape", ["x", "s3"], ["r_keep"]),
        h.make_node("Flatten", ["x"], ["flat"], axis=2),
        h.make_node("Transpose", ["x"], ["y"], perm=[2, 0, 1]),
    ]
    save("reshape", nodes, [vi("x", [2, 3, 4])], [vi("y", None)],
         [ints("s1", [0, -1]), ints("s2", [4, -1]), ints("s3", [0, 0, -1])])


def chain():
    # ultraface's way to a Reshape shape: Shape -> Gather -> Unsqueeze -> Concat
    nodes = [
        h.make_node("Shape", ["x"], ["shp"]),
        h.make_node("Gather", ["shp", "zero"], ["n"], axis=0),
        h.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
        h.make_node("Concat", ["n1", "minus1"], ["target"], axis=0),
        h.make_node("Reshape", ["x", "target"], ["flat"]),
        h.make_node("Cast", ["shp"], ["shp_f"], to=TP.FLOAT),
        h.make_node("Mul", ["shp_f", "two"], ["shp_2"]),
        h.make_node("Cast", ["shp_2"], ["sizes"], to=TP.INT64),
        h.make_node("Expand", ["one", "sizes"], ["y"]),
    ]
    save("chain", nodes, [vi("x", ["batch", 3, 8])], [vi("flat", None), vi("y", None)],
         [ints("zero", 0), ints("axes0", [0]), ints("minus1", [-1]),
          floats("two", [2.0]), floats("one", [1.0])])


def slices():
    nodes = [
        h.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["s_neg"]),
        h.make_node("Slice", ["x", "st2", "en2", "ax2", "sp2"], ["s_rev"]),
        h.make_node("Slice", ["x", "st3", "en3"], ["s_clamp"]),
        h.make_node("Split", ["x", "split"], ["sp_a", "sp_b"], axis=1),
        h.make_node("Split", ["x"], ["e0", "e1"], axis=0),
        h.make_node("Concat", ["sp_a", "sp_b", "sp_a"], ["y"], axis=-1),
    ]
    save("slice", nodes, [vi("x", [10, 20])], [vi("y", None)],
         [ints("st", [-3, 0]), ints("en", [BIG, -5]), ints("ax", [0, 1]), ints("sp", [1, 2]),
          ints("st2", [-1]), ints("en2", [-BIG]), ints("ax2", [0]), ints("sp2", [-1]),
          ints("st3", [2, -100]), ints("en3", [100, 3]), ints("split", [8, 12])])


def resize():
    nodes = [
        h.make_node("Resize", ["x", "", "scales"], ["by_scales"], mode="nearest"),
        h.make_node("Resize", ["x", "", "", "sizes"], ["by_sizes"], mode="linear"),
        h.make_node("Shape", ["x"], ["shp"]),
        h.make_node("Slice", ["shp", "zero", "two"], ["nc"]),
        h.make_node("Concat", ["nc", "hw"], ["sizes2"], axis=0),
        h.make_node("Resize", ["x", "", "", "sizes2"], ["y"], mode="nearest"),
    ]
    save("resize", nodes, [vi("x", [1, 3, 10, 20])], [vi("y", None)],
         [floats("scales", [1, 1, 2, 0.5]), ints("sizes", [1, 3, 7, 9]),
          ints("zero", [0]), ints("two", [2]), ints("hw", [40, 41])])


def huge():
    nodes = [h.make_node("Relu", ["x"], ["r"]), h.make_node("Reshape", ["r", "s"], ["y"])]
    save("huge", nodes, [vi("x", [2**40, 2**40, 16])], [vi("y", None)],
         [ints("s", [-1, 16])])


def symbolic():
    nodes = [
        h.make_node("MatMul", ["x", "w"], ["mm"]),
        h.make_node("Shape", ["mm"], ["shp"]),
        h.make_node("ReduceProd", ["shp"], ["numel"], keepdims=0),
        h.make_node("Unsqueeze", ["numel", "axes0"], ["numel1"]),
        h.make_node("Reshape", ["mm", "numel1"], ["y"]),
    ]
    save("symbolic", nodes, [vi("x", ["batch", "seq", 4])], [vi("y", None)],
         [floats("w", np.zeros((4, 6))), ints("axes0", [0])])


def misc():
    nodes = [
        h.make_node("Equal", ["shp", "shp"], ["eq"]),
        h.make_node("Where", ["eq", "shp", "minus"], ["wh"]),
        h.make_node("ConstantOfShape", ["wh"], ["cos"], value=nh.from_array(np.array([1], dtype=np.int64))),
        h.make_node("Range", ["zero_s", "five", "one_s"], ["rng"]),
        h.make_node("Squeeze", ["x", "axes0"], ["sq"]),
        h.make_node("ReduceMean", ["x"], ["rm"], axes=[-1], keepdims=1),
        h.make_node("ArgMax", ["x"], ["am"], axis=1, keepdims=0),
        h.make_node("TopK", ["x", "k"], ["tv", "ti"], axis=-1),
        h.make_node("Pad", ["x", "pads"], ["pd"]),
        h.make_node("Tile", ["x", "rep"], ["tl"]),
        h.make_node("LayerNormalization", ["x", "gamma"], ["ln", "ln_mean", "ln_istd"], axis=-1),
        h.make_node("Dropout", ["x"], ["dr", "mask"]),
        h.make_node("Einsum", ["x", "ew"], ["es"], equation="bij,jk->bik"),
        h.make_node("Reshape", ["xz", "s003"], ["rz_copy"]),
        h.make_node("Reshape", ["xz", "s003"], ["rz_zero"], allowzero=1),
        h.make_node("Gather", ["x", "idx"], ["y"], axis=2),
    ]
    save("misc", nodes, [vi("x", [1, 3, 5]), vi("xz", [2, 0, 3])], [vi("y", None)],
         [ints("shp", [2, 3]), ints("minus", [-1, -1]), ints("zero_s", 0), ints("five", 5),
          ints("one_s", 1), ints("axes0", [0]), ints("k", [2]), ints("pads", [0, 1, 2, 0, 3, 4]),
          ints("rep", [2, 1, 3]), floats("gamma", [1] * 5), floats("ew", np.zeros((5, 7))),
          ints("idx", [[0, 1], [2, 3]]), ints("s003", [0, 0, 3])], opset=17)


def loop_body():
    # v_out = v_in + x (x from the enclosing graph), cond passed through, a scan output per trip
    return h.make_graph([
        h.make_node("Add", ["v_in", "x"], ["v_out"]),
        h.make_node("Identity", ["cond_in"], ["cond_out"]),
        h.make_node("Relu", ["v_in"], ["scan_out"]),
    ], "body", [vi("iter", [], TP.INT64), vi("cond_in", [], TP.BOOL), vi("v_in", None)],
        [vi("cond_out", None, TP.BOOL), vi("v_out", None), vi("scan_out", None)])


def control():
    # bodies read x from the enclosing graph; their outputs have no shape
    then_g = h.make_graph([h.make_node("Relu", ["x"], ["t_out"])], "then", [],
                          [vi("t_out", None)])
    else_g = h.make_graph([h.make_node("Neg", ["x"], ["e_mid"]),
                           h.make_node("Identity", ["e_mid"], ["e_out"])], "else", [],
                          [vi("e_out", None)])
    loop_g = loop_body()
    scan_g = h.make_graph([
        h.make_node("Add", ["s_in", "x_t"], ["s_out"]),
        h.make_node("Mul", ["x_t", "x_t"], ["y_t"]),
    ], "scan_body", [vi("s_in", None), vi("x_t", None)], [vi("s_out", None), vi("y_t", None)])
    nodes = [
        h.make_node("If", ["cond"], ["if_out"], then_branch=then_g, else_branch=else_g),
        h.make_node("Loop", ["trips", "", "x"], ["loop_v", "loop_scan"], body=loop_g),
        h.make_node("Scan", ["s0", "x"], ["scan_s", "y"], body=scan_g, num_scan_inputs=1),
    ]
    save("control", nodes, [vi("x", [2, 3]), vi("cond", [], TP.BOOL)], [vi("y", None)],
         [ints("trips", 4), floats("s0", [0, 0, 0])])


def control_symbolic():
    # the same bodies over symbolic dims: a Loop carrying x[N, 8], a Scan over
    # seq[T, B, 8] with a MatMul inside, and an If whose branches run Conv1d
    # over a[batch, 4, length] with different strides (so the If's length
    # merges to a fresh symbol, its batch and channels stay)
    loop_g = loop_body()
    scan_g = h.make_graph([
        h.make_node("Add", ["s_in", "x_t"], ["s_out"]),
        h.make_node("MatMul", ["x_t", "w"], ["m_t"]),
        h.make_node("Tanh", ["m_t"], ["y_t"]),
    ], "scan_body", [vi("s_in", None), vi("x_t", None)], [vi("s_out", None), vi("y_t", None)])
    then_g = h.make_graph([h.make_node("Conv", ["a", "cw"], ["c_then"], pads=[1, 1]),
                           h.make_node("Relu", ["c_then"], ["r_then"])], "then", [], [vi("r_then", None)])
    else_g = h.make_graph([h.make_node("Conv", ["a", "cw"], ["c_else"], strides=[2]),
                           h.make_node("Sigmoid", ["c_else"], ["r_else"])], "else", [], [vi("r_else", None)])
    nodes = [
        h.make_node("Loop", ["trips", "", "x"], ["loop_v", "loop_scan"], body=loop_g),
        h.make_node("Relu", ["loop_v"], ["loop_relu"]),
        h.make_node("Scan", ["s0", "seq"], ["scan_s", "scan_y"], body=scan_g, num_scan_inputs=1),
        h.make_node("Relu", ["scan_y"], ["scan_relu"]),
        h.make_node("If", ["cond"], ["if_out"], then_branch=then_g, else_branch=else_g),
        h.make_node("Relu", ["if_out"], ["if_relu"]),
    ]
    save("control_symbolic", nodes,
         [vi("x", ["N", 8]), vi("s0", ["B", 8]), vi("seq", ["T", "B", 8]), vi("a", ["batch", 4, "length"]),
          vi("cond", [], TP.BOOL)],
         [vi("loop_relu", None), vi("loop_scan", None), vi("scan_s", None), vi("scan_relu", None),
          vi("if_relu", None)],
         [ints("trips", 5), floats("w", np.ones((8, 8))), floats("cw", np.ones((6, 4, 3)))], opset=17)


def declared():
    # value_info: r is declared wrong (kept, with a warning), s partly (filled in)
    nodes = [h.make_node("Relu", ["x"], ["r"]), h.make_node("Sigmoid", ["x"], ["s"]),
             h.make_node("Identity", ["s"], ["y"])]
    save("declared", nodes, [vi("x", [1, 3, 4])], [vi("y", None)],
         value_info=[vi("r", [1, 3, 5]), vi("s", [None, 3, None])])


def hostile():
    # attribute and constant values that once overflowed (found by mutation
    # fuzzing under UBSan): each must leave its output unknown, not wrap
    big = 2**63 - 1
    body = h.make_graph([h.make_node("Identity", ["s_in"], ["s_out"])], "b",
                        [vi("s_in", None)], [vi("s_out", None)])
    nodes = [
        h.make_node("Scan", ["x"], ["scan_y"], body=body, num_scan_inputs=-2**31),
        h.make_node("GatherND", ["x", "idx"], ["gnd"], batch_dims=big),
        h.make_node("Split", ["huge"], ["sp0", "sp1"], axis=0),
        h.make_node("Conv", ["x4", "w"], ["conv"], pads=[big, big, big, big], dilations=[big, big]),
        h.make_node("MaxPool", ["x4"], ["pool"], kernel_shape=[big, 2], strides=[1, big],
                    ceil_mode=1),
        h.make_node("Slice", ["x", "st", "en", "ax", "step"], ["sl"]),
        h.make_node("Transpose", ["x"], ["tr"], perm=[0, 0]),
        h.make_node("Pad", ["x", "pads"], ["pd"]),
        h.make_node("Range", ["r0", "r1", "r2"], ["rng"]),
        h.make_node("DepthToSpace", ["x4"], ["d2s"], blocksize=2**40),
        h.make_node("Identity", ["x"], ["y"]),
    ]
    save("hostile", nodes,
         [vi("x", [4, 5]), vi("idx", [2, 1], TP.INT64), vi("huge", [big]), vi("x4", [1, 2, 8, 8])],
         [vi("y", None)],
         [floats("w", np.zeros((3, 2, 3, 3))), ints("st", [big]), ints("en", [-big]),
          ints("ax", [0]), ints("step", [-2**63]), ints("pads", [big, 0, big, 0]),
          ints("r0", -big), ints("r1", big), ints("r2", 1)])


def unknown_sizes():
    # Conv -> BN -> Relu on an input declared without a shape: the rank comes
    # from the weight, the other dims are fresh symbols no binding reaches, so
    # every size is unknown (tests/tui/unknown.script, tests/cli/test_shapes.sh)
    c = 16
    nodes = [
        h.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        h.make_node("BatchNormalization", ["c", "s", "b", "mu", "var"], ["n"], name="bn", epsilon=1e-5),
        h.make_node("Relu", ["n"], ["y"], name="relu"),
    ]
    save("unknown_sizes", nodes, [vi("x", None)], [vi("y", None)],
         [floats("w", np.full((c, c, 3, 3), 0.01)), floats("s", np.ones(c)), floats("b", np.zeros(c)),
          floats("mu", np.zeros(c)), floats("var", np.ones(c))])


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for make in (conv, pool, matmul, reshape, chain, slices, resize, huge, symbolic, misc,
                 control, control_symbolic, declared, hostile, unknown_sizes):
        make()
