#!/usr/bin/python3
"""qdq_groups_check.py — ort_groups.py reads onnxruntime's QDQ fusions right.

usage: qdq_groups_check.py --node-modules DIR --cache DIR MODEL...

On each QDQ model (tests/data/qdq): no DequantizeLinear is reported as
constant-folded (onnxruntime's ConstantFolding skips it: the QLinear kernels
consume the weight's DQ); no group has the fused type DequantizeLinear (a
copy EnsureUniqueDQForNodeUnit made is the original DQ again, not a
fusion); no original node is in two groups; no group holds a Q and the DQ
that reads it (a fusion ends at a Q and the next starts at its DQ: on an
int8 model the tensor QDQS8ToU8Transformer put between them is the Q's
output again); every group of a QLinear kernel
holds a DQ for each quantized input it reads (QLinearConv: X, W and B when
the Conv has a bias, unless another group took a shared X's DQ); every group
that holds a Q or DQ is named after a QDQ transformer, never "other:".
Prints one line per model; exit 1 on the first model that breaks one.
"""
import argparse
import os
import sys
from collections import Counter

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_cache    # noqa: E402
import ort_groups   # noqa: E402

QDQ_KINDS = ("QDQSelectorActionTransformer", "ReluQuantFusion", "ClipQuantFusion")


def problems(model, res):
    g = onnx.load(model, load_external_data=False).graph
    names = ort_groups.node_names(g)
    by_name = dict(zip(names, g.node))
    producer = {o: names[i] for i, n in enumerate(g.node) for o in n.output}
    out = []
    for r in res["removed"]:
        if r["op_type"] == "DequantizeLinear" and r["kind"] == "constant_folding":
            out.append("%s reported constant-folded" % r["node"])
    seen = Counter(x for grp in res["groups"] for x in grp["replaced"])
    out += ["%s is in %d groups" % (x, k) for x, k in seen.items() if k > 1]
    for grp in res["groups"]:
        members = set(grp["replaced"])
        types = [by_name[x].op_type for x in members]
        glued = sorted(x for x in members if by_name[x].op_type == "DequantizeLinear"
                       and producer.get(by_name[x].input[0]) in members)
        if glued:
            out.append("group %s holds both ends of the Q -> DQ pair of %s" % (grp["fused_node"], glued))
        if grp["op_type"] == "DequantizeLinear":
            out.append("group %s has the fused type DequantizeLinear" % grp["fused_node"])
        if ("DequantizeLinear" in types or "QuantizeLinear" in types) and \
                not any(k in grp["kind"] for k in QDQ_KINDS):
            out.append("group %s is of kind %s" % (grp["fused_node"], grp["kind"]))
        if grp["op_type"] == "QLinearConv":
            conv = next(by_name[x] for x in members if by_name[x].op_type == "Conv")
            weights = [x for x in list(conv.input)[1:] if x]
            missing = [x for x in weights if producer.get(x) not in members]
            if missing:
                out.append("QLinearConv %s lacks the DQ of %s" % (grp["fused_node"], missing))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--node-modules", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    ort = ort_cache.groups(a.models, a.node_modules, a.cache)
    bad = 0
    for m in a.models:
        res = ort[m]
        p = ["onnxruntime refused it: %s" % res["error"]] if "error" in res else problems(m, res)
        kinds = Counter(grp["kind"] for grp in res.get("groups", []))
        print("%-34s %4d groups %s" % (ort_cache.model_name(m), len(res.get("groups", [])), dict(kinds)))
        for x in p:
            print("FAIL: %s: %s" % (ort_cache.model_name(m), x))
        bad += bool(p)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
