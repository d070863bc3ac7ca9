#!/usr/bin/python3
"""ort_groups.py — which original nodes each fused node of onnxruntime's
optimized graph replaced.

usage: ort_groups.py ORIG.onnx EXTENDED.onnx [--basic BASIC.onnx]

EXTENDED is the graph onnxruntime writes with graphOptimizationLevel
'extended' (tests/peer/optimize.js); BASIC, the same at 'basic', lets the
tensors that the TransposeOptimizer renamed at level 1 be mapped back.
Prints {"groups": [...], "removed": [...]} as JSON: each group has the fused
node's name and op type, "replaced" (the original node names), "kind" (the
onnxruntime transformers that made it) and, in a subgraph, "graph"
("node/attribute" path); "removed" lists the nodes that vanished without
being fused (constant folding, common subexpressions, Dropout, Identity,
no-op Cast, no-op arithmetic, cancelled Transposes, inlined functions).

How. onnxruntime keeps the anchor's name (or derives one from it:
"fc1/MatMulAddFusion") and the names of the tensors at a fusion's boundary
(graph_utils::FinalizeNodeFusion moves the last node's outputs to the fused
node). So:
 1. An optimized node with an original node's name (or, unnamed, outputs)
    and op type is that node.
 2. Original nodes are first explained away when they only compute
    constants (initializers that are not overridable, Constant and
    ConstantOfShape, Shape of a tensor whose shape is known, anything whose
    inputs are all such; onnxruntime folds them, but not what reads a tensor
    its optimized graph still computes), or are a common
    subexpression (same op, attributes and inputs as a surviving node).
 3. Optimized nodes linked by tensors the original graph does not have
    (Reshape -> Gemm -> Reshape of MatMulAddFusion) form one unit. From the
    unit's output tensors the walk goes back through the original producers
    and stops at tensors still alive in the optimized graph, at constants,
    at common subexpressions and at the unit's inputs: the nodes met are
    what the unit replaced.
 4. Dropout, Identity, no-op Cast, Add/Sub of 0 and Mul/Div by 1 (of a node's
    output, not making a graph output) and Transposes the TransposeOptimizer
    cancelled, met on that walk, are eliminations, not fusion members. What
    is left is a fusion when it is more than one node, or one node whose op
    type or domain changed; not when it is nodes kept as themselves with the
    Transposes (and Unsqueezes) the TransposeOptimizer moved across them, nor
    one node replaced by its ONNX function body (HardSwish without a kernel
    becomes HardSigmoid and Mul: "function_inlining" in "removed").
If/Loop/Scan bodies are compared recursively.
"""
import argparse
import hashlib
import json
import re
import sys
from collections import Counter, defaultdict

import onnx
from onnx import numpy_helper

NONDETERMINISTIC = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                    "Multinomial", "Bernoulli"}
GRAPH_ATTR = (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
# ConstantFolding skips DequantizeLinear while the QDQ transformers are on:
# a weight's DQ stays for QLinearConv and its kin to consume. So the DQ of a
# constant weight (or bias) is a member of the group that consumed it, not a
# folded constant: onnxruntime's QLinearConv reads the int8 initializer the
# DQ read, and the DQ is gone (qdq_efficientnet_mbconv_s8: conv_14's group
# holds w9_DequantizeLinear and w10_DequantizeLinear); one whose reader was
# not fused survives, a node of the optimized graph, in no group.
KEPT_CONST_OPS = {"DequantizeLinear"}
# EnsureUniqueDQForNodeUnit gives each further consumer of a DQ a copy named
# "<dq>/duplicated" (or ".../duplicated_token_N"), its output likewise.
DUPLICATE = re.compile(r"^(.*)/duplicated(_token_\d+)?$")
# QDQS8ToU8Transformer gives an int8 Q -> DQ pair it turns into uint8 a new
# tensor between them, "qdq_s8_to_u8_quant" (or "..._token_N").
S8_TO_U8 = re.compile(r"^qdq_s8_to_u8_quant(_token_\d+)?$")
QDQ_OPS = {"DequantizeLinear", "QuantizeLinear"}
# What the TransposeOptimizer inserts when it moves a Transpose across a node.
LAYOUT_OPS = {"Transpose", "Unsqueeze"}
# The tensors onnxruntime's function inlining makes are named "_inlfunc_<op>_...".
INLINED_PREFIX = "_inlfunc_"


def node_names(graph):
    """Each node's name as fusiondbg gives it: its own, or OP_INDEX for an
    unnamed one (OP_INDEX_K when that is taken); a repeated name gets #2."""
    taken, res, seen = {n.name for n in graph.node if n.name}, [], Counter()
    for i, n in enumerate(graph.node):
        name = n.name
        if not name:
            base = "%s_%d" % (n.op_type or "node", i)
            name, k = base, 1
            while name in taken:
                name, k = "%s_%d" % (base, k), k + 1
            taken.add(name)
        seen[name] += 1
        res.append(name if seen[name] == 1 else "%s#%d" % (name, seen[name]))
    return res


def has_body(n):
    return any(a.type in GRAPH_ATTR for a in n.attribute)


def opkey(n):
    return ("" if n.domain in ("", "ai.onnx") else n.domain, n.op_type)


def attr_signature(n):
    return tuple((a.name, "<graph>" if a.type in GRAPH_ATTR else a.SerializeToString())
                 for a in sorted(n.attribute, key=lambda a: a.name))


def tensor_digest(t):
    arr = numpy_helper.to_array(t)
    return (str(arr.dtype), tuple(arr.shape), hashlib.sha1(arr.tobytes()).hexdigest())


class Graph:
    """One graph, original or optimized, with its producers and consumers."""

    def __init__(self, graph, ir_version, outer_live=frozenset(), outer_const=frozenset()):
        self.nodes = list(graph.node)
        self.inputs = [i.name for i in graph.input]
        self.outputs = {o.name for o in graph.output}
        self.init = {t.name: t for t in graph.initializer}
        # From IR 4 on an initializer also listed as an input may be overridden
        # by the caller: onnxruntime never folds it (Graph::CanOverrideInitializer).
        listed = set(self.inputs)
        self.const_init = {n for n in self.init if not (ir_version >= 4 and n in listed)}
        self.real_inputs = [i for i in self.inputs if i not in self.const_init]
        self.outer_live = set(outer_live)
        self.outer_const = set(outer_const)
        self.names = node_names(graph)
        self.reindex()

    def reindex(self):
        self.producer, self.consumers, self.by_name = {}, defaultdict(list), {}
        for i, n in enumerate(self.nodes):
            for o in n.output:
                if o:
                    self.producer[o] = i
            for x in n.input:
                if x:
                    self.consumers[x].append(i)
            if n.name:
                self.by_name.setdefault(n.name, i)

    def tensors(self):
        return set(self.inputs) | set(self.init) | set(self.producer)

    def live(self):
        return self.tensors() | self.outer_live

    def bodies(self, i):
        return [(a.name, a.g) for a in self.nodes[i].attribute if a.type == onnx.AttributeProto.GRAPH]


def constant_nodes(O, P):
    """Original nodes that only compute constants, and the constant tensors.
    Seeds: constant initializers, outer constants, Shape/Size outputs (folded
    when onnxruntime knows the shape; if it does not, the node survives and is
    not reported anyway) and original tensors that became initializers."""
    const_t = set(O.const_init) | set(O.outer_const) | {t for t in P.init if t in O.producer}
    pure_t = set(const_t)   # not derived from a Shape/Size
    res, changed = set(), True
    while changed:
        changed = False
        for i, n in enumerate(O.nodes):
            if i in res or n.op_type in NONDETERMINISTIC or has_body(n):
                continue
            outs = [o for o in n.output if o]
            if outs and all(o in const_t for o in outs):
                res.add(i)
                changed = True
                continue
            shape_op = n.op_type in ("Shape", "Size")
            if n.op_type in KEPT_CONST_OPS:
                continue
            if shape_op or all(not x or x in const_t for x in n.input):
                res.add(i)
                const_t.update(outs)
                if not shape_op and all(not x or x in pure_t for x in n.input):
                    pure_t.update(outs)
                changed = True
    # A node reading what onnxruntime computes at run time (a tensor a node
    # of the optimized graph makes: a Shape it could not fold) was not
    # folded either, nor what reads it: a fusion took it, or it survives.
    unfolded, changed = set(), True
    while changed:
        changed = False
        for i in sorted(res - unfolded):
            n = O.nodes[i]
            if n.op_type in ("Shape", "Size") or any(o in P.init for o in n.output if o):
                continue
            if any(x and ((x in P.producer and x not in P.init) or x in unfolded_t(O, unfolded)) for x in n.input):
                unfolded.add(i)
                changed = True
    res -= unfolded
    for i in unfolded:
        for o in O.nodes[i].output:
            const_t.discard(o)
            pure_t.discard(o)
    return res, const_t, pure_t


def unfolded_t(O, nodes):
    return {o for i in nodes for o in O.nodes[i].output if o}


def transformers(unit_ops, region_ops):
    """The onnxruntime transformers whose work a unit is, by op types.

    A node that absorbed another keeps its name and type, and the absorbed
    node's removal makes it a group of two all the same: PadFusion grows a
    Conv's or pool's pads and drops the Pad (probe_pad_conv_constant: {conv,
    pad}, the Conv still a Conv), FuseReluClip raises a Clip's min and drops
    the Relu before it ({clip, relu}), ClipQuantFusion and ReluQuantFusion
    drop the Clip or Relu before a Q ({clip, q}). Each counts as one group,
    as fusiondbg's rule for it makes one."""
    mains = {o[1] for o in unit_ops if o[1] != "Reshape"} or {o[1] for o in unit_ops}
    r = Counter(o[1] for o in region_ops)
    t = []
    if mains & {"Conv", "FusedConv", "MaxPool", "AveragePool"}:
        t += [name for op, name in (("Pad", "PadFusion"), ("BatchNormalization", "ConvBNFusion"),
                                    ("Mul", "ConvMulFusion"), ("Add", "ConvAddFusion")) if r.get(op)]
        if "FusedConv" in mains:
            t.append("ConvActivationFusion")
    elif mains & {"Gemm", "FusedGemm"}:
        if r.get("MatMul"):
            t.append("MatMulAddFusion")
        if r.get("Gemm") and r.get("Add"):
            t.append("GemmSumFusion")
        if r.get("Transpose"):
            t.append("GemmTransposeFusion")
        if "FusedGemm" in mains:
            t.append("GemmActivationFusion")
    else:
        by_op = {"Gelu": "GeluFusion", "BiasGelu": "BiasGeluFusion", "FastGelu": "FastGeluFusion",
                 "QuickGelu": "QuickGeluFusion", "LayerNormalization": "LayerNormFusion",
                 "SimplifiedLayerNormalization": "SimplifiedLayerNormFusion",
                 "SkipLayerNormalization": "SkipLayerNormFusion", "FusedMatMul": "MatMulTransposeOrScaleFusion",
                 "Split": "GatherSliceToSplitFusion", "Attention": "AttentionFusion",
                 "SpaceToDepth": "SliceConcatToSpaceToDepthFusion", "Where": "NotWhereFusion"}
        t += [by_op[m] for m in sorted(mains) if m in by_op]
        if "MatMul" in mains and r.get("BatchNormalization"):
            t.append("MatmulBNFusion")
        if "Clip" in mains and r.get("Relu"):
            t.append("FuseReluClip")
        if "Mul" in mains and r.get("Div"):
            t.append("DivMulFusion")
    if r.get("DequantizeLinear") or r.get("QuantizeLinear"):
        t = qdq_transformers(mains, r, t)
    return t or ["other:" + "+".join(sorted(mains))]


def qdq_transformers(mains, r, t):
    """The transformers of a unit whose original nodes include Q or DQ: the
    rewrite rules that fold a Relu or Clip into the Q after it, or the QDQ
    selector/action transformer (a QLinear kernel, or a data-movement op
    whose Q/DQ pair it dropped), with what fused it afterwards."""
    if mains == {"QuantizeLinear"}:
        return [name for op, name in (("Clip", "ClipQuantFusion"), ("Relu", "ReluQuantFusion")) if r.get(op)]
    later = [x for x in t if x != "GatherSliceToSplitFusion" or r.get("Slice") or r.get("Gather")]
    return ["QDQSelectorActionTransformer"] + later


def moved_layout(P, members, ident, core):
    """The unit is original nodes core themselves (same names and ops) and
    the Transposes, and the Unsqueezes that broadcast them, that the
    TransposeOptimizer pushed across them: moved Transposes, not a fusion."""
    return (set(core) <= {ident.get(i) for i in members}
            and all(i in ident or P.nodes[i].op_type in LAYOUT_OPS for i in members))


def inlined(n, unit_nodes, opset):
    """The unit is node n's ONNX function body, which onnxruntime expands
    when it has no kernel for the op (HardSwish -> HardSigmoid, Mul): the
    opposite of a fusion."""
    if n.domain not in ("", "ai.onnx"):
        return False
    try:
        schema = onnx.defs.get_schema(n.op_type, opset)
    except onnx.defs.SchemaError:
        return False
    if not schema.has_function:
        return False
    body = sorted(b.op_type for b in schema.function_body.node if b.op_type != "Constant")
    return body == sorted(u.op_type for u in unit_nodes if u.domain in ("", "ai.onnx"))


def elimination(O, oi, dtypes, P=None):
    """What removed a node that is not a fusion member, or None."""
    n = O.nodes[oi]
    if n.op_type in ("Dropout", "Identity"):
        return n.op_type.lower() + "_elimination"
    if n.op_type == "Transpose":
        return "transpose_optimizer"
    if n.op_type == "Cast" and n.input:
        to = next((a.i for a in n.attribute if a.name == "to"), None)
        if to is not None and dtypes.get(n.input[0]) == to:
            return "cast_elimination"
    kept = P is not None and any(o in P.producer for o in n.output if o)   # a fused node makes its output
    if n.op_type in NOOP_BY and len(n.input) == 2 and not kept and not any(o in O.outputs for o in n.output):
        identity, slots = NOOP_BY[n.op_type]
        for k in slots:
            v = single_constant(O, n.input[k])
            if v is not None and v == identity and n.input[1 - k] in O.producer:
                return "noop_elimination"
    return None


# Binary ops that are the identity with a one-element constant operand
# (onnxruntime's NoopElimination, which keeps a node making a graph output
# or whose other operand no node makes: graph_utils::CanRemoveNode): the
# value, and the slots it may be in.
NOOP_BY = {"Add": (0, (0, 1)), "Sub": (0, (1,)), "Mul": (1, (0, 1)), "Div": (1, (1,))}


def single_constant(O, t):
    """The value of a one-element initializer or Constant, else None."""
    tensor = O.init.get(t) if t in O.const_init else None
    oi = O.producer.get(t)
    if tensor is None and oi is not None and O.nodes[oi].op_type == "Constant":
        tensor = next((a.t for a in O.nodes[oi].attribute if a.name == "value"), None)
    if tensor is None:
        return None
    arr = numpy_helper.to_array(tensor)
    return arr.reshape(-1)[0].item() if arr.size == 1 else None


def dtype_map(model):
    try:
        model = onnx.shape_inference.infer_shapes(model)
    except Exception:
        pass
    res = {}

    def visit(g):
        for vi in list(g.value_info) + list(g.input) + list(g.output):
            if vi.type.HasField("tensor_type"):
                res[vi.name] = vi.type.tensor_type.elem_type
        for t in g.initializer:
            res[t.name] = t.data_type
        for n in g.node:
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    visit(a.g)
    visit(model.graph)
    return res


def undo_duplicates(O, P):
    """The copies EnsureUniqueDQForNodeUnit made of a DQ read by several
    nodes are that DQ again: their names and output names mapped back to
    the original's, so that a copy is no new tensor gluing units together.
    When the original was fused and a copy is left for an unfused reader,
    the copy is dropped: the one DQ of the original graph went into the
    fusion, and the reader that kept a copy reads its output as before."""
    rename, drop = {}, set()
    p_names = {pn.name for pn in P.nodes}
    for i, pn in enumerate(P.nodes):
        m = DUPLICATE.match(pn.name) if pn.op_type == "DequantizeLinear" else None
        oi = O.by_name.get(m.group(1)) if m else None
        if oi is None or O.nodes[oi].op_type != "DequantizeLinear":
            continue
        if m.group(1) not in p_names:
            drop.add(i)
        pn.name = m.group(1)
        for k, o in enumerate(pn.output):
            mo = DUPLICATE.match(o)
            if mo and mo.group(1) in O.producer and o not in O.producer:
                rename[o] = mo.group(1)
                pn.output[k] = mo.group(1)
    P.nodes = [pn for i, pn in enumerate(P.nodes) if i not in drop]
    for pn in P.nodes:
        for k, x in enumerate(pn.input):
            pn.input[k] = rename.get(x, x)
    P.reindex()


def original_type(op_type):
    """The op a fused QDQ node was: QLinearConv a Conv, QGemm a Gemm."""
    for prefix in ("QLinear", "Q"):
        if op_type.startswith(prefix) and op_type[len(prefix):][:1].isupper():
            return op_type[len(prefix):]
    return op_type


def q_by_scale(O, P, t, q_scales):
    """The original Q whose converted output t is, for unnamed nodes. The
    zero point QDQS8ToU8 made with t was named just before it (token N-1);
    every node reads a zero point right after its scale, so that scale is
    the Q's (as the level-1 graph names it, q_scales); of the Qs with it,
    the one after an op of the type t's producer was."""
    m = S8_TO_U8.match(t)
    token = m.group(1)
    zp = "qdq_s8_to_u8_zp_conversion" + ("_token_%d" % (int(token[7:]) - 1) if token else "")
    scales = {pn.input[k - 1] for pn in P.nodes for k, x in enumerate(pn.input) if x == zp and k > 0}
    if len(scales) != 1:
        return None
    scale = scales.pop()
    pi = P.producer.get(t)
    made_by = original_type(P.nodes[pi].op_type) if pi is not None else None
    hits = []
    for qi, q in enumerate(O.nodes):
        if q.op_type != "QuantizeLinear" or q_scales.get(O.names[qi]) != scale or q.output[0] in P.producer:
            continue
        src = O.producer.get(q.input[0])
        if made_by is None or (src is not None and O.nodes[src].op_type == made_by):
            hits.append(q.output[0])
    return hits[0] if len(hits) == 1 else None


def undo_s8_to_u8(O, P, q_scales):
    """The tensor QDQS8ToU8Transformer put between a Q and its DQ is the Q's
    original output again, so that it glues no units together: found from
    the node that produces it, the Q itself or the fused node named after
    the op whose output the Q read, else from a DQ that reads it."""
    rename = {}
    for t, pi in P.producer.items():
        if not S8_TO_U8.match(t) or t in O.producer:
            continue
        pn, orig = P.nodes[pi], None
        oi = O.by_name.get(pn.name) if pn.name else None
        if oi is not None and O.nodes[oi].op_type == "QuantizeLinear":
            orig = O.nodes[oi].output[0]
        elif oi is not None:
            k = list(pn.output).index(t)   # the Q that read the same output of the original node
            outs = [O.nodes[oi].output[k]] if k < len(O.nodes[oi].output) else []
            qs = [O.nodes[c] for o in outs if o for c in O.consumers.get(o, []) if O.nodes[c].op_type == "QuantizeLinear"]
            orig = qs[0].output[0] if len(qs) == 1 else None
        if orig is None:
            dqs = [O.nodes[O.by_name[P.nodes[c].name]] for c in P.consumers.get(t, [])
                   if P.nodes[c].op_type == "DequantizeLinear" and P.nodes[c].name in O.by_name]
            orig = dqs[0].input[0] if dqs and dqs[0].op_type == "DequantizeLinear" else None
        if orig is None:
            orig = q_by_scale(O, P, t, q_scales)
        if orig is not None and orig not in P.producer:
            rename[t] = orig
    apply_renames(P, rename)
    # a data-movement op whose Q and DQ the drop action removed writes t
    # unnamed, reading its DQ's data: follow that data through the DQ, an op
    # of its type and the Q after it (one link at a time, as reads resolve)
    while True:
        rename = {}
        for t, pi in P.producer.items():
            if S8_TO_U8.match(t) and t not in O.producer and P.nodes[pi].input:
                orig = dropped_output(O, P.nodes[pi])
                if orig is not None and orig not in P.producer:
                    rename[t] = orig
        if not rename:
            break
        apply_renames(P, rename)


def dropped_output(O, pn):
    """The output of the Q after the original op of pn's type that read,
    through one DQ, the data pn reads; None unless exactly one."""
    x = pn.input[0]
    hits = [q.output[0] for d in O.consumers.get(x, []) if O.nodes[d].op_type == "DequantizeLinear"
            for o in O.nodes[d].output for c in O.consumers.get(o, []) if O.nodes[c].op_type == pn.op_type
            for oo in O.nodes[c].output for q in (O.nodes[k] for k in O.consumers.get(oo, []))
            if q.op_type == "QuantizeLinear"]
    return hits[0] if len(hits) == 1 else None


def apply_renames(P, rename):
    for pn in P.nodes:
        for k, x in enumerate(pn.input):
            pn.input[k] = rename.get(x, x)
        for k, x in enumerate(pn.output):
            pn.output[k] = rename.get(x, x)
    P.reindex()


def dropped_qdq_target(O, pn):
    """An unnamed node whose Q/DQ pair the QDQ drop action removed writes
    its Q's output (MergeIntoTargetFixed): the original node of its type
    that fed that Q, or None."""
    if len(pn.output) != 1 or pn.output[0] not in O.producer:
        return None
    q = O.nodes[O.producer[pn.output[0]]]
    oi = O.producer.get(q.input[0]) if q.op_type == "QuantizeLinear" and q.input else None
    return oi if oi is not None and not O.nodes[oi].name else None


def identify(O, P, renames):
    """Step 1: {optimized index: original index}; renamed tensors mapped back."""
    o_tensors = O.tensors() | O.outer_live
    by_outputs = {tuple(n.output): i for i, n in enumerate(O.nodes)}
    ident = {}
    for pi, pn in enumerate(P.nodes):
        oi = O.by_name.get(pn.name) if pn.name else by_outputs.get(tuple(pn.output))
        if not pn.name and (oi is None or opkey(O.nodes[oi]) != opkey(pn)):
            oi = dropped_qdq_target(O, pn)
        if oi is not None and opkey(O.nodes[oi]) == opkey(pn):
            ident[pi] = oi
    p_tensors = P.tensors()
    rename = {k: v for k, v in renames.items() if k not in o_tensors and v not in p_tensors}
    for pi, oi in ident.items():
        pn, on = P.nodes[pi], O.nodes[oi]
        if len(pn.output) == len(on.output):
            for po, oo in zip(pn.output, on.output):
                # a name the level-1 graph gave another node's output (a Q the
                # TransposeOptimizer renamed, whose output a QDQ drop then
                # moved to this node) keeps what the level-1 graph says
                if po and oo and po != oo and po not in o_tensors and oo not in p_tensors and po not in rename:
                    rename[po] = oo
    if rename:
        apply_renames(P, rename)
    return ident, o_tensors


def common_subexpressions(O, P, ident, const_nodes, pure_t):
    """Step 2b: {original index: twin} of nodes merged into an equal one."""
    sig_ids, cache, digests = {}, {}, {}

    def tsig(t):
        if t in O.init:
            if t not in digests:
                digests[t] = tensor_digest(O.init[t])
            return ("init", digests[t])
        oi = O.producer.get(t)
        return ("in", t) if oi is None else ("out", nsig(oi), list(O.nodes[oi].output).index(t))

    def nsig(oi):
        if oi not in cache:
            cache[oi] = ("cycle", oi)
            n = O.nodes[oi]
            s = (n.domain, n.op_type, attr_signature(n), tuple(tsig(x) if x else None for x in n.input))
            cache[oi] = sig_ids.setdefault(s, len(sig_ids))   # hash-consing: deep DAGs stay cheap
        return cache[oi]

    by_sig = defaultdict(list)
    for oi, n in enumerate(O.nodes):
        if not has_body(n):
            by_sig[nsig(oi)].append(oi)
    o_ident = {oi: pi for pi, oi in ident.items()}

    def gone(oi):
        return oi not in o_ident and not any(o in P.producer for o in O.nodes[oi].output if o)

    def alive(oi):   # as itself, as a fusion anchor of the same name, or folded
        n = O.nodes[oi]
        return not gone(oi) or bool(n.name and n.name in P.by_name) or any(o in P.init for o in n.output if o)

    def counterpart(oi):
        if oi in o_ident:
            return P.nodes[o_ident[oi]]
        n = O.nodes[oi]
        return P.nodes[P.by_name[n.name]] if n.name and n.name in P.by_name else None

    cse = {}
    for members in by_sig.values():
        living = [k for k in members if alive(k)]
        if len(members) < 2 or not living:
            continue
        for m in members:
            if alive(m):
                continue
            twin, evidence = living[0], False
            for oidx, o in enumerate(O.nodes[m].output):
                for c in O.consumers.get(o, []):
                    pc = counterpart(c)
                    for slot, x in enumerate(O.nodes[c].input):
                        if pc is None or x != o or slot >= len(pc.input):
                            continue
                        for k in living:
                            ko = O.nodes[k].output
                            if oidx < len(ko) and ko[oidx] == pc.input[slot]:
                                twin, evidence = k, True
            pure = all(o in pure_t for o in O.nodes[m].output if o)
            twin_folded = any(o in P.init for o in O.nodes[twin].output if o)
            if not evidence and m in const_nodes and (pure or twin_folded):
                continue   # both may just have been folded
            if not evidence and O.nodes[m].op_type in KEPT_CONST_OPS:
                continue   # a gone weight DQ was fused, not merged: nothing reads its twin in its place
            cse[m] = twin
    return cse, gone, counterpart


def share_dequantize(O, regions, const_nodes):
    """A DQ read by several nodes: EnsureUniqueDQForNodeUnit kept the
    original for its first reader (the lowest node index: output edges are
    ordered by it) and gave each other reader a copy, so the original node
    is a member of the first reader's group only, and of none when that
    reader was not fused. A reader that only computes constants (a Shape)
    is folded away and counts as none."""
    holders = defaultdict(list)
    for r, region in enumerate(regions):
        for oi in region:
            if O.nodes[oi].op_type == "DequantizeLinear":
                holders[oi].append(r)
    for oi, rs in holders.items():
        outs = {o for o in O.nodes[oi].output if o}
        readers = sorted({c for o in outs for c in O.consumers.get(o, []) if c not in const_nodes})
        if len(readers) < 2:
            continue
        for r in rs:
            if readers[0] not in regions[r]:
                regions[r].discard(oi)


def inlined_by_name(P, members, o_tensors):
    """The same, told by the names of the tensors the expansion makes
    (INLINED_PREFIX): a quantized op's unit also holds its Q/DQ nodes, so
    its op types are not the function body's."""
    return any(x.startswith(INLINED_PREFIX) for i in members for x in list(P.nodes[i].input) + list(P.nodes[i].output)
               if x and x not in o_tensors)


def analyse(O, P, ctx, groups, removed, path=""):
    undo_duplicates(O, P)
    undo_s8_to_u8(O, P, ctx["q_scales"])
    ident, o_tensors = identify(O, P, ctx["renames"])
    p_live = P.live()
    const_nodes, const_t, pure_t = constant_nodes(O, P)
    cse, gone, counterpart = common_subexpressions(O, P, ident, const_nodes, pure_t)
    cse_t = {o for m in cse for o in O.nodes[m].output if o}

    # step 3: units of optimized nodes joined by brand-new tensors
    parent = list(range(len(P.nodes)))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    # A node onnxruntime added that reads only initializers replaced nothing:
    # WhereDummyDq's DequantizeLinear of a dummy scale for a Where's float
    # scalar (InsertDummyDQ), left in place when no QLinearWhere takes it;
    # the Where it feeds stays itself.
    made = {pi for pi, n in enumerate(P.nodes)
            if pi not in ident and n.input and all(x in P.init for x in n.input if x)}
    for t, pi in P.producer.items():
        if t not in o_tensors and t not in P.init and pi not in made:
            for ci in P.consumers.get(t, []):
                parent[find(ci)] = find(pi)
    units = defaultdict(list)
    for i in range(len(P.nodes)):
        units[find(i)].append(i)

    claimed, side, walked = {}, {}, []
    stop_always = set(O.real_inputs) | O.outer_live | const_t | cse_t
    for members in sorted(units.values(), key=min):
        produced = {o for i in members for o in P.nodes[i].output if o}
        ext_in = {x for i in members for x in P.nodes[i].input if x and x not in produced}
        stop = (p_live - produced) | ext_in | stop_always
        region, seen, stack = set(), set(), [o for o in sorted(produced) if o in O.producer]
        while stack:
            t = stack.pop()
            if t in seen:
                continue
            seen.add(t)
            oi = O.producer.get(t)
            if oi is None or oi in const_nodes or oi in cse or oi in region:
                continue
            region.add(oi)
            stack.extend(x for x in O.nodes[oi].input if x and x not in stop)
        walked.append((members, region))
    share_dequantize(O, [region for _, region in walked], const_nodes)
    for members, region in walked:
        anchor = next((i for i in members if P.nodes[i].op_type != "Reshape"), members[0])
        pn = P.nodes[anchor]
        keeps_transpose = any(P.nodes[i].op_type in ("Gemm", "FusedGemm", "FusedMatMul") for i in members)
        kept = {ident[i] for i in members if i in ident}   # a member that is an original node, as itself
        core, extras = [], []
        for oi in sorted(region):
            k = elimination(O, oi, ctx["dtypes"], P)
            if k == "transpose_optimizer" and (keeps_transpose or oi in kept):
                k = None
            (extras if k and len(region) > 1 else core).append((oi, k))
        core = [oi for oi, _ in core]
        fused = len(core) > 1 or (len(core) == 1 and (opkey(O.nodes[core[0]]) != opkey(pn) or len(members) > 1))
        if fused and moved_layout(P, members, ident, core):
            fused = False   # the nodes themselves, a Transpose moved across them: nothing fused
        if fused and len(core) == 1 and (inlined(O.nodes[core[0]], [P.nodes[i] for i in members], ctx["opset"])
                                         or inlined_by_name(P, members, o_tensors)):
            side[core[0]] = "function_inlining"
            continue
        for oi, k in extras:
            side[oi] = k
        for oi in core:
            claimed[oi] = pn.name if fused else None
        if not fused:
            continue
        g = {"fused_node": pn.name, "op_type": pn.op_type, "domain": pn.domain or "",
             "replaced": sorted(O.names[i] for i in core),
             "kind": "+".join(transformers([opkey(P.nodes[i]) for i in members],
                                           [opkey(O.nodes[i]) for i in core]))}
        if path:
            g["graph"] = path
        groups.append(g)

    # everything else that vanished
    for oi, n in enumerate(O.nodes):
        if oi in claimed or not gone(oi):
            continue
        kind = side.get(oi) or elimination(O, oi, ctx["dtypes"], P)
        if kind in (None, "transpose_optimizer") and oi in cse:
            kind = "cse"
        elif kind is None and oi in const_nodes:
            kind = "constant_folding"
        rec = {"node": O.names[oi], "op_type": n.op_type, "kind": kind or "other"}
        if oi in cse:
            rec["merged_into"] = O.names[cse[oi]]
        if path:
            rec["graph"] = path
        removed.append(rec)

    # bodies
    for oi in range(len(O.nodes)):
        pc = counterpart(oi)
        if pc is None:
            continue
        pbodies = {a.name: a.g for a in pc.attribute if a.type == onnx.AttributeProto.GRAPH}
        for aname, og in O.bodies(oi):
            if aname in pbodies:
                sub = (path + "/" if path else "") + "%s/%s" % (O.names[oi], aname)
                analyse(Graph(og, ctx["ir_o"], o_tensors, const_t),
                        Graph(pbodies[aname], ctx["ir_p"], p_live), ctx, groups, removed, sub)


def all_nodes(g):
    for n in g.node:
        yield n
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from all_nodes(a.g)


def renames_from(mo, mb):
    """Outputs that the level-1 graph renamed on nodes it kept: {new: original}."""
    by_name = {n.name: n for n in all_nodes(mo.graph) if n.name}
    o_t = {o for n in all_nodes(mo.graph) for o in n.output}
    res = {}
    for n in all_nodes(mb.graph):
        on = by_name.get(n.name) if n.name else None
        if on is None or opkey(on) != opkey(n) or len(on.output) != len(n.output):
            continue
        for b, o in zip(n.output, on.output):
            if b and o and b != o and b not in o_t:
                res[b] = o
    return res


def q_scales_of(mo, mb):
    """{Q node name: its scale tensor} in the level-1 graph (which may have
    given a Q another scale of equal value), else in the original."""
    names = node_names(mo.graph)
    res = {names[i]: n.input[1] for i, n in enumerate(mo.graph.node) if n.op_type == "QuantizeLinear" and len(n.input) > 1}
    if mb is not None:
        by_out = {n.output[0]: n for n in mb.graph.node if n.op_type == "QuantizeLinear" and n.output}
        for i, n in enumerate(mo.graph.node):
            b = by_out.get(n.output[0]) if n.op_type == "QuantizeLinear" else None
            if b is not None and len(b.input) > 1:
                res[names[i]] = b.input[1]
    return res


def groups_for(orig_path, opt_path, basic_path=None):
    mo, mp = onnx.load(orig_path, load_external_data=False), onnx.load(opt_path, load_external_data=False)
    mb = onnx.load(basic_path, load_external_data=False) if basic_path else None
    ctx = {"ir_o": mo.ir_version, "ir_p": mp.ir_version, "dtypes": dtype_map(mo),
           "opset": next((o.version for o in mo.opset_import if o.domain in ("", "ai.onnx")), 1),
           "renames": renames_from(mo, mb) if mb else {}, "q_scales": q_scales_of(mo, mb)}
    groups, removed = [], []
    analyse(Graph(mo.graph, mo.ir_version), Graph(mp.graph, mp.ir_version), ctx, groups, removed)
    return {"groups": groups, "removed": removed}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("orig")
    ap.add_argument("extended")
    ap.add_argument("--basic")
    a = ap.parse_args()
    json.dump(groups_for(a.orig, a.extended, a.basic), sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
