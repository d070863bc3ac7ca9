#!/usr/bin/python3
"""make_hostile_names.py [DIR] — models and rules whose names are hostile,
made from samples/conv_add_silu.onnx (three Conv -> Add -> Sigmoid -> Mul
blocks that Conv_Add_SiLU_Fusion fuses). Default DIR: tests/data/hostile.
Deterministic: running it again gives the same bytes.

  long_names.onnx      every node and tensor name about 300 bytes (the
                       fused members' names do not fit any line)
  hostile_names.onnx   node, tensor, graph and producer names carrying an
                       ESC sequence, LF with a forged "error:" line, \\x01,
                       a trailing backslash, \\" and invalid UTF-8 (patched
                       into the serialized bytes: protobuf will not write it)
  hostile_rule.yaml    Conv_Add_SiLU_Fusion renamed with the same bytes that
                       YAML can carry (valid UTF-8 only)
"""
import os
import sys

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLE = os.path.join(ROOT, "samples", "conv_add_silu.onnx")

# what each hostile name carries, by the original name; "\xff" is patched
# in afterwards from the placeholder INVALIDUTF8 (the same length, 11 bytes)
PLACEHOLDER = "INVALIDUTF8"
PATCH = b"\xff\xfe\xc3(\xe2\x82\x80\xed\xa0\x80!"   # 11 bytes, none of them valid here
assert len(PATCH) == len(PLACEHOLDER)
HOSTILE = {
    "conv1": "conv1\x1b[31mRED\x1b]0;owned\x07\x1b[0m",
    "add1": "add1\nerror: forged line",
    "sigmoid1": "sig\x01moid1\x7f",
    "mul1": "mul1\\",
    "conv2": 'conv2\\"quoted\\',
    "add2": "add2" + PLACEHOLDER,
    "sigmoid2": "sigmoid2\u202eevil\r",
    "mul2": "mul2\t\x9b31m",
}


def rename(model, fn):
    g = model.graph
    names = {}
    for n in g.node:
        n.name = fn(n.name)
    for coll in (g.input, g.output, g.value_info):
        for v in coll:
            names[v.name] = fn(v.name)
    for t in g.initializer:
        names[t.name] = fn(t.name)
    for n in g.node:
        for i, x in enumerate(n.input):
            n.input[i] = names.setdefault(x, fn(x))
        for i, x in enumerate(n.output):
            n.output[i] = names.setdefault(x, fn(x))
    for coll in (g.input, g.output, g.value_info):
        for v in coll:
            v.name = names[v.name]
    for t in g.initializer:
        t.name = names[t.name]


def long_name(name):
    return "n" * 150 + "_" + name + "_" + "z" * 150


def hostile(name):
    for k, v in HOSTILE.items():
        if name == k:
            return v
        if name.startswith(k + "_"):   # its tensors: conv1_out, add2_b
            return v + name[len(k):]
    return name


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "data", "hostile")
    os.makedirs(out, exist_ok=True)
    m = onnx.load(SAMPLE)
    rename(m, long_name)
    m.graph.name = "g" * 300
    with open(os.path.join(out, "long_names.onnx"), "wb") as f:
        f.write(m.SerializeToString())

    m = onnx.load(SAMPLE)
    rename(m, hostile)
    m.graph.name = "graph\x1b[2J" + PLACEHOLDER
    m.producer_name = "producer\x1b[1mbold\nerror: forged\\"
    m.doc_string = "doc\x1b[5m"
    data = m.SerializeToString().replace(PLACEHOLDER.encode(), PATCH)
    with open(os.path.join(out, "hostile_names.onnx"), "wb") as f:
        f.write(data)

    with open(os.path.join(ROOT, "rules", "conv_add_silu_fusion.yaml"), encoding="utf-8") as f:
        rule = f.read()
    hostile_rule = 'Conv_Add_SiLU\\e[31m\\nerror: forged \\x01 tail\\\\\\" \\u202e end\\\\'
    rule = rule.replace('name: "Conv_Add_SiLU_Fusion"', 'name: "' + hostile_rule + '"', 1)
    assert hostile_rule in rule
    with open(os.path.join(out, "hostile_rule.yaml"), "w", encoding="utf-8") as f:
        f.write(rule)


if __name__ == "__main__":
    main()
