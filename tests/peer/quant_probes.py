"""quant_probes.py — make_probes.py's probes for what onnxruntime does to the
quantized graphs torch's flows write (tests/peer/torch_quant_exports.py):
each meets or breaks one condition, as make_probes.py's do.

  a DequantizeLinear of constants stays a node (ConstantFolding's
  skip_dequantize_linear): ConvBN refuses a fake-quant or int8 weight;
  EnsureUniqueDQForNodeUnit gives each reader of a DQ its own copy before
  any fusion: x * Sigmoid(x) and the Erf form of Gelu of a DQ's x refuse;
  QDQPropagationTransformer copies a DQ's pair after a MaxPool (Reshape,
  Transpose, ...): an Add of it and another DQ becomes a QLinearAdd;
  and a Q's pair before a Reshape whose input is no DQ's: the drop runs
  it on 8-bit data, unless its output is read elsewhere too;
  a Linear's weight on a 3-D input, DQ(Q(W)) -> Transpose -> MatMul: the
  Transpose folds into the weight (FixQDQNodeUnits, ConstantFolding) and
  MatMulAddFusion's Reshapes take in the DQ before the Gemm;
  a QLinearAdd of scales of shape [1] fails onnxruntime's type inference:
  the model is refused.

add(probe, node, init, vi, y, layer_norm) adds them through make_probes.py's helpers.
"""
import numpy as np


def add(probe, node, init, vi, y, layer_norm):
    x = vi("x", [1, 8, 8, 8])
    bn = [init("s", np.ones(8)), init("bb", np.zeros(8)), init("mu", np.zeros(8)), init("var", np.ones(8))]
    qw = [init("ws", 0.01), init("wz", 0, np.int8)]

    def conv_bn(w):
        return [node("Conv", ["x", w], "c", "conv", pads=[1, 1, 1, 1]),
                node("BatchNormalization", ["c", "s", "bb", "mu", "var"], "y", "bn")]

    # ---- ConstantFolding keeps a DequantizeLinear of constants ----------------
    probe("conv_bn_w_fake_quant", "DQ(Q(W)) -> Conv -> BatchNormalization: the Q folds, the DQ stays, no "
          "initializer weight",
          [node("QuantizeLinear", ["W", "ws", "wz"], "wq", "qw"), node("DequantizeLinear", ["wq", "ws", "wz"], "w", "dqw")]
          + conv_bn("w"), [x], [y()], [init("W", np.full((8, 8, 3, 3), 0.01))] + qw + bn)
    probe("conv_bn_w_dq_int8", "DQ(int8 W) -> Conv -> BatchNormalization: the DQ stays",
          [node("DequantizeLinear", ["Wq", "ws", "wz"], "w", "dqw")] + conv_bn("w"), [x], [y()],
          [init("Wq", np.ones((8, 8, 3, 3)), np.int8)] + qw + bn)
    probe("conv_bn_w_transpose", "Transpose(W) -> Conv -> BatchNormalization: the Transpose folds",
          [node("Transpose", ["Wt"], "w", "tw", perm=[1, 0, 2, 3])] + conv_bn("w"), [x], [y()],
          [init("Wt", np.full((8, 8, 3, 3), 0.01))] + bn)

    # ---- EnsureUniqueDQForNodeUnit: one DQ per reader ------------------------
    xs = [init("xs", 0.05), init("xz", 128, np.uint8)]
    dq_x = [node("QuantizeLinear", ["x", "xs", "xz"], "xq", "qx"), node("DequantizeLinear", ["xq", "xs", "xz"], "d", "dqx")]
    probe("quick_gelu_dq_x", "DQ(x) -> x * Sigmoid(x): the Sigmoid and the Mul read copies of the DQ",
          dq_x + [node("Sigmoid", ["d"], "sg", "sigmoid"), node("Mul", ["d", "sg"], "y", "mul")], [x], [y()], xs)
    probe("quick_gelu_dq_x_relu", "DQ(x) -> Relu -> x * Sigmoid(x): the Relu's output is read twice, as one",
          dq_x + [node("Relu", ["d"], "r", "relu"), node("Sigmoid", ["r"], "sg", "sigmoid"),
                  node("Mul", ["r", "sg"], "y", "mul")], [x], [y()], xs)
    probe("gelu_dq_x", "DQ(x) -> the Erf form of Gelu: the Div and the Mul read copies of the DQ",
          dq_x + [node("Div", ["d", "sq2"], "dv", "div"), node("Erf", ["dv"], "e", "erf"),
                  node("Add", ["e", "one"], "a", "add"), node("Mul", ["d", "a"], "m", "mul"),
                  node("Mul", ["m", "half"], "y", "mul_half")], [x], [y()],
          xs + [init("sq2", np.sqrt(2.0)), init("one", 1.0), init("half", 0.5)])

    ln, li = layer_norm("dl", "y")
    probe("ln_dq_x", "DQ(x) -> decomposed LayerNorm: the ReduceMean and the Sub read copies of the DQ",
          [dq_x[0], node("DequantizeLinear", ["xq", "xs", "xz"], "dl", "dqx")] + ln, [vi("x", [2, 4, 16])], [y()],
          xs + li)

    # ---- QDQPropagationTransformer: a DQ's pair copied after a MaxPool -------
    x2 = vi("x2", [1, 8, 4, 4])

    def qdq_add(shape, *head):
        sc = [init("as", np.full(shape, 0.05)), init("az", np.full(shape, 128), np.uint8)]
        q = lambda i, o, n: node("QuantizeLinear", [i, "as", "az"], o, n)
        dq = lambda i, o, n: node("DequantizeLinear", [i, "as", "az"], o, n)
        nodes = [q("x", "xq", "qx"), dq("xq", "d", "dqx"), q("x2", "x2q", "qx2"), dq("x2q", "d2", "dqx2")]
        nodes += list(head) + [node("Add", ["d2", "m"], "a", "add"), q("a", "aq", "qa"), dq("aq", "y", "dqa")]
        return nodes, sc

    nodes, sc = qdq_add((), node("MaxPool", ["d"], "m", "maxpool", kernel_shape=[2, 2], strides=[2, 2]))
    probe("qdq_add_maxpool", "Add(DQ(x2), MaxPool(DQ(x))) -> Q: the DQ's pair copied after the MaxPool, a "
          "QLinearAdd", nodes, [x, x2], [y()], sc)
    nodes, sc = qdq_add((), node("AveragePool", ["d"], "m", "avgpool", kernel_shape=[2, 2], strides=[2, 2]))
    probe("qdq_add_avgpool", "Add(DQ(x2), AveragePool(DQ(x))) -> Q: no copy after an AveragePool, the Add "
          "stays float", nodes, [x, x2], [y()], sc)

    # ---- a QLinearAdd of scales of shape [1]: onnxruntime refuses the model --
    nodes, sc = qdq_add((1,), node("MaxPool", ["d"], "m", "maxpool", kernel_shape=[2, 2], strides=[2, 2]))
    probe("qdq_add_scale_1", "the same with every scale and zero point of shape [1]: fused, then refused",
          nodes, [x, x2], [y()], sc)

    # ---- QGemm of a float output: a float bias keeps it float ----------------
    xg = vi("x", [1, 16])
    for tag, bias in (("float_bias", True), ("no_bias", False)):
        gi = [init("gs", 0.05), init("gz", 128, np.uint8), init("Wg", np.ones((10, 16)), np.int8),
              init("wgs", 0.01), init("wgz", 0, np.int8)] + ([init("gb", np.zeros(10))] if bias else [])
        probe("qgemm_float_out_" + tag, "DQ(x), DQ(W) -> Gemm%s, no Q after it" % (" + float bias" if bias else ""),
              [node("QuantizeLinear", ["x", "gs", "gz"], "xq", "qx"), node("DequantizeLinear", ["xq", "gs", "gz"], "d", "dqx"),
               node("DequantizeLinear", ["Wg", "wgs", "wgz"], "w", "dqw"),
               node("Gemm", ["d", "w"] + (["gb"] if bias else []), "y", "gemm", transB=1)], [xg], [y()], gi)

    # ---- a Linear on a 3-D input under QDQ: the weight's Transpose folds ------
    # (FixQDQNodeUnits' TryFixTransposeMissingQ, then ConstantFolding of
    # DQ -> Transpose -> Q); MatMulAddFusion's Reshapes take in the DQ
    x3 = vi("x", [2, 4, 16])
    lw = [init("ls", 0.05), init("lz", 128, np.uint8), init("Wl", np.full((10, 16), 0.01)), init("wls", 0.01),
          init("wlz", 0, np.int8), init("lb", np.zeros(10))]

    def linear(**per_axis):
        return [node("QuantizeLinear", ["x", "ls", "lz"], "xq", "qx"), node("DequantizeLinear", ["xq", "ls", "lz"], "d", "dqx"),
                node("QuantizeLinear", ["Wl", "wls", "wlz"], "wq", "qw", **per_axis),
                node("DequantizeLinear", ["wq", "wls", "wlz"], "w", "dqw", **per_axis),
                node("Transpose", ["w"], "wt", "tw", perm=[1, 0]),
                node("MatMul", ["d", "wt"], "mm", "matmul"), node("Add", ["mm", "lb"], "y", "add")]
    probe("linear3d_qdq_weight_transpose", "DQ(x) [2, 4, 16] -> MatMul(Transpose(DQ(Q(W)))) + b: the Transpose "
          "folds into the weight, the MatMul and Add a Gemm with the DQ", linear(), [x3], [y()], lw)

    lw_axis = lw[:3] + [init("wls", np.full(10, 0.01)), init("wlz", np.zeros(10), np.int8)] + lw[5:]
    probe("linear3d_qdq_weight_transpose_per_channel", "the same with the weight quantized per output channel "
          "(axis 0): the folded DQ's axis becomes 1", linear(axis=0), [x3], [y()], lw_axis)

    # ---- QDQPropagationTransformer copies a Q's pair before a Reshape --------
    rq = [init("rs", 0.05), init("rz", 128, np.uint8), init("rshape", np.array([8, 16]), np.int64)]
    reshape_q = [node("Tanh", ["x"], "t", "tanh"), node("Reshape", ["t", "rshape"], "r", "reshape"),
                 node("QuantizeLinear", ["r", "rs", "rz"], "rq", "qr"), node("DequantizeLinear", ["rq", "rs", "rz"], "y", "dqr")]
    probe("qdq_q_before_reshape", "Tanh(x) -> Reshape -> Q: the Q's pair copied before the Reshape, which the drop "
          "then runs on 8-bit data", reshape_q, [x3], [y()], rq)
    probe("qdq_q_before_reshape_read_twice", "the same with the Reshape's output also a graph output: no copy",
          reshape_q, [x3], [y(), vi("r", [8, 16])], rq)
