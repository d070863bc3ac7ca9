#!/usr/bin/python3
"""make_bad_input.py [DIR] — writes the bad-input matrix files that
tests/data/bad_onnx (make_bad_onnx.py) does not already have (default
DIR: tests/data/bad_input). Deterministic: running it again gives the same
bytes. tests/cli/test_bad_input.sh says what each must do.

Files:
  huge_length_graph.onnx    ModelProto.graph (field 7) whose length claims 4 GiB
  huge_length_raw.onnx      an initializer's raw_data claiming 2 GiB, then EOF
  huge_count_varint.onnx    a 10-byte varint length (2^63): beyond any size_t
  zero_dim.onnx             a [0, 3] input through Relu (valid: zero bytes)
  overflow_dims.onnx        a 2^40 x 2^40 x 2^40 float input (byte size saturates)
  overflow_initializer.onnx an initializer whose dims multiply past 2^64
  negative_init_dim.onnx    an initializer with dim -1
  dim_beyond_int64.onnx     a dim_value varint of 2^64 - 1 (reads as -1)
  duplicate_node_names.onnx two nodes both named 'dup' (valid ONNX, loads)
  duplicate_inputs.onnx     graph input 'x' declared twice
  duplicate_initializer.onnx initializer 'w' twice
  self_loop_pair.onnx       node 'a' reads its own output 'y' plus a second node
  deep_nesting_200.onnx     If nested 200 deep (limit is 64)
  many_nodes_cycle.onnx     a 1000-node ring (every node waits on the last)
  rules_not_utf8.yaml       a rule file with a Latin-1 byte in a value
  alias_bomb_small.yaml     9 levels of 10 aliases each: 10^9 values if expanded
  wrong_types.yaml          priority is a list, ops is a string
  tabs.yaml                 indentation by tab
  unknown_keys.yaml         a valid rule with two unknown keys (a warning)
"""
import os
import sys

import onnx
from onnx import TensorProto, helper

OPSET = [helper.make_opsetid("", 13)]


def model(graph, ir_version=7):
    m = helper.make_model(graph, opset_imports=OPSET, producer_name="make_bad_input")
    m.ir_version = ir_version
    return m


def vi(name, dtype=TensorProto.FLOAT, shape=(2, 3)):
    return helper.make_tensor_value_info(name, dtype, list(shape) if shape is not None else None)


def relu_model(x_shape=(2, 3), name="g"):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="r")]
    return model(helper.make_graph(nodes, name, [vi("x", shape=x_shape)], [vi("y", shape=None)]))


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def huge_length_graph():
    # ir_version 7, then field 7 (graph, length-delimited) claiming 4 GiB
    return key(1, 0) + varint(7) + key(7, 2) + varint(4 << 30) + b"\x0a\x01x"


def huge_length_raw():
    # ir_version 7, a graph whose initializer (GraphProto field 5) claims 2 GiB
    # of bytes (its raw_data, TensorProto field 9, claims 2 GiB too), then EOF
    tensor = key(1, 0) + varint(1) + key(2, 0) + varint(1) + key(8, 2) + varint(1) + b"w" \
        + key(9, 2) + varint(2 << 30) + b"\0\0\0\0"
    graph = key(5, 2) + varint(2 << 30) + tensor
    return key(1, 0) + varint(7) + key(7, 2) + varint(len(graph)) + graph


def huge_count_varint():
    return key(1, 0) + varint(7) + key(7, 2) + varint((1 << 63) - 1 + (1 << 63)) + b"\0"


def zero_dim():
    return relu_model((0, 3), "zero")


def overflow_dims():
    return relu_model((1 << 40, 1 << 40, 1 << 40), "overflow")


def overflow_initializer():
    w = onnx.TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([1 << 40, 1 << 40, 1 << 40])
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return model(helper.make_graph(nodes, "g", [vi("x")], [vi("y", shape=None)], initializer=[w]))


def negative_init_dim():
    w = onnx.TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([2, -1])
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return model(helper.make_graph(nodes, "g", [vi("x")], [vi("y", shape=None)], initializer=[w]))


def dim_beyond_int64():
    m = relu_model()
    m.graph.input[0].type.tensor_type.shape.dim[1].dim_value = -1   # varint 2^64 - 1 on the wire
    return m


def duplicate_node_names():
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="dup"),
        helper.make_node("Relu", ["a"], ["y"], name="dup"),
    ]
    return model(helper.make_graph(nodes, "g", [vi("x")], [vi("y")]))


def duplicate_inputs():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="r")]
    return model(helper.make_graph(nodes, "g", [vi("x"), vi("x")], [vi("y")]))


def duplicate_initializer():
    w = helper.make_tensor("w", TensorProto.FLOAT, [2, 3], [1, 2, 3, 4, 5, 6])
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return model(helper.make_graph(nodes, "g", [vi("x")], [vi("y")], initializer=[w, w]))


def self_loop_pair():
    nodes = [
        helper.make_node("Add", ["x", "y"], ["y"], name="a"),
        helper.make_node("Relu", ["y"], ["z"], name="b"),
    ]
    return model(helper.make_graph(nodes, "g", [vi("x")], [vi("z")]))


def deep_nesting(levels):
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


def ring(n):
    nodes = [helper.make_node("Add", ["x", "t%d" % ((k - 1) % n)], ["t%d" % k], name="n%d" % k)
             for k in range(n)]
    return model(helper.make_graph(nodes, "ring", [vi("x")], [vi("t%d" % (n - 1))]))


RULE = """name: Conv_Relu
priority: 100
match:
  ops:
    - type: Conv2d
    - type: Relu
rewrite:
  target_op: ConvRelu
"""


def alias_bomb():
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for k in range(1, 10):
        prev = "*a%d" % (k - 1)
        lines.append("a%d: &a%d [%s]" % (k, k, ", ".join([prev] * 10)))
    return ("\n".join(lines) + "\nname: bomb\npriority: 1\n").encode()


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "bad_input")
    os.makedirs(out, exist_ok=True)

    def raw(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    def save(name, m):
        raw(name, m.SerializeToString())

    raw("huge_length_graph.onnx", huge_length_graph())
    raw("huge_length_raw.onnx", huge_length_raw())
    raw("huge_count_varint.onnx", huge_count_varint())
    save("zero_dim.onnx", zero_dim())
    save("overflow_dims.onnx", overflow_dims())
    save("overflow_initializer.onnx", overflow_initializer())
    save("negative_init_dim.onnx", negative_init_dim())
    save("dim_beyond_int64.onnx", dim_beyond_int64())
    save("duplicate_node_names.onnx", duplicate_node_names())
    save("duplicate_inputs.onnx", duplicate_inputs())
    save("duplicate_initializer.onnx", duplicate_initializer())
    save("self_loop_pair.onnx", self_loop_pair())
    save("deep_nesting_200.onnx", deep_nesting(200))
    save("many_nodes_cycle.onnx", ring(1000))
    raw("rules_not_utf8.yaml", RULE.replace("ConvRelu", "Conv\xe9Relu").encode("latin-1"))
    raw("alias_bomb_small.yaml", alias_bomb())
    raw("wrong_types.yaml", b"name: Wrong\npriority: [1, 2]\nmatch:\n  ops: Conv2d\n")
    raw("tabs.yaml", RULE.replace("  ops:", "\tops:").encode())
    raw("unknown_keys.yaml", (RULE + "colour: blue\nmatch_extra: 1\n").encode())


if __name__ == "__main__":
    main(sys.argv)
