#!/usr/bin/python3
"""count_fusions.py — an independent count of fusions per rule, written
directly against python3-onnx, sharing no code with fusiondbg: the patterns
of tests/rules/ ("test") and of the shipped rules/ ("shipped") are written
out here by hand. Prints one line per rule: NAME COUNT, in run order.

Semantics mirrored (fusiondbg-rules(5), MATCH): rules by priority (high first), then
name; anchors in node order; a chain op consumes the previous op's output;
intermediates may not be used outside the match nor be graph outputs; a
node already claimed by a fused rule makes the candidate fail and the next
candidate is tried. SiLU = Sigmoid(x) -> Mul(x, sig); BiasAdd = Add with a
1-D constant. Main graph only.

Usage: count_fusions.py MODEL test|shipped
"""
import sys
import onnx
from onnx import shape_inference

RANDOM = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"}
FLOATS = {1, 10, 11, 16}


class G:
	def __init__(self, path):
		m = onnx.load(path, load_external_data=False)
		try:
			m = shape_inference.infer_shapes(m)
		except Exception:
			pass
		g = m.graph
		self.nodes = list(g.node)
		self.prod, self.cons = {}, {}
		for i, n in enumerate(self.nodes):
			for o in n.output:
				if o:
					self.prod[o] = i
			for t in n.input:
				if t:
					self.cons.setdefault(t, []).append(i)
		self.outputs = {o.name for o in g.output}
		self.const = {i.name for i in g.initializer}
		self.shape = {i.name: list(i.dims) for i in g.initializer}
		self.dtype = {i.name: i.data_type for i in g.initializer}
		for vi in list(g.value_info) + list(g.input) + list(g.output):
			tt = vi.type.tensor_type
			self.dtype.setdefault(vi.name, tt.elem_type)
			if tt.HasField("shape"):
				self.shape.setdefault(vi.name, [d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim])
		for n in self.nodes:
			ins = [t for t in n.input if t]
			sub = any(a.type in (5, 10) for a in n.attribute)
			if n.op_type == "Constant" or (ins and not sub and n.op_type not in RANDOM and all(t in self.const for t in ins)):
				self.const.update(o for o in n.output if o)
			if n.op_type == "Constant":
				for a in n.attribute:
					if a.name == "value":
						self.shape[n.output[0]] = list(a.t.dims)

	def attr(self, n, name, default=None):
		for a in n.attribute:
			if a.name == name:
				return onnx.helper.get_attribute_value(a)
		return default

	def consumers(self, t):
		seen, out = set(), []
		for c in self.cons.get(t, []):
			if c not in seen:
				seen.add(c)
				out.append(c)
		return sorted(out)


# ---- unit matchers: given the graph and a node index, return members or None

def op(*types, pred=None):
	def m(g, i):
		n = g.nodes[i]
		if n.op_type not in types or n.domain not in ("", "ai.onnx"):
			return None
		return [i] if pred is None or pred(g, n) else None
	m.composite = None
	return m


def conv2d(g, n):
	for t in (n.input[1] if len(n.input) > 1 else "", n.input[0]):
		if t in g.shape and g.shape[t]:
			return len(g.shape[t]) == 4
	return True


def near(a, b):
	return a is not None and abs(a - b) <= 1e-6 * max(abs(a), abs(b))


def silu(g, t):
	"""SiLU composites reading tensor t: [(members, output)]."""
	res = []
	for s in g.consumers(t):
		ns = g.nodes[s]
		if ns.op_type != "Sigmoid" or ns.input[0] != t:
			continue
		c = g.consumers(ns.output[0])
		if len(c) != 1 or ns.output[0] in g.outputs:
			continue
		nm = g.nodes[c[0]]
		if nm.op_type == "Mul" and sorted(nm.input) == sorted([t, ns.output[0]]):
			res.append(([s, c[0]], nm.output[0]))
	return res


def biasadd(g, t):
	res = []
	for a in g.consumers(t):
		n = g.nodes[a]
		if n.op_type != "Add" or len(n.input) != 2:
			continue
		other = n.input[1] if n.input[0] == t else n.input[0]
		if other in g.const and len(g.shape.get(other, [0, 0])) == 1 and t not in g.const:
			res.append(([a], n.output[0]))
	return res


# A rule: (name, priority, alternatives, checks); an alternative is a list of
# steps; a step is ("node", matcher, extra) or ("comp", finder).
def step(m, extra=None):
	return ("node", m, extra)


TEST = [
	("T_Conv_BN_Relu", 300, [[step(op("Conv", pred=conv2d)), step(op("BatchNormalization")), step(op("Relu"))]], {}),
	("T_Conv_Relu", 250, [[step(op("Conv", pred=conv2d)), step(op("Relu"))]], {}),
	("T_Conv_SiLU", 240, [[step(op("Conv", pred=conv2d)), ("comp", silu)]], {}),
	("T_MatMul_AddConst", 230, [[step(op("MatMul", "FusedMatMul")), step(op("Add"), "other_const")]], {}),
	("T_BN_Relu", 100, [[step(op("BatchNormalization")), step(op("Relu"))]], {}),
]

bn_eps = lambda g, n: near(g.attr(n, "epsilon", 1e-5), 1e-5)
softmax_last = lambda g, n: g.attr(n, "axis", -1) == -1
no_transb = lambda g, n: not g.attr(n, "transB", 0)
no_allowzero = lambda g, n: not g.attr(n, "allowzero", 0)
group1 = lambda g, n: g.attr(n, "group", 1) == 1 and conv2d(g, n)
F = {"dtype": True, "outputs": 1}
SHIPPED = [
	("Conv_BN_Relu_Fusion", 200, [[step(op("Conv", pred=conv2d)), step(op("BatchNormalization", pred=bn_eps)), step(op("Relu"))]], F),
	("Attention_QKV_Fusion", 185, [[step(op("MatMul", "FusedMatMul")), step(op("Reshape")), step(op("Transpose"))],
	                               [step(op("MatMul", "FusedMatMul")), ("comp", biasadd), step(op("Reshape")), step(op("Transpose"))]], F),
	("Attention_QK_Softmax_Fusion", 180, [[step(op("MatMul", "FusedMatMul")), step(op("Softmax", pred=softmax_last))],
	                                      [step(op("MatMul", "FusedMatMul")), step(op("Where"), "input2_prev"), step(op("Softmax", pred=softmax_last))],
	                                      [step(op("MatMul", "FusedMatMul")), step(op("Add")), step(op("Softmax", pred=softmax_last))],
	                                      [step(op("MatMul", "FusedMatMul")), step(op("Div"), "input0_prev"), step(op("Softmax", pred=softmax_last))],
	                                      [step(op("MatMul", "FusedMatMul")), step(op("Div"), "input0_prev"), step(op("Add")), step(op("Softmax", pred=softmax_last))],
	                                      [step(op("MatMul", "FusedMatMul")), step(op("Div"), "input0_prev"), step(op("Where")), step(op("Softmax", pred=softmax_last))]], F),
	("Attention_ScoreV_Fusion", 175, [[step(op("MatMul", "FusedMatMul")), step(op("Transpose")), step(op("Reshape"))]], F),
	("Conv_Add_SiLU_Fusion", 150, [[step(op("Conv", pred=group1)), step(op("Add")), ("comp", silu)]],
	 {"dtype": True, "outputs": 1, "inputs": (1, 2)}),
	("MatMul_Reshape_Fusion", 120, [[step(op("MatMul", "FusedMatMul", pred=no_transb)), step(op("Reshape", pred=no_allowzero))]], F),
]
# LayerNorm_Dropout_Fusion needs a Dropout after a LayerNorm: none of the
# shared models has a Dropout after a LayerNorm, which check_no_dropout asserts.


def chains(g, alt, k, units, prev_out):
	"""Yields unit lists (each a (members, outputs)) completing alt from step k."""
	if k == len(alt):
		yield list(units)
		return
	kind = alt[k][0]
	if kind == "comp":
		for mem, out in alt[k][1](g, prev_out):
			yield from chains(g, alt, k + 1, units + [(mem, [out])], out)
		return
	_, m, extra = alt[k]
	cands = [units[0][0][0]] if k == 0 else g.consumers(prev_out)
	for i in cands:
		if any(i in u[0] for u in units) or not m(g, i):
			continue
		n = g.nodes[i]
		if extra == "other_const":
			ins = list(n.input)
			if len(ins) != 2 or prev_out not in ins:
				continue
			other = ins[1] if ins[0] == prev_out else ins[0]
			if other not in g.const:
				continue
		if extra == "input0_prev" and n.input[0] != prev_out:
			continue
		if extra == "input2_prev" and (len(n.input) < 3 or n.input[2] != prev_out):
			continue
		outs = [o for o in n.output if o]
		yield from chains(g, alt, k + 1, units + [([i], outs)], outs[0] if outs else None)


def ok(g, units, checks, claimed):
	members = {i for u in units for i in u[0]}
	if members & claimed:
		return False
	finals = units[-1][1]
	outputs = 0
	for i in members:
		for o in g.nodes[i].output:
			if not o:
				continue
			outside = o in g.outputs or any(c not in members for c in g.cons.get(o, []))
			if o in finals:
				outputs += 1 if (outside or o == finals[0]) else 0
			elif outside:
				return False
	if "outputs" in checks and outputs != checks["outputs"]:
		return False
	if "inputs" in checks:
		ext = set()
		for i in members:
			for t in g.nodes[i].input:
				if t and g.prod.get(t) not in members and t not in g.const:
					ext.add(t)
		lo, hi = checks["inputs"]
		if not lo <= len(ext) <= hi:
			return False
	if checks.get("dtype"):
		for i in members:
			for o in g.nodes[i].output:
				if o and g.dtype.get(o, 0) not in FLOATS | {0}:
					return False
	return True


def run(g, rules):
	claimed, counts = set(), []
	for name, prio, alts, checks in sorted(rules, key=lambda r: (-r[1], r[0])):
		firsts = [alt[0][1] for alt in alts]
		count = 0
		for i in range(len(g.nodes)):
			done = False
			for alt in alts:
				if done or not alt[0][1](g, i):
					continue
				outs = [o for o in g.nodes[i].output if o]
				for units in chains(g, alt, 1, [([i], outs)], outs[0] if outs else None):
					if ok(g, units, checks, claimed):
						claimed |= {m for u in units for m in u[0]}
						count += 1
						done = True
						break
		counts.append((name, count))
	return counts


def main():
	g = G(sys.argv[1])
	rules = TEST if sys.argv[2] == "test" else SHIPPED
	for name, count in run(g, rules):
		print(name, count)
	if sys.argv[2] == "shipped":
		ln = [n for n in g.nodes if n.op_type == "Dropout"]
		print("LayerNorm_Dropout_Fusion", "n/a" if ln else 0)


main()
