#!/usr/bin/python3
"""make_search_models.py — models and rules whose match search is
adversarial (fusiondbg(1), THE SEARCH BUDGET), written to tests/data/search/
with deterministic bytes, or at other sizes into another directory (make
bench uses the committed ones):
  chain.onnx            CHAIN Relu nodes in a row
  optional_K.yaml       Relu, then K optional Relus, then a Sigmoid the chain
                        never has: every way of taking or leaving the optional
                        ops fails at the end (2^K paths per anchor unmemoised)
  lattice.onnx          LEVELS levels of two Adds, each reading both Adds of
                        the level before: every Add feeds two (2^depth paths)
  lattice_K.yaml        a plain chain of K Adds: from an anchor too deep for
                        K more Adds, every consumer path fails, none completes
  fan_out_from_op.yaml  a Conv and 18 Relus, each reading op 0 (from_op),
                        on tests/data/lang/fan_out.onnx's Conv read by 17
                        Relus: which Relus were taken matters to the rest, so
                        the states are the subsets of the Relus (2^17) and the
                        search budget ends the attempt
  fans.onnx             FANS Sigmoids of one input, each read by 17 Relus
  fans_from_op.yaml     a Sigmoid and 18 Relus reading it: every attempt runs
                        out of steps, and the run's shared steps run out too
Usage: make_search_models.py [OUT_DIR [CHAIN LEVELS FANS]]"""
import os
import sys

import onnx
from onnx import TensorProto, helper

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "search")
CHAIN = int(sys.argv[2]) if len(sys.argv) > 2 else 80
LEVELS = int(sys.argv[3]) if len(sys.argv) > 3 else 24
FANS = int(sys.argv[4]) if len(sys.argv) > 4 else 32
F32 = TensorProto.FLOAT


def save(name, nodes, inputs, outputs):
	g = helper.make_graph(nodes, name, inputs, outputs)
	m = helper.make_model(g, producer_name="fusiondbg-tests", opset_imports=[helper.make_opsetid("", 13)])
	m.ir_version = 7
	onnx.save(m, os.path.join(OUT, name + ".onnx"))


def chain(n):
	nodes, x = [], "x"
	for i in range(n):
		nodes.append(helper.make_node("Relu", [x], ["r%d" % i], name="relu%d" % i))
		x = "r%d" % i
	io = lambda name: helper.make_tensor_value_info(name, F32, [1, 8])
	save("chain", nodes, [io("x")], [io(x)])


def lattice(levels):
	nodes, a, b = [], "x", "y"
	for k in range(levels):
		nodes.append(helper.make_node("Add", [a, b], ["a%d" % k], name="add_a%d" % k))
		nodes.append(helper.make_node("Add", [a, b], ["b%d" % k], name="add_b%d" % k))
		a, b = "a%d" % k, "b%d" % k
	io = lambda name: helper.make_tensor_value_info(name, F32, [1, 8])
	save("lattice", nodes, [io("x"), io("y")], [io(a), io(b)])


def fans(n):
	nodes, outs = [], []
	for k in range(n):
		nodes.append(helper.make_node("Sigmoid", ["x"], ["s%d" % k], name="sigmoid%d" % k))
		for j in range(17):
			outs.append("s%d_r%d" % (k, j))
			nodes.append(helper.make_node("Relu", ["s%d" % k], [outs[-1]], name="relu%d_%d" % (k, j)))
	io = lambda name: helper.make_tensor_value_info(name, F32, [1, 8])
	save("fans", nodes, [io("x")], [io(o) for o in outs])


def rule(fname, name, ops, comment):
	with open(os.path.join(OUT, fname), "w") as f:
		f.write("".join("# %s\n" % line for line in comment))
		f.write('version: "1.0"\nname: "%s"\npriority: 100\nmatch:\n  ops:\n' % name)
		for op in ops:
			f.write("    - " + op + "\n")
		f.write('rewrite:\n  target_op: "Fused%s"\n' % name)


def optional(k):
	ops = ['type: "Relu"'] + ['{type: "Relu", optional: true}'] * k + ['type: "Sigmoid"']
	rule("optional_%d.yaml" % k, "Optional_%d" % k, ops,
	     ["A Relu, %d optional Relus and a Sigmoid the chain never has (make_search_models.py)." % k])


def lattice_rule(k):
	rule("lattice_%d.yaml" % k, "Lattice_%d" % k, ['type: "Add"'] * k,
	     ["A chain of %d Adds on the lattice (make_search_models.py)." % k])


def fan_out_from_op():
	ops = ['type: "Conv"'] + ['{type: "Relu", input_sources: {input0: {from_op: 0}}}'] * 18
	rule("fan_out_from_op.yaml", "Fan_Out_From_Op", ops,
	     ["A Conv and 18 Relus reading it, on tests/data/lang/fan_out.onnx (17 Relus)",
	      "(make_search_models.py)."])


def fans_from_op():
	ops = ['type: "Sigmoid"'] + ['{type: "Relu", input_sources: {input0: {from_op: 0}}}'] * 18
	rule("fans_from_op.yaml", "Fans_From_Op", ops,
	     ["A Sigmoid and 18 Relus reading it, on fans.onnx (17 Relus each) (make_search_models.py)."])


os.makedirs(OUT, exist_ok=True)
chain(CHAIN)
lattice(LEVELS)
for k in (18, 24):
	optional(k)
lattice_rule(24)
fan_out_from_op()
fans(FANS)
fans_from_op()
