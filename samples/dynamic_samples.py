"""dynamic_samples.py — the dynamic-shape samples make_samples.py writes:
small models that mimic real export families whose dims are symbols, or
have no name at all, so that symbolic shape inference, the bindings
(--dim, --input-shape) and memory as formulas have something real to show.

  audio_frontend.onnx       PyTorch-2 log-mel front end over audio[batch,
                            samples]: pre-emphasis (Slice / Sub / Concat over
                            the symbolic length), reflect Pad, STFT as two
                            Conv1d (kernel 128, stride 32, 65 bins), power,
                            mel MatMul, Log
  vad_if.onnx               Silero-VAD style: the network lives in If branches
                            chosen by Equal(sr, 16000); the input's dims have
                            no name; view(size(0), -1) as Shape → Gather →
                            Unsqueeze → Concat → Reshape
  paddle_ocr_dyn.onnx       Paddle2ONNX CRNN-like recogniser with
                            DynamicDimension.N dims and Paddle tensor names
  transformer_dyn_seq.onnx  HF / optimum BERT layer over [batch, sequence]:
                            position_ids[:, :seq] Slice, Shape-built Reshape
                            head split, attention, Erf-form Gelu MLP
  conv1d_symbolic_len.onnx  Conv1d / MaxPool1d over a symbolic length, two
                            branches concatenated along it

Weights come from an integer hash (a fixed salt per tensor) or from
closed-form DFT and mel formulas rounded to 1e-6: the bytes never change.
Each function returns (file name, graph, opset); make_samples.py makes the
model (producer, IR version) and checks it.
"""
import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


class G:
	"""One graph under construction: inputs, initializers, nodes, outputs."""

	def __init__(self, name):
		self.name = name
		self.inputs, self.outputs, self.inits, self.nodes = [], [], [], []
		self.salt = 0

	def input(self, name, dtype, shape):
		self.inputs.append(helper.make_tensor_value_info(name, dtype, shape))
		return name

	def output(self, name, dtype, shape):
		self.outputs.append(helper.make_tensor_value_info(name, dtype, shape))
		return name

	def init(self, name, arr):
		self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
		return name

	def weight(self, name, shape, scale=0.1):
		"""Pseudo-random weights from an integer hash (fixed per salt)."""
		self.salt += 1
		n = int(np.prod(shape))
		i = np.arange(n, dtype=np.int64)
		h = (i * 7919 + self.salt * 104729 + 12345) % 2003
		vals = scale * (h.astype(np.float64) / 1001.0 - 1.0)
		return self.init(name, vals.reshape(shape).astype(np.float32))

	def node(self, op, name, inputs, outputs, **attrs):
		if isinstance(outputs, str):
			outputs = [outputs]
		self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
		return outputs[0] if len(outputs) == 1 else outputs

	def const(self, name, out, arr):
		"""A Constant node (as PyTorch and Paddle2ONNX emit them)."""
		return self.node("Constant", name, [], out,
				 value=numpy_helper.from_array(np.asarray(arr), out))

	def graph(self, doc=""):
		return helper.make_graph(self.nodes, self.name, self.inputs, self.outputs,
					 initializer=self.inits, doc_string=doc)


# ---------------------------------------------------------------- a. audio
def audio_frontend():
	"""What torch.onnx.export (2.x, opset 17) writes for a NeMo-like
	preprocessor: x = cat(x[:, :1], x[:, 1:] - 0.97 * x[:, :-1]); reflect pad
	n_fft/2; STFT as two Conv1d with Hann-windowed DFT kernels; |X|^2; mel
	projection; log(x + 2^-24)."""
	n_fft, hop, n_bins, n_mels, sr = 128, 32, 65, 40, 16000
	g = G("main_graph")
	g.input("audio", F32, ["batch", "samples"])
	g.output("features", F32, ["batch", "frames", n_mels])

	# closed-form weights, rounded so the bytes do not depend on libm's last bit
	t = np.arange(n_fft, dtype=np.float64)
	k = np.arange(n_bins, dtype=np.float64)[:, None]
	win = 0.5 - 0.5 * np.cos(2 * np.pi * t / n_fft)
	real = np.round(win * np.cos(2 * np.pi * k * t / n_fft), 6).astype(np.float32)
	imag = np.round(-win * np.sin(2 * np.pi * k * t / n_fft), 6).astype(np.float32)
	g.init("stft_real.weight", real.reshape(n_bins, 1, n_fft))
	g.init("stft_imag.weight", imag.reshape(n_bins, 1, n_fft))

	def hz_to_mel(f):
		return 2595.0 * np.log10(1.0 + f / 700.0)
	mel_pts = np.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2), n_mels + 2)
	hz_pts = 700.0 * (10 ** (mel_pts / 2595.0) - 1.0)
	freqs = np.linspace(0, sr / 2, n_bins)
	fb = np.zeros((n_bins, n_mels))
	for m in range(n_mels):
		lo, c, hi = hz_pts[m], hz_pts[m + 1], hz_pts[m + 2]
		fb[:, m] = np.maximum(0, np.minimum((freqs - lo) / (c - lo), (hi - freqs) / (hi - c)))
	g.init("onnx::MatMul_41", np.round(fb, 6).astype(np.float32))

	c0 = g.const("/Constant", "/Constant_output_0", np.array(0, np.int64))
	x0 = g.node("Gather", "/Gather", ["audio", c0], "/Gather_output_0", axis=1)
	c1 = g.const("/Constant_1", "/Constant_1_output_0", np.array([1], np.int64))
	x0u = g.node("Unsqueeze", "/Unsqueeze", [x0, c1], "/Unsqueeze_output_0")
	c2 = g.const("/Constant_2", "/Constant_2_output_0", np.array([1], np.int64))
	c3 = g.const("/Constant_3", "/Constant_3_output_0", np.array([9223372036854775807], np.int64))
	c4 = g.const("/Constant_4", "/Constant_4_output_0", np.array([1], np.int64))
	c5 = g.const("/Constant_5", "/Constant_5_output_0", np.array([1], np.int64))
	hi_ = g.node("Slice", "/Slice", ["audio", c2, c3, c4, c5], "/Slice_output_0")
	c6 = g.const("/Constant_6", "/Constant_6_output_0", np.array([0], np.int64))
	c7 = g.const("/Constant_7", "/Constant_7_output_0", np.array([-1], np.int64))
	lo_ = g.node("Slice", "/Slice_1", ["audio", c6, c7, c4, c5], "/Slice_1_output_0")
	c8 = g.const("/Constant_8", "/Constant_8_output_0", np.array(0.97, np.float32))
	sc = g.node("Mul", "/Mul", [lo_, c8], "/Mul_output_0")
	d = g.node("Sub", "/Sub", [hi_, sc], "/Sub_output_0")
	pre = g.node("Concat", "/Concat", [x0u, d], "/Concat_output_0", axis=1)
	c9 = g.const("/Constant_9", "/Constant_9_output_0", np.array([1], np.int64))
	x3 = g.node("Unsqueeze", "/Unsqueeze_1", [pre, c9], "/Unsqueeze_1_output_0")
	c10 = g.const("/Constant_10", "/Constant_10_output_0",
				  np.array([0, 0, n_fft // 2, 0, 0, n_fft // 2], np.int64))
	xp = g.node("Pad", "/Pad", [x3, c10], "/Pad_output_0", mode="reflect")
	re = g.node("Conv", "/stft_real/Conv", [xp, "stft_real.weight"], "/stft_real/Conv_output_0",
				dilations=[1], group=1, kernel_shape=[n_fft], pads=[0, 0], strides=[hop])
	im = g.node("Conv", "/stft_imag/Conv", [xp, "stft_imag.weight"], "/stft_imag/Conv_output_0",
				dilations=[1], group=1, kernel_shape=[n_fft], pads=[0, 0], strides=[hop])
	c11 = g.const("/Constant_11", "/Constant_11_output_0", np.array(2.0, np.float32))
	re2 = g.node("Pow", "/Pow", [re, c11], "/Pow_output_0")
	im2 = g.node("Pow", "/Pow_1", [im, c11], "/Pow_1_output_0")
	pw = g.node("Add", "/Add", [re2, im2], "/Add_output_0")
	pt = g.node("Transpose", "/Transpose", [pw], "/Transpose_output_0", perm=[0, 2, 1])
	mel = g.node("MatMul", "/MatMul", [pt, "onnx::MatMul_41"], "/MatMul_output_0")
	c12 = g.const("/Constant_12", "/Constant_12_output_0", np.array(2.0 ** -24, np.float32))
	eps = g.node("Add", "/Add_1", [mel, c12], "/Add_1_output_0")
	g.node("Log", "/Log", [eps], "features")
	return g, 17


# ---------------------------------------------------------------- b. vad
def vad_if():
	"""Silero-VAD-like: Equal(sr, 16000) -> If; each branch runs its own small
	network over the outer-scope `input` (TorchScript-era numeric names). The
	input's dims and the outputs' batch dim carry neither value nor param."""
	outer = G("torch-jit-export")
	outer.input("input", F32, [None, None])       # dims with neither value nor param
	outer.input("sr", I64, [])
	outer.output("output", F32, [None, 1])

	def branch(tag, base, kernel, stride, ch):
		b = G(f"torch-jit-export{tag}")
		b.salt = 100 * base
		n = lambda k: str(base + k)  # TorchScript-style numbered values
		ax = b.const(f"Constant_{base}", n(0), np.array([1], np.int64))
		x = b.node("Unsqueeze", f"Unsqueeze_{base + 1}", ["input", ax], f"input.{base + 1}")
		w1 = b.weight(f"onnx::Conv_{base + 90}", [ch, 1, kernel])
		b1 = b.weight(f"onnx::Conv_{base + 91}", [ch], 0.01)
		y = b.node("Conv", f"Conv_{base + 2}", [x, w1, b1], f"input.{base + 3}",
				   dilations=[1], group=1, kernel_shape=[kernel], pads=[0, 0], strides=[stride])
		y = b.node("Relu", f"Relu_{base + 3}", [y], f"onnx::Conv_{base + 4}")
		w2 = b.weight(f"onnx::Conv_{base + 92}", [ch, ch, 3])
		b2 = b.weight(f"onnx::Conv_{base + 93}", [ch], 0.01)
		y = b.node("Conv", f"Conv_{base + 4}", [y, w2, b2], f"input.{base + 5}",
				   dilations=[1], group=1, kernel_shape=[3], pads=[1, 1], strides=[1])
		y = b.node("Relu", f"Relu_{base + 5}", [y], f"onnx::Conv_{base + 6}")
		w3 = b.weight(f"onnx::Conv_{base + 94}", [1, ch, 1])
		b3 = b.weight(f"onnx::Conv_{base + 95}", [1], 0.01)
		y = b.node("Conv", f"Conv_{base + 6}", [y, w3, b3], f"input.{base + 7}",
				   dilations=[1], group=1, kernel_shape=[1], pads=[0, 0], strides=[1])
		p = b.node("Sigmoid", f"Sigmoid_{base + 7}", [y], f"onnx::Shape_{base + 8}")
		# out.view(out.size(0), -1), as TorchScript exports it
		s = b.node("Shape", f"Shape_{base + 8}", [p], f"onnx::Gather_{base + 9}")
		i0 = b.const(f"Constant_{base + 9}", n(10), np.array(0, np.int64))
		bs = b.node("Gather", f"Gather_{base + 10}", [s, i0], f"onnx::Unsqueeze_{base + 11}", axis=0)
		a0 = b.const(f"Constant_{base + 11}", n(12), np.array([0], np.int64))
		bu = b.node("Unsqueeze", f"Unsqueeze_{base + 12}", [bs, a0], f"onnx::Concat_{base + 13}")
		m1 = b.const(f"Constant_{base + 13}", n(14), np.array([-1], np.int64))
		sh = b.node("Concat", f"Concat_{base + 14}", [bu, m1], f"onnx::Reshape_{base + 15}", axis=0)
		r = b.node("Reshape", f"Reshape_{base + 15}", [p, sh], f"onnx::ReduceMean_{base + 16}")
		b.node("ReduceMean", f"ReduceMean_{base + 16}", [r], f"out{tag}", axes=[1], keepdims=1)
		b.output(f"out{tag}", F32, [None, 1])
		return b.graph()

	then_g = branch("1", 10, 64, 32, 16)     # 16 kHz: 4 ms hop
	else_g = branch("2", 40, 32, 16, 16)     # 8 kHz
	k = outer.const("Constant_0", "3", np.array(16000, np.int64))
	eq = outer.node("Equal", "Equal_1", ["sr", k], "4")
	outer.node("If", "If_2", [eq], "output", then_branch=then_g, else_branch=else_g)
	return outer, 13


# ---------------------------------------------------------------- c. paddle
def paddle_ocr_dyn():
	"""Paddle2ONNX-style (opset 11) small text recogniser: three
	conv2d+batch_norm+relu blocks, pool2d, reshape2 to [N, C, -1], transpose2
	to a sequence, linear (matmul_v2 + elementwise_add), softmax."""
	g = G("paddle-onnx")
	dyn = ["DynamicDimension.0", 3, "DynamicDimension.1", "DynamicDimension.2"]
	g.input("x", F32, dyn)
	g.output("softmax_0.tmp_0", F32, ["DynamicDimension.0", "DynamicDimension.3", 37])

	x, cin = "x", 3
	for i, (cout, stride) in enumerate([(8, [2, 2]), (16, [1, 1]), (16, [2, 1])]):
		w = g.weight(f"conv2d_{i}.w_0", [cout, cin, 3, 3])
		y = g.node("Conv", f"conv2d_{i}.tmp_0", [x, w], f"conv2d_{i}.tmp_0",
				   dilations=[1, 1], group=1, kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=stride)
		sc = g.init(f"batch_norm_{i}.w_0", np.ones(cout, np.float32))
		bi = g.weight(f"batch_norm_{i}.b_0", [cout], 0.01)
		mu = g.weight(f"batch_norm_{i}.w_1", [cout], 0.01)
		var = g.init(f"batch_norm_{i}.w_2", np.ones(cout, np.float32))
		y = g.node("BatchNormalization", f"batch_norm_{i}.tmp_2", [y, sc, bi, mu, var],
				   f"batch_norm_{i}.tmp_2", epsilon=1e-5, momentum=0.9)
		x = g.node("Relu", f"relu_{i}.tmp_0", [y], f"relu_{i}.tmp_0")
		cin = cout
	x = g.node("MaxPool", "pool2d_0.tmp_0", [x], "pool2d_0.tmp_0",
			   kernel_shape=[2, 2], pads=[0, 0, 0, 0], strides=[2, 2])
	shp = g.const("p2o.Constant.0", "p2o.Constant.0.out", np.array([0, 16, -1], np.int64))
	x = g.node("Reshape", "reshape2_0.tmp_0", [x, shp], "reshape2_0.tmp_0")
	x = g.node("Transpose", "transpose_0.tmp_0", [x], "transpose_0.tmp_0", perm=[0, 2, 1])
	w = g.weight("linear_0.w_0", [16, 37])
	b = g.weight("linear_0.b_0", [37], 0.01)
	x = g.node("MatMul", "linear_0.tmp_0", [x, w], "linear_0.tmp_0")
	x = g.node("Add", "linear_0.tmp_1", [x, b], "linear_0.tmp_1")
	g.node("Softmax", "softmax_0.tmp_0", [x], "softmax_0.tmp_0", axis=2)
	return g, 11


# ---------------------------------------------------------------- d. transformer
def transformer_dyn_seq():
	"""One BERT-like encoder layer as optimum / torch.onnx.export (opset 14)
	writes it: every view() gets its own Shape -> Gather -> Unsqueeze ->
	Concat chain built from the activation's runtime shape."""
	H, NH, HD, V, P, FF = 32, 4, 8, 100, 64, 64
	g = G("main_graph")
	g.input("input_ids", I64, ["batch", "sequence"])
	g.output("last_hidden_state", F32, ["batch", "sequence", H])
	g.weight("embeddings.word_embeddings.weight", [V, H])
	g.weight("embeddings.position_embeddings.weight", [P, H])
	g.init("embeddings.position_ids", np.arange(P, dtype=np.int64).reshape(1, P))
	cnt = [0]

	def c(arr):
		cnt[0] += 1
		return g.const(f"/Constant_{cnt[0]}", f"/Constant_{cnt[0]}_output_0", arr)

	def N(op, scope, inputs, **attrs):
		name = f"{scope}/{op}"
		k = 0
		while any(n.name == name for n in g.nodes):
			k += 1
			name = f"{scope}/{op}_{k}"
		return g.node(op, name, inputs, name + "_output_0", **attrs)

	# embeddings: word + position (position_ids[:, :seq])
	e = N("Gather", "/embeddings/word_embeddings", ["embeddings.word_embeddings.weight", "input_ids"])
	s = N("Shape", "/embeddings", ["input_ids"])
	seq = N("Gather", "/embeddings", [s, c(np.array(1, np.int64))], axis=0)
	sequ = N("Unsqueeze", "/embeddings", [seq, c(np.array([0], np.int64))])
	pid = N("Slice", "/embeddings", ["embeddings.position_ids", c(np.array([0], np.int64)), sequ,
									 c(np.array([1], np.int64)), c(np.array([1], np.int64))])
	pe = N("Gather", "/embeddings/position_embeddings", ["embeddings.position_embeddings.weight", pid])
	x = N("Add", "/embeddings", [e, pe])

	def layernorm(x, scope):
		g.init(f"{scope[1:].replace('/', '.')}.weight", np.ones(H, np.float32))
		g.weight(f"{scope[1:].replace('/', '.')}.bias", [H], 0.01)
		mu = N("ReduceMean", scope, [x], axes=[-1], keepdims=1)
		d = N("Sub", scope, [x, mu])
		p = N("Pow", scope, [d, c(np.array(2.0, np.float32))])
		v = N("ReduceMean", scope, [p], axes=[-1], keepdims=1)
		v = N("Add", scope, [v, c(np.array(1e-12, np.float32))])
		r = N("Sqrt", scope, [v])
		y = N("Div", scope, [d, r])
		y = N("Mul", scope, [y, f"{scope[1:].replace('/', '.')}.weight"])
		return N("Add", scope, [y, f"{scope[1:].replace('/', '.')}.bias"])

	def linear(x, scope, nin, nout):
		w = g.weight(f"onnx::MatMul_{scope.replace('/', '_')}", [nin, nout])
		b = g.weight(f"{scope[1:].replace('/', '.')}.bias", [nout], 0.01)
		y = N("MatMul", scope, [x, w])
		return N("Add", scope, [b, y])     # torch puts the bias first

	def batch_and_seq(x, scope):
		"""x.size(0) and x.size(1), each unsqueezed, as torch builds a view()."""
		s0 = N("Shape", scope, [x])
		b = N("Gather", scope, [s0, c(np.array(0, np.int64))], axis=0)
		s1 = N("Shape", scope, [x])
		t = N("Gather", scope, [s1, c(np.array(1, np.int64))], axis=0)
		bu = N("Unsqueeze", scope, [b, c(np.array([0], np.int64))])
		tu = N("Unsqueeze", scope, [t, c(np.array([0], np.int64))])
		return bu, tu

	def split_heads(x, scope, perm):
		bu, tu = batch_and_seq(x, scope)
		shp = N("Concat", scope, [bu, tu, c(np.array([NH], np.int64)), c(np.array([HD], np.int64))], axis=0)
		r = N("Reshape", scope, [x, shp])
		return N("Transpose", scope, [r], perm=perm)

	x = layernorm(x, "/embeddings/LayerNorm")
	a = "/encoder/layer.0/attention/self"
	q = split_heads(linear(x, a + "/query", H, H), a, [0, 2, 1, 3])
	k = split_heads(linear(x, a + "/key", H, H), a, [0, 2, 3, 1])
	v = split_heads(linear(x, a + "/value", H, H), a, [0, 2, 1, 3])
	sc = N("MatMul", a, [q, k])
	sc = N("Div", a, [sc, c(np.array(math.sqrt(HD), np.float32))])
	pr = N("Softmax", a, [sc], axis=-1)
	ctx = N("MatMul", a, [pr, v])
	ctx = N("Transpose", a, [ctx], perm=[0, 2, 1, 3])
	bu, tu = batch_and_seq(ctx, a)
	shp = N("Concat", a, [bu, tu, c(np.array([H], np.int64))], axis=0)
	ctx = N("Reshape", a, [ctx, shp])
	o = "/encoder/layer.0/attention/output"
	y = linear(ctx, o + "/dense", H, H)
	y = N("Add", o, [y, x])
	x = layernorm(y, o + "/LayerNorm")
	i = "/encoder/layer.0/intermediate"
	h = linear(x, i + "/dense", H, FF)
	gd = N("Div", i + "/intermediate_act_fn", [h, c(np.array(math.sqrt(2.0), np.float32))])
	ge = N("Erf", i + "/intermediate_act_fn", [gd])
	ga = N("Add", i + "/intermediate_act_fn", [ge, c(np.array(1.0, np.float32))])
	gm = N("Mul", i + "/intermediate_act_fn", [h, ga])
	gm = N("Mul", i + "/intermediate_act_fn", [gm, c(np.array(0.5, np.float32))])
	o = "/encoder/layer.0/output"
	y = linear(gm, o + "/dense", FF, H)
	y = N("Add", o, [y, x])
	y = layernorm(y, o + "/LayerNorm")
	g.node("Identity", "/Identity", [y], "last_hidden_state")
	return g, 14


# ---------------------------------------------------------------- e. conv1d
def conv1d_symbolic_len():
	"""x [1, 64, length]:
	   a = Conv(k3, s2, p1)       -> floor((length + 2 - 3) / 2) + 1
	   a = Relu(a); a = MaxPool(k2, s2) -> floor((La - 2) / 2) + 1
	   b = Conv(k3, s4, p2, d2)   -> floor((length + 4 - 5) / 4) + 1
	   y = Concat(a, b, axis=2)   -> Lp + Lb"""
	g = G("main_graph")
	g.input("x", F32, [1, 64, "length"])
	g.output("y", F32, [1, 16, "out_length"])
	g.weight("conv_a.weight", [16, 64, 3])
	g.weight("conv_a.bias", [16], 0.01)
	g.weight("conv_b.weight", [16, 64, 3])
	g.weight("conv_b.bias", [16], 0.01)
	a = g.node("Conv", "/conv_a/Conv", ["x", "conv_a.weight", "conv_a.bias"], "/conv_a/Conv_output_0",
			   dilations=[1], group=1, kernel_shape=[3], pads=[1, 1], strides=[2])
	a = g.node("Relu", "/relu/Relu", [a], "/relu/Relu_output_0")
	a = g.node("MaxPool", "/pool/MaxPool", [a], "/pool/MaxPool_output_0",
			   ceil_mode=0, dilations=[1], kernel_shape=[2], pads=[0, 0], strides=[2])
	b = g.node("Conv", "/conv_b/Conv", ["x", "conv_b.weight", "conv_b.bias"], "/conv_b/Conv_output_0",
			   dilations=[2], group=1, kernel_shape=[3], pads=[2, 2], strides=[4])
	g.node("Concat", "/Concat", [a, b], "y", axis=2)
	return g, 17


def samples():
	"""(file name, graph with its doc string, opset) of each sample."""
	out = []
	for name, fn in (("audio_frontend.onnx", audio_frontend), ("vad_if.onnx", vad_if),
			 ("paddle_ocr_dyn.onnx", paddle_ocr_dyn),
			 ("transformer_dyn_seq.onnx", transformer_dyn_seq),
			 ("conv1d_symbolic_len.onnx", conv1d_symbolic_len)):
		g, opset = fn()
		out.append((name, g.graph(fn.__doc__) if isinstance(g, G) else g, opset))
	return out
