#!/usr/bin/python3
"""make_samples.py — writes the small ONNX models in samples/.

Each model shows one shipped rule firing, or one common reason for a rule
not firing (see samples/README.md for the table: file, contents, rule,
expected outcome); dynamic_samples.py adds the dynamic-shape families. The output is byte-for-byte reproducible: fixed node and
tensor names, weights from an integer formula (no random), no timestamps,
producer "fusiondbg-samples", a fixed opset and IR version per model.
tests/cli/test_samples.sh re-runs this script and compares the bytes.

Usage: make_samples.py [OUTDIR]     (default: the directory of this script)
Needs only python3-onnx (Debian) and numpy; run it with /usr/bin/python3.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dynamic_samples  # noqa: E402  (the dynamic-shape families, its own file)

PRODUCER = "fusiondbg-samples"
PRODUCER_VERSION = "1"
# Opset -> the lowest IR version that carries it (what exporters write).
IR_FOR_OPSET = {11: 6, 12: 7, 13: 7, 14: 7, 15: 8, 16: 8, 17: 8}

F32, F64 = TensorProto.FLOAT, TensorProto.DOUBLE
NP_OF = {F32: np.float32, F64: np.float64, TensorProto.INT64: np.int64}


class Builder:
	"""Collects one graph: inputs, initializers, nodes, outputs, in order.

	Every node gets the name it is given; its outputs are "<name>_out"
	unless named explicitly, so node and tensor names in traces are stable
	and readable."""

	def __init__(self, name, dtype=F32):
		self.name = name
		self.dtype = dtype
		self.inputs, self.outputs = [], []
		self.inits, self.nodes = [], []
		self.salt = 0

	def input(self, name, shape, dtype=None):
		self.inputs.append(helper.make_tensor_value_info(
			name, dtype or self.dtype, shape))
		return name

	def output(self, name, shape, dtype=None):
		self.outputs.append(helper.make_tensor_value_info(
			name, dtype or self.dtype, shape))
		return name

	def const(self, name, values, dtype=None):
		"""Initializer with the given exact values."""
		dtype = dtype or self.dtype
		arr = np.array(values, dtype=NP_OF[dtype])
		self.inits.append(numpy_helper.from_array(arr, name))
		return name

	def weight(self, name, shape, lo=-0.1, hi=0.1):
		"""Initializer with deterministic pseudo-random values in [lo, hi]:
		an integer hash of the element index, so the bytes never change."""
		self.salt += 1
		n = int(np.prod(shape)) if shape else 1
		i = np.arange(n, dtype=np.int64)
		h = (i * 7919 + self.salt * 104729) % 2003
		vals = lo + (hi - lo) * (h.astype(np.float64) / 2002.0)
		arr = vals.reshape(shape).astype(NP_OF[self.dtype])
		self.inits.append(numpy_helper.from_array(arr, name))
		return name

	def node(self, op, name, inputs, outputs=None, **attrs):
		"""Adds a node; returns its single output name (or the list)."""
		if outputs is None:
			outputs = [name + "_out"]
		self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
		return outputs[0] if len(outputs) == 1 else outputs

	def constant_node(self, name, values, dtype=None):
		"""A Constant node (as torch exports scalars) instead of an initializer."""
		dtype = dtype or self.dtype
		arr = np.array(values, dtype=NP_OF[dtype])
		t = numpy_helper.from_array(arr, name + "_value")
		return self.node("Constant", name, [], value=t)

	def graph(self, doc):
		return helper.make_graph(self.nodes, self.name, self.inputs, self.outputs,
					 initializer=self.inits, doc_string=doc)


def model(graph, opset):
	m = helper.make_model(graph, producer_name=PRODUCER,
			      producer_version=PRODUCER_VERSION,
			      opset_imports=[helper.make_opsetid("", opset)])
	m.ir_version = IR_FOR_OPSET[opset]
	return m


# ---- building blocks ----------------------------------------------------------

def conv(b, name, x, cin, cout, k=3, group=1):
	"""Conv2d, no bias, 'same' padding, stride 1."""
	w = b.weight(name + "_w", [cout, cin // group, k, k])
	p = k // 2
	return b.node("Conv", name, [x, w], kernel_shape=[k, k], pads=[p, p, p, p],
		      strides=[1, 1], group=group)


def batchnorm(b, name, x, c, eps=1e-5):
	s = b.weight(name + "_scale", [c], 0.5, 1.5)
	bias = b.weight(name + "_bias", [c])
	mean = b.weight(name + "_mean", [c])
	var = b.weight(name + "_var", [c], 0.5, 1.5)
	return b.node("BatchNormalization", name, [x, s, bias, mean, var], epsilon=eps)


def silu(b, suffix, x, swap=False):
	"""SiLU as exporters write it: Sigmoid(x) -> Mul(x, sigmoid).
	swap puts the sigmoid first: Mul(sigmoid, x)."""
	s = b.node("Sigmoid", "sigmoid" + suffix, [x])
	ins = [s, x] if swap else [x, s]
	return b.node("Mul", "mul" + suffix, ins)


def conv_add_silu(b, suffix, x, cin, cout, k=3, group=1, add_swap=False,
		  mul_swap=False, addend=None):
	"""Conv -> Add(conv_out, per-channel constant [1,C,1,1]) -> SiLU.
	The addend defaults to a [1,cout,1,1] initializer (broadcast)."""
	c = conv(b, "conv" + suffix, x, cin, cout, k, group)
	if addend is None:
		addend = b.weight("add" + suffix + "_b", [1, cout, 1, 1])
	ins = [addend, c] if add_swap else [c, addend]
	a = b.node("Add", "add" + suffix, ins)
	return silu(b, suffix, a, mul_swap)


def conv_bn_relu(b, suffix, x, cin, cout, k=3, eps=1e-5):
	c = conv(b, "conv" + suffix, x, cin, cout, k)
	n = batchnorm(b, "bn" + suffix, c, cout, eps)
	return b.node("Relu", "relu" + suffix, [n])


# ---- the samples ----------------------------------------------------------------
# Each function returns (file name, ModelProto). The docstring is the model's
# graph doc_string, so `fusiondbg info` shows what the sample is for.

def s_conv_add_silu():
	"""Three Conv -> Add -> SiLU blocks, 16 channels, x[1,16,32,32] float32.
	Block 1: conv1 (3x3) -> add1(conv1_out, x) residual -> sigmoid1,
	mul1(add1_out, sigmoid1_out).
	Block 2: conv2 (1x1) -> add2(conv2_out, add2_b[1,16,1,1] constant) ->
	sigmoid2, mul2(sigmoid2_out, add2_out): the Mul order swapped.
	Block 3: conv3 (1x1) -> add3(mul2_out, conv3_out) residual, Add order
	swapped -> sigmoid3, mul3 -> y.
	Conv_Add_SiLU_Fusion fires three times."""
	b = Builder("conv_add_silu")
	x = b.input("x", [1, 16, 32, 32])
	y = conv_add_silu(b, "1", x, 16, 16, k=3, addend=x)
	y = conv_add_silu(b, "2", y, 16, 16, k=1, mul_swap=True)
	y = conv_add_silu(b, "3", y, 16, 16, k=1, add_swap=True, addend=y)
	b.nodes[-1].output[0] = "y"
	b.output("y", [1, 16, 32, 32])
	return "conv_add_silu.onnx", model(b.graph(s_conv_add_silu.__doc__), 17)


def s_wrong_source_type():
	"""stem_conv -> stem_relu, then two Conv -> Add -> SiLU blocks on
	x[1,16,32,32]: block 1 adds the residual stem_relu_out (an activation),
	block 2 adds add2_b[1,16,1,1] (an initializer). With
	samples/rules/conv_add_source_types.yaml: Conv_BiasAdd_SiLU_Fusion
	(input1 source_type const) fires on block 2 and rejects block 1 (add1's
	input 1 is an activation); Conv_Residual_SiLU_Fusion (input1 activation)
	fires on block 1 and rejects block 2 (add2's input 1 is a constant).
	(Loaded alone; the shipped Conv_Add_SiLU_Fusion, input1 any, priority 150,
	takes both blocks first when rules/ is loaded too.)"""
	b = Builder("wrong_source_type")
	x = b.input("x", [1, 16, 32, 32])
	s = conv(b, "stem_conv", x, 16, 16)
	s = b.node("Relu", "stem_relu", [s])
	y = conv_add_silu(b, "1", s, 16, 16, k=1, addend=s)
	y = conv_add_silu(b, "2", y, 16, 16, k=1)
	b.nodes[-1].output[0] = "y"
	b.output("y", [1, 16, 32, 32])
	return "wrong_source_type.onnx", model(b.graph(s_wrong_source_type.__doc__), 17)


def s_conv_bn_relu():
	"""Conv(16->16, 3x3) -> BatchNormalization(epsilon 1e-5) -> Relu on
	1x16x32x32 float32. Conv_BN_Relu_Fusion fires once."""
	b = Builder("conv_bn_relu")
	x = b.input("x", [1, 16, 32, 32])
	y = conv_bn_relu(b, "1", x, 16, 16)
	b.nodes[-1].output[0] = "y"
	b.output("y", [1, 16, 32, 32])
	return "conv_bn_relu.onnx", model(b.graph(s_conv_bn_relu.__doc__), 17)


def s_matmul_reshape():
	"""MatMul(x[1,8,32], W[32,64]) -> Reshape to [1,8,4,16] (constant shape,
	allowzero 0). No Transpose after it, so the Attention rules do not claim it:
	MatMul_Reshape_Fusion fires once."""
	b = Builder("matmul_reshape")
	x = b.input("x", [1, 8, 32])
	w = b.weight("matmul1_w", [32, 64])
	m = b.node("MatMul", "matmul1", [x, w])
	shape = b.const("reshape1_shape", [1, 8, 4, 16], TensorProto.INT64)
	b.node("Reshape", "reshape1", [m, shape], ["y"], allowzero=0)
	b.output("y", [1, 8, 4, 16])
	return "matmul_reshape.onnx", model(b.graph(s_matmul_reshape.__doc__), 17)


def s_attention():
	"""One self-attention block, x[1,8,32], 2 heads of 16, scale folded into Wq.
	Q, K, V: MatMul -> Reshape[1,8,2,16] -> Transpose (K to [1,2,16,8], i.e. K^T);
	scores: MatMul(Q, K^T) -> Softmax(axis -1);
	context: MatMul(probs, V) -> Transpose -> Reshape[1,8,32]; then out_proj.
	The three projections are claimed by Attention_QKV_Fusion before
	Attention_ScoreV_Fusion and MatMul_Reshape_Fusion can take them."""
	b = Builder("attention")
	x = b.input("x", [1, 8, 32])
	heads = b.const("heads_shape", [1, 8, 2, 16], TensorProto.INT64)
	t = {}
	for p, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
		w = b.weight(p + "_proj_w", [32, 32])
		m = b.node("MatMul", p + "_proj", [x, w])
		r = b.node("Reshape", p + "_reshape", [m, heads])
		t[p] = b.node("Transpose", p + "_transpose", [r], perm=perm)
	s = b.node("MatMul", "qk_matmul", [t["q"], t["k"]])
	pr = b.node("Softmax", "softmax", [s], axis=-1)
	c = b.node("MatMul", "sv_matmul", [pr, t["v"]])
	ct = b.node("Transpose", "sv_transpose", [c], perm=[0, 2, 1, 3])
	merged = b.const("merge_shape", [1, 8, 32], TensorProto.INT64)
	cr = b.node("Reshape", "sv_reshape", [ct, merged])
	wo = b.weight("out_proj_w", [32, 32])
	b.node("MatMul", "out_proj", [cr, wo], ["y"])
	b.output("y", [1, 8, 32])
	return "attention.onnx", model(b.graph(s_attention.__doc__), 17)


def s_attention_masked():
	"""The biased, masked form of attention.onnx, as BERT / GPT-2 exports write
	it, x[1,8,32], attn_mask[1,1,1,8] (additive) as a graph input.
	Q, K, V: MatMul -> Add(bias[32]) -> Reshape -> Transpose;
	scores: MatMul(Q, K^T) -> mask_add Add(scores, attn_mask) -> Softmax(-1);
	context: MatMul(probs, V) -> Transpose -> Reshape; then out_proj.
	Attention_QKV_Fusion fires through its MatMul -> BiasAdd -> Reshape ->
	Transpose branch (3x), Attention_QK_Softmax_Fusion through its
	MatMul -> Add -> Softmax branch, Attention_ScoreV_Fusion through match.ops.
	MatMul_Reshape_Fusion does not match (an Add follows each projection)."""
	b = Builder("attention_masked")
	x = b.input("x", [1, 8, 32])
	mask = b.input("attn_mask", [1, 1, 1, 8])
	heads = b.const("heads_shape", [1, 8, 2, 16], TensorProto.INT64)
	t = {}
	for p, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
		w = b.weight(p + "_proj_w", [32, 32])
		m = b.node("MatMul", p + "_proj", [x, w])
		a = b.node("Add", p + "_bias", [m, b.weight(p + "_bias_b", [32])])
		r = b.node("Reshape", p + "_reshape", [a, heads])
		t[p] = b.node("Transpose", p + "_transpose", [r], perm=perm)
	s = b.node("MatMul", "qk_matmul", [t["q"], t["k"]])
	s = b.node("Add", "mask_add", [s, mask])
	pr = b.node("Softmax", "softmax", [s], axis=-1)
	c = b.node("MatMul", "sv_matmul", [pr, t["v"]])
	ct = b.node("Transpose", "sv_transpose", [c], perm=[0, 2, 1, 3])
	merged = b.const("merge_shape", [1, 8, 32], TensorProto.INT64)
	cr = b.node("Reshape", "sv_reshape", [ct, merged])
	wo = b.weight("out_proj_w", [32, 32])
	b.node("MatMul", "out_proj", [cr, wo], ["y"])
	b.output("y", [1, 8, 32])
	return "attention_masked.onnx", model(b.graph(s_attention_masked.__doc__), 17)


def layernorm_tail(b, x, hidden):
	"""Dropout(ratio 0.1 as a constant input; inference mode) -> y."""
	ratio = b.const("dropout1_ratio", 0.1)
	b.node("Dropout", "dropout1", [x, ratio], ["y"])
	b.output("y", [1, 8, hidden])


def s_layernorm_dropout():
	"""LayerNormalization (opset 17, axis -1, epsilon 1e-5, scale and bias of
	[512]) -> Dropout(ratio 0.1 as a constant input) on x[1,8,512].
	LayerNorm_Dropout_Fusion fires once."""
	b = Builder("layernorm_dropout")
	x = b.input("x", [1, 8, 512])
	g = b.weight("ln1_scale", [512], 0.5, 1.5)
	be = b.weight("ln1_bias", [512])
	n = b.node("LayerNormalization", "ln1", [x, g, be], axis=-1, epsilon=1e-5)
	layernorm_tail(b, n, 512)
	return "layernorm_dropout.onnx", model(b.graph(s_layernorm_dropout.__doc__), 17)


def s_layernorm_decomposed():
	"""LayerNorm as opset-13 exporters write it, on x[1,8,512]: ReduceMean,
	Sub, Pow(2), ReduceMean, Add(1e-5), Sqrt, Div, Mul(scale[512]),
	Add(bias[512]); then Dropout(ratio 0.1 as a constant input).
	The nine nodes make one LayerNorm: LayerNorm_Dropout_Fusion fires once and
	covers ln_mean..ln_bias and dropout1."""
	b = Builder("layernorm_decomposed")
	x = b.input("x", [1, 8, 512])
	mean = b.node("ReduceMean", "ln_mean", [x], axes=[-1], keepdims=1)
	d = b.node("Sub", "ln_sub", [x, mean])
	two = b.const("ln_pow_exp", 2.0)
	sq = b.node("Pow", "ln_pow", [d, two])
	var = b.node("ReduceMean", "ln_var", [sq], axes=[-1], keepdims=1)
	eps = b.const("ln_eps", 1e-5)
	ve = b.node("Add", "ln_add_eps", [var, eps])
	sd = b.node("Sqrt", "ln_sqrt", [ve])
	nrm = b.node("Div", "ln_div", [d, sd])
	g = b.weight("ln_scale_w", [512], 0.5, 1.5)
	sc = b.node("Mul", "ln_scale", [nrm, g])
	be = b.weight("ln_bias_b", [512])
	n = b.node("Add", "ln_bias", [sc, be])
	layernorm_tail(b, n, 512)
	return "layernorm_decomposed.onnx", model(b.graph(s_layernorm_decomposed.__doc__), 13)


def s_escape_intermediate():
	"""Conv -> Add -> SiLU as in conv_add_silu.onnx, but conv1's output is also
	read by side_pool (GlobalAveragePool -> graph output y_side). With
	allow_intermediate_outputs false, Conv_Add_SiLU_Fusion does not fire:
	intermediate conv1_out escapes to side_pool."""
	b = Builder("escape_intermediate")
	x = b.input("x", [1, 16, 32, 32])
	conv_add_silu(b, "1", x, 16, 16)
	b.nodes[-1].output[0] = "y"
	b.node("GlobalAveragePool", "side_pool", ["conv1_out"], ["y_side"])
	b.output("y", [1, 16, 32, 32])
	b.output("y_side", [1, 16, 1, 1])
	return "escape_intermediate.onnx", model(b.graph(s_escape_intermediate.__doc__), 17)


def s_param_mismatch():
	"""Two chains on x[1,16,32,32], each one param off:
	gconv1 (group 2) -> add1 -> SiLU: Conv_Add_SiLU_Fusion wants groups 1;
	conv2 -> bn2 (epsilon 1e-3) -> relu2: Conv_BN_Relu_Fusion wants epsilon 1e-5."""
	b = Builder("param_mismatch")
	x = b.input("x", [1, 16, 32, 32])
	w = b.weight("gconv1_w", [16, 8, 3, 3])
	c = b.node("Conv", "gconv1", [x, w], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
		   strides=[1, 1], group=2)
	a = b.node("Add", "add1", [c, b.weight("add1_b", [1, 16, 1, 1])])
	y = silu(b, "1", a)
	y = conv_bn_relu(b, "2", y, 16, 16, eps=1e-3)
	b.nodes[-1].output[0] = "y"
	b.output("y", [1, 16, 32, 32])
	return "param_mismatch.onnx", model(b.graph(s_param_mismatch.__doc__), 17)


def s_dtype_mismatch():
	"""conv_add_silu's first block in float64 (double): Conv, Add, Sigmoid and
	Mul all accept double in ONNX. Conv_Add_SiLU_Fusion matches but its
	dtype_match constraint (float16, float32) fails on float64."""
	b = Builder("dtype_mismatch", F64)
	x = b.input("x", [1, 16, 32, 32])
	conv_add_silu(b, "1", x, 16, 16)
	b.nodes[-1].output[0] = "y"
	b.output("y", [1, 16, 32, 32])
	return "dtype_mismatch.onnx", model(b.graph(s_dtype_mismatch.__doc__), 17)


def s_memory_limit():
	"""Conv(16->64, 1x1) -> Add -> SiLU on x[1,16,512,512] float32: conv1_out
	is 1x64x512x512 = 64 MiB. Conv_Add_SiLU_Fusion matches but memory_limit
	fails: intermediate 64 MiB > 32 MiB (the output is 64 MiB > 16 MiB too).
	Only the shape is big; the weights are 4 KiB."""
	b = Builder("memory_limit")
	x = b.input("x", [1, 16, 512, 512])
	conv_add_silu(b, "1", x, 16, 64, k=1)
	b.nodes[-1].output[0] = "y"
	b.output("y", [1, 64, 512, 512])
	return "memory_limit.onnx", model(b.graph(s_memory_limit.__doc__), 17)


def s_workspace_spill():
	"""Conv(16->16, 3x3) -> Add -> SiLU on x[1,16,512,512] float32: every
	tensor is 16 MiB (within both memory limits) but the im2col workspace is
	16*3*3*512*512*4 B = 144 MiB > 64 MiB. workspace_size has spill_to_l2 true,
	so Conv_Add_SiLU_Fusion fires with a warning."""
	b = Builder("workspace_spill")
	x = b.input("x", [1, 16, 512, 512])
	conv_add_silu(b, "1", x, 16, 16, k=3)
	b.nodes[-1].output[0] = "y"
	b.output("y", [1, 16, 512, 512])
	return "workspace_spill.onnx", model(b.graph(s_workspace_spill.__doc__), 17)


def s_channel_divisibility():
	"""Conv(16->24, 3x3) -> Add -> SiLU on x[1,16,32,32]: the outputs have 24
	channels. Conv_Add_SiLU_Fusion matches but channel_divisibility fails:
	dim 1 = 24 is not divisible by 16."""
	b = Builder("channel_divisibility")
	x = b.input("x", [1, 16, 32, 32])
	conv_add_silu(b, "1", x, 16, 24)
	b.nodes[-1].output[0] = "y"
	b.output("y", [1, 24, 32, 32])
	return "channel_divisibility.onnx", model(b.graph(s_channel_divisibility.__doc__), 17)


def s_priority_conflict():
	"""conv1 -> bn1 -> relu1 -> pool1 (MaxPool 2x2) -> bn2 -> relu2 on
	x[1,16,32,32]. With rules/ plus samples/rules/bn_relu_low_priority.yaml:
	Conv_BN_Relu_Fusion (200) claims conv1, bn1, relu1, so BN_Relu_Fusion (100)
	loses bn1, relu1 to it; BN_Relu_Fusion fires on bn2, relu2."""
	b = Builder("priority_conflict")
	x = b.input("x", [1, 16, 32, 32])
	y = conv_bn_relu(b, "1", x, 16, 16)
	p = b.node("MaxPool", "pool1", [y], kernel_shape=[2, 2], strides=[2, 2])
	n = batchnorm(b, "bn2", p, 16)
	b.node("Relu", "relu2", [n], ["y"])
	b.output("y", [1, 16, 16, 16])
	return "priority_conflict.onnx", model(b.graph(s_priority_conflict.__doc__), 17)


def s_would_cycle():
	"""A ResNet-style block on x[1,16,32,32]: conv1 -> relu1 -> conv2, and
	add1(conv1_out, conv2_out). With samples/rules/conv_add_allow_outputs.yaml
	(Conv2d -> Add, intermediate outputs allowed): anchored at conv1 the match
	{conv1, add1} is rejected as would-cycle (conv1 -> relu1 -> conv2 -> add1
	leaves the match and comes back); anchored at conv2 the match
	{conv2, add1} (Add tried with its inputs swapped) fires."""
	b = Builder("would_cycle")
	x = b.input("x", [1, 16, 32, 32])
	c1 = conv(b, "conv1", x, 16, 16)
	r = b.node("Relu", "relu1", [c1])
	c2 = conv(b, "conv2", r, 16, 16)
	b.node("Add", "add1", [c1, c2], ["y"])
	b.output("y", [1, 16, 32, 32])
	return "would_cycle.onnx", model(b.graph(s_would_cycle.__doc__), 17)


def gelu_head(b):
	"""x[1,8,32] -> fc1 MatMul W[32,64] -> fc1_bias Add(bias[64], a 1-D
	constant: the BiasAdd form)."""
	x = b.input("x", [1, 8, 32])
	m = b.node("MatMul", "fc1", [x, b.weight("fc1_w", [32, 64])])
	return b.node("Add", "fc1_bias", [m, b.weight("fc1_b", [64])])


def s_gelu_erf():
	"""MatMul -> Add(bias[64]) -> Gelu in the Erf form torch exports:
	gelu_div Div(h, 1.4142135) -> gelu_erf Erf -> gelu_add1 Add(1) ->
	gelu_mul Mul(h, .) -> gelu_half Mul(., 0.5); scalars as initializers.
	With samples/rules/matmul_bias_gelu.yaml: MatMul_BiasAdd_Gelu_Fusion fires
	once, covering fc1, fc1_bias and the five Gelu nodes."""
	b = Builder("gelu_erf")
	h = gelu_head(b)
	d = b.node("Div", "gelu_div", [h, b.const("gelu_sqrt2", 1.4142135381698608)])
	e = b.node("Erf", "gelu_erf", [d])
	a = b.node("Add", "gelu_add1", [e, b.const("gelu_one", 1.0)])
	m = b.node("Mul", "gelu_mul", [h, a])
	b.node("Mul", "gelu_half", [m, b.const("gelu_half_c", 0.5)], ["y"])
	b.output("y", [1, 8, 64])
	return "gelu_erf.onnx", model(b.graph(s_gelu_erf.__doc__), 17)


def s_gelu_tanh():
	"""MatMul -> Add(bias[64]) -> Gelu in the tanh form (GPT-2 "gelu_new"):
	0.5*h*(1+tanh(0.7978845608*(h+0.044715*h^3))) as gelu_half Mul(h, 0.5),
	gelu_pow Pow(h, 3), gelu_cube Mul(0.044715, .), gelu_inner Add(h, .),
	gelu_scale Mul(0.7978845608, .), gelu_tanh Tanh, gelu_add1 Add(1, .),
	gelu_mul Mul(half, .); scalars from Constant nodes, as torch writes them.
	With samples/rules/matmul_bias_gelu.yaml: MatMul_BiasAdd_Gelu_Fusion fires
	once, covering fc1, fc1_bias and the eight Gelu nodes (the five Constant
	nodes stay outside: they are constant inputs)."""
	b = Builder("gelu_tanh")
	h = gelu_head(b)
	half = b.node("Mul", "gelu_half", [h, b.constant_node("c_half", 0.5)])
	p = b.node("Pow", "gelu_pow", [h, b.constant_node("c_three", 3.0)])
	cu = b.node("Mul", "gelu_cube", [b.constant_node("c_coef", 0.044715), p])
	inner = b.node("Add", "gelu_inner", [h, cu])
	sc = b.node("Mul", "gelu_scale", [b.constant_node("c_sqrt_2_pi", 0.7978845608028654), inner])
	th = b.node("Tanh", "gelu_tanh", [sc])
	a = b.node("Add", "gelu_add1", [b.constant_node("c_one", 1.0), th])
	b.node("Mul", "gelu_mul", [half, a], ["y"])
	b.output("y", [1, 8, 64])
	return "gelu_tanh.onnx", model(b.graph(s_gelu_tanh.__doc__), 17)


def s_if_subgraph():
	"""Main graph: stem_conv (16->16) -> stem_relu -> If(cond). Both bodies read
	stem_relu_out from the outer scope. then_branch: then_conv -> then_bn ->
	then_relu (weights are body initializers); else_branch: else_conv ->
	else_bn -> else_relu (weights read from the main graph's initializers).
	Conv_BN_Relu_Fusion fires once in each body; nothing fires in the main graph
	(stem_conv -> stem_relu has no BatchNorm)."""
	b = Builder("if_subgraph")
	x = b.input("x", [1, 16, 32, 32])
	cond = b.input("cond", [], TensorProto.BOOL)
	s = conv(b, "stem_conv", x, 16, 16)
	s = b.node("Relu", "stem_relu", [s])

	# then_branch: weights are initializers of the body itself.
	tb = Builder("then_branch")
	tb.salt = 10
	w = tb.weight("then_conv_w", [16, 16, 3, 3])
	c = tb.node("Conv", "then_conv", [s, w], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
		    strides=[1, 1], group=1)
	n = batchnorm(tb, "then_bn", c, 16)
	tb.node("Relu", "then_relu", [n], ["then_y"])
	tb.output("then_y", [1, 16, 32, 32])
	# else_branch: weights are outer-scope initializers of the main graph.
	eb = Builder("else_branch")
	w = b.weight("else_conv_w", [16, 16, 3, 3])
	c = eb.node("Conv", "else_conv", [s, w], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
		    strides=[1, 1], group=1)
	bn_ins = [b.weight("else_bn_scale", [16], 0.5, 1.5), b.weight("else_bn_bias", [16]),
		  b.weight("else_bn_mean", [16]), b.weight("else_bn_var", [16], 0.5, 1.5)]
	n = eb.node("BatchNormalization", "else_bn", [c] + bn_ins, epsilon=1e-5)
	eb.node("Relu", "else_relu", [n], ["else_y"])
	eb.output("else_y", [1, 16, 32, 32])

	b.node("If", "branch", [cond], ["y"],
	       then_branch=tb.graph("then: Conv -> BN -> Relu, weights in the body"),
	       else_branch=eb.graph("else: Conv -> BN -> Relu, weights from the outer scope"))
	b.output("y", [1, 16, 32, 32])
	return "if_subgraph.onnx", model(b.graph(s_if_subgraph.__doc__), 17)


def s_symbolic_batch():
	"""conv1 -> add1 -> SiLU on x[batch,16,64,64] (dim_param "batch").
	Unbound, every tensor is 256 KiB x batch: memory_limit depends on batch and
	Conv_Add_SiLU_Fusion ends "unknown" (it holds for batch <= 64). --dim
	batch=64: every tensor 16 MiB, fires. --dim batch=128: intermediates
	32 MiB (= limit, pass) but output mul1 32 MiB > 16 MiB, so memory_limit
	fails."""
	b = Builder("symbolic_batch")
	x = b.input("x", ["batch", 16, 64, 64])
	conv_add_silu(b, "1", x, 16, 16)
	b.nodes[-1].output[0] = "y"
	b.output("y", ["batch", 16, 64, 64])
	return "symbolic_batch.onnx", model(b.graph(s_symbolic_batch.__doc__), 17)


def s_rounds_conv_bn_relu():
	"""Rounds, two of them (samples/rounds/two_rounds.yaml): conv1 -> bn1 ->
	relu1 -> conv2 -> bn2 -> conv3 -> relu3. Round 1: Conv_BN_Fusion makes
	ConvBN of {conv1, bn1} and {conv2, bn2}, Conv_Relu_Fusion ConvRelu of
	{conv3, relu3}. Round 2: ConvBN_Relu_Fusion fuses fused_conv1 (ConvBN)
	with relu1; at fused_conv2 the next node is fused_conv3 (ConvRelu), not
	a Relu. samples/rounds/never_settles.yaml turns relu1 and relu3 into
	Clip and back for ever."""
	b = Builder("rounds_conv_bn_relu")
	x = b.input("x", [1, 16, 32, 32])
	h = conv(b, "conv1", x, 16, 16)
	h = batchnorm(b, "bn1", h, 16)
	h = b.node("Relu", "relu1", [h])
	h = conv(b, "conv2", h, 16, 16)
	h = batchnorm(b, "bn2", h, 16)
	h = conv(b, "conv3", h, 16, 16, k=1)
	b.node("Relu", "relu3", [h], ["y"])
	b.output("y", [1, 16, 32, 32])
	return "rounds_conv_bn_relu.onnx", model(b.graph(s_rounds_conv_bn_relu.__doc__), 17)


def s_rounds_residual():
	"""Rounds, three of them (samples/rounds/three_rounds.yaml): two residual
	blocks conv -> bn -> add(bn, skip) -> relu. Round 1 folds each Conv +
	BatchNorm (ConvBN), round 2 takes the residual Add (ConvBNAdd), round 3
	the Relu (ConvBNAddRelu); samples/rounds/ge_passes.txt runs the same
	rules as three ordered passes."""
	b = Builder("rounds_residual")
	x = b.input("x", [1, 16, 32, 32])
	skip = x
	for i in ("1", "2"):
		h = conv(b, "conv" + i, skip, 16, 16)
		h = batchnorm(b, "bn" + i, h, 16)
		h = b.node("Add", "add" + i, [h, skip])
		skip = b.node("Relu", "relu" + i, [h], None if i == "1" else ["y"])
	b.output("y", [1, 16, 32, 32])
	return "rounds_residual.onnx", model(b.graph(s_rounds_residual.__doc__), 17)


def s_initializer_inputs():
	"""An old PyTorch export (IR 4, opset 9) that lists every initializer
	among the graph inputs: x[1,16,32,32] -> conv1 -> bn1 -> relu1 -> conv2
	(1x1) -> add2(conv2_out, add2_b[1,16,1,1]) -> sigmoid2, mul2 -> y. From
	IR 4 on such an initializer is an overridable default, not a constant
	(onnxruntime keeps bn1 and add2 unfolded). source_type const refuses
	add2_b (FD-NM04, overridable); with --initializers constant it accepts
	it, as CANN ATC and TensorRT read such models."""
	b = Builder("initializer_inputs")
	x = b.input("x", [1, 16, 32, 32])
	y = conv_bn_relu(b, "1", x, 16, 16)
	conv_add_silu(b, "2", y, 16, 16, k=1)
	b.nodes[-1].output[0] = "y"
	b.output("y", [1, 16, 32, 32])
	for t in b.inits:   # what torch.onnx.export(keep_initializers_as_inputs=True) writes
		b.inputs.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
	m = helper.make_model(b.graph(s_initializer_inputs.__doc__), producer_name=PRODUCER,
			      producer_version=PRODUCER_VERSION, opset_imports=[helper.make_opsetid("", 9)])
	m.ir_version = 4
	return "initializer_inputs.onnx", m


SAMPLES = [
	s_conv_add_silu, s_conv_bn_relu, s_matmul_reshape, s_attention, s_attention_masked,
	s_layernorm_dropout, s_layernorm_decomposed,
	s_escape_intermediate, s_param_mismatch, s_wrong_source_type, s_dtype_mismatch,
	s_memory_limit, s_workspace_spill, s_channel_divisibility,
	s_priority_conflict, s_would_cycle,
	s_gelu_erf, s_gelu_tanh, s_if_subgraph, s_symbolic_batch, s_initializer_inputs,
	s_rounds_conv_bn_relu, s_rounds_residual,
]


def dynamic():
	"""The dynamic-shape samples of dynamic_samples.py, as models."""
	return [(name, model(g, opset)) for name, g, opset in dynamic_samples.samples()]


def check(m, name):
	"""Both checks the brief asks for; raises on the first problem."""
	onnx.checker.check_model(m, full_check=True)
	onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)


def main(argv):
	out = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
	os.makedirs(out, exist_ok=True)
	for name, m in [fn() for fn in SAMPLES] + dynamic():
		check(m, name)
		data = m.SerializeToString()
		with open(os.path.join(out, name), "wb") as f:
			f.write(data)
		print("%-28s %7d bytes  %3d nodes" % (name, len(data), len(m.graph.node)))
	return 0


if __name__ == "__main__":
	sys.exit(main(sys.argv))
