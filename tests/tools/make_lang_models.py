#!/usr/bin/python3
"""make_lang_models.py — small ONNX models for the rule language beyond the
seed (fusiondbg-rules(5), BEYOND THE SEED), written to tests/data/lang/ with
deterministic bytes. Each mimics what real exports hold, next to the near
misses a compiler refuses:
  conv_fold.onnx        Conv chains as in the light_* models: Conv+BN+Mul+Add+Relu,
                        Conv+BN+Relu, Conv+Relu; Mul(scale, conv) with the scale at
                        input 0; a 1-D bias; Clip with constant and with
                        graph-input bounds; Elu; LeakyRelu
  transpose_matmul.onnx Transpose -> MatMul with perms of ranks 2, 3, 4 that swap
                        the last two axes, an attention perm that does not, and a
                        Transpose without perm
  quickgelu.onnx        x * Sigmoid(x), and x * Sigmoid(y)
  graph_out.onnx        Add -> Tanh whose Tanh is a graph output, and one that is not
  operands.onnx         MatMul + Add with a symbolic batch and a static one; Div by
                        sqrt(2) and by 1.5; a double Relu; a rank-2 bias
  fan_out.onnx          a Conv read by 17 Relus
  position_either.onnx  ReduceMean -> Sub with the mean second (as written) and first (swapped)
  shapes_onnx.onnx      Reshapes to shapes computed from Shape(x) of [b, 6]: through Gather and
                        Concat ([b, 2, 3]), and through a Div ([b, 3, 2]); each Add reads one
                        and a graph input of its shape
  siblings.onnx         x -> Sigmoid, x -> Tanh, Mul(s, t) (ops linked by what they read, not
                        by the op before them); Mul(Sigmoid(x), Tanh(y)) beside it
  qdq_pairs.onnx        int8 QuantizeLinear -> DequantizeLinear -> Relu pairs as an int8 QDQ
                        quantizer writes them: one onnxruntime turns into uint8 (q1), one
                        whose DQ two Relus read (q2), one whose zero points differ (q3);
                        a uint8 pair (q4); DQ -> Reshape -> Q with the Q's scale the DQ's
                        (reshape_same) and another (reshape_other); a Reshape to a shape
                        computed from Shape(its DQ's output) (reshape_shape)
  dtype_tied.onnx       a Cast to the type it reads (a no-op) and one to float16, each read by a
                        Mul of a constant of the Cast's output type
  conv_any_rank.onnx    Conv1d, Conv2d, Conv3d each + Add of a [1, C, 1...] constant, and a
                        Conv2d + Add of [1, C, 2, 1] (not every other dim 1)
  slice_groups.onnx     groups of Slices (and a Gather) reading one Relu's output along axis 1
                        (size 8): three covering it (one a Gather, one ending past the end),
                        two with a gap, two that overlap, one of step 2, one whose second
                        Slice is a graph output, a single Slice
  qdq_slice_groups.onnx DQ -> two Slices covering axis 1, each -> Q: with the DQ's scale (one
                        group, the Qs each member's own), and with another scale on the
                        second Q
  many_readers.onnx     one tensor read by 1025 Slices (past the readers a group is looked for
                        among) and one read by 300 (more members than a group has)
  declared_outputs.onnx Conv + BatchNormalization with one output, with training outputs
                        (opset 15, training_mode 1), with them written ""; MaxPool with and
                        without its indices
  clip_quant.onnx       Sigmoid -> Clip -> QuantizeLinear as a QDQ quantizer writes a ReLU6:
                        the Q's range inside the Clip's (clip_cover, scale 6/255), wider
                        (clip_narrow, 0.032: up to 8.16), equal in float only (clip_f32,
                        Clip(0, 4), scale 4/255); hostile values: a NaN max (clip_nan), a
                        scale whose range overflows float (clip_huge); Relu -> Q of int8
                        zero point -128 (relu_min) and 0 (relu_zero)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "lang")
F32 = TensorProto.FLOAT


class G:
	def __init__(self, name):
		self.name, self.nodes, self.inits, self.inputs, self.outputs, self.vi = name, [], [], [], [], []

	def input(self, name, shape, dtype=F32):
		self.inputs.append(helper.make_tensor_value_info(name, dtype, shape))
		return name

	def output(self, name, dtype=F32, shape=None):
		self.outputs.append(helper.make_tensor_value_info(name, dtype, shape))
		return name

	def const(self, name, values, shape=None, dtype=np.float32):
		arr = np.array(values, dtype=dtype)
		if shape is not None:
			arr = arr.reshape(shape)
		self.inits.append(numpy_helper.from_array(arr, name))
		return name

	def weight(self, name, shape):
		n = int(np.prod(shape))
		return self.const(name, (np.arange(n) % 7 / 70.0).reshape(shape))

	def node(self, op, name, inputs, out=None, **attrs):
		out = out or name + "_out"
		self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
		return out

	def save(self, fname, opset=13):
		g = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits, value_info=self.vi)
		m = helper.make_model(g, producer_name="fusiondbg-tests", opset_imports=[helper.make_opsetid("", opset)])
		m.ir_version = 7
		onnx.save(m, os.path.join(OUT, fname))


def conv(g, name, x, cin=8, cout=8, bias=True):
	ins = [x, g.weight(name + "_w", [cout, cin, 3, 3])]
	if bias:
		ins.append(g.weight(name + "_b", [cout]))
	return g.node("Conv", name, ins, kernel_shape=[3, 3], pads=[1, 1, 1, 1])


def bn(g, name, x, c=8):
	return g.node("BatchNormalization", name, [x] + [g.weight(name + s, [c]) for s in ("_s", "_b", "_m", "_v")])


def conv_fold():
	g = G("conv_fold")
	x = g.input("x", [1, 8, 16, 16])
	cmax = g.input("cmax", [])
	# 1: the whole chain (light_densenet121's blocks)
	c = bn(g, "bn1", conv(g, "conv1", x))
	c = g.node("Mul", "mul1", [c, g.weight("mul1_s", [8, 1, 1])])
	c = g.node("Add", "add1", [c, g.weight("add1_b", [8, 1, 1])])
	g.output(g.node("Relu", "relu1", [c], "y1"))
	# 2: Conv + BN + Relu (resnet); 3: Conv + Relu (inception)
	g.output(g.node("Relu", "relu2", [bn(g, "bn2", conv(g, "conv2", x))], "y2"))
	g.output(g.node("Relu", "relu3", [conv(g, "conv3", x, bias=False)], "y3"))
	# 4: the scale at Mul's input 0: onnxruntime folds a Mul's constant only at input 1
	c = g.node("Mul", "mul4", [g.weight("mul4_s", [8, 1, 1]), conv(g, "conv4", x)])
	g.output(g.node("Relu", "relu4", [c], "y4"))
	# 5: a 1-D bias, [C]: not [C,1,1]
	c = g.node("Add", "add5", [conv(g, "conv5", x), g.weight("add5_b", [8])])
	g.output(g.node("Relu", "relu5", [c], "y5"))
	# 6: Relu6 as Clip with constant bounds; 7: a bound from a graph input
	g.output(g.node("Clip", "clip6", [conv(g, "conv6", x), g.const("zero", 0.0), g.const("six", 6.0)], "y6"))
	g.output(g.node("Clip", "clip7", [conv(g, "conv7", x), "zero", cmax], "y7"))
	# 8: Elu is not among the activations; 9: LeakyRelu is
	g.output(g.node("Elu", "elu8", [conv(g, "conv8", x)], "y8"))
	g.output(g.node("LeakyRelu", "lrelu9", [conv(g, "conv9", x)], "y9", alpha=0.1))
	g.save("conv_fold.onnx")


def transpose_matmul():
	g = G("transpose_matmul")
	cases = [("t4", [2, 3, 4, 5], [0, 1, 3, 2], [2, 3, 4, 6]), ("t3", [3, 5, 4], [0, 2, 1], [4, 6]),
	         ("t2", [5, 4], [1, 0], [4, 6]), ("tattn", [2, 3, 4, 5], [0, 2, 1, 3], [2, 4, 5, 6]),
	         ("tnoperm", [4, 5], None, [4, 6])]
	for name, shape, perm, wshape in cases:
		a = g.input(name + "_in", shape)
		attrs = {"perm": perm} if perm else {}
		t = g.node("Transpose", name, [a], **attrs)
		g.output(g.node("MatMul", name + "_mm", [t, g.weight(name + "_w", wshape)], name + "_y"))
	g.save("transpose_matmul.onnx")


def quickgelu():
	g = G("quickgelu")
	x = g.input("x", [1, 16])
	y = g.input("y", [1, 16])
	s = g.node("Sigmoid", "sig1", [x])
	g.output(g.node("Mul", "mul1", [s, x], "out1"))     # x * Sigmoid(x), sigmoid first
	s = g.node("Sigmoid", "sig2", [x])
	g.output(g.node("Mul", "mul2", [y, s], "out2"))     # y * Sigmoid(x): another operand
	g.save("quickgelu.onnx")


def graph_out():
	g = G("graph_out")
	a = g.input("a", [1, 16])
	b = g.input("b", [1, 16])
	t = g.node("Tanh", "tanh1", [g.node("Add", "add1", [a, g.weight("c1", [16])])], "y1")
	g.output(t)
	t = g.node("Tanh", "tanh2", [g.node("Add", "add2", [b, g.weight("c2", [16])])])
	g.output(g.node("Relu", "relu2", [t], "y2"))
	g.save("graph_out.onnx")


def operands():
	g = G("operands")
	a = g.input("a", ["batch", 8, 16])
	a2 = g.input("a2", [4, 16])
	x = g.input("x", [1, 16])
	# MatMul + Add: 3-D with a symbolic batch (refused), 2-D static (folded to Gemm)
	m = g.node("MatMul", "mm1", [a, g.weight("w1", [16, 32])])
	g.output(g.node("Add", "add1", [m, g.weight("bias1", [32])], "y1"))
	m = g.node("MatMul", "mm2", [a2, g.weight("w2", [16, 32])])
	g.output(g.node("Add", "add2", [m, g.weight("bias2", [32])], "y2"))
	m = g.node("MatMul", "mm3", [a2, g.weight("w3", [16, 32])])
	g.output(g.node("Add", "add3", [m, g.weight("bias3", [1, 1, 32])], "y3"))   # rank 3 bias
	# Gelu's Div by sqrt(2), and a Div by something else
	g.output(g.node("Erf", "erf1", [g.node("Div", "div1", [x, g.const("sqrt2", 1.4142135)])], "y4"))
	g.output(g.node("Erf", "erf2", [g.node("Div", "div2", [x, g.const("one_half", 1.5)])], "y5"))
	# a double Relu (CPU kernels are float)
	d = g.node("Cast", "cast1", [x], to=TensorProto.DOUBLE)
	g.output(g.node("Erf", "erf3", [g.node("Div", "div3", [d, g.const("sqrt2d", 1.4142135, dtype=np.float64)])],
	                "y6"), TensorProto.DOUBLE)
	g.save("operands.onnx")


def fan_out():
	g = G("fan_out")
	x = g.input("x", [1, 8, 8, 8])
	c = conv(g, "conv1", x)
	for k in range(17):
		g.output(g.node("Relu", "relu%d" % k, [c], "y%d" % k))
	g.save("fan_out.onnx")


def position_either():
	g = G("position_either")
	for k, swapped in ((1, False), (2, True)):
		x = g.input("x%d" % k, [1, 8])
		m = g.node("ReduceMean", "rm%d" % k, [x], axes=[-1], keepdims=1)
		ins = [m, x] if swapped else [x, m]    # Sub(x, mean) as written, Sub(mean, x) swapped
		g.output(g.node("Sub", "sub%d" % k, ins, "y%d" % k))
	g.save("position_either.onnx")


def siblings():
	g = G("siblings")
	x = g.input("x", [1, 8])
	h = g.node("Relu", "relu", [x])
	s1 = g.node("Sigmoid", "sig1", [h])
	t1 = g.node("Tanh", "tanh1", [h])
	g.output(g.node("Mul", "mul1", [s1, t1], "y1"))
	y = g.input("y", [1, 8])
	s2 = g.node("Sigmoid", "sig2", [h])
	t2 = g.node("Tanh", "tanh2", [y])
	g.output(g.node("Mul", "mul2", [s2, t2], "y2"))
	g.save("siblings.onnx")


def shapes_onnx():
	g = G("shapes_onnx")
	x = g.input("x", ["b", 6])
	s = g.node("Shape", "shape", [x])
	b = g.node("Unsqueeze", "unsq_b", [g.node("Gather", "gather_b", [s, g.const("i0", 0, dtype=np.int64)], axis=0),
	                                    g.const("ax", [0], dtype=np.int64)])
	six = g.node("Gather", "gather_6", [s, g.const("i1", 1, dtype=np.int64)], axis=0)
	t1 = g.node("Concat", "cat1", [b, g.const("c23", [2, 3], dtype=np.int64)], axis=0)
	r1 = g.node("Reshape", "reshape1", [x, t1])
	half = g.node("Unsqueeze", "unsq_h", [g.node("Div", "div", [six, g.const("two", 2, dtype=np.int64)]), "ax"])
	t2 = g.node("Concat", "cat2", [b, half, g.const("c2", [2], dtype=np.int64)], axis=0)
	r2 = g.node("Reshape", "reshape2", [x, t2])
	g.output(g.node("Add", "add1", [r1, g.input("y1", ["b", 2, 3])], "z1"))
	g.output(g.node("Add", "add2", [r2, g.input("y2", ["b", 3, 2])], "z2"))
	g.save("shapes_onnx.onnx", opset=14)


def dtype_tied():
	g = G("dtype_tied")
	F16 = TensorProto.FLOAT16
	for k, (to, npt) in enumerate(((F32, np.float32), (F16, np.float16)), 1):
		x = g.input("x%d" % k, [2, 4])
		c = g.node("Cast", "cast%d" % k, [x], to=to)
		g.output(g.node("Mul", "mul%d" % k, [c, g.const("s%d" % k, [0.5], [1], npt)], "y%d" % k), to)
	g.save("dtype_tied.onnx")


def conv_any_rank():
	g = G("conv_any_rank")
	cases = (("conv1", 1, [1, 4, 1]), ("conv2", 2, [1, 4, 1, 1]), ("conv3", 3, [1, 4, 1, 1, 1]),
	         ("conv2_near", 2, [1, 4, 2, 1]))
	for name, r, bshape in cases:
		x = g.input(name + "_x", [1, 4] + [4] * r)
		w = g.weight(name + "_w", [4, 4] + [1] * r)
		c = g.node("Conv", name, [x, w], kernel_shape=[1] * r)
		g.output(g.node("Add", name + "_add", [c, g.weight(name + "_b", bshape)], name + "_y"))
	g.save("conv_any_rank.onnx")


def declared_outputs():
	g = G("declared_outputs")
	for name, outs in (("bn1", ["bn1_y"]), ("bn2", ["bn2_y", "bn2_rm", "bn2_rv"]), ("bn3", ["bn3_y", "", ""])):
		x = g.input(name + "_x", [1, 8, 4, 4])
		c = conv(g, name + "_conv", x)
		training = {"training_mode": 1} if outs[1:2] == [name + "_rm"] else {}
		g.nodes.append(helper.make_node("BatchNormalization", [c] + [g.weight(name + s, [8]) for s in
		                                ("_s", "_b", "_m", "_v")], outs, name=name, **training))
		g.output(outs[0])
		for o in outs[1:]:
			if o:
				g.output(o, shape=[8])
	for name, outs in (("pool1", ["pool1_y"]), ("pool2", ["pool2_y", "pool2_i"])):
		x = g.input(name + "_x", [1, 8, 4, 4])
		p = g.node("Pad", name + "_pad", [x, g.const(name + "_pads", [0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64)])
		g.nodes.append(helper.make_node("MaxPool", [p], outs, name=name, kernel_shape=[2, 2], pads=[0, 0, 0, 0]))
		g.output(outs[0])
		if len(outs) > 1:
			g.output(outs[1], TensorProto.INT64)
	g.save("declared_outputs.onnx", opset=15)
def qdq_pairs():
	g = G("qdq_pairs")
	x = g.input("x", [1, 8])
	s = g.const("s", 0.05)
	zero = g.const("zp_s8", 0, dtype=np.int8)
	cases = (("q1", zero, zero, 1), ("q2", zero, zero, 2),
	         ("q3", zero, g.const("zp_s8_1", 1, dtype=np.int8), 1),
	         ("q4", g.const("zp_u8", 128, dtype=np.uint8), "zp_u8", 1))
	for name, qzp, dqzp, readers in cases:
		q = g.node("QuantizeLinear", name, [x, s, qzp])
		d = g.node("DequantizeLinear", name.replace("q", "dq"), [q, s, dqzp])
		for k in range(readers):
			g.output(g.node("Relu", "relu_%s%s" % (name, "ab"[k] if readers > 1 else ""), [d]))
	# a Reshape between a DQ and a Q: of one scale (dropped), of two
	shape = g.const("shape", [8, 1], dtype=np.int64)
	for name, out_scale in (("same", s), ("other", g.const("s2", 0.1))):
		q = g.node("QuantizeLinear", "q_" + name, [x, s, "zp_u8"])
		d = g.node("DequantizeLinear", "dq_" + name, [q, s, "zp_u8"])
		r = g.node("Reshape", "reshape_" + name, [d, shape])
		g.output(g.node("QuantizeLinear", "q2_" + name, [r, out_scale, "zp_u8"]), TensorProto.UINT8)
	# a Reshape whose shape is computed from Shape(its DQ's output): a path out of
	# the quantized group and back that only computes constants
	q = g.node("QuantizeLinear", "q_shape", [x, s, "zp_u8"])
	d = g.node("DequantizeLinear", "dq_shape", [q, s, "zp_u8"])
	n = g.node("Gather", "gather_n", [g.node("Shape", "shape_of", [d]), g.const("i1", [1], dtype=np.int64)], axis=0)
	t = g.node("Concat", "cat_shape", [n, g.const("one", [1], dtype=np.int64)], axis=0)
	r = g.node("Reshape", "reshape_shape", [d, t])
	g.output(g.node("QuantizeLinear", "q2_shape", [r, s, "zp_u8"]), TensorProto.UINT8)
	g.save("qdq_pairs.onnx")


def slice_groups():
	g = G("slice_groups")
	x = g.input("x", [1, 8, 4])
	i64 = lambda name, v: g.const(name, [v], dtype=np.int64)
	one, axis = i64("one", 1), i64("axis1", 1)

	def sl(name, src, start, end, step=None, out=None):
		ins = [src, i64(name + "_s", start), i64(name + "_e", end), axis] + ([i64(name + "_st", step)] if step else [])
		y = g.node("Slice", name, ins, out)
		if not out:
			g.output(g.node("Neg", name + "_neg", [y], name + "_y"))

	groups = {
		"cover": [(0, 2), "gather", (3, 2 ** 62)],
		"gap": [(0, 3), (4, 8)],
		"overlap": [(0, 5), (4, 8)],
		"step": [(0, 4), (4, 8, 2)],
		"out": [(0, 4), (4, 8, None, "out_y")],
		"single": [(0, 8)],
	}
	for key, members in groups.items():
		src = g.node("Relu", key, [x])
		for k, m in enumerate(members):
			name = "%s_%s" % (key, "abc"[k])
			if m == "gather":
				y = g.node("Gather", name, [src, g.const(name + "_i", 2, dtype=np.int64)], axis=1)
				g.output(g.node("Neg", name + "_neg", [y], name + "_y"))
			else:
				sl(name, src, *m)
	g.output("out_y")
	g.save("slice_groups.onnx")


def qdq_slice_groups():
	g = G("qdq_slice_groups")
	x = g.input("x", [1, 8, 4])
	s, s2 = g.const("s", 0.05), g.const("s2", 0.1)
	zp = g.const("zp", 128, dtype=np.uint8)
	i64 = lambda name, v: g.const(name, [v], dtype=np.int64)
	axis = i64("axis1", 1)
	for key, scales in (("same", (s, s)), ("other", (s, s2))):
		d = g.node("DequantizeLinear", key + "_dq", [g.node("QuantizeLinear", key + "_q", [x, s, zp]), s, zp])
		for k, (start, end) in enumerate(((0, 4), (4, 8))):
			name = "%s_%s" % (key, "ab"[k])
			y = g.node("Slice", name, [d, i64(name + "_s", start), i64(name + "_e", end), axis])
			g.output(g.node("QuantizeLinear", name + "_q", [y, scales[k], zp]), TensorProto.UINT8)
	g.save("qdq_slice_groups.onnx")


def many_readers():
	g = G("many_readers")
	x = g.input("x", [1, 1100, 4])
	ins = [g.const(n, [v], dtype=np.int64) for n, v in (("b", 0), ("e", 1), ("ax", 1))]
	for key, n in (("wide", 1025), ("many", 300)):
		r = g.node("Relu", key, [x])
		for k in range(n):
			g.output(g.node("Slice", "%s_%d" % (key, k), [r] + ins))
	g.save("many_readers.onnx")
def clip_quant():
	g = G("clip_quant")
	x = g.input("x", [1, 8])
	six = float(np.float32(6) / np.float32(255))
	zp = g.const("zp_u8", 0, dtype=np.uint8)
	cases = (("clip_cover", 0.0, 6.0, six), ("clip_narrow", 0.0, 6.0, 0.032),
	         ("clip_f32", 0.0, 4.0, float(np.float32(4) / np.float32(255))),
	         ("clip_nan", 0.0, float("nan"), six), ("clip_huge", 0.0, 6.0, 3e38))
	for name, lo, hi, scale in cases:
		sg = g.node("Sigmoid", "sig_" + name, [x])
		c = g.node("Clip", name, [sg, g.const(name + "_lo", lo), g.const(name + "_hi", hi)])
		g.output(g.node("QuantizeLinear", "q_" + name, [c, g.const("s_" + name, scale), zp]), TensorProto.UINT8)
	for name, z in (("relu_min", -128), ("relu_zero", 0)):
		r = g.node("Relu", name, [g.node("Sigmoid", "sig_" + name, [x])])
		g.output(g.node("QuantizeLinear", "q_" + name, [r, g.const("s_" + name, 0.05), g.const("zp_" + name, z, dtype=np.int8)]),
		         TensorProto.INT8)
	g.save("clip_quant.onnx")


os.makedirs(OUT, exist_ok=True)
conv_fold()
transpose_matmul()
quickgelu()
graph_out()
operands()
fan_out()
position_either()
siblings()
shapes_onnx()
dtype_tied()
conv_any_rank()
declared_outputs()
qdq_pairs()
slice_groups()
qdq_slice_groups()
many_readers()
clip_quant()
