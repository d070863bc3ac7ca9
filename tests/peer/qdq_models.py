#!/usr/bin/python3
"""qdq_models.py — quantized (QDQ) models for tests/peer, written the way
onnxruntime.quantization's static QDQ quantizer writes them, so that the
QDQ fusions of onnxruntime (QLinearConv, QLinearMatMul, QLinearAdd, dropped
Q/DQ pairs around data movement, …) can be compared with rules/onnxruntime.

usage: qdq_models.py OUTDIR [MODELS_DIR]
    writes OUTDIR/qdq_NAME_MODE.onnx, deterministic; MODELS_DIR (default
    ../shared/models) holds the float models quantized beside the ones built
    here; a shared model that is missing is skipped.
usage: qdq_models.py --each OUTDIR MODEL.onnx...
    quantizes every MODEL in every mode into OUTDIR/qdq_NAME_MODE.onnx
    (nothing left in float on purpose), each result kept in OUTDIR/cache by
    the bytes of the model and of this script, so that a second run only
    links; a model this quantizer cannot handle gets the line
    "qdq_NAME_MODE: not quantized: WHY" on stdout, never a silent skip.

What the quantizer does, and so what this writes:
  * the float model is first pre-processed as the quantizer's pre-processing
    (onnxruntime at level 'basic') would leave it: opset raised to 13 or more,
    Constant nodes made initializers, BatchNormalization after Conv folded,
    Dropout/Identity removed, initializers no longer graph inputs;
  * each activation tensor an op to quantize reads or writes gets one
    QuantizeLinear -> DequantizeLinear pair that every consumer shares
    (float consumers too); a graph output keeps its name on the DQ;
  * weights: int8 symmetric initializer -> DequantizeLinear; per channel
    (axis 0) for Conv, per tensor for MatMul/Gemm; Conv/Gemm bias int32
    with scale x_scale * w_scale, zero point 0;
  * a constant input of Add/Mul/Concat: quantized to the activation type,
    behind a DequantizeLinear only;
  * data movement (Reshape, Transpose, Squeeze, Unsqueeze, Flatten, Gather,
    Slice, Split, Resize, MaxPool, Expand): the output reuses the input's
    scale and zero point, in its own initializers;
  * Relu/Clip: in the asymmetric mode removed when its input feeds only it
    (the producer then writes the activation's output, quantized over the
    activation's range); kept with its own Q/DQ otherwise.
Modes: u8 (activations uint8 asymmetric), s8 (activations int8 symmetric,
zero point 0), u8keep (uint8, Relu/Clip kept: the Q after them has zero
point 0, the case onnxruntime finds the activation redundant).
Scales and zero points are plausible constants derived from the tensor's
name (no calibration). int8 weights over BIG (8,192) elements are written as a
ConstantOfShape of one value, as the light_* models hold their weights, to
keep the files small; so is an int8 weight whose elements are all equal.
"""
import os
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh, shape_inference, version_converter

F = np.float32
BIG = 8192
WEIGHTED = {"Conv", "MatMul", "Gemm"}
BINARY = {"Add", "Mul"}
OWN_PARAMS = {"Sigmoid", "LeakyRelu", "GlobalAveragePool", "AveragePool", "Concat", "Softmax",
              "LayerNormalization"}
SAME_AS_INPUT = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Gather", "Slice",
                 "Split", "Resize", "MaxPool", "Expand"}
REMOVABLE = {"Relu", "Clip"}


# ---------------------------------------------------------------- helpers

def unit(name, lo, hi):
    """A number in [lo, hi) fixed by the name: the same on every run."""
    return lo + (hi - lo) * (zlib.crc32(name.encode()) % 10007) / 10007.0


def init(name, arr, dt=F):
    return nh.from_array(np.asarray(arr, dtype=dt), name)


def elem_types(model):
    """tensor name -> elem type, from inference, inputs, outputs, initializers."""
    res = {}
    try:
        inferred = shape_inference.infer_shapes(model)
    except Exception:   # an incomplete inference still leaves the declared types
        inferred = model
    g = inferred.graph
    for v in list(g.value_info) + list(g.input) + list(g.output):
        if v.type.tensor_type.elem_type:
            res[v.name] = v.type.tensor_type.elem_type
    for t in g.initializer:
        res[t.name] = t.data_type
    return res


def remove_dead(graph):
    """Nodes and initializers nothing reads any more."""
    live = {o.name for o in graph.output}
    keep = []
    for n in reversed(list(graph.node)):
        if any(o in live for o in n.output):
            keep.append(n)
            live.update(x for x in n.input if x)
    del graph.node[:]
    graph.node.extend(reversed(keep))
    inits = [t for t in graph.initializer if t.name in live]
    del graph.initializer[:]
    graph.initializer.extend(inits)


# ---------------------------------------------------------------- pre-processing

class Consts:
    """The graph's constants: initializers and ConstantOfShape of a constant shape."""

    def __init__(self, graph):
        self.init = {t.name: t for t in graph.initializer}
        self.cos = {}
        for n in graph.node:
            if n.op_type == "ConstantOfShape" and n.input[0] in self.init:
                val = next((nh.to_array(a.t) for a in n.attribute if a.name == "value"), np.zeros(1, F))
                self.cos[n.output[0]] = (tuple(nh.to_array(self.init[n.input[0]]).tolist()), val.reshape(-1)[0])

    def __contains__(self, name):
        return name in self.init or name in self.cos

    def value(self, name):
        if name in self.init:
            return nh.to_array(self.init[name])
        shape, v = self.cos[name]
        return np.full(shape, v, dtype=np.asarray(v).dtype)


def fold_batchnorm(graph):
    """Conv -> BatchNormalization (the Conv's output read only by it) into one Conv."""
    consts = Consts(graph)
    readers = {}
    for n in graph.node:
        for x in n.input:
            readers.setdefault(x, []).append(n)
    by_out = {o: n for n in graph.node for o in n.output}
    drop, new_inits = set(), []
    for bn in graph.node:
        conv = by_out.get(bn.input[0]) if bn.op_type == "BatchNormalization" else None
        if conv is None or conv.op_type != "Conv" or len(readers.get(conv.output[0], [])) != 1:
            continue
        if not all(x in consts for x in list(bn.input[1:5]) + [conv.input[1]] + list(conv.input[2:3])):
            continue
        eps = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
        gamma, beta, mean, var = (consts.value(x).astype(F) for x in bn.input[1:5])
        w = consts.value(conv.input[1]).astype(F)
        b = consts.value(conv.input[2]).astype(F) if len(conv.input) > 2 and conv.input[2] else np.zeros(w.shape[0], F)
        k = gamma / np.sqrt(var + eps)
        wname, bname = conv.input[1] + "_bnfolded", bn.output[0] + "_bias_bnfolded"
        new_inits += [init(wname, w * k.reshape(-1, 1, 1, 1)), init(bname, (b - mean) * k + beta)]
        del conv.input[1:]
        conv.input.extend([wname, bname])
        conv.output[0] = bn.output[0]
        drop.add(id(bn))
    keep = [n for n in graph.node if id(n) not in drop]
    del graph.node[:]
    graph.node.extend(keep)
    graph.initializer.extend(new_inits)


def prepare(model):
    """The float model as the quantizer's pre-processing would leave it."""
    if model.opset_import[0].version < 13 and not model.opset_import[0].domain:
        # a Softmax over its last axis means the same in every opset; one the
        # converter cannot adapt (its rank unknown) is taken as such and kept
        # out of the converter's way
        softmax = {}
        for k, n in enumerate(model.graph.node):
            if n.op_type == "Softmax":
                softmax["qdq_models_softmax_%d" % k] = (n.name, list(n.attribute))
                n.name, n.op_type = "qdq_models_softmax_%d" % k, "Relu"
                del n.attribute[:]
        model = version_converter.convert_version(model, 13)
        for n in model.graph.node:
            if n.name in softmax:
                n.name, attrs = softmax[n.name]
                n.op_type = "Softmax"
                n.attribute.extend(attrs)
    g = model.graph
    inits = {t.name for t in g.initializer}
    ins = [i for i in g.input if i.name not in inits]
    del g.input[:]
    g.input.extend(ins)
    keep = []
    rename = {}
    for n in g.node:
        if n.op_type == "Constant" and n.attribute[0].name == "value":
            t = onnx.TensorProto()
            t.CopyFrom(n.attribute[0].t)
            t.name = n.output[0]
            g.initializer.append(t)
        elif n.op_type in ("Dropout", "Identity") and n.output[0] not in {o.name for o in g.output}:
            rename[n.output[0]] = n.input[0]
        else:
            keep.append(n)
    for n in keep:
        for k, x in enumerate(n.input):
            while x in rename:
                x = rename[x]
            n.input[k] = x
    del g.node[:]
    g.node.extend(keep)
    fold_batchnorm(g)
    remove_dead(g)
    model.ir_version = max(model.ir_version, 7)
    return model


# ---------------------------------------------------------------- quantizer

class Quantizer:
    def __init__(self, model, mode, exclude_ops=()):
        self.model, self.mode = model, mode
        self.g = model.graph
        self.symmetric = mode == "s8"
        self.act_type = T.INT8 if self.symmetric else T.UINT8
        self.exclude = set(exclude_ops)
        self.types = elem_types(model)
        self.consts = Consts(self.g)
        self.params = {}        # activation tensor -> (scale, zero point)
        self.new_nodes, self.new_inits = [], []
        self.weight_dq = {}     # constant tensor -> its DequantizeLinear output

    def is_float(self, t):
        return self.types.get(t) == T.FLOAT

    def own_params(self, t, lo=None):
        """Plausible scale/zero point of t; lo=0: a range starting at 0 (after Relu)."""
        s = unit(t, 0.004, 0.04)
        if self.symmetric:
            return (s, 0)
        return (s, 0) if lo == 0 else (s, int(unit(t + "zp", 100, 156)))

    def assign(self, t, p):
        if t and t not in self.params and t not in self.consts and self.is_float(t):
            self.params[t] = p

    # -- weights
    def weight(self, name, per_channel):
        key = (name, "w")
        if key in self.weight_dq:
            return self.weight_dq[key]
        w = self.consts.value(name).astype(F)
        if per_channel:
            m = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
            s = np.where(m > 0, m / 127.0, 1.0 / 127.0).astype(F)
            q = np.clip(np.rint(w / s.reshape((-1,) + (1,) * (w.ndim - 1))), -127, 127)
            zp = np.zeros(w.shape[0], np.int8)
        else:
            m = float(np.abs(w).max())
            s = np.array(m / 127.0 if m > 0 else 1.0 / 127.0, F)
            q = np.clip(np.rint(w / s), -127, 127)
            zp = np.array(0, np.int8)
        out = self.dq(name, q.astype(np.int8), s, zp, axis=0 if per_channel else None)
        self.weight_dq[key] = (out, s)
        return out, s

    def bias(self, name, x_scale, w_scale, per_channel):
        b = self.consts.value(name).astype(F)
        s = (np.float32(x_scale) * w_scale).astype(F)
        with np.errstate(divide="ignore", invalid="ignore"):   # a zero scale: the bias saturates
            q = np.clip(np.nan_to_num(np.rint(b / s)), -2 ** 31, 2 ** 31 - 1).astype(np.int32)
        zp = np.zeros(q.shape, np.int32) if per_channel else np.array(0, np.int32)
        s = s if per_channel else np.array(float(s.reshape(-1)[0]), F)
        return self.dq(name, q, s, zp, axis=0 if per_channel else None)

    def const_activation(self, name):
        """A constant input of Add/Mul/Concat: quantized to the activation type."""
        key = (name, "a")
        if key in self.weight_dq:
            return self.weight_dq[key]
        c = self.consts.value(name).astype(F)
        lo, hi = min(float(c.min()), 0.0), max(float(c.max()), 0.0)
        if self.symmetric:
            s, zp = max(abs(lo), abs(hi)) / 127.0 or 1.0, 0
            q = np.clip(np.rint(c / s), -127, 127).astype(np.int8)
            zpa = np.array(zp, np.int8)
        else:
            s = (hi - lo) / 255.0 or 1.0
            zp = int(np.clip(np.rint(-lo / s), 0, 255))
            q = np.clip(np.rint(c / s) + zp, 0, 255).astype(np.uint8)
            zpa = np.array(zp, np.uint8)
        out = self.dq(name, q, np.array(s, F), zpa, axis=None)
        self.weight_dq[key] = out
        return out

    def dq(self, name, q, s, zp, axis):
        qn, sn, zn = name + "_quantized", name + "_scale", name + "_zero_point"
        if q.dtype == np.int8 and (q.size > BIG or (q.size > 1 and np.all(q == q.reshape(-1)[0]))):
            shape = name + "_quantized_shape"
            self.new_inits.append(init(shape, q.shape, np.int64))
            self.new_nodes.append(h.make_node("ConstantOfShape", [shape], [qn], name=qn + "_ConstantOfShape",
                                              value=nh.from_array(q.reshape(-1)[:1].copy())))
        else:
            self.new_inits.append(nh.from_array(q, qn))
        self.new_inits += [nh.from_array(np.asarray(s, F), sn), nh.from_array(zp, zn)]
        out = name + "_DequantizeLinear_Output"
        attrs = {"axis": axis} if axis is not None else {}
        self.new_nodes.append(h.make_node("DequantizeLinear", [qn, sn, zn], [out], name=name + "_DequantizeLinear",
                                          **attrs))
        return out

    # -- the pass
    def quantizable(self, n):
        return n.op_type in (WEIGHTED | BINARY | OWN_PARAMS | SAME_AS_INPUT | REMOVABLE) \
            and n.op_type not in self.exclude and (not n.domain or n.domain == "ai.onnx")

    def run(self):
        g = self.g
        outputs = {o.name for o in g.output}
        readers = {}
        for n in g.node:
            for x in n.input:
                readers.setdefault(x, []).append(n)
        by_out = {o: n for n in g.node for o in n.output}
        # Relu/Clip folded into their producer in the asymmetric mode
        if self.mode == "u8":
            for n in list(g.node):
                x = n.input[0] if n.input else ""
                if n.op_type in REMOVABLE and self.quantizable(n) and x in by_out and \
                        len(readers.get(x, [])) == 1 and x not in outputs and self.quantizable(by_out[x]) \
                        and by_out[x].op_type not in SAME_AS_INPUT | REMOVABLE:
                    p, y = by_out[x], n.output[0]
                    p.output[list(p.output).index(x)] = y
                    self.params[y] = self.own_params(y, lo=0) if n.op_type == "Relu" else self.clip_params(n, y)
                    g.node.remove(n)
                    by_out[y] = p
        for n in g.node:
            if not self.quantizable(n):
                continue
            op = n.op_type
            if op in WEIGHTED:
                self.quantize_weighted(n)
                continue
            slots = range(len(n.input)) if op in BINARY | {"Concat"} else [0]
            for k in slots:
                x = n.input[k]
                if x in self.consts and self.is_float(x):
                    n.input[k] = self.const_activation(x)
                else:
                    self.assign(x, self.own_params(x))
            for y in n.output:
                if op in SAME_AS_INPUT and n.input[0] in self.params:
                    self.assign(y, self.params[n.input[0]])
                elif op in REMOVABLE:
                    self.assign(y, self.own_params(y, lo=0) if not self.symmetric else self.own_params(y))
                else:
                    self.assign(y, self.own_params(y))
        self.insert_qdq(outputs)
        g.node.extend(self.new_nodes)
        g.initializer.extend(self.new_inits)
        topo_sort(g)
        remove_dead(g)
        return self.model

    def clip_params(self, clip, y):
        lo, hi = 0.0, 6.0
        for k, x in ((1, "min"), (2, "max")):
            if len(clip.input) > k and clip.input[k] in self.consts:
                v = float(self.consts.value(clip.input[k]).reshape(-1)[0])
                lo, hi = (v, hi) if k == 1 else (lo, v)
        s = (hi - lo) / 255.0
        return (s, int(np.clip(np.rint(-lo / s), 0, 255)))

    def quantize_weighted(self, n):
        op, x = n.op_type, n.input[0]
        self.assign(x, self.own_params(x))
        wname = n.input[1]
        if wname in self.consts:
            n.input[1], w_scale = self.weight(wname, per_channel=(op == "Conv"))
        else:
            self.assign(wname, self.own_params(wname))
            w_scale = None
        if len(n.input) > 2 and n.input[2] in self.consts and w_scale is not None and x in self.params:
            beta = next((a.f for a in n.attribute if a.name == "beta"), 1.0)
            if op == "Conv" or beta == 1.0:
                n.input[2] = self.bias(n.input[2], self.params[x][0], w_scale, per_channel=(op == "Conv"))
        self.assign(n.output[0], self.own_params(n.output[0]))

    def insert_qdq(self, outputs):
        g = self.g
        for t, (s, zp) in sorted(self.params.items()):
            sn, zn = t + "_scale", t + "_zero_point"
            self.new_inits += [init(sn, s), nh.from_array(np.array(zp, np.int8 if self.symmetric else np.uint8), zn)]
            q_out, dq_out = t + "_QuantizeLinear_Output", t + "_DequantizeLinear_Output"
            q_in = t
            if t in outputs:
                q_in, dq_out = t + "_QuantizeLinear_Input", t
                for n in g.node:
                    for k, o in enumerate(n.output):
                        if o == t:
                            n.output[k] = q_in
            else:
                for n in g.node:
                    for k, x in enumerate(n.input):
                        if x == t:
                            n.input[k] = dq_out
            self.new_nodes.append(h.make_node("QuantizeLinear", [q_in, sn, zn], [q_out], name=t + "_QuantizeLinear"))
            self.new_nodes.append(h.make_node("DequantizeLinear", [q_out, sn, zn], [dq_out],
                                              name=t + "_DequantizeLinear"))


def topo_sort(g):
    avail = {i.name for i in g.input} | {t.name for t in g.initializer} | {""}
    todo, done = list(g.node), []
    while todo:
        rest = []
        for n in todo:
            if all(x in avail for x in n.input):
                done.append(n)
                avail.update(n.output)
            else:
                rest.append(n)
        if len(rest) == len(todo):
            raise SystemExit("qdq_models: cycle or missing input at %s" % rest[0].name)
        todo = rest
    del g.node[:]
    g.node.extend(done)


# ---------------------------------------------------------------- float models built here

class Builder:
    """Small float graphs with deterministic weights."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.nodes, self.inits, self.k = [], [], 0

    def name(self, op):
        self.k += 1
        return "%s_%d" % (op.lower(), self.k)

    def w(self, shape, scale=0.1):
        n = "w%d" % (len(self.inits) + 1)
        self.inits.append(init(n, self.rng.standard_normal(shape) * scale))
        return n

    def c(self, value, dt=F):
        n = "c%d" % (len(self.inits) + 1)
        self.inits.append(init(n, value, dt))
        return n

    def op(self, op, ins, nout=1, **attrs):
        nm = self.name(op)
        outs = [nm if nout == 1 else "%s_%d" % (nm, i) for i in range(nout)]
        self.nodes.append(h.make_node(op, ins, outs, name=nm, **attrs))
        return outs[0] if nout == 1 else outs

    def conv(self, x, cin, cout, k=1, stride=1, group=1):
        return self.op("Conv", [x, self.w((cout, cin // group, k, k)), self.w((cout,), 0.01)],
                       kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)

    def silu(self, x):
        return self.op("Mul", [x, self.op("Sigmoid", [x])])

    def model(self, inputs, outputs, opset):
        g = h.make_graph(self.nodes, "g", inputs, outputs, self.inits)
        m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], producer_name="qdq_models")
        m.ir_version = 8
        return m


def vi(name, shape):
    return h.make_tensor_value_info(name, T.FLOAT, shape)


def resnet18_blocks():
    b = Builder(1)
    x = b.op("Relu", [b.conv("x", 3, 16, 3, 2)])
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    for cin, cout, stride in ((16, 16, 1), (16, 32, 2)):
        y = b.op("Relu", [b.conv(x, cin, cout, 3, stride)])
        y = b.conv(y, cout, cout, 3)
        short = x if stride == 1 else b.conv(x, cin, cout, 1, stride)
        x = b.op("Relu", [b.op("Add", [y, short])])
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])])
    y = b.op("Gemm", [x, b.w((10, 32)), b.w((10,), 0.01)], transB=1)
    b.nodes[-1].output[0] = "y"
    return b.model([vi("x", [1, 3, 64, 64])], [vi("y", [1, 10])], 13)


def mobilenetv3_block():
    b = Builder(2)

    def hswish_decomposed(t):   # x * Clip(x + 3, 0, 6) / 6, as PyTorch 1.9 exports it
        r = b.op("Clip", [b.op("Add", [t, b.c(3.0)]), b.c(0.0), b.c(6.0)])
        return b.op("Div", [b.op("Mul", [t, r]), b.c(6.0)])
    x = b.op("HardSwish", [b.conv("x", 3, 16, 3, 2)])
    for cin, exp, cout, act in ((16, 32, 16, "op"), (16, 48, 16, "decomposed")):
        hs = (lambda t: b.op("HardSwish", [t])) if act == "op" else hswish_decomposed
        y = hs(b.conv(x, cin, exp, 1))
        y = hs(b.conv(y, exp, exp, 3, 1, group=exp))
        s = b.op("GlobalAveragePool", [y])
        s = b.op("Relu", [b.conv(s, exp, 8, 1)])
        s = b.op("HardSigmoid", [b.conv(s, 8, exp, 1)], alpha=1.0 / 6, beta=0.5)
        y = b.op("Mul", [y, s])
        x = b.op("Add", [b.conv(y, exp, cout, 1), x])
    b.nodes[-1].output[0] = "y"
    return b.model([vi("x", [1, 3, 32, 32])], [vi("y", [1, 16, 16, 16])], 14)


def efficientnet_mbconv():
    b = Builder(3)
    x = b.silu(b.conv("x", 3, 16, 3, 2))
    for cin, exp in ((16, 64), (16, 64)):
        y = b.silu(b.conv(x, cin, exp, 1))
        y = b.silu(b.conv(y, exp, exp, 3, 1, group=exp))
        s = b.op("GlobalAveragePool", [y])
        s = b.silu(b.conv(s, exp, 4, 1))
        s = b.op("Sigmoid", [b.conv(s, 4, exp, 1)])
        y = b.op("Mul", [y, s])
        x = b.op("Add", [b.conv(y, exp, cin, 1), x])
    b.nodes[-1].output[0] = "y"
    return b.model([vi("x", [1, 3, 32, 32])], [vi("y", [1, 16, 16, 16])], 13)


def gpt2_block():
    b = Builder(4)
    d, heads, seq = 32, 4, 8
    hd = d // heads

    def ln(t):
        return b.op("LayerNormalization", [t, b.c(np.ones(d)), b.c(np.zeros(d))], axis=-1, epsilon=1e-5)

    def linear(t, n_in, n_out):
        return b.op("Add", [b.op("MatMul", [t, b.w((n_in, n_out))]), b.w((n_out,), 0.01)])

    def heads_of(t, perm):
        return b.op("Transpose", [b.op("Reshape", [t, b.c([1, seq, heads, hd], np.int64)])], perm=perm)
    qkv = linear(ln("x"), d, 3 * d)
    q, k, v = b.op("Split", [qkv, b.c([d, d, d], np.int64)], nout=3, axis=2)
    q, k, v = heads_of(q, [0, 2, 1, 3]), heads_of(k, [0, 2, 3, 1]), heads_of(v, [0, 2, 1, 3])
    att = b.op("Div", [b.op("MatMul", [q, k]), b.c(np.sqrt(hd))])
    att = b.op("Softmax", [att], axis=-1)
    a = b.op("Transpose", [b.op("MatMul", [att, v])], perm=[0, 2, 1, 3])
    a = b.op("Reshape", [a, b.c([1, seq, d], np.int64)])
    x = b.op("Add", ["x", linear(a, d, d)])
    m = linear(ln(x), d, 4 * d)
    inner = b.op("Mul", [b.op("Add", [m, b.op("Mul", [b.op("Pow", [m, b.c(3.0)]), b.c(0.044715)])]),
                         b.c(np.sqrt(2 / np.pi))])
    gelu = b.op("Mul", [b.op("Mul", [m, b.c(0.5)]), b.op("Add", [b.op("Tanh", [inner]), b.c(1.0)])])
    y = b.op("Add", [x, linear(gelu, 4 * d, d)])
    b.nodes[-1].output[0] = "y"
    del y
    return b.model([vi("x", [1, seq, d])], [vi("y", [1, seq, d])], 17)


def yolox_neck():
    b = Builder(5)

    def cbs(t, cin, cout, k=1, stride=1):
        return b.silu(b.conv(t, cin, cout, k, stride))
    p4 = cbs("x", 3, 16, 3, 2)          # 16x16
    p5 = cbs(p4, 16, 32, 3, 2)          # 8x8
    pools = [b.op("MaxPool", [p5], kernel_shape=[k, k], strides=[1, 1], pads=[k // 2] * 4) for k in (5, 9)]
    p5 = cbs(b.op("Concat", [p5] + pools, axis=1), 96, 32)
    up = b.op("Resize", [cbs(p5, 32, 16), "", b.c([1.0, 1.0, 2.0, 2.0])], mode="nearest")
    cat = b.op("Concat", [up, p4], axis=1)
    left, right = cbs(cat, 32, 16), cbs(cat, 32, 16)
    out = cbs(b.op("Concat", [cbs(left, 16, 16, 3), right], axis=1), 32, 32)
    b.nodes[-1].output[0] = "y"
    del out
    return b.model([vi("x", [1, 3, 32, 32])], [vi("y", [1, 32, 16, 16])], 13)


# ---------------------------------------------------------------- the set written

BUILT = [("resnet18_blocks", resnet18_blocks, ("u8", "s8", "u8keep"), ()),
         ("mobilenetv3_block", mobilenetv3_block, ("u8", "s8", "u8keep"), ()),
         ("efficientnet_mbconv", efficientnet_mbconv, ("u8", "s8"), ()),
         ("gpt2_block", gpt2_block, ("u8", "s8"), ("LayerNormalization", "Softmax")),
         ("gpt2_block_qsoftmax", gpt2_block, ("u8",), ("LayerNormalization",)),
         ("yolox_neck", yolox_neck, ("u8", "s8"), ("Resize",)),
         ("yolox_neck_qresize", yolox_neck, ("u8",), ())]
SHARED = [("light_squeezenet", ("u8", "s8"), ()),
          ("light_resnet50", ("u8", "s8"), ()),
          ("ultraface_version-RFB-320", ("u8", "s8"), ()),
          ("pan_mobilenetv3_seg", ("u8",), ("Resize",)),
          ("tiny_distilbert_sst2", ("u8", "s8"), ("Softmax",))]


def write(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, path)
    print("%s %d nodes %d bytes" % (path, len(model.graph.node), os.path.getsize(path)))


MODES = ("u8", "s8", "u8keep")


def quantize_each(out, models):
    """Every model in every mode, cached by content (quantize_each's doc is
    the second usage above)."""
    import hashlib
    cache = os.path.join(out, "cache")
    os.makedirs(cache, exist_ok=True)
    for f in os.listdir(out):
        if f.startswith("qdq_") and f.endswith(".onnx"):
            os.unlink(os.path.join(out, f))
    with open(os.path.abspath(__file__), "rb") as f:
        me = f.read()
    used = set()
    for path in models:
        name = os.path.basename(path)[:-len(".onnx")].split("_version")[0]   # as main() names them
        with open(path, "rb") as f:
            data = f.read()
        for mode in MODES:
            qname = "qdq_%s_%s" % (name, mode)
            key = hashlib.sha1(me + b"\0" + mode.encode() + b"\0" + data).hexdigest()[:20]
            used.add(key)
            done, why = os.path.join(cache, key + ".onnx"), os.path.join(cache, key + ".why")
            if not os.path.exists(done) and not os.path.exists(why):
                model = onnx.load_from_string(data)
                stage = "pre-processing (opset %d to 13 or more, onnx.version_converter)" % model.opset_import[0].version
                try:
                    p = prepare(model)
                    stage = "quantizing"
                    m = Quantizer(p, mode, ()).run()
                    stage = "onnx.checker on the result"
                    onnx.checker.check_model(m)
                    onnx.save(m, done + ".tmp")
                    os.replace(done + ".tmp", done)
                except Exception as e:   # noqa: BLE001 — any failure is reported, with its words
                    words = str(e).splitlines()[0][:100] if str(e) else ""
                    others = sorted({o.domain for o in model.opset_import if o.domain not in ("", "ai.onnx")})
                    with open(why + ".tmp", "w") as f:
                        f.write("%s failed: %s: %s%s" % (stage, type(e).__name__, words,
                                                         "; the model imports " + ", ".join(others) if others else ""))
                    os.replace(why + ".tmp", why)
            if os.path.exists(done):
                os.link(done, os.path.join(out, qname + ".onnx"))
            else:
                with open(why) as f:
                    print("%s: not quantized: %s" % (qname, f.read()))
    for f in os.listdir(cache):   # results of another version of this script or of a model gone
        if f.split(".")[0] not in used:
            os.unlink(os.path.join(cache, f))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--each":
        quantize_each(sys.argv[2], sys.argv[3:])
        return
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    out = sys.argv[1]
    shared = sys.argv[2] if len(sys.argv) > 2 else os.path.join("..", "shared", "models")
    os.makedirs(out, exist_ok=True)
    jobs = [(name, build, modes, excl) for name, build, modes, excl in BUILT]
    for name, modes, excl in SHARED:
        path = os.path.join(shared, name + ".onnx")
        if os.path.exists(path):
            jobs.append((name.split("_version")[0], (lambda p=path: onnx.load(p)), modes, excl))
    for name, build, modes, excl in jobs:
        for mode in modes:
            m = Quantizer(prepare(build()), mode, excl).run()
            write(m, os.path.join(out, "qdq_%s_%s.onnx" % (name, mode)))


if __name__ == "__main__":
    main()
