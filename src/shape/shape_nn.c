/* shape_nn.c — network layers: Conv / ConvTranspose (and their quantized
 * forms), pooling, Gemm, MatMul, normalizations, Resize / Upsample,
 * DepthToSpace / SpaceToDepth, recurrent layers, RoI ops, GridSample.
 * */
#include <math.h>
#include <string.h>
#include "shape/shape_infer.h"

/* An ints attribute of ns entries, or def for each. */
static void attr_spatial(const shape_ctx *c, const char *name, int32_t ns, int64_t def, int64_t *out)
{
	int64_t n = 0;
	const int64_t *v = sh_attr_ints(c, name, &n);

	for (int32_t i = 0; i < ns; i++)
		out[i] = v && i < n ? v[i] : def;
}

/* Spatial output sizes of a sliding window: Conv and pooling share them.
 * ceil_mode follows the ONNX spec from opset 19 on (and PyTorch): a last
 * window that would start inside the end padding is dropped. */
static void window_out(const shape_ctx *c, const fd_dim *in, const int64_t *kernel, int32_t ns,
                       bool ceil_mode, fd_dim *out)
{
	int64_t strides[SHAPE_MAX_RANK], dil[SHAPE_MAX_RANK], pads[2 * SHAPE_MAX_RANK];
	const char *auto_pad = sh_attr_str(c, "auto_pad", "NOTSET");
	bool same = !strncmp(auto_pad, "SAME", 4), valid = !strcmp(auto_pad, "VALID");

	attr_spatial(c, "strides", ns, 1, strides);
	attr_spatial(c, "dilations", ns, 1, dil);
	attr_spatial(c, "pads", 2 * ns, 0, pads);
	for (int32_t i = 0; i < ns; i++) {
		int64_t x = in[i].value, k = kernel[i], s = strides[i], o = -1;
		int64_t pb = valid ? 0 : pads[i], pe = valid ? 0 : pads[ns + i];
		out[i] = dim_unknown();
		if (s <= 0)
			continue;
		if (same) {
			out[i] = dim_ceildiv(in[i], s);
			continue;
		}
		if (k < 1 || dil[i] <= 0)
			continue;
		/* 128-bit: attributes come from the file and may be anything */
		__int128 ek = (__int128)(k - 1) * dil[i] + 1, span = (__int128)x + pb + pe - ek, w;
		if (x >= 0 && span >= 0 && span <= INT64_MAX) {
			w = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
			if (ceil_mode && (w - 1) * s >= (__int128)x + pb)
				w--;
			o = (int64_t)w;
		}
		if (!in[i].expr || ek > INT64_MAX / 4 || pb + pe > INT64_MAX / 4 || pb + pe < -INT64_MAX / 4) {
			out[i] = o >= 0 ? dim_of(o) : dim_unknown();
			continue;
		}
		/* in symbols: floor((x + pb + pe - ek [+ s - 1]) / s) + 1 */
		fd_dim sp = dim_of_sint(sint_add(sint_of_dim(in[i]), sint_num(pb + pe - (int64_t)ek + (ceil_mode ? s - 1 : 0))));
		fd_dim sym = dim_add(dim_floordiv(sp, s), dim_of(1));
		/* the ceil-mode correction (last window starting in the padding) is
		 * decided only by numbers: where they are known they win */
		out[i] = o >= 0 && sym.value != o ? dim_of(o) : sym;
	}
}

/* The forms of Conv and MatMul (the table row's arg): plain, output typed
 * like input 0; Integer, INT32 output; QLinear, the second operand at input
 * 3 and the output typed like y_zero_point (input 7) when it is given. */
enum { FORM_PLAIN, FORM_INTEGER, FORM_QLINEAR };

static int form_second_input(const shape_ctx *c)
{
	return c->arg == FORM_QLINEAR ? 3 : 1;
}

static int32_t form_dtype(const shape_ctx *c)
{
	if (c->arg == FORM_INTEGER)
		return DT_INT32;
	if (c->arg == FORM_QLINEAR && sh_in(c, 7))
		return sh_in_dtype(c, 7);
	return sh_in_dtype(c, 0);
}

/* Conv-like: X at input 0, W at the form's second input. */
static void infer_conv(shape_ctx *c)
{
	int32_t dt = form_dtype(c);
	const fd_shape *x = sh_in_shape(c, 0), *w = sh_in_shape(c, form_second_input(c));
	int32_t r = x && x->rank >= 0 ? x->rank : w ? w->rank : -1;
	fd_dim dims[SHAPE_MAX_RANK];
	int64_t kernel[SHAPE_MAX_RANK], nk = 0;

	if (r < 3 || r > SHAPE_MAX_RANK) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	int32_t ns = r - 2;
	const int64_t *ka = sh_attr_ints(c, "kernel_shape", &nk);
	for (int32_t i = 0; i < ns; i++)
		kernel[i] = ka && i < nk ? ka[i] :
		            w && w->rank == r ? w->dims[2 + i].value : -1;
	dims[0] = x && x->rank == r ? x->dims[0] : dim_unknown();
	dims[1] = w && w->rank == r ? w->dims[0] : dim_unknown();
	if (x && x->rank == r)
		window_out(c, x->dims + 2, kernel, ns, false, dims + 2);
	else
		for (int32_t i = 0; i < ns; i++)
			dims[2 + i] = dim_unknown();
	sh_set(c, 0, dt, r, dims);
}

static void infer_conv_transpose(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0), *w = sh_in_shape(c, 1);
	int32_t dt = sh_in_dtype(c, 0), r = x ? x->rank : -1;
	int64_t group = sh_attr_int(c, "group", 1), n_os = 0, nk = 0;
	int64_t kernel[SHAPE_MAX_RANK], strides[SHAPE_MAX_RANK], dil[SHAPE_MAX_RANK];
	int64_t opad[SHAPE_MAX_RANK], pads[2 * SHAPE_MAX_RANK];
	fd_dim dims[SHAPE_MAX_RANK];

	if (r < 3 || r > SHAPE_MAX_RANK) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	int32_t ns = r - 2;
	const int64_t *ka = sh_attr_ints(c, "kernel_shape", &nk);
	const int64_t *os = sh_attr_ints(c, "output_shape", &n_os);
	const char *auto_pad = sh_attr_str(c, "auto_pad", "NOTSET");
	bool wk = w && w->rank == r;

	attr_spatial(c, "strides", ns, 1, strides);
	attr_spatial(c, "dilations", ns, 1, dil);
	attr_spatial(c, "output_padding", ns, 0, opad);
	attr_spatial(c, "pads", 2 * ns, 0, pads);
	dims[0] = x->dims[0];
	dims[1] = wk && group > 0 ? dim_mul(w->dims[1], dim_of(group)) : dim_unknown();
	for (int32_t i = 0; i < ns; i++) {
		fd_dim in = x->dims[2 + i];
		kernel[i] = ka && i < nk ? ka[i] : wk ? w->dims[2 + i].value : -1;
		dims[2 + i] = dim_unknown();
		if (os && n_os >= ns) {
			dims[2 + i] = dim_of(os[n_os - ns + i]);
			continue;
		}
		if (!strncmp(auto_pad, "SAME", 4)) {
			dims[2 + i] = dim_mul(in, dim_of(strides[i]));
			continue;
		}
		if (kernel[i] < 1)
			continue;
		/* s * (in - 1) + output_padding + (k - 1) * dilation + 1 - pads */
		__int128 pb = strcmp(auto_pad, "VALID") ? (__int128)pads[i] + pads[ns + i] : 0;
		__int128 add = (__int128)opad[i] + (__int128)(kernel[i] - 1) * dil[i] + 1 - pb - strides[i];
		if (add > INT64_MAX / 2 || add < -INT64_MAX / 2)
			continue;
		dims[2 + i] = dim_of_sint(sint_add(sint_mul(sint_of_dim(in), sint_num(strides[i])), sint_num((int64_t)add)));
	}
	sh_set(c, 0, dt, r, dims);
}

static void infer_pool(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int32_t dt = sh_in_dtype(c, 0), r = x ? x->rank : -1;
	int64_t kernel[SHAPE_MAX_RANK], nk = 0;
	fd_dim dims[SHAPE_MAX_RANK];

	if (r < 3 || r > SHAPE_MAX_RANK) {
		sh_set(c, 0, dt, -1, NULL);
		sh_set(c, 1, DT_INT64, -1, NULL);
		return;
	}
	const int64_t *ka = sh_attr_ints(c, "kernel_shape", &nk);
	for (int32_t i = 0; i < r - 2; i++)
		kernel[i] = ka && i < nk ? ka[i] : -1;
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	window_out(c, x->dims + 2, kernel, r - 2, sh_attr_int(c, "ceil_mode", 0) != 0, dims + 2);
	sh_set(c, 0, dt, r, dims);
	sh_set(c, 1, DT_INT64, r, dims);     /* MaxPool's Indices */
}

static void infer_global_pool(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	fd_dim dims[SHAPE_MAX_RANK];

	if (!x || x->rank < 2 || x->rank > SHAPE_MAX_RANK) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	for (int32_t i = 2; i < x->rank; i++)
		dims[i] = dim_of(1);
	sh_set(c, 0, sh_in_dtype(c, 0), x->rank, dims);
}

static void infer_gemm(shape_ctx *c)
{
	const fd_shape *a = sh_in_shape(c, 0), *b = sh_in_shape(c, 1);
	bool ta = sh_attr_int(c, "transA", 0) != 0, tb = sh_attr_int(c, "transB", 0) != 0;
	fd_dim dims[2] = { dim_unknown(), dim_unknown() };

	if (a && a->rank == 2)
		dims[0] = a->dims[ta ? 1 : 0];
	if (b && b->rank == 2)
		dims[1] = b->dims[tb ? 0 : 1];
	sh_set(c, 0, sh_in_dtype(c, 0), 2, dims);
}

/* numpy matmul: 1-D operands get a 1 prepended / appended, then removed.
 * com.microsoft FusedMatMul may transpose the last two dims of either. */
static void infer_matmul(shape_ctx *c)
{
	int32_t dt = form_dtype(c);
	const fd_shape *a = sh_in_shape(c, 0), *b = sh_in_shape(c, form_second_input(c));
	fd_dim dims[SHAPE_MAX_RANK], ta[SHAPE_MAX_RANK], tb[SHAPE_MAX_RANK];
	fd_shape sa, sb;
	int32_t r;

	if (c->n->domain && c->n->domain[0] && a && b && a->rank >= 2 && b->rank >= 2 &&
	    a->rank < SHAPE_MAX_RANK && b->rank < SHAPE_MAX_RANK) {
		sa = (fd_shape){ a->rank, ta };
		sb = (fd_shape){ b->rank, tb };
		dims_copy(ta, a->dims, a->rank);
		dims_copy(tb, b->dims, b->rank);
		if (sh_attr_int(c, "transA", 0)) {
			ta[a->rank - 2] = a->dims[a->rank - 1];
			ta[a->rank - 1] = a->dims[a->rank - 2];
		}
		if (sh_attr_int(c, "transB", 0)) {
			tb[b->rank - 2] = b->dims[b->rank - 1];
			tb[b->rank - 1] = b->dims[b->rank - 2];
		}
		a = &sa;
		b = &sb;
	}

	if (!a || !b || a->rank < 1 || b->rank < 1 || a->rank > SHAPE_MAX_RANK - 1 ||
	    b->rank > SHAPE_MAX_RANK - 1) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	fd_shape ba = { a->rank > 2 ? a->rank - 2 : 0, a->dims };
	fd_shape bb = { b->rank > 2 ? b->rank - 2 : 0, b->dims };
	const fd_shape *batch[2] = { &ba, &bb };
	sh_broadcast(batch, 2, &r, dims);
	if (a->rank > 1)
		dims[r++] = a->dims[a->rank - 2];
	if (b->rank > 1)
		dims[r++] = b->dims[b->rank - 1];
	sh_set(c, 0, dt, r, dims);
}

/* Y like X; running / saved mean and variance shaped like the scale. */
static void infer_batchnorm(shape_ctx *c)
{
	sh_same(c, 0, 0, DT_UNDEFINED);
	for (int k = 1; k < c->n->n_outputs; k++)
		sh_same(c, k, sh_in(c, 3) ? 3 : 1, DT_UNDEFINED);
}

/* Y like X; Mean and InvStdDev keep the dims before axis, 1 after. */
static void infer_layernorm(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int32_t dt = (int32_t)sh_attr_int(c, "stash_type", DT_FLOAT), axis;
	fd_dim dims[SHAPE_MAX_RANK];

	sh_same(c, 0, 0, DT_UNDEFINED);
	if (!x || x->rank < 1 || x->rank > SHAPE_MAX_RANK ||
	    !shape_axis_norm(sh_attr_int(c, "axis", -1), x->rank, &axis)) {
		sh_set(c, 1, dt, -1, NULL);
		sh_set(c, 2, dt, -1, NULL);
		return;
	}
	for (int32_t i = 0; i < x->rank; i++)
		dims[i] = i < axis ? x->dims[i] : dim_of(1);
	sh_set(c, 1, dt, x->rank, dims);
	sh_set(c, 2, dt, x->rank, dims);
}

/* floor(d * scale) for a symbolic d: exact when scale is p / 2^k (the
 * scales real exports use: 2, 0.5, 4, 1.5), else not expressible. */
static fd_dim scale_symbolic(fd_dim d, double sc)
{
	for (int64_t q = 1; q <= 1024; q *= 2) {
		double p = sc * (double)q;
		if (p == floor(p) && p >= 0 && p < 1e9)
			return dim_floordiv(dim_mul(d, dim_of((int64_t)p)), q);
	}
	return dim_unknown();
}

/* Output dims = floor(dim * scale), in float32 as the reference does. */
static void scale_dims(const fd_shape *x, const double *sc, fd_dim *dims)
{
	for (int32_t i = 0; i < x->rank; i++) {
		int64_t v = x->dims[i].value;
		float o = floorf((float)v * (float)sc[i]);
		fd_dim num = v < 0 || !(o >= 0 && o < 9.2e18f) ? dim_unknown() : dim_of((int64_t)o);
		if (sc[i] == 1)
			dims[i] = x->dims[i];
		else if (x->dims[i].expr) {
			fd_dim sym = scale_symbolic(x->dims[i], sc[i]);
			dims[i] = dim_known(num) && sym.value != num.value ? num : dim_defined(sym) ? sym : num;
		} else
			dims[i] = num;
	}
}

static void infer_resize(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int32_t dt = sh_in_dtype(c, 0), r = x ? x->rank : -1, ax;
	double sc[SHAPE_MAX_RANK], full[SHAPE_MAX_RANK];
	int64_t n = 0, n_axes = 0;
	fd_dim dims[SHAPE_MAX_RANK];
	bool upsample = !strcmp(c->n->op_type, "Upsample");
	int scales_in = upsample || c->opset < 11 ? 1 : 2;

	if (r < 0 || r > SHAPE_MAX_RANK) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	const int64_t *axes = sh_attr_ints(c, "axes", &n_axes);
	if (!axes)
		n_axes = r;
	for (int32_t i = 0; i < r; i++) {
		dims[i] = dim_unknown();
		full[i] = 1;
	}
	fd_dim sizes[SHAPE_MAX_RANK];
	int64_t n_sizes = 0;
	if (!upsample && sh_in_dims(c, 3, sizes, SHAPE_MAX_RANK, &n_sizes) && n_sizes > 0 && n_sizes == n_axes) {
		dims_copy(dims, x->dims, r);
		for (int64_t i = 0; i < n_axes; i++)
			if (shape_axis_norm(axes ? axes[i] : i, r, &ax))
				dims[ax] = sizes[i];
		sh_set(c, 0, dt, r, dims);
		return;
	}
	const double *attr = upsample ? sh_attr_floats(c, "scales", &n) : NULL;
	bool have = attr ? n <= SHAPE_MAX_RANK : sh_in_nums(c, scales_in, sc, SHAPE_MAX_RANK, &n);
	if (attr && have)
		memcpy(sc, attr, (size_t)n * sizeof *sc);
	if (have && n > 0 && n == n_axes) {
		for (int64_t i = 0; i < n_axes; i++)
			if (shape_axis_norm(axes ? axes[i] : i, r, &ax))
				full[ax] = sc[i];
		scale_dims(x, full, dims);
	}
	sh_set(c, 0, dt, r, dims);
}

static void infer_depth_space(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int64_t b = sh_attr_int(c, "blocksize", 0);
	bool to_space = c->arg;
	fd_dim dims[4];

	if (!x || x->rank != 4 || b <= 0) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	dims[0] = x->dims[0];
	for (int i = 1; i < 4; i++) {
		bool up = (i == 1) != to_space;   /* multiply, else divide */
		int64_t f = b;
		bool over = i == 1 && __builtin_mul_overflow(b, b, &f);
		if (over)   /* b*b beyond int64: no dim is that large, a quotient is 0 */
			dims[i] = up || !dim_defined(x->dims[i]) ? dim_unknown() : dim_of(0);
		else
			dims[i] = up ? dim_mul(x->dims[i], dim_of(f)) : dim_floordiv(x->dims[i], f);
	}
	sh_set(c, 0, sh_in_dtype(c, 0), 4, dims);
}

/* RNN / GRU / LSTM: Y, Y_h (and LSTM's Y_c) from X, hidden_size, direction. */
static void infer_rnn(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int32_t dt = sh_in_dtype(c, 0);
	int64_t hidden = sh_attr_int(c, "hidden_size", -1);
	bool bi = !strcmp(sh_attr_str(c, "direction", "forward"), "bidirectional");
	bool batch_first = sh_attr_int(c, "layout", 0) != 0;
	fd_dim seq = dim_unknown(), batch = dim_unknown(), nd = dim_of(bi ? 2 : 1);
	fd_dim h = hidden >= 0 ? dim_of(hidden) : dim_unknown();

	if (x && x->rank == 3) {
		seq = x->dims[batch_first ? 1 : 0];
		batch = x->dims[batch_first ? 0 : 1];
	}
	fd_dim y[4] = { seq, nd, batch, h }, yb[4] = { batch, seq, nd, h };
	fd_dim s[3] = { nd, batch, h }, sb[3] = { batch, nd, h };
	sh_set(c, 0, dt, 4, batch_first ? yb : y);
	for (int k = 1; k < 3; k++)
		sh_set(c, k, dt, 3, batch_first ? sb : s);
}

/* RoiAlign / MaxRoiPool: (rois, C, output size). */
static void infer_roi(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0), *rois = sh_in_shape(c, 1);
	fd_dim dims[SHAPE_MAX_RANK];
	int64_t n = 0;
	int32_t r = 4;

	dims[0] = rois && rois->rank == 2 ? rois->dims[0] : dim_unknown();
	dims[1] = x && x->rank >= 2 ? x->dims[1] : dim_unknown();
	if (!strcmp(c->n->op_type, "RoiAlign")) {
		dims[2] = dim_of(sh_attr_int(c, "output_height", 1));
		dims[3] = dim_of(sh_attr_int(c, "output_width", 1));
	} else {
		const int64_t *ps = sh_attr_ints(c, "pooled_shape", &n);
		if (!ps || n > SHAPE_MAX_RANK - 2) {
			sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
			return;
		}
		for (int64_t i = 0; i < n; i++)
			dims[2 + i] = dim_of(ps[i]);
		r = 2 + (int32_t)n;
	}
	sh_set(c, 0, sh_in_dtype(c, 0), r, dims);
}

static void infer_grid_sample(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0), *grid = sh_in_shape(c, 1);
	fd_dim dims[SHAPE_MAX_RANK];

	if (!x || !grid || x->rank < 3 || grid->rank != x->rank || x->rank > SHAPE_MAX_RANK) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	for (int32_t i = 2; i < x->rank; i++)
		dims[i] = grid->dims[i - 1];
	sh_set(c, 0, sh_in_dtype(c, 0), x->rank, dims);
}

const shape_op shape_ops_nn[] = {
	{ "", "AveragePool", infer_pool, 0 },
	{ "", "BatchNormalization", infer_batchnorm, 0 },
	{ "", "Conv", infer_conv, FORM_PLAIN },
	{ "", "ConvInteger", infer_conv, FORM_INTEGER },
	{ "", "ConvTranspose", infer_conv_transpose, 0 },
	{ "", "DepthToSpace", infer_depth_space, 1 },
	{ "", "GRU", infer_rnn, 0 },
	{ "", "Gemm", infer_gemm, 0 },
	{ "", "GlobalAveragePool", infer_global_pool, 0 },
	{ "", "GlobalLpPool", infer_global_pool, 0 },
	{ "", "GlobalMaxPool", infer_global_pool, 0 },
	{ "", "GridSample", infer_grid_sample, 0 },
	{ "", "GroupNormalization", infer_batchnorm, 0 },
	{ "", "LSTM", infer_rnn, 0 },
	{ "", "LayerNormalization", infer_layernorm, 0 },
	{ "", "LpPool", infer_pool, 0 },
	{ "", "MatMul", infer_matmul, FORM_PLAIN },
	{ "", "MatMulInteger", infer_matmul, FORM_INTEGER },
	{ "", "MaxPool", infer_pool, 0 },
	{ "", "MaxRoiPool", infer_roi, 0 },
	{ "", "QLinearConv", infer_conv, FORM_QLINEAR },
	{ "", "QLinearMatMul", infer_matmul, FORM_QLINEAR },
	{ "", "RNN", infer_rnn, 0 },
	{ "", "Resize", infer_resize, 0 },
	{ "", "RoiAlign", infer_roi, 0 },
	{ "", "SpaceToDepth", infer_depth_space, 0 },
	{ "", "Upsample", infer_resize, 0 },
	{ "com.microsoft", "FusedConv", infer_conv, FORM_PLAIN },
	{ "com.microsoft", "FusedMatMul", infer_matmul, FORM_PLAIN },
	{ "com.microsoft", "LayerNormalization", infer_layernorm, 0 },
	{ "com.microsoft", "SimplifiedLayerNormalization", infer_layernorm, 0 },
	{ NULL, NULL, NULL, 0 },
};
