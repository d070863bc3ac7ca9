#!/usr/bin/python3
"""make_probes.py — one small model per condition an onnxruntime fusion
checks, for tests/peer: each probe either meets every condition of one
fusion or breaks exactly one (an operand at the other position, a shape
onnxruntime refuses, a graph output in the middle, a symbolic dim, a graph
input where a constant is wanted, …). peer.py runs onnxruntime and
rules/onnxruntime on every probe and compares, as on the real models.

usage: make_probes.py OUTDIR      writes OUTDIR/probe_NAME.onnx, deterministic
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quant_probes  # noqa: E402

F = np.float32
OUT = sys.argv[1] if len(sys.argv) > 1 else "probes"


def init(name, arr, dt=F):
    return nh.from_array(np.asarray(arr, dtype=dt), name)


def vi(name, shape, t=T.FLOAT):
    return h.make_tensor_value_info(name, t, shape)


def node(op, ins, outs, name, **attrs):
    return h.make_node(op, ins, outs if isinstance(outs, list) else [outs], name=name, **attrs)


PROBES = []


def probe(name, doc, nodes, inputs, outputs, inits, opset=17, ir=8):
    PROBES.append((name, doc, nodes, inputs, outputs, inits, opset, ir))


def y(t=T.FLOAT):
    return vi("y", None, t)


X = vi("x", [1, 8, 8, 8])
W = init("W", np.ones((8, 8, 3, 3)) * 0.01)


def conv(out="c", x="x", w="W", **attrs):
    return node("Conv", [x, w], out, "conv", pads=[1, 1, 1, 1], **attrs)


# ---- ConvAddFusion, ConvMulFusion: the constant's position and shape ---------
for op in ("Add", "Mul"):
    for tag, ins, shape in (("pos1_C11", ["c", "b"], (8, 1, 1)), ("pos0_C11", ["b", "c"], (8, 1, 1)),
                            ("pos1_1C11", ["c", "b"], (1, 8, 1, 1)), ("pos1_C", ["c", "b"], (8,)),
                            ("pos1_scalar", ["c", "b"], ()), ("pos1_1", ["c", "b"], (1,))):
        probe("conv_%s_%s" % (op.lower(), tag), "Conv -> %s(%s), b of shape %s" % (op, ", ".join(ins), shape),
              [conv(), node(op, ins, "y", op.lower())], [X], [y()], [W, init("b", np.full(shape, 0.5))])
BIAS = init("b", np.full((8, 1, 1), 0.5))
probe("conv_add_b_graph_input_ir8", "Add's b an initializer also listed as a graph input, IR 8",
      [conv(), node("Add", ["c", "b"], "y", "add")], [X, vi("b", [8, 1, 1])], [y()], [W, BIAS])
probe("conv_add_b_graph_input_ir3", "the same at IR 3, where every initializer is listed",
      [conv(), node("Add", ["c", "b"], "y", "add")], [X, vi("b", [8, 1, 1])], [y()], [W, BIAS], opset=9, ir=3)
probe("conv_add_b_constant_node", "Add's b from a Constant node",
      [conv(), node("Constant", [], "b", "cst", value=init("bv", np.full((8, 1, 1), 0.5))),
       node("Add", ["c", "b"], "y", "add")], [X], [y()], [W])
probe("conv_add_w_constantofshape", "the Conv's weight made by ConstantOfShape",
      [node("ConstantOfShape", ["Wshape"], "W", "cos", value=init("v", [0.01])), conv(),
       node("Add", ["c", "b"], "y", "add")], [X], [y()], [init("Wshape", [8, 8, 3, 3], np.int64), BIAS])
probe("conv_add_out_two_consumers", "Conv -> Add(c, b) read by a Relu and a Sigmoid",
      [conv(), node("Add", ["c", "b"], "a", "add"), node("Relu", ["a"], "y", "r1"), node("Sigmoid", ["a"], "y2", "r2")],
      [X], [y(), vi("y2", None)], [W, BIAS])
probe("conv_add_relu_residual", "Conv -> Add(c, x) -> Relu: a residual, not a constant",
      [conv(), node("Add", ["c", "x"], "a", "add"), node("Relu", ["a"], "y", "relu")], [X], [y()], [W])

# ---- ConvBNFusion ------------------------------------------------------------
BN = [init("s", np.ones(8)), init("bb", np.zeros(8)), init("mu", np.zeros(8)), init("var", np.ones(8))]


def bn(inp="c", out="y"):
    return node("BatchNormalization", [inp, "s", "bb", "mu", "var"], out, "bn")


probe("conv_bn", "Conv -> BatchNormalization", [conv(), bn()], [X], [y()], [W] + BN)
probe("conv_bn_scale_graph_input", "the BN scale also listed as a graph input, IR 8",
      [conv(), bn()], [X, vi("s", [8])], [y()], [W] + BN)
probe("conv_bn_conv_out_graph_output", "the Conv's output is also a graph output",
      [conv(), bn()], [X], [y(), vi("c", None)], [W] + BN)
probe("conv_bn_out_graph_output_used", "the BN's output is a graph output and feeds a Relu",
      [conv(), bn(out="z"), node("Relu", ["z"], "y", "relu")], [X], [y(), vi("z", None)], [W] + BN)
probe("conv_bn_two_consumers", "the Conv's output read by the BN and a Relu",
      [conv(), bn(out="z"), node("Relu", ["c"], "r", "relu")], [X], [vi("z", None), vi("r", None)], [W] + BN)
probe("conv_bn_grouped", "a depthwise Conv (group 8) -> BN",
      [node("Conv", ["x", "Wd"], "c", "conv", group=8, pads=[1, 1, 1, 1]), bn()], [X], [y()],
      [init("Wd", np.ones((8, 1, 3, 3)))] + BN)
probe("convtranspose_bn", "ConvTranspose -> BN (not folded)",
      [node("ConvTranspose", ["x", "W"], "c", "convt"), bn()], [X], [y()], [W] + BN)
probe("conv_bn_relu", "Conv -> BN -> Relu: two fusions in a row",
      [conv(), bn(out="z"), node("Relu", ["z"], "y", "relu")], [X], [y()], [W] + BN)

# ---- ConvActivationFusion: which activations, and the Conv's output ----------
for act, attrs in (("Relu", {}), ("Sigmoid", {}), ("Tanh", {}), ("LeakyRelu", {"alpha": 0.1}), ("HardSigmoid", {}),
                   ("Elu", {}), ("Selu", {}), ("Softplus", {}), ("ThresholdedRelu", {})):
    probe("conv_act_" + act, "Conv -> " + act, [conv(), node(act, ["c"], "y", "act", **attrs)], [X], [y()], [W])
probe("conv_act_clip_const", "Conv -> Clip(min, max initializers)",
      [conv(), node("Clip", ["c", "mn", "mx"], "y", "act")], [X], [y()], [W, init("mn", 0.0), init("mx", 6.0)])
probe("conv_act_clip_min_graph_input", "Conv -> Clip(min a graph input)",
      [conv(), node("Clip", ["c", "mn", "mx"], "y", "act")], [X, vi("mn", [])], [y()], [W, init("mx", 6.0)])
probe("conv_act_clip_no_minmax", "Conv -> Clip() without min and max",
      [conv(), node("Clip", ["c"], "y", "act")], [X], [y()], [W])
probe("conv_relu_conv_out_graph_output", "Conv -> Relu, the Conv's output also a graph output",
      [conv(), node("Relu", ["c"], "y", "act")], [X], [y(), vi("c", None)], [W])
probe("conv_relu_w_graph_input", "Conv -> Relu, the weight a graph input",
      [conv(), node("Relu", ["c"], "y", "act")], [X, vi("W", [8, 8, 3, 3])], [y()], [])

# ---- GemmActivationFusion ------------------------------------------------------
XG = vi("x", [4, 16])
GEMM = [init("G", np.ones((16, 8)) * 0.1), init("gb", np.zeros(8))]


def gemm():
    return node("Gemm", ["x", "G", "gb"], "g", "gemm")


for act, attrs in (("Relu", {}), ("Elu", {}), ("LeakyRelu", {"alpha": 0.1}), ("Softplus", {}), ("Tanh", {}),
                   ("HardSigmoid", {})):
    probe("gemm_act_" + act, "Gemm -> " + act, [gemm(), node(act, ["g"], "y", "act", **attrs)], [XG], [y()], GEMM)
probe("gemm_act_clip", "Gemm -> Clip(0, 6) (not fused)", [gemm(), node("Clip", ["g", "mn", "mx"], "y", "act")],
      [XG], [y()], GEMM + [init("mn", 0.0), init("mx", 6.0)])
probe("gemm_relu_gemm_out_graph_output", "Gemm -> Relu, the Gemm's output also a graph output",
      [gemm(), node("Relu", ["g"], "y", "act")], [XG], [y(), vi("g", None)], GEMM)

# ---- MatMulAddFusion -------------------------------------------------------------
M = [init("M", np.ones((16, 8)) * 0.1)]


def mm(a="x"):
    return node("MatMul", [a, "M"], "m", "mm")


for tag, shape, pos in (("N", (8,), 1), ("N_pos0", (8,), 0), ("1N", (1, 8), 1), ("MN", (4, 8), 1),
                        ("M1", (4, 1), 1), ("scalar", (), 1)):
    ins = ["m", "b"] if pos == 1 else ["b", "m"]
    probe("matmul_add_2d_bias_" + tag, "MatMul(x[4,16]) -> Add of b%s at input %d" % (shape, pos),
          [mm(), node("Add", ins, "y", "add")], [XG], [y()], M + [init("b", np.zeros(shape))])
probe("matmul_add_3d_static", "MatMul(x[2,4,16]) -> Add(b[8])", [mm(), node("Add", ["m", "b"], "y", "add")],
      [vi("x", [2, 4, 16])], [y()], M + [init("b", np.zeros(8))])
probe("matmul_add_3d_symbolic", "MatMul(x[batch,seq,16]) -> Add(b[8])", [mm(), node("Add", ["m", "b"], "y", "add")],
      [vi("x", ["batch", "seq", 16])], [y()], M + [init("b", np.zeros(8))])
probe("matmul_add_bias_graph_input", "MatMul -> Add(b a graph input [8])", [mm(), node("Add", ["m", "b"], "y", "add")],
      [XG, vi("b", [8])], [y()], M)
probe("matmul_add_mm_out_graph_output", "MatMul -> Add, the MatMul's output also a graph output",
      [mm(), node("Add", ["m", "b"], "y", "add")], [XG], [y(), vi("m", None)], M + [init("b", np.zeros(8))])
probe("matmul_add_int32", "MatMul -> Add in int32", [mm(), node("Add", ["m", "b"], "y", "add")],
      [vi("x", [4, 16], T.INT32)], [y(T.INT32)], [init("M", np.ones((16, 8)), np.int32), init("b", np.zeros(8), np.int32)])

# ---- GeluFusion, BiasGeluFusion, QuickGeluFusion ---------------------------------
XL = vi("x", [2, 4, 16])


def gelu(x, out, use_mul=False, c=None):
    nodes = [node("Mul" if use_mul else "Div", [x, "g_c"], "g_d", "g_div"), node("Erf", ["g_d"], "g_e", "g_erf"),
             node("Add", ["g_e", "g_one"], "g_a", "g_add"), node("Mul", [x, "g_a"], "g_m", "g_mul"),
             node("Mul", ["g_m", "g_half"], out, "g_half")]
    k = c if c is not None else (1 / np.sqrt(2) if use_mul else np.sqrt(2))
    return nodes, [init("g_c", k), init("g_one", 1.0), init("g_half", 0.5)]


n, i = gelu("x", "y")
probe("gelu_div", "Gelu, Div(x, sqrt 2) form", n, [XL], [y()], i)
n, i = gelu("x", "y", use_mul=True)
probe("gelu_mul_rsqrt2", "Gelu, Mul(x, 1/sqrt 2) form (onnxruntime 1.30 does not take it)", n, [XL], [y()], i)
n, i = gelu("x", "y", c=1.4)
probe("gelu_div_wrong_const", "Div(x, 1.4): not sqrt 2", n, [XL], [y()], i)
n, i = gelu("ab", "y")
probe("bias_gelu", "Add(x, bias[16]) -> Gelu", [node("Add", ["x", "bias"], "ab", "badd")] + n, [XL], [y()],
      i + [init("bias", np.zeros(16))])
probe("quick_gelu_silu", "x * Sigmoid(x)", [node("Sigmoid", ["x"], "s", "sig"), node("Mul", ["x", "s"], "y", "mul")],
      [XL], [y()], [])
probe("quick_gelu_swapped", "Sigmoid(x) * x", [node("Sigmoid", ["x"], "s", "sig"), node("Mul", ["s", "x"], "y", "mul")],
      [XL], [y()], [])
probe("quick_gelu_sigmoid_graph_output", "x * Sigmoid(x), the Sigmoid's output also a graph output",
      [node("Sigmoid", ["x"], "s", "sig"), node("Mul", ["x", "s"], "y", "mul")], [XL], [y(), vi("s", None)], [])
probe("quick_gelu_other_operand", "z * Sigmoid(x): another tensor",
      [node("Sigmoid", ["x"], "s", "sig"), node("Mul", ["z", "s"], "y", "mul")], [XL, vi("z", [2, 4, 16])], [y()], [])


# ---- FastGeluFusion ------------------------------------------------------------------
def fast_gelu(out, cube="Pow"):
    cube_nodes = ([node("Pow", ["x", "f_three"], "x3", "f_cube")] if cube == "Pow" else
                  [node("Mul", ["x", "x"], "x2", "f_sq"), node("Mul", ["x2", "x"], "x3", "f_cube")])
    return (cube_nodes + [node("Mul", ["x3", "f_k"], "kx3", "f_coef"), node("Add", ["x", "kx3"], "inner", "f_inner"),
             node("Mul", ["inner", "f_s"], "sc", "f_scale"), node("Tanh", ["sc"], "th", "f_tanh"),
             node("Add", ["th", "f_one"], "t1", "f_add1"), node("Mul", ["x", "f_half"], "hx", "f_halfx"),
             node("Mul", ["hx", "t1"], out, "f_mul")],
            [init("f_k", 0.044715), init("f_s", 0.7978845608), init("f_one", 1.0), init("f_half", 0.5)]
            + ([init("f_three", 3.0)] if cube == "Pow" else []))


n, i = fast_gelu("g")
probe("fast_gelu_inner", "the tanh form of Gelu, then a Relu", n + [node("Relu", ["g"], "y", "relu")], [XL], [y()], i)
n, i = fast_gelu("g", cube="Mul")
probe("fast_gelu_mul_cube", "the tanh form with x * x * x for the cube, then a Relu",
      n + [node("Relu", ["g"], "y", "relu")], [XL], [y()], i)
n, i = fast_gelu("y")
probe("fast_gelu_graph_output", "the tanh form of Gelu producing the graph output (not fused)", n, [XL], [y()], i)


# ---- LayerNormFusion, SimplifiedLayerNormFusion, SkipLayerNormFusion -----------------
def layer_norm(x, out, axes=(-1,), eps_input=False, affine=True, square="Pow"):
    nodes = [node("ReduceMean", [x], "mu", "rm1", axes=list(axes)), node("Sub", [x, "mu"], "d", "sub"),
             node("Pow", ["d", "two"], "p", "pow") if square == "Pow" else node("Mul", ["d", "d"], "p", "sq"),
             node("ReduceMean", ["p"], "v", "rm2", axes=list(axes)), node("Add", ["v", "eps"], "ve", "addeps"),
             node("Sqrt", ["ve"], "sd", "sqrt"), node("Div", ["d", "sd"], "n" if affine else out, "div")]
    inits = ([init("two", 2.0)] if square == "Pow" else []) + ([] if eps_input else [init("eps", 1e-5)])
    if affine:
        nodes += [node("Mul", ["n", "gam"], "ng", "mulg"), node("Add", ["ng", "bet"], out, "addb")]
        inits += [init("gam", np.ones(16)), init("bet", np.zeros(16))]
    return nodes, inits


n, i = layer_norm("x", "y")
probe("ln_last_axis", "decomposed LayerNorm over the last axis", n, [XL], [y()], i)
n, i = layer_norm("xt", "ln")
probe("ln_of_transpose", "Transpose(x, [0, 2, 3, 1]) -> decomposed LayerNorm -> MatMul: the TransposeOptimizer "
      "moves the Transpose past ReduceMean and Sub, SimplifiedLayerNormFusion takes the tail",
      [node("Transpose", ["x"], "xt", "tr", perm=[0, 2, 3, 1])] + n + [node("MatMul", ["ln", "wm"], "y", "mm")],
      [vi("x", [1, 16, 2, 4])], [y()], i + [init("wm", np.ones((16, 8)) * 0.1)], opset=13)
probe("ln_of_transpose_opset17", "the same at opset 17: LayerNormFusion runs at level 1, before the TransposeOptimizer",
      [node("Transpose", ["x"], "xt", "tr", perm=[0, 2, 3, 1])] + n + [node("MatMul", ["ln", "wm"], "y", "mm")],
      [vi("x", [1, 16, 2, 4])], [y()], i + [init("wm", np.ones((16, 8)) * 0.1)])
probe("hardswish_inlined", "Conv -> HardSwish at opset 14: no CPU kernel, onnxruntime inlines its function body "
      "(HardSigmoid, Mul), which is no fusion",
      [conv(), node("HardSwish", ["c"], "y", "hswish")], [X], [y()], [W], opset=14)
n, i = layer_norm("x", "y", axes=(-2,))
probe("ln_axis_m2", "decomposed LayerNorm over axis -2", n, [vi("x", [2, 16, 4])], [y()],
      i[:-2] + [init("gam", np.ones((16, 1))), init("bet", np.zeros((16, 1)))])
n, i = layer_norm("x", "y", axes=(1, 2))
probe("ln_axes_12", "decomposed LayerNorm over axes [1, 2]", n, [vi("x", [2, 4, 4])], [y()],
      i[:-2] + [init("gam", np.ones((4, 4))), init("bet", np.zeros((4, 4)))])
n, i = layer_norm("x", "y", eps_input=True)
probe("ln_eps_graph_input", "decomposed LayerNorm, epsilon a graph input", n, [XL, vi("eps", [])], [y()], i)
n, i = layer_norm("x", "y", affine=False)
probe("ln_no_affine", "decomposed LayerNorm without the scale Mul and bias Add", n, [XL], [y()], i)
n, i = layer_norm("x", "y", square="Mul")
probe("ln_mul_square", "decomposed LayerNorm with Mul(d, d) for the square", n, [XL], [y()], i)
probe("simplified_ln", "x / sqrt(mean(x^2) + eps) * gamma (RMSNorm)",
      [node("Pow", ["x", "two"], "p", "pow"), node("ReduceMean", ["p"], "v", "rm", axes=[-1]),
       node("Add", ["v", "eps"], "ve", "addeps"), node("Sqrt", ["ve"], "sd", "sqrt"), node("Div", ["x", "sd"], "n", "div"),
       node("Mul", ["n", "gam"], "y", "mulg")], [XL], [y()],
      [init("two", 2.0), init("eps", 1e-5), init("gam", np.ones(16))])
n, i = layer_norm("sx", "y")
probe("skip_ln_decomposed", "Add(x, r) -> decomposed LayerNorm, [2,4,16]", [node("Add", ["x", "r"], "sx", "skip")] + n,
      [XL, vi("r", [2, 4, 16])], [y()], i)
LN = [init("gam", np.ones(16)), init("bet", np.zeros(16))]
for tag, shape in (("", [2, 4, 16]), ("_symbolic", ["b", "s", 16]), ("_2d", [8, 16])):
    probe("skip_ln_onnx_ln" + tag, "Add(x, r) -> LayerNormalization, x and r %s" % shape,
          [node("Add", ["x", "r"], "sx", "skip"), node("LayerNormalization", ["sx", "gam", "bet"], "y", "ln", axis=-1,
                                                       epsilon=1e-5)],
          [vi("x", shape), vi("r", shape)], [y()], LN)

# ---- MatmulTransposeFusion, MatMulScaleFusion -----------------------------------------
XA = vi("a", [2, 4, 16])
probe("mm_transpose_b_last2", "MatMul(a, Transpose(b, perm [0,2,1]))",
      [node("Transpose", ["b"], "bt", "tr", perm=[0, 2, 1]), node("MatMul", ["a", "bt"], "y", "mm")],
      [XA, vi("b", [2, 8, 16])], [y()], [])
probe("mm_transpose_a_0213", "MatMul(Transpose(a, perm [0,2,1,3]), b)",
      [node("Transpose", ["a"], "at", "tr", perm=[0, 2, 1, 3]), node("MatMul", ["at", "b"], "y", "mm")],
      [vi("a", [1, 4, 2, 16]), vi("b", [1, 2, 16, 8])], [y()], [])
probe("mm_transpose_b_0231", "MatMul(q, Transpose(k, perm [0,2,3,1])): attention's K^T",
      [node("Transpose", ["b"], "bt", "tr", perm=[0, 2, 3, 1]), node("MatMul", ["a", "bt"], "y", "mm")],
      [vi("a", [1, 2, 4, 16]), vi("b", [1, 4, 2, 16])], [y()], [])
probe("mm_scale_after", "Mul(MatMul(a, b), 0.25)",
      [node("MatMul", ["a", "bb"], "m", "mm"), node("Mul", ["m", "sc"], "y", "scale")],
      [XA, vi("bb", [2, 16, 8])], [y()], [init("sc", 0.25)])
probe("mm_scale_div_before", "MatMul(Div(a, 4), b)",
      [node("Div", ["a", "sc"], "as", "scale"), node("MatMul", ["as", "bb"], "y", "mm")],
      [XA, vi("bb", [2, 16, 8])], [y()], [init("sc", 4.0)])
probe("mm_scale_tensor", "Mul(MatMul(a, b), c[8]): not a scalar",
      [node("MatMul", ["a", "bb"], "m", "mm"), node("Mul", ["m", "sc"], "y", "scale")],
      [XA, vi("bb", [2, 16, 8])], [y()], [init("sc", np.full(8, 0.25))])

# ---- PadFusion ------------------------------------------------------------------------
PADS = init("pads", [0, 0, 1, 1, 0, 0, 1, 1], np.int64)
probe("pad_conv_constant", "Pad(constant, pads an initializer) -> Conv",
      [node("Pad", ["x", "pads"], "p", "pad", mode="constant"), node("Conv", ["p", "W"], "y", "conv")], [X], [y()],
      [W, PADS])
probe("pad_conv_reflect", "Pad(reflect) -> Conv (not folded)",
      [node("Pad", ["x", "pads"], "p", "pad", mode="reflect"), node("Conv", ["p", "W"], "y", "conv")], [X], [y()],
      [W, PADS])
probe("pad_conv_channel_pads", "Pad of the channel axis -> Conv (not folded)",
      [node("Pad", ["x", "pads"], "p", "pad", mode="constant"),
       node("Conv", ["p", "W9"], "y", "conv")], [X], [y()],
      [init("W9", np.ones((8, 9, 3, 3)) * 0.01), init("pads", [0, 0, 0, 0, 0, 1, 0, 0], np.int64)])

for op, attrs in (("AveragePool", {"kernel_shape": [3, 3]}), ("MaxPool", {"kernel_shape": [3, 3]})):
    probe("pad_%s" % op.lower(), "Pad(constant) -> %s" % op,
          [node("Pad", ["x", "pads"], "p", "pad", mode="constant"), node(op, ["p"], "y", "pool", **attrs)], [X], [y()],
          [PADS])
probe("pad_maxpool_indices", "Pad(constant) -> MaxPool with its indices output (not folded)",
      [node("Pad", ["x", "pads"], "p", "pad", mode="constant"),
       node("MaxPool", ["p"], ["y", "idx"], "pool", kernel_shape=[3, 3])], [X], [y(), vi("idx", None, T.INT64)], [PADS])
probe("pad_conv_value_one", "Pad(constant, value 1) -> Conv (not folded)",
      [node("Pad", ["x", "pads", "pv"], "p", "pad", mode="constant"), node("Conv", ["p", "W"], "y", "conv")], [X], [y()],
      [W, PADS, init("pv", 1.0)])
probe("conv1d_add", "Conv1d -> Add(c, b[8, 1])",
      [node("Conv", ["x", "W1"], "c", "conv"), node("Add", ["c", "b"], "y", "add")], [vi("x", [1, 8, 16])], [y()],
      [init("W1", np.ones((8, 8, 3)) * 0.01), init("b", np.full((8, 1), 0.5))])
probe("conv1d_mul", "Conv1d -> Mul(c, s[8, 1])",
      [node("Conv", ["x", "W1"], "c", "conv"), node("Mul", ["c", "s"], "y", "mul")], [vi("x", [1, 8, 16])], [y()],
      [init("W1", np.ones((8, 8, 3)) * 0.01), init("s", np.full((8, 1), 0.5))])
# the constant's rank against the weight's: the per-channel dim is dim 0 at
# the weight's rank less one, dim 1 at the weight's rank (ConvAddFusion, ConvMulFusion)
for tag, shape, doc in (("1C1", (1, 8, 1), "the weight's rank less one with C at dim 1: not folded"),
                        ("C111", (8, 1, 1, 1), "the weight's rank with C at dim 0: not folded")):
    probe("conv2d_add_%s" % tag, "Conv2d -> Add(c, b%s) (%s)" % (list(shape), doc),
          [conv(), node("Add", ["c", "b"], "y", "add")], [X], [y()], [W, init("b", np.full(shape, 0.5))])
probe("conv2d_add_one_channel", "Conv2d of one output channel -> Add(c, b[1, 1, 1])",
      [conv(w="W1c"), node("Add", ["c", "b"], "y", "add")], [X], [y()],
      [init("W1c", np.ones((1, 8, 3, 3)) * 0.01), init("b", np.full((1, 1, 1), 0.5))])
for op in ("Add", "Mul"):
    probe("conv3d_%s" % op.lower(), "Conv3d -> %s(c, b[1, 8, 1, 1, 1])" % op,
          [node("Conv", ["x", "W3"], "c", "conv"), node(op, ["c", "b"], "y", op.lower())], [vi("x", [1, 8, 4, 4, 4])],
          [y()], [init("W3", np.ones((8, 8, 1, 1, 1)) * 0.01), init("b", np.full((1, 8, 1, 1, 1), 0.5))])
probe("conv_bn_training_outputs", "Conv -> BatchNormalization with its running mean and var outputs (training_mode 1, "
      "not folded)",
      [conv(), node("BatchNormalization", ["c", "s", "bb", "mu", "var"], ["y", "rm", "rv"], "bn", training_mode=1)],
      [X], [y(), vi("rm", [8]), vi("rv", [8])], [W] + BN, opset=15)
probe("quick_gelu_alpha", "x * Sigmoid(1.702 * x)",
      [node("Mul", ["x", "al"], "ax", "amul"), node("Sigmoid", ["ax"], "s", "sig"), node("Mul", ["x", "s"], "y", "mul")],
      [XL], [y()], [init("al", 1.702)])
probe("mm_scale_unknown_shape", "MatMul(Div(Reshape(a, Shape(a)), 4), b) at opset 11, where onnxruntime's inference "
      "has no shape for the Reshape",
      [node("Shape", ["a"], "s", "shp"), node("Reshape", ["a", "s"], "ar", "rs"), node("Div", ["ar", "sc"], "as", "scale"),
       node("MatMul", ["as", "bb"], "y", "mm")], [vi("a", ["b", 2, 4, 16]), vi("bb", [1, 2, 16, 8])], [y()],
      [init("sc", 4.0)], opset=11)
probe("mm_scale_one_inner", "Relu(Mul(MatMul(a, b), 1[1])): NoopElimination removes the Mul, nothing to fold",
      [node("MatMul", ["a", "bb"], "m", "mm"), node("Mul", ["m", "sc"], "ms", "scale"), node("Relu", ["ms"], "y", "relu")],
      [XA, vi("bb", [2, 16, 8])], [y()], [init("sc", [1.0])])
probe("mm_scale_one_before", "MatMul(Div(a, 1), b), a a graph input: NoopElimination keeps the Div (no node makes a), "
      "MatMulScaleFusion folds it",
      [node("Div", ["a", "sc"], "as", "scale"), node("MatMul", ["as", "bb"], "y", "mm")],
      [XA, vi("bb", [2, 16, 8])], [y()], [init("sc", 1.0)])
probe("mm_scale_one_before_inner", "MatMul(Div(Relu(a), 1), b): NoopElimination removes the Div",
      [node("Relu", ["a"], "ar", "relu"), node("Div", ["ar", "sc"], "as", "scale"), node("MatMul", ["as", "bb"], "y", "mm")],
      [XA, vi("bb", [2, 16, 8])], [y()], [init("sc", 1.0)])
probe("mm_scale_one", "Mul(MatMul(a, b), 1), a graph output: NoopElimination keeps it, MatMulScaleFusion folds it",
      [node("MatMul", ["a", "bb"], "m", "mm"), node("Mul", ["m", "sc"], "y", "scale")],
      [XA, vi("bb", [2, 16, 8])], [y()], [init("sc", 1.0)])
n, i = layer_norm("sx", "y")
probe("skip_ln_bias", "Add(Add(x, bias[16]), r) -> decomposed LayerNorm, [2,4,16]",
      [node("Add", ["x", "bias"], "xb", "biasadd"), node("Add", ["xb", "r"], "sx", "skip")] + n,
      [XL, vi("r", [2, 4, 16])], [y()], i + [init("bias", np.zeros(16))])
probe("simplified_ln_axis_m2", "RMSNorm over axis -2 (not fused)",
      [node("Pow", ["x", "two"], "p", "pow"), node("ReduceMean", ["p"], "v", "rm", axes=[-2]),
       node("Add", ["v", "eps"], "ve", "addeps"), node("Sqrt", ["ve"], "sd", "sqrt"), node("Div", ["x", "sd"], "n", "div"),
       node("Mul", ["n", "gam"], "y", "mulg")], [vi("x", [2, 16, 4])], [y()],
      [init("two", 2.0), init("eps", 1e-5), init("gam", np.ones((16, 1)))])

# ---- the level-1 rule-based rewrites -------------------------------------------------
XZ = [vi("x", [4, 8]), vi("z", [4, 8])]
for tag, k in (("", 1.0), ("_two", 2.0)):
    probe("div_mul" + tag, "Mul(z, Div(%g, x))" % k, [node("Div", ["k", "x"], "r", "div"), node("Mul", ["z", "r"], "y", "mul")],
          XZ, [y()], [init("k", k)])
for tag, mn in (("", 0.0), ("_negative_min", -1.0)):
    probe("relu_clip" + tag, "Relu -> Clip(min %g, max 6)" % mn,
          [node("Relu", ["x"], "r", "relu"), node("Clip", ["r", "mn", "mx"], "y", "clip")], [vi("x", [4, 8])], [y()],
          [init("mn", mn), init("mx", 6.0)])
probe("relu_clip_relu_graph_output", "Relu -> Clip, the Relu's output also a graph output",
      [node("Relu", ["x"], "r", "relu"), node("Clip", ["r", "mn", "mx"], "y", "clip")], [vi("x", [4, 8])],
      [y(), vi("r", None)], [init("mn", 0.0), init("mx", 6.0)])
GW = [init("W", np.ones((8, 3))), init("b", np.zeros(3))]
probe("gemm_transpose_a", "Gemm(Transpose(x), W, b)",
      [node("Transpose", ["x"], "xt", "tr", perm=[1, 0]), node("Gemm", ["xt", "W", "b"], "y", "gemm")],
      [vi("x", [8, 4])], [y()], GW)
probe("gemm_transpose_output", "Transpose(Gemm(x, W, b)) (not folded)",
      [node("Gemm", ["x", "W", "b"], "g", "gemm"), node("Transpose", ["g"], "y", "tr", perm=[1, 0])],
      [vi("x", [4, 8])], [y()], GW)
probe("gemm_sum", "Sum(Gemm(x, W), z)", [node("Gemm", ["x", "W"], "g", "gemm"), node("Sum", ["g", "z"], "y", "sum")],
      [vi("x", [4, 8]), vi("z", [4, 3])], [y()], GW[:1])
probe("gemm_with_c_sum", "Sum(Gemm(x, W, b), z): the Gemm has a C (not folded)",
      [node("Gemm", ["x", "W", "b"], "g", "gemm"), node("Sum", ["g", "z"], "y", "sum")],
      [vi("x", [4, 8]), vi("z", [4, 3])], [y()], GW)
probe("not_where", "Where(Not(c), x, z)", [node("Not", ["c"], "nc", "not"), node("Where", ["nc", "x", "z"], "y", "where")],
      [vi("c", [4, 8], T.BOOL)] + XZ, [y()], [])
probe("not_where_noop_cast", "Where(Cast(Not(c), to bool), x, z): CastElimination removes the Cast first",
      [node("Not", ["c"], "nc", "not"), node("Cast", ["nc"], "ncb", "cast", to=T.BOOL),
       node("Where", ["ncb", "x", "z"], "y", "where")],
      [vi("c", [4, 8], T.BOOL)] + XZ, [y()], [])
probe("not_where_two_consumers", "Where(Not(c), x, z), Not(c) also a graph output",
      [node("Not", ["c"], "nc", "not"), node("Where", ["nc", "x", "z"], "y", "where")],
      [vi("c", [4, 8], T.BOOL)] + XZ, [y(), vi("nc", None, T.BOOL)], [])
MBN = [init("s", np.ones(3)), init("bb", np.zeros(3)), init("mu", np.zeros(3)), init("var", np.ones(3))]
probe("matmul_bn", "MatMul(x, W) -> BatchNormalization",
      [node("MatMul", ["x", "W"], "m", "mm"), node("BatchNormalization", ["m", "s", "bb", "mu", "var"], "y", "bn")],
      [vi("x", [4, 8])], [y()], GW[:1] + MBN)
probe("matmul_bn_w_graph_input", "MatMul(x, W a graph input) -> BatchNormalization (not folded)",
      [node("MatMul", ["x", "W"], "m", "mm"), node("BatchNormalization", ["m", "s", "bb", "mu", "var"], "y", "bn")],
      [vi("x", [4, 8]), vi("W", [8, 3])], [y()], MBN)

# ---- QDQ: what onnxruntime's QDQ selectors check -----------------------------------------
QI = [init("s", 0.05), init("z", 128, np.uint8), init("s2", 0.1)]
QD = [node("QuantizeLinear", ["x", "s", "z"], "q", "q"), node("DequantizeLinear", ["q", "s", "z"], "dq", "dq")]
QO = [node("QuantizeLinear", ["r", "s", "z"], "qo", "qo"), node("DequantizeLinear", ["qo", "s", "z"], "y", "dqo")]
probe("qdq_resize_nearest", "DQ -> Resize (nearest) -> Q: the pair dropped",
      QD + [node("Resize", ["dq", "", "sc"], "r", "resize", mode="nearest")] + QO, [X], [y()],
      QI + [init("sc", [1, 1, 2, 2])])
probe("qdq_resize_linear", "DQ -> Resize (linear) -> Q: the pair kept",
      QD + [node("Resize", ["dq", "", "sc"], "r", "resize", mode="linear")] + QO, [X], [y()],
      QI + [init("sc", [1, 1, 2, 2])])
probe("qdq_reshape_other_scale", "DQ -> Reshape -> Q of another scale: the pair kept",
      QD + [node("Reshape", ["dq", "shp"], "r", "reshape"),
            node("QuantizeLinear", ["r", "s2", "z"], "qo", "qo"), node("DequantizeLinear", ["qo", "s2", "z"], "y", "dqo")],
      [X], [y()], QI + [init("shp", [1, 512], np.int64)])
S8 = [init("s", 0.05), init("z8", 0, np.int8), init("Wq", np.ones((8, 8, 3, 3)), np.int8), init("ws", 0.01)]
S8_CONV = [node("QuantizeLinear", ["x", "s", "z8"], "q", "q"), node("DequantizeLinear", ["q", "s", "z8"], "dq", "dq"),
           node("DequantizeLinear", ["Wq", "ws"], "w", "dqw"), node("Conv", ["dq", "w"], "c", "conv", pads=[1, 1, 1, 1]),
           node("QuantizeLinear", ["c", "s", "z8"], "qc", "qc"), node("DequantizeLinear", ["qc", "s", "z8"], "y", "dqc")]
probe("qdq_s8_conv", "int8 DQ(x), DQ(W) -> Conv -> Q: the pairs turned uint8, a QLinearConv", S8_CONV, [X], [y()], S8)
probe("qdq_s8_conv_dq_read_twice", "int8 DQ(x) read by the Conv and a Relu: x stays int8, the Conv float",
      S8_CONV + [node("Relu", ["dq"], "r2", "relu")], [X], [y(), vi("r2", None)], S8)

RQ = [node("Relu", ["x"], "r", "relu"), node("QuantizeLinear", ["r", "s", "zq"], "q", "q"),
      node("DequantizeLinear", ["q", "s", "zq"], "y", "dq")]
probe("qdq_relu_q_s8_min", "Relu -> Q of int8 zero point -128 (the type's minimum): the Relu goes",
      RQ, [X], [y()], [init("s", 0.05), init("zq", -128, np.int8)])
probe("qdq_relu_q_s8_zero", "Relu -> Q of int8 zero point 0: the Relu stays",
      RQ, [X], [y()], [init("s", 0.05), init("zq", 0, np.int8)])
# ClipQuantFusion: the Clip goes when the Q's range (scale * (qmin - zp), scale * (qmax - zp), in
# float; its input made by a node (graph_utils::RemoveNode: one input edge, or a single input)
CQ = [node("Sigmoid", ["x"], "sg", "sigmoid"), node("Clip", ["sg", "lo", "hi"], "r", "clip"),
      node("QuantizeLinear", ["r", "s", "zq"], "q", "q"), node("DequantizeLinear", ["q", "s", "zq"], "y", "dq")]
probe("qdq_clip_q_covers", "Clip(0, 6) -> Q uint8 of scale 6/255: the Q holds [0, 6], the Clip goes",
      CQ, [X], [y()], [init("lo", 0.0), init("hi", 6.0), init("s", np.float32(6) / np.float32(255)),
                       init("zq", 0, np.uint8)])
probe("qdq_clip_q_narrower", "Clip(0, 6) -> Q uint8 of scale 0.032: the Q holds up to 8.16, the Clip stays",
      CQ, [X], [y()], [init("lo", 0.0), init("hi", 6.0), init("s", 0.032), init("zq", 0, np.uint8)])
probe("qdq_clip_q_float_product", "Clip(0, 4) -> Q uint8 of scale 4/255: 255 * scale is 4 in float, "
      "4.0000002 in double: the Clip goes",
      CQ, [X], [y()], [init("lo", 0.0), init("hi", 4.0), init("s", np.float32(4) / np.float32(255)),
                       init("zq", 0, np.uint8)])
probe("qdq_clip_q_min_above", "Clip(0.5, 6) -> Q uint8 of scale 6/255: the Clip cuts above the Q's 0 and stays",
      CQ, [X], [y()], [init("lo", 0.5), init("hi", 6.0), init("s", np.float32(6) / np.float32(255)),
                       init("zq", 0, np.uint8)])
probe("qdq_clip_q_graph_input", "Clip(0, 6) of a graph input -> Q uint8 of scale 6/255: no input edge and "
      "three inputs, RemoveNode cannot: the Clip stays",
      CQ[1:], [vi("sg", [1, 8, 8, 8])], [y()], [init("lo", 0.0), init("hi", 6.0),
                                               init("s", np.float32(6) / np.float32(255)), init("zq", 0, np.uint8)])
probe("qdq_clip_q_s8", "Clip(0, 6) -> Q int8 of zero point -128, scale 6/255: the Clip goes",
      CQ, [X], [y()], [init("lo", 0.0), init("hi", 6.0), init("s", np.float32(6) / np.float32(255)),
                       init("zq", -128, np.int8)])
# QLinearWhere: an attention mask's Where of a DQ and a float scalar constant, which WhereDummyDq
# gives a DQ of its own when the constant has rank 0 (dim_size 0), not one of shape [1]
WQ = QD + [node("Where", ["c", "k", "dq"], "r", "where")] + QO
probe("qdq_where_const", "Where(c, -inf, DQ(x)) -> Q: WhereDummyDq's DQ for the scalar, a QLinearWhere",
      WQ, [vi("c", [1, 8, 8, 8], T.BOOL), X], [y()], QI + [init("k", -np.inf)])
probe("qdq_where_const_1", "Where(c, -inf of shape [1], DQ(x)) -> Q: no dummy DQ, the Where stays float",
      WQ, [vi("c", [1, 8, 8, 8], T.BOOL), X], [y()], QI + [init("k", [-np.inf])])
probe("qdq_where_two_dq", "Where(c, DQ(x), DQ(x2)) -> Q: a QLinearWhere of both DQs",
      QD + [node("QuantizeLinear", ["x2", "s", "z"], "q2", "q2"), node("DequantizeLinear", ["q2", "s", "z"], "dq2", "dq2"),
            node("Where", ["c", "dq", "dq2"], "r", "where")] + QO,
      [vi("c", [1, 8, 8, 8], T.BOOL), X, vi("x2", [1, 8, 8, 8])], [y()], QI)
S8W = [node("QuantizeLinear", ["x", "s", "z8"], "q", "q"), node("DequantizeLinear", ["q", "s", "z8"], "dq", "dq"),
       node("Relu", ["dq"], "r2", "relu"), node("Where", ["c", "k", "dq"], "r", "where"),
       node("QuantizeLinear", ["r", "s", "z8"], "qo", "qo"), node("DequantizeLinear", ["qo", "s", "z8"], "d", "dqo"),
       node("Sigmoid", ["d"], "y", "sigmoid")]
probe("qdq_where_const_s8_mixed", "int8 Where(c, -inf, DQ(x)) -> Q, x's DQ also read by a Relu: WhereDummyDq's DQ "
      "is int8, x stays int8, the Q's pair turns uint8: the Where stays float beside its dummy DQ",
      S8W, [vi("c", [1, 8, 8, 8], T.BOOL), X], [y(), vi("r2", None)], S8[:2] + [init("k", -np.inf)])

# ---- GatherSliceToSplitFusion: the Slices and Gathers of one tensor covering an axis ------
def slices(*ranges):
    """Relu(x) read by a Slice of axis 1 per (start, end[, step]), or a Gather per index."""
    nodes, inits, outs = [node("Relu", ["x"], "r", "relu")], [init("ax", [1], np.int64)], []
    for k, rg in enumerate(ranges):
        name, out = "s%d" % k, "y%d" % k
        if isinstance(rg, int):
            inits.append(init(name + "_i", rg, np.int64))
            nodes.append(node("Gather", ["r", name + "_i"], out, name, axis=1))
        else:
            inits += [init(name + "_b", [rg[0]], np.int64), init(name + "_e", [rg[1]], np.int64)]
            ins = ["r", name + "_b", name + "_e", "ax"]
            if len(rg) > 2:
                inits.append(init(name + "_st", [rg[2]], np.int64))
                ins.append(name + "_st")
            nodes.append(node("Slice", ins, out, name))
        outs.append(vi(out, None))
    return nodes, [X], outs, inits


probe("split_slices_cover", "three Slices of one tensor covering axis 1", *slices((0, 2), (2, 5), (5, 8)))
probe("split_slices_gather", "two Slices and a Gather covering axis 1", *slices((0, 3), 3, (4, 8)))
probe("split_slices_gap", "two Slices leaving index 4 of axis 1", *slices((0, 4), (5, 8)))
probe("split_slices_overlap", "two Slices both taking index 3 of axis 1", *slices((0, 4), (3, 8)))
probe("split_slices_step2", "a Slice of step 2 and one of step 1", *slices((0, 8, 2), (1, 8)))
probe("split_slice_single", "one Slice of the whole axis", *slices((0, 8)))

# ---- nothing to fuse: eliminations only -------------------------------------------------
probe("dropout_inner", "Relu -> Dropout -> Relu",
      [node("Relu", ["x"], "r", "relu"), node("Dropout", ["r"], "d", "drop"), node("Relu", ["d"], "y", "relu2")],
      [XL], [y()], [])
probe("cse_two_relu", "two equal Relu(x) into an Add",
      [node("Relu", ["x"], "r1", "relu1"), node("Relu", ["x"], "r2", "relu2"), node("Add", ["r1", "r2"], "y", "add")],
      [XL], [y()], [])

# ---- CommonSubexpressionElimination before the fusions (src/cse) ---------------------------
def twin_gathers(alpha_b=0.01, a_is_output=False):
    """Two LeakyRelu(x) read by a Gather each, of indices 0 and 1 of axis 1 (of size 2): merged,
    the one tensor's Gathers cover the axis (one Split). onnxruntime's topological order puts act_b
    first, so act_a is the one merged away."""
    outs = [vi("y0", None), vi("y1", None)] + ([vi("ra", None)] if a_is_output else [])
    return ([node("LeakyRelu", ["x"], "ra", "act_a", alpha=0.01), node("LeakyRelu", ["x"], "rb", "act_b", alpha=alpha_b),
             node("Gather", ["ra", "i0"], "y0", "gather_0", axis=1), node("Gather", ["rb", "i1"], "y1", "gather_1", axis=1)],
            [vi("x", [1, 2, 8])], outs, [init("i0", 0, np.int64), init("i1", 1, np.int64)])


probe("cse_gathers_split", "two equal LeakyRelu(x), merged: their Gathers cover axis 1", *twin_gathers())
probe("cse_gathers_alpha", "LeakyRelu(x) of alpha 0.01 and 0.02: attributes differ, nothing merged",
      *twin_gathers(alpha_b=0.02))
probe("cse_gathers_graph_output", "two equal LeakyRelu(x), the one merged away a graph output: not merged",
      *twin_gathers(a_is_output=True))

# ---- the quantized flows' causes (quant_probes.py) ----------------------------------------
quant_probes.add(probe, node, init, vi, y, layer_norm)


# ---- transformer spellings of today's exporters (torch_families.py) -------------------
def fast_gelu_factored(out, tail="half_first"):
    """BLOOM's bloom_gelu_forward: x*0.5*(1+tanh(0.79788456*x*(1+0.044715*x*x))), no cube."""
    nodes = [node("Mul", ["x", "f_k"], "kx", "f_coef"), node("Mul", ["kx", "x"], "kxx", "f_sq"),
             node("Add", ["kxx", "f_one"], "p1", "f_poly"), node("Mul", ["x", "f_s"], "sx", "f_sx"),
             node("Mul", ["sx", "p1"], "sc", "f_scale"), node("Tanh", ["sc"], "th", "f_tanh"),
             node("Add", ["th", "f_one"], "t1", "f_add1")]
    if tail == "half_first":   # (x * 0.5) * (1 + tanh): the order CheckFirstFormula's caller reads
        nodes += [node("Mul", ["x", "f_half"], "hx", "f_halfx"), node("Mul", ["hx", "t1"], out, "f_mul")]
    else:                      # (x * (1 + tanh)) * 0.5
        nodes += [node("Mul", ["x", "t1"], "xt", "f_xt"), node("Mul", ["xt", "f_half"], out, "f_mul")]
    return nodes, [init("f_k", 0.044715), init("f_s", 0.79788456), init("f_one", 1.0), init("f_half", 0.5)]


n, i = fast_gelu_factored("g")
probe("fast_gelu_factored", "BLOOM's tanh Gelu, x*0.5*(1+tanh(0.79788456*x*(1+0.044715*x*x))), then a Relu",
      n + [node("Relu", ["g"], "y", "relu")], [XL], [y()], i)
n, i = fast_gelu_factored("g", tail="x_first")
probe("fast_gelu_factored_x_first", "BLOOM's tanh Gelu with x*(1+tanh) first, then 0.5, then a Relu",
      n + [node("Relu", ["g"], "y", "relu")], [XL], [y()], i)


def rms_norm_casts(out):
    """HF's RMSNorm: Cast(x, float32), x * (1 / sqrt(mean(x^2) + eps)), Cast back, * weight."""
    return ([node("Cast", ["x"], "xf", "cast_in", to=T.FLOAT), node("Pow", ["xf", "two"], "p", "pow"),
             node("ReduceMean", ["p"], "v", "rm", axes=[-1]), node("Add", ["v", "eps"], "ve", "addeps"),
             node("Sqrt", ["ve"], "sd", "sqrt"), node("Div", ["one", "sd"], "r", "recip"),
             node("Mul", ["xf", "r"], "n", "mul"), node("Cast", ["n"], "nc", "cast_out", to=T.FLOAT),
             node("Mul", ["gam", "nc"], out, "mulg")],
            [init("two", 2.0), init("eps", 1e-6), init("one", 1.0), init("gam", np.ones(16))])


n, i = rms_norm_casts("y")
probe("simplified_ln_noop_casts", "HF's RMSNorm on float32: its .to(float32) and .to(dtype) Casts are no-ops "
      "CastElimination removes, then DivMulFusion, then SimplifiedLayerNormFusion", n, [XL], [y()], i)
n, i = rms_norm_casts("y")
probe("simplified_ln_cast_graph_output", "the same with the second Cast's output also a graph output: "
      "CastElimination cannot remove it (CanRemoveNode), so it stays between the Div and the Mul",
      n, [XL], [y(), vi("nc", None)], i)


n, i = layer_norm("xt", "ln")
probe("ln_of_transpose_kept", "Transpose(x, [0, 2, 1, 3]) (the last axis stays) read by a decomposed LayerNorm "
      "and by a MatMul, which has no transpose handler: at opset 13 the TransposeOptimizer leaves the Transpose "
      "(as MaxViT's partition swap) and LayerNormFusion takes the whole form after it",
      [node("Transpose", ["x"], "xt", "tr", perm=[0, 2, 1, 3])] + n
      + [node("MatMul", ["xt", "wm"], "mm", "mm"), node("Add", ["ln", "mm"], "y", "join")],
      [vi("x", [1, 4, 2, 16])], [y()], i + [init("wm", np.ones((16, 16)) * 0.1)], opset=13)

# PadFusion finds the pads' mirrors at pads.size() / 2, not at the rank, so
# it decides when shape inference does not know the Pad input's rank (a
# Reshape to a shape of unknown length, as MaxViT's at opset 13)
for tag, pads in (("", [0, 0, 1, 1, 0, 0, 1, 1]), ("_channel_pads", [0, 1, 0, 0, 0, 0, 0, 0])):
    probe("pad_avgpool_unknown_rank" + tag, "Reshape(x, s), s of unknown length -> Pad(constant, pads %s) -> "
          "AveragePool" % pads,
          [node("Reshape", ["x", "s"], "xr", "reshape"), node("Pad", ["xr", "pads"], "p", "pad", mode="constant"),
           node("AveragePool", ["p"], "y", "pool", kernel_shape=[3, 3])],
          [X, vi("s", ["n"], T.INT64)], [y()], [init("pads", pads, np.int64)])


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, doc, nodes, inputs, outputs, inits, opset, ir in PROBES:
        g = h.make_graph(nodes, name, inputs, outputs, inits, doc_string=doc)
        m = h.make_model(g, producer_name="fusiondbg-probes", opset_imports=[h.make_opsetid("", opset)])
        m.ir_version = ir

        with open(os.path.join(OUT, "probe_%s.onnx" % name), "wb") as f:
            f.write(m.SerializeToString())
    print("%d probes in %s" % (len(PROBES), OUT))


if __name__ == "__main__":
    main()
