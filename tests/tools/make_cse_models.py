#!/usr/bin/env python3
"""make_cse_models.py — the small models of tests/data/cse for
tests/unit/test_cse.c (common-subexpression elimination, src/cse):

  cse_merge.onnx   x → three Shapes of x (two equal, one with start=1), two
                   Relus of x, two Dropouts of x, two RandomUniformLikes of
                   x, a Relu of x that is a graph output, and two
                   Gathers of the two equal Shapes with one index tensor:
                   the equal Shapes, Relus and then Gathers merge; the Shape
                   with other attributes, the Dropouts, the random ops and
                   the graph output do not. onnxruntime keeps relu_b, shape_b
                   and gather_b (its topological order walks up from the last
                   leaf): tests/unit/test_cse.c.

usage: make_cse_models.py OUTDIR"""
import os
import sys

import onnx
from onnx import TensorProto, helper


def cse_merge():
    n = helper.make_node
    nodes = [
        n("Shape", ["x"], ["s0"], name="shape_a"),
        n("Shape", ["x"], ["s1"], name="shape_b"),
        n("Shape", ["x"], ["s2"], name="shape_start", start=1),
        n("Gather", ["s0", "idx"], ["g0"], name="gather_a", axis=0),
        n("Gather", ["s1", "idx"], ["g1"], name="gather_b", axis=0),
        n("Concat", ["g0", "g1"], ["gg"], name="concat_g", axis=0),
        n("Relu", ["x"], ["r0"], name="relu_a"),
        n("Relu", ["x"], ["r1"], name="relu_b"),
        n("Relu", ["x"], ["r_out"], name="relu_out"),
        n("Add", ["r0", "r1"], ["sum"], name="add_r"),
        n("Dropout", ["x"], ["d0"], name="drop_a"),
        n("Dropout", ["x"], ["d1"], name="drop_b"),
        n("Add", ["d0", "d1"], ["dsum"], name="add_d"),
        n("RandomUniformLike", ["x"], ["u0"], name="rand_a"),
        n("RandomUniformLike", ["x"], ["u1"], name="rand_b"),
        n("Add", ["u0", "u1"], ["usum"], name="add_u"),
    ]
    g = helper.make_graph(
        nodes, "cse_merge",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in ("sum", "r_out", "dsum", "usum")]
        + [helper.make_tensor_value_info("gg", TensorProto.INT64, None),
           helper.make_tensor_value_info("s2", TensorProto.INT64, None)],
        [helper.make_tensor("idx", TensorProto.INT64, [1], [1])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    onnx.save(cse_merge(), os.path.join(out, "cse_merge.onnx"))


if __name__ == "__main__":
    main()
