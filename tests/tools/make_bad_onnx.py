#!/usr/bin/python3
"""make_bad_onnx.py [DIR] — writes the small ONNX files the loader tests use
(default DIR: tests/data/bad_onnx). Deterministic: running it again gives the
same bytes. Files named ok_*.onnx must load; every other file must fail with
the one-line error that tests/unit/test_onnx_load.c expects.
"""
import os
import random
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 13)]


def model(graph, ir_version=7, opsets=OPSET):
    m = helper.make_model(graph, opset_imports=opsets, producer_name="make_bad_onnx")
    m.ir_version = ir_version
    return m


def vi(name, dtype=TensorProto.FLOAT, shape=(2, 3)):
    return helper.make_tensor_value_info(name, dtype, list(shape) if shape is not None else None)


def save(out, name, m):
    with open(os.path.join(out, name), "wb") as f:
        f.write(m.SerializeToString())


def write_bytes(out, name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def cycle():
    # a: Add(x, c) -> b ; b2: Relu(b) -> c : b and c feed each other
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="entry"),
        helper.make_node("Add", ["r", "c"], ["b"], name="add_loop"),
        helper.make_node("Relu", ["b"], ["c"], name="relu_loop"),
    ]
    return model(helper.make_graph(nodes, "cycle", [vi("x")], [vi("b")]))


def dangling():
    nodes = [helper.make_node("Conv", ["x", "missing"], ["y"], name="conv")]
    return model(helper.make_graph(nodes, "dangling", [vi("x", shape=(1, 3, 8, 8))],
                                   [vi("y", shape=None)]))


def duplicate_output():
    nodes = [
        helper.make_node("Relu", ["x"], ["y"], name="a"),
        helper.make_node("Relu", ["x"], ["y"], name="b"),
    ]
    return model(helper.make_graph(nodes, "dup", [vi("x")], [vi("y")]))


def self_consume():
    nodes = [helper.make_node("Add", ["x", "y"], ["y"], name="self")]
    return model(helper.make_graph(nodes, "self", [vi("x")], [vi("y")]))


def negative_dim():
    x = vi("x", shape=(2, 3))
    x.type.tensor_type.shape.dim[1].dim_value = -3
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="r")]
    return model(helper.make_graph(nodes, "neg", [x], [vi("y")]))


def no_graph():
    m = onnx.ModelProto()
    m.ir_version = 7
    m.opset_import.extend(OPSET)
    m.producer_name = "make_bad_onnx"
    return m


def deep_nesting(levels):
    """If inside If inside If ... levels deep (then branches nest, else
    branches are leaves), every level reading x and cond from outside."""
    body = helper.make_graph([helper.make_node("Identity", ["x"], ["o0"], name="leaf")],
                             "leaf", [], [vi("o0")])
    for k in range(1, levels + 1):
        leaf = helper.make_graph([helper.make_node("Identity", ["x"], ["e%d" % k], name="else%d" % k)],
                                 "else%d" % k, [], [vi("e%d" % k)])
        node = helper.make_node("If", ["cond"], ["o%d" % k], name="if%d" % k,
                                then_branch=body, else_branch=leaf)
        body = helper.make_graph([node], "level%d" % k, [], [vi("o%d" % k)])
    g = helper.make_graph(body.node, "deep", [vi("x"), vi("cond", TensorProto.BOOL, ())],
                          [vi("o%d" % levels)])
    return model(g)


def subgraphs():
    """Loop whose body holds an If; the branches read main-graph tensors w and
    x, so the body must capture them on the branches' behalf."""
    then_g = helper.make_graph([helper.make_node("Mul", ["v", "w"], ["t_out"], name="then_mul")],
                               "then_g", [], [vi("t_out")])
    else_g = helper.make_graph([helper.make_node("Sub", ["v", "x"], ["e_out"], name="else_sub")],
                               "else_g", [], [vi("e_out")])
    body = helper.make_graph(
        [
            helper.make_node("If", ["cond_in"], ["r"], name="branch",
                             then_branch=then_g, else_branch=else_g),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
        ],
        "loop_body",
        [vi("iter", TensorProto.INT64, ()), vi("cond_in", TensorProto.BOOL, ()), vi("v")],
        [vi("cond_out", TensorProto.BOOL, ()), vi("r")],
    )
    w = helper.make_tensor("w_value", TensorProto.FLOAT, [2, 3], [1, 2, 3, 4, 5, 6])
    nodes = [
        helper.make_node("Constant", [], ["w"], name="weights", value=w),
        helper.make_node("Add", ["x", "w"], ["a"], name="add"),
        helper.make_node("Loop", ["trip", "cond", "a"], ["y"], name="loop", body=body),
        helper.make_node("Relu", ["y"], ["z"]),  # unnamed: gets "Relu_3"
    ]
    g = helper.make_graph(nodes, "main",
                          [vi("x"), vi("trip", TensorProto.INT64, ()), vi("cond", TensorProto.BOOL, ())],
                          [vi("z")])
    return model(g)


def attrs():
    """Every attribute kind, Constant nodes of each value form, typed and raw
    tensor data, an external initializer and one too big to decode."""
    half = numpy_helper.from_array(np.array([1.0, -2.0, 0.5], dtype=np.float16), "half")
    i32 = helper.make_tensor("i32", TensorProto.INT32, [2], [7, -1])
    boolean = numpy_helper.from_array(np.array([True, False, True]), "bools")
    sparse = helper.make_sparse_tensor(
        helper.make_tensor("sv", TensorProto.FLOAT, [2], [1.0, 2.0]),
        helper.make_tensor("si", TensorProto.INT64, [2], [0, 5]), [2, 4])
    leaf = helper.make_graph([helper.make_node("Identity", ["x"], ["gx"], name="g_id")], "g_attr", [],
                             [vi("gx")])
    custom = helper.make_node(
        "AllAttrs", ["x"], ["c_out"], name="custom", domain="test.fusiondbg",
        f=1.5, i=-7, s=b"hello", t=half, floats=[1.0, 2.5], ints=[3, 4, 5],
        strings=[b"a", b"bc"], tensors=[i32, boolean], g=leaf)
    custom.attribute.append(helper.make_attribute("sp", sparse))
    int8 = numpy_helper.from_array(np.array([-1, 2, -128], dtype=np.int8), "i8")
    bf16 = helper.make_tensor("bf", TensorProto.BFLOAT16, [2], [1.0, -2.0])  # bits in int32_data
    u64 = helper.make_tensor("u64", TensorProto.UINT64, [2], [5, 9])
    dbl = helper.make_tensor("dbl", TensorProto.DOUBLE, [1], [0.25])
    i64raw = numpy_helper.from_array(np.array([[1, -2], [3, 4]], dtype=np.int64), "i64raw")
    nodes = [
        custom,
        helper.make_node("Constant", [], ["k_ints"], name="k_ints", value_ints=[1, 2, 3]),
        helper.make_node("Constant", [], ["k_float"], name="k_float", value_float=2.5),
        helper.make_node("Constant", [], ["k_int8"], name="k_int8", value=int8),
        helper.make_node("Constant", [], ["k_bf16"], name="k_bf16", value=bf16),
        helper.make_node("Constant", [], ["k_u64"], name="k_u64", value=u64),
        helper.make_node("Constant", [], ["k_dbl"], name="k_dbl", value=dbl),
        helper.make_node("Constant", [], ["k_i64raw"], name="k_i64raw", value=i64raw),
        helper.make_node("Conv", ["x4", "ext_w"], ["conv_out"], name="conv"),
        helper.make_node("Add", ["small", "small"], ["sum"], name="sum"),
        helper.make_node("Cast", ["big"], ["big_f"], name="cast", to=TensorProto.FLOAT),
    ]
    ext = TensorProto()
    ext.name, ext.data_type = "ext_w", TensorProto.FLOAT
    ext.dims.extend([8, 3, 3, 3])
    ext.data_location = TensorProto.EXTERNAL
    entry = ext.external_data.add()
    entry.key, entry.value = "location", "weights_not_shipped.bin"
    small = helper.make_tensor("small", TensorProto.FLOAT, [2], [0.5, -1.5])
    big = numpy_helper.from_array(np.arange(5000, dtype=np.uint8), "big")
    g = helper.make_graph(nodes, "attrs",
                          [vi("x"), vi("x4", shape=("batch", 3, 16, 16))],
                          [vi("c_out", shape=None), vi("conv_out", shape=None), vi("sum", shape=None),
                           vi("big_f", shape=None)] +
                          [vi(n, shape=None) for n in ("k_ints", "k_float", "k_int8", "k_bf16", "k_u64",
                                                       "k_dbl", "k_i64raw")],
                          initializer=[ext, small, big])
    return model(g, opsets=OPSET + [helper.make_opsetid("test.fusiondbg", 1)])


def ir_old():
    """IR 2 (outside 3..10) loads with a warning; initializers listed as inputs."""
    w = helper.make_tensor("w", TensorProto.FLOAT, [2, 3], [1, 2, 3, 4, 5, 6])
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    g = helper.make_graph(nodes, "old", [vi("x"), vi("w")], [vi("y")], initializer=[w])
    return model(g, ir_version=2)


def unsorted():
    """Nodes out of topological order, with an independent node: the stable
    order is file order wherever the edges allow (side_relu stays last)."""
    nodes = [
        helper.make_node("Relu", ["t2"], ["out"], name="last_relu"),
        helper.make_node("Relu", ["x"], ["t1"], name="first_relu"),
        helper.make_node("Add", ["t1", "x"], ["t2"], name="middle_add"),
        helper.make_node("Relu", ["x"], ["side"], name="side_relu"),
    ]
    return model(helper.make_graph(nodes, "unsorted", [vi("x")], [vi("out"), vi("side")]))


def body_dangling():
    """A branch reads a name that no graph produces."""
    then_g = helper.make_graph([helper.make_node("Add", ["x", "nowhere"], ["t"], name="then_add")],
                               "then_g", [], [vi("t")])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"], name="else_id")],
                               "else_g", [], [vi("e")])
    nodes = [helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)]
    return model(helper.make_graph(nodes, "main", [vi("x"), vi("cond", TensorProto.BOOL, ())], [vi("y")]))


def capture_cycle():
    """A Loop body reads 'after', which is computed from the Loop's own
    output: a cycle that only the outer-scope read closes."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["v", "after"], ["v_out"], name="body_add"),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
        ],
        "loop_body",
        [vi("iter", TensorProto.INT64, ()), vi("cond_in", TensorProto.BOOL, ()), vi("v")],
        [vi("cond_out", TensorProto.BOOL, ()), vi("v_out")],
    )
    nodes = [
        helper.make_node("Loop", ["trip", "cond", "x"], ["y"], name="loop", body=body),
        helper.make_node("Relu", ["y"], ["after"], name="after_relu"),
    ]
    g = helper.make_graph(nodes, "main",
                          [vi("x"), vi("trip", TensorProto.INT64, ()), vi("cond", TensorProto.BOOL, ())],
                          [vi("after")])
    return model(g)


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "bad_onnx")
    os.makedirs(out, exist_ok=True)
    write_bytes(out, "empty.onnx", b"")
    write_bytes(out, "garbage.onnx", bytes(random.Random(20261129).getrandbits(8) for _ in range(4096)))
    write_bytes(out, "png_renamed.onnx",
                b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00")
    save(out, "cycle.onnx", cycle())
    save(out, "dangling_input.onnx", dangling())
    save(out, "duplicate_output.onnx", duplicate_output())
    save(out, "self_consume.onnx", self_consume())
    save(out, "negative_dim.onnx", negative_dim())
    save(out, "no_graph.onnx", no_graph())
    save(out, "deep_nesting.onnx", deep_nesting(70))
    good = subgraphs().SerializeToString()
    write_bytes(out, "truncated.onnx", good[: len(good) // 2])
    save(out, "ok_subgraphs.onnx", subgraphs())
    save(out, "ok_deep_nesting.onnx", deep_nesting(20))
    save(out, "ok_attrs.onnx", attrs())
    save(out, "ok_ir2.onnx", ir_old())
    save(out, "ok_unsorted.onnx", unsorted())
    save(out, "body_dangling.onnx", body_dangling())
    save(out, "capture_cycle.onnx", capture_cycle())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
