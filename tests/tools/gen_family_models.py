#!/usr/bin/python3
"""gen_family_models.py OUTDIR — small models that mimic real families, for
the tests that need what the samples do not have (tests/cli/test_why.sh,
tests/tui/*.script):

  many_fired.onnx  320 Conv -> BatchNorm -> activation blocks: 300 end in
                   Relu, 20 in Sigmoid, so Conv_BN_Relu_Fusion fires on 300
                   anchors and misses 20 (more fired attempts than any
                   fixed-size ranking would hold).
  vad1d.onnx       a voice-activity style encoder: 1-D Convs, three in the
                   main graph and one in each body of an If; a FastGelu
                   and a "relu" of a vendor's domain.
  inlined_if.onnx  a detector head whose If bodies an exporter inlined: every
                   body node's name starts with the same long prefix
                   ("If_0_else_branch__Inline_0__/model.22/...") and only the
                   tail tells them apart; Conv -> BatchNorm -> Relu in each.

Deterministic: fixed names, weights from a formula, no timestamps."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32 = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits, name, extra_opsets=()):
	g = helper.make_graph(nodes, name, inputs, outputs, inits)
	ops = [helper.make_opsetid("", 13)] + [helper.make_opsetid(d, 1) for d in extra_opsets]
	m = helper.make_model(g, opset_imports=ops, producer_name="fusiondbg-tests")
	m.ir_version = 7
	return m


def many_fired():
	nodes, inits, x, c = [], [], "x", 4
	for i in range(320):
		n = "b%d" % i
		inits.append(numpy_helper.from_array(np.full((c, c, 1, 1), 0.01, np.float32), n + "_w"))
		nodes.append(helper.make_node("Conv", [x, n + "_w"], [n + "_c"], name=n + "_conv", kernel_shape=[1, 1]))
		for p, v in (("s", 1.0), ("b", 0.0), ("m", 0.0), ("v", 1.0)):
			inits.append(numpy_helper.from_array(np.full((c,), v, np.float32), n + "_" + p))
		nodes.append(helper.make_node("BatchNormalization", [n + "_c", n + "_s", n + "_b", n + "_m", n + "_v"],
		                              [n + "_bn"], name=n + "_bn", epsilon=1e-5))
		act = "Relu" if i % 16 else "Sigmoid"   # every sixteenth block: 20 of 320
		nodes.append(helper.make_node(act, [n + "_bn"], [n + "_a"], name=n + "_act"))
		x = n + "_a"
	shape = [1, c, 8, 8]
	return model(nodes, [helper.make_tensor_value_info("x", F32, shape)],
	             [helper.make_tensor_value_info(x, F32, shape)], inits, "many_fired")


def conv1d(nodes, inits, name, x, c):
	inits.append(numpy_helper.from_array(np.full((c, c, 3), 0.01, np.float32), name + "_w"))
	nodes.append(helper.make_node("Conv", [x, name + "_w"], [name + "_out"], name=name, kernel_shape=[3], pads=[1, 1]))
	return name + "_out"


def vad1d():
	nodes, inits, x, c = [], [], "x", 16
	for i in range(3):
		x = conv1d(nodes, inits, "enc%d" % i, x, c)
	# a vendor's activations: onnxruntime's FastGelu under another domain, a lower-case "relu"
	nodes.append(helper.make_node("FastGelu", [x], ["act"], name="act", domain="com.acme"))
	nodes.append(helper.make_node("relu", ["act"], ["act2"], name="act2", domain="com.acme"))
	shape = [1, c, 64]

	def body(tag):
		bn, bi = [], []
		y = conv1d(bn, bi, tag + "_conv", "act2", c)
		return helper.make_graph(bn, tag, [], [helper.make_tensor_value_info(y, F32, shape)], bi)
	inits.append(numpy_helper.from_array(np.array(True), "cond"))
	nodes.append(helper.make_node("If", ["cond"], ["y"], name="state_if", then_branch=body("then"),
	                              else_branch=body("else")))
	return model(nodes, [helper.make_tensor_value_info("x", F32, shape)],
	             [helper.make_tensor_value_info("y", F32, shape)], inits, "vad1d", extra_opsets=["com.acme"])


def inlined_if():
	c, shape = 8, [1, 8, 16, 16]
	nodes, inits = [], []

	def block(bn, bi, prefix, x, i):
		n = "%s/model.22/cv%d/cv%d.%d/conv/Conv" % (prefix, i // 2, i // 2, i % 2)
		bi.append(numpy_helper.from_array(np.full((c, c, 1, 1), 0.01, np.float32), n + "_w"))
		bn.append(helper.make_node("Conv", [x, n + "_w"], [n + "_out"], name=n, kernel_shape=[1, 1]))
		m = n.replace("/conv/Conv", "/bn/BatchNormalization")
		for p, v in (("s", 1.0), ("b", 0.0), ("m", 0.0), ("v", 1.0)):
			bi.append(numpy_helper.from_array(np.full((c,), v, np.float32), m + "_" + p))
		bn.append(helper.make_node("BatchNormalization", [n + "_out"] + [m + "_" + p for p in "sbmv"], [m + "_out"],
		                           name=m))
		a = n.replace("/conv/Conv", "/act/Relu")
		bn.append(helper.make_node("Relu", [m + "_out"], [a + "_out"], name=a))
		return a + "_out"

	def body(tag):
		bn, bi = [], []
		prefix = "If_0_%s_branch__Inline_0_" % tag
		y = "x"
		for i in range(4):
			y = block(bn, bi, prefix, y, i)
		return helper.make_graph(bn, tag, [], [helper.make_tensor_value_info(y, F32, shape)], bi)
	inits.append(numpy_helper.from_array(np.array(True), "cond"))
	nodes.append(helper.make_node("If", ["cond"], ["y"], name="If_0", then_branch=body("then"),
	                              else_branch=body("else")))
	return model(nodes, [helper.make_tensor_value_info("x", F32, shape)],
	             [helper.make_tensor_value_info("y", F32, shape)], inits, "inlined_if")


def main(argv):
	out = argv[1]
	for name, make in (("many_fired", many_fired), ("vad1d", vad1d), ("inlined_if", inlined_if)):
		m = make()
		onnx.checker.check_model(m)
		onnx.save(m, "%s/%s.onnx" % (out, name))


if __name__ == "__main__":
	main(sys.argv)
