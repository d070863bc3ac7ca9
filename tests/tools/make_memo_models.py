#!/usr/bin/python3
"""make_memo_models.py — small ONNX models where the search's memo of failed
states (src/match/match_memo.c) must key on what a later op reads, written
to tests/data/memo/ with deterministic bytes, each in two node orders
(NAME_ab.onnx and NAME_ba.onnx: the two middle branches swapped) beside
NAME.yaml, the rule it is about. In each, op1 has two candidates; the first
one tried fails at op3, the second matches, and both reach op3 through the
same op2 (op0, a Relu of another input, only anchors the attempt):
  same_value   op3's input1 has the values op1 reads at input1 (same_value_as)
  dtype_same   op3's input1 has the dtype op1 reads at input1 (dtype same_as)
  feeds_taken  op3 is the producer of op2's input0 (feeds): the first path
               took it as op1
  input_reader op1 and op3 read a graph input (source_type param): the first
               path took the one op3 can be
and one that is no order question:
  feeds_self   feeds_taken with one Neg read twice by the Add: the producer
               the feeds names is op1 of the match already
Usage: make_memo_models.py [OUT_DIR]"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "memo")
F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16


def save(name, nodes, inputs, outputs, inits):
	g = helper.make_graph(nodes, name, inputs, outputs, inits)
	m = helper.make_model(g, producer_name="fusiondbg-tests", opset_imports=[helper.make_opsetid("", 13)])
	m.ir_version = 7
	onnx.save(m, os.path.join(OUT, name + ".onnx"))


def vi(name, dtype=F32):
	return helper.make_tensor_value_info(name, dtype, [1, 4])


def const(name, value, dtype=np.float32):
	return numpy_helper.from_array(np.full([4], value, dtype=dtype), name)


def both_orders(name, head, first, second, tail, inputs, outputs, inits):
	save(name + "_ab", head + first + second + tail, inputs, outputs, inits)
	save(name + "_ba", head + second + first + tail, inputs, outputs, inits)


def two_muls(name, c1_dtype):
	"""Relu(y); Mul(x, c1), Mul(x, c2) -> Add -> Mul(c3): c3 is c2 (values and dtype)."""
	n = helper.make_node
	head = [n("Relu", ["y"], ["r"], name="relu")]
	a1 = [n("Mul", ["x", "c1"], ["a1"], name="mul_c1")]
	a2 = [n("Mul", ["x", "c2"], ["a2"], name="mul_c2")]
	tail = [n("Add", ["a1", "a2"], ["s"], name="add"), n("Mul", ["s", "c3"], ["z"], name="mul_c3")]
	inits = [const("c1", 0.5, c1_dtype), const("c2", 2.0), const("c3", 2.0)]
	both_orders(name, head, a1, a2, tail, [vi("x"), vi("y")], [vi("r"), vi("z")], inits)


def feeds_taken():
	n = helper.make_node
	head = [n("Relu", ["x"], ["r"], name="relu")]
	both_orders("feeds_taken", head, [n("Neg", ["r"], ["n1"], name="neg1")], [n("Neg", ["r"], ["n2"], name="neg2")],
	            [n("Add", ["n1", "n2"], ["s"], name="add")], [vi("x")], [vi("s")], [])


def input_reader():
	n = helper.make_node
	head = [n("Relu", ["y"], ["r"], name="relu")]
	both_orders("input_reader", head, [n("Neg", ["x"], ["na"], name="neg_x")], [n("Abs", ["x"], ["nb"], name="abs_x")],
	            [n("Add", ["na", "nb"], ["s"], name="add")], [vi("x"), vi("y")], [vi("r"), vi("s")], [])


def feeds_self():
	n = helper.make_node
	save("feeds_self", [n("Relu", ["x"], ["r"], name="relu"), n("Neg", ["r"], ["n"], name="neg"),
	                    n("Add", ["n", "n"], ["s"], name="add")], [vi("x")], [vi("s")], [])


os.makedirs(OUT, exist_ok=True)
two_muls("same_value", np.float32)
two_muls("dtype_same", np.float16)
feeds_taken()
input_reader()
feeds_self()
