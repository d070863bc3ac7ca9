#!/usr/bin/python3
"""make_match_models.py — tiny ONNX models for the matcher's tests that the
samples do not cover (written to tests/data/match/, deterministic bytes):
  shape_mismatch.onnx  Conv -> Add whose second input's declared shape does
                       not broadcast with the Conv output (FD-CF02)
  unknown_shape.onnx   Conv -> BN -> Relu on an input of unknown rank, so
                       sizes cannot be measured (FD-WN02)
  shape_constant.onnx  Shape -> Gather -> Cast of x[1,8,4,4] (a constant:
                       the shape is static) and Shape of s[batch,8,4,4] (not,
                       until --dim batch=N binds it)
"""
import os
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "match")


def w(name, shape):
	n = int(np.prod(shape))
	return numpy_helper.from_array((np.arange(n) % 7 / 70.0).reshape(shape).astype(np.float32), name)


def save(graph, name):
	m = helper.make_model(graph, producer_name="fusiondbg-tests", opset_imports=[helper.make_opsetid("", 13)])
	m.ir_version = 7
	onnx.save(m, os.path.join(OUT, name))


def shape_mismatch():
	nodes = [
		helper.make_node("Conv", ["x", "w"], ["conv_out"], name="conv1", kernel_shape=[1, 1]),
		helper.make_node("Add", ["conv_out", "r"], ["y"], name="add1"),
	]
	g = helper.make_graph(nodes, "shape_mismatch",
		[helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 4, 4]),
		 helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 5, 4, 4])],
		[helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
		[w("w", [8, 4, 1, 1])],
		value_info=[helper.make_tensor_value_info("conv_out", TensorProto.FLOAT, [1, 8, 4, 4])])
	save(g, "shape_mismatch.onnx")


def unknown_shape():
	nodes = [
		helper.make_node("Conv", ["x", "w"], ["conv_out"], name="conv1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
		helper.make_node("BatchNormalization", ["conv_out", "s", "b", "m", "v"], ["bn_out"], name="bn1"),
		helper.make_node("Relu", ["bn_out"], ["y"], name="relu1"),
	]
	g = helper.make_graph(nodes, "unknown_shape",
		[helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
		[helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
		[w("w", [8, 4, 3, 3]), w("s", [8]), w("b", [8]), w("m", [8]), w("v", [8])])
	save(g, "unknown_shape.onnx")


def shape_constant():
	i64 = TensorProto.INT64
	nodes = [
		helper.make_node("Shape", ["x"], ["sx"], name="shape_x"),
		helper.make_node("Gather", ["sx", "one"], ["cx"], name="gather_x", axis=0),
		helper.make_node("Cast", ["cx"], ["cx_f"], name="cast_x", to=TensorProto.FLOAT),
		helper.make_node("Shape", ["s"], ["ss"], name="shape_s"),
	]
	g = helper.make_graph(nodes, "shape_constant",
		[helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 4, 4]),
		 helper.make_tensor_value_info("s", TensorProto.FLOAT, ["batch", 8, 4, 4])],
		[helper.make_tensor_value_info("cx_f", TensorProto.FLOAT, []),
		 helper.make_tensor_value_info("ss", i64, [4])],
		[numpy_helper.from_array(np.array(1, np.int64), "one")])
	save(g, "shape_constant.onnx")


os.makedirs(OUT, exist_ok=True)
shape_mismatch()
unknown_shape()
shape_constant()
