"""quant_probes.py — make_probes.py's probes for what onnxruntime does to the
quantized graphs torch's flows write (tests/peer/torch_quant_exports.py):
each meets or breaks one condition, as make_probes.py's do.

  a DequantizeLinear of constants stays a node (ConstantFolding's
  skip_dequantize_linear): ConvBN refuses a fake-quant or int8 weight;
  EnsureUniqueDQForNodeUnit gives each reader of a DQ its own copy before
  any fusion: x * Sigmoid(x) and the Erf form of Gelu of a DQ's x refuse.

add(probe, node, init, vi, y) adds them through make_probes.py's helpers.
"""
import numpy as np


def add(probe, node, init, vi, y):
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
