#!/usr/bin/python3
"""make_quant_samples.py — writes the small quantized (QDQ) models in samples/quant/.

Written as a QDQ quantizer writes a model: uint8 activations per tensor behind
QuantizeLinear -> DequantizeLinear, int8 weights behind a DequantizeLinear,
int32 bias. Byte-for-byte reproducible (fixed names, weights from an integer
formula, producer "fusiondbg-samples", opset 13, IR 7).

  quant_conv_matmul.onnx  for rules/cann_quant: a quantized Conv, a quantized
                          Conv + Relu and a quantized MatMul fuse; a MatMul
                          fed by an int32 accumulator's dequantize fails
                          dtype_match (FD-CF01)
  quant_conv_softmax.onnx for `why --float`: the second Conv's output has no
                          QuantizeLinear (a float Softmax reads it)
  quant_zp_input.onnx     for `why --float`: the weight's zero point is a graph
                          input, not a constant

Usage: make_quant_samples.py [OUTDIR]   (default: the directory of this script)
Needs python3-onnx and numpy; run it with /usr/bin/python3.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

PRODUCER, PRODUCER_VERSION = "fusiondbg-samples", "1"


class Quant:
	"""One graph, quantized as it is built."""

	def __init__(self, name):
		self.name = name
		self.inputs, self.outputs, self.inits, self.nodes = [], [], [], []
		self.salt = 0

	def init(self, name, arr):
		self.inits.append(numpy_helper.from_array(arr, name))
		return name

	def node(self, op, name, inputs, out=None, **attrs):
		out = out or name + "_out"
		self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
		return out

	def qdq(self, x, scale=0.05, zp=128):
		"""x -> Q -> DQ, uint8 per tensor; returns the dequantized tensor."""
		s = self.init(x + "_scale", np.array(scale, np.float32))
		z = self.init(x + "_zero_point", np.array(zp, np.uint8))
		q = self.node("QuantizeLinear", x + "_QuantizeLinear", [x, s, z], x + "_quantized")
		return self.node("DequantizeLinear", x + "_DequantizeLinear", [q, s, z], x + "_dequantized")

	def weight(self, name, shape, zp=None):
		"""int8 symmetric weight behind a DequantizeLinear (zp: a tensor name
		for the zero point, else a constant 0)."""
		self.salt += 1
		n = int(np.prod(shape))
		vals = ((np.arange(n, dtype=np.int64) * 7919 + self.salt * 104729) % 255 - 127).astype(np.int8)
		q = self.init(name + "_quantized", vals.reshape(shape))
		s = self.init(name + "_scale", np.array(0.01, np.float32))
		z = zp or self.init(name + "_zero_point", np.array(0, np.int8))
		return self.node("DequantizeLinear", name + "_DequantizeLinear", [q, s, z], name + "_dequantized")

	def graph(self, doc):
		return helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, initializer=self.inits,
		                         doc_string=doc)


def model(g):
	m = helper.make_model(g, producer_name=PRODUCER, producer_version=PRODUCER_VERSION,
	                      opset_imports=[helper.make_opsetid("", 13)])
	m.ir_version = 7
	return m


def conv_matmul():
	b = Quant("quant_conv_matmul")
	b.inputs.append(helper.make_tensor_value_info("x", T.FLOAT, [1, 4, 8, 8]))
	b.inputs.append(helper.make_tensor_value_info("acc", T.INT32, [1, 16]))
	x = b.qdq("x")
	c1 = b.node("Conv", "conv1", [x, b.weight("w1", [8, 4, 3, 3])], pads=[1, 1, 1, 1])
	c1 = b.qdq(c1)
	c2 = b.node("Conv", "conv2", [c1, b.weight("w2", [8, 8, 1, 1])])
	r2 = b.qdq(b.node("Relu", "relu2", [c2]), zp=0)
	pool = b.qdq(b.node("GlobalAveragePool", "pool", [r2]))
	flat = b.qdq(b.node("Flatten", "flatten", [pool]))
	m1 = b.qdq(b.node("MatMul", "matmul1", [flat, b.weight("wm1", [8, 16])]))
	b.outputs.append(helper.make_tensor_value_info(m1, T.FLOAT, [1, 16]))
	# an int32 accumulator dequantized into a MatMul: no 8-bit quantized op
	s = b.init("acc_scale", np.array(0.001, np.float32))
	z = b.init("acc_zero_point", np.array(0, np.int32))
	acc = b.node("DequantizeLinear", "acc_DequantizeLinear", ["acc", s, z], "acc_dequantized")
	m2 = b.qdq(b.node("MatMul", "matmul2", [acc, b.weight("wm2", [16, 4])]))
	b.outputs.append(helper.make_tensor_value_info(m2, T.FLOAT, [1, 4]))
	return b.graph("rules/cann_quant: Quant_Conv_Fusion on conv1, Quant_Conv_Relu_Fusion on conv2 + relu2, "
	               "Quant_MatMul_Fusion on matmul1; matmul2 reads an int32 dequantize (FD-CF01)")


def conv_softmax():
	b = Quant("quant_conv_softmax")
	b.inputs.append(helper.make_tensor_value_info("x", T.FLOAT, [1, 4, 8, 8]))
	x = b.qdq("x")
	c1 = b.qdq(b.node("Conv", "conv1", [x, b.weight("w1", [8, 4, 1, 1])]))
	c2 = b.node("Conv", "conv2", [c1, b.weight("w2", [8, 8, 1, 1])])
	y = b.node("Softmax", "softmax", [c2], "y", axis=1)
	b.outputs.append(helper.make_tensor_value_info(y, T.FLOAT, [1, 8, 8, 8]))
	return b.graph("why --float: conv2's output has no QuantizeLinear (softmax, in float, reads it)")


def zp_input():
	b = Quant("quant_zp_input")
	b.inputs.append(helper.make_tensor_value_info("x", T.FLOAT, [1, 4, 8, 8]))
	b.inputs.append(helper.make_tensor_value_info("w_zp", T.INT8, []))
	x = b.qdq("x")
	y = b.qdq(b.node("Conv", "conv1", [x, b.weight("w1", [8, 4, 1, 1], zp="w_zp")]))
	b.outputs.append(helper.make_tensor_value_info(y, T.FLOAT, [1, 8, 8, 8]))
	return b.graph("why --float: conv1's weight zero point w_zp is a graph input, not a constant")


def main():
	out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
	for name, make in (("quant_conv_matmul", conv_matmul), ("quant_conv_softmax", conv_softmax),
	                   ("quant_zp_input", zp_input)):
		m = model(make())
		onnx.checker.check_model(m, full_check=True)
		onnx.save(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
	main()
