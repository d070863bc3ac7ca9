#!/usr/bin/python3
"""make_compare_models.py — small models for tests/cli/test_compare.sh, written
to tests/data/compare/ with deterministic bytes:
  noops.onnx          ReduceMax -> Sub(., 0) -> Relu -> Dropout -> Relu -> Cast(to
                      float) -> Relu -> Identity -> Relu: each no-op between two
                      nodes onnxruntime keeps (its NoopElimination, Dropout,
                      Identity and Cast eliminations remove them; nothing is fused)
  dup_init.onnx       Add(x, b) -> Relu, b an initializer
  dup_init_same.onnx  the same graph as a compiler may write it optimized, b
                      listed twice, both copies identical (onnxruntime does so
                      for initializers of a model with If)
  dup_init_diff.onnx  b listed twice with different values
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "compare")


def save(name, nodes, inits, x_shape):
	g = h.make_graph(nodes, name, [h.make_tensor_value_info("x", T.FLOAT, x_shape)],
	                 [h.make_tensor_value_info("y", T.FLOAT, None)], inits)
	m = h.make_model(g, producer_name="fusiondbg-tests", opset_imports=[h.make_opsetid("", 17)])
	m.ir_version = 8
	onnx.save(m, os.path.join(OUT, name + ".onnx"))


def noops():
	nodes = [h.make_node("ReduceMax", ["x"], ["m"], name="ReduceMax_24", keepdims=1, axes=[2]),
	         h.make_node("Sub", ["m", "zero"], ["s"], name="Sub_23"),
	         h.make_node("Relu", ["s"], ["r1"], name="Relu_1"),
	         h.make_node("Dropout", ["r1"], ["d"], name="Dropout_1"),
	         h.make_node("Relu", ["d"], ["r2"], name="Relu_2"),
	         h.make_node("Cast", ["r2"], ["c"], name="Cast_1", to=T.FLOAT),
	         h.make_node("Relu", ["c"], ["r3"], name="Relu_3"),
	         h.make_node("Identity", ["r3"], ["i"], name="Identity_1"),
	         h.make_node("Relu", ["i"], ["y"], name="Relu_4")]
	save("noops", nodes, [nh.from_array(np.array(0, dtype=np.float32), "zero")], [1, 8, 4])


def dup_init():
	nodes = [h.make_node("Add", ["x", "b"], ["a"], name="add"), h.make_node("Relu", ["a"], ["y"], name="relu")]
	b = np.arange(8, dtype=np.float32) / 8
	save("dup_init", nodes, [nh.from_array(b, "b")], [1, 8])
	save("dup_init_same", nodes, [nh.from_array(b, "b"), nh.from_array(b, "b")], [1, 8])
	save("dup_init_diff", nodes, [nh.from_array(b, "b"), nh.from_array(b + 1, "b")], [1, 8])


os.makedirs(OUT, exist_ok=True)
noops()
dup_init()
