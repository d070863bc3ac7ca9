#!/usr/bin/python3
"""make_cann_ub_probes.py [OUTDIR] — one small ONNX model per case of
rules/cann's UB rules that come from a pass's source: each rule fires on
ub_NAME_fires*.onnx and is refused on ub_NAME_no_WHY.onnx, one condition
each (tests/cli/test_cann_ub.sh says which). Weights are zeros: only
shapes and attributes matter to the rules. Needs python3-onnx."""
import os
import sys

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save, shape_inference

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
F = TensorProto.FLOAT


def weight(name, shape):
    return numpy_helper.from_array(np.zeros(shape, dtype=np.float32), name)


def conv(name, x, w, cout, cin, k=1, stride=1, pad=None):
    p = k // 2 if pad is None else pad
    return (helper.make_node("Conv", [x, w], [name], name=name, kernel_shape=[k, k],
                             strides=[stride, stride], pads=[p, p, p, p]),
            weight(w, [cout, cin, k, k]))


def model(name, nodes, inits, inputs, outputs):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, F, s) for n, s in inputs], [], inits)
    m = helper.make_model(g, producer_name="make_cann_ub_probes", opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    known = {v.name: v for v in shape_inference.infer_shapes(m).graph.value_info}
    m.graph.output.extend(known[n] for n in outputs)   # outputs with their inferred shapes
    checker.check_model(m)
    save(m, os.path.join(OUT, name + ".onnx"))


# --- TbeConvDoubleInFusionPass: Conv -> Add(conv, another conv) -> act ---
def double_in(name, second="conv", act="Relu", conv_at=0, extra_reader=False):
    x = ("x", [1, 8, 8, 8])
    a, wa = conv("conv_a", "x", "wa", 4, 8)
    nodes, inits, inputs = [a], [wa], [x]
    if second == "conv":
        b, wb = conv("conv_b", "x", "wb", 4, 8)
        nodes.append(b); inits.append(wb); other = "conv_b"
    else:
        inputs.append(("skip", [1, 4, 8, 8])); other = "skip"
    ins = ["conv_a", other] if conv_at == 0 else [other, "conv_a"]
    nodes.append(helper.make_node("Add", ins, ["add"], name="add"))
    nodes.append(helper.make_node(act, ["add"], ["y"], name="act"))
    model(name, nodes, inits, inputs, ["y"] + (["add"] if extra_reader else []))


double_in("ub_double_in_fires")
double_in("ub_double_in_fires_sigmoid", act="Sigmoid")
double_in("ub_double_in_no_second_conv", second="input")     # input1 from_type Conv
double_in("ub_double_in_no_conv_first", second="input", conv_at=1)  # input0 from op0
double_in("ub_double_in_no_act", act="Exp")                  # op2 type
double_in("ub_double_in_no_single_out", extra_reader=True)   # intermediate output


# --- TbeAippConvReluMaxpoolingFusion: small-channel Conv -> Relu? -> MaxPool ---
def stem(name, cin=3, cout=16, k=7, stride=2, width=32, act="Relu", alpha=None, pool="MaxPool",
         pk=3, ps=2, conv_out=False):
    c, w = conv("conv", "x", "w", cout, cin, k, stride)
    nodes, last = [c], "conv"
    if act:
        kw = {"alpha": alpha} if alpha is not None else {}
        nodes.append(helper.make_node(act, ["conv"], ["act"], name="act", **kw)); last = "act"
    pkw = {} if pool.startswith("Global") else {"kernel_shape": [pk, pk], "strides": [ps, ps], "pads": [pk // 2] * 4}
    nodes.append(helper.make_node(pool, [last], ["y"], name="pool", **pkw))
    model(name, nodes, [w], [("x", [1, cin, 16, width])], ["y"] + (["conv"] if conv_out else []))


stem("ub_stem_fires")
stem("ub_stem_fires_no_act", act=None)
stem("ub_stem_fires_leaky0", act="LeakyRelu", alpha=0.0)
stem("ub_stem_fires_wide_k2", width=960, pk=2)               # W <= 1000 with a 2x2 window
stem("ub_stem_no_small_channel", cin=8)                      # fmap C <= 4
stem("ub_stem_no_stride", stride=3)                          # strides [1,1] or [2,2]
stem("ub_stem_no_cout", cout=100)                            # filter N <= 96
stem("ub_stem_no_kernel", k=1)                               # kernel 3, 5 or 7
stem("ub_stem_no_leaky", act="LeakyRelu", alpha=0.1)         # negative_slope 0
stem("ub_stem_no_global_pool", pool="GlobalMaxPool")         # MaxPool or Pooling
stem("ub_stem_no_single_out", conv_out=True)                 # Conv read outside
stem("ub_stem_no_pool_stride", ps=1)                         # pool strides [2,2]
stem("ub_stem_no_pool_kernel", pk=4)                         # window [2,2] or [3,3]
stem("ub_stem_no_wide", width=960)                           # W <= 800 with a 3x3 window


# --- TbeCommonRules0FusionPass: Conv -> Add(residual)? -> act ---
def common(name, residual=True, add_out=False, act="Relu"):
    c, w = conv("conv", "x", "w", 8, 8, 3)
    nodes, last = [c], "conv"
    if residual:
        nodes.append(helper.make_node("Add", ["x", "conv"], ["add"], name="add")); last = "add"
    nodes.append(helper.make_node(act, [last], ["y"], name="act"))
    model(name, nodes, [w], [("x", [1, 8, 8, 8])], ["y"] + (["add"] if add_out else []))


common("ub_common_fires", residual=False)
common("ub_common_fires_residual")
common("ub_common_no_single_out", add_out=True)              # the Add read outside
common("ub_common_no_act", act="Exp")                        # the activation's type
