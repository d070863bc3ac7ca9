/* shape_misc.c — the less common standard ops whose shapes are still simple:
 * losses, window functions, MaxUnpool, Unique, DFT / STFT, MelWeightMatrix,
 * AffineGrid, CenterCropPad. */
#include <string.h>
#include "shape/shape_infer.h"

/* NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss: per-element loss
 * shaped like the target without reduction, a scalar with it; SCE's second
 * output, log_prob, is shaped like the scores. */
static void infer_loss(shape_ctx *c)
{
	int32_t dt = sh_in_dtype(c, 0);

	if (!strcmp(sh_attr_str(c, "reduction", "mean"), "none"))
		sh_same(c, 0, 1, dt);
	else
		sh_set(c, 0, dt, 0, NULL);
	sh_same(c, 1, 0, DT_UNDEFINED);
}

/* HannWindow, HammingWindow, BlackmanWindow: [size]. */
static void infer_window(shape_ctx *c)
{
	int64_t size = -1;
	int32_t dt = (int32_t)sh_attr_int(c, "output_datatype", DT_FLOAT);

	if (!sh_in_int(c, 0, &size) || size < 0)
		size = -1;
	sh_set(c, 0, dt, 1, (fd_dim[1]){ { size, NULL } });
}

static void infer_maxunpool(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int32_t dt = sh_in_dtype(c, 0), r = x ? x->rank : -1;
	int64_t nk = 0, ns = 0, np = 0;
	const int64_t *k = sh_attr_ints(c, "kernel_shape", &nk);
	const int64_t *st = sh_attr_ints(c, "strides", &ns);
	const int64_t *pads = sh_attr_ints(c, "pads", &np);
	const int64_t *want;
	int64_t n;
	fd_dim dims[SHAPE_MAX_RANK];

	if (sh_in(c, 2)) {   /* output_shape */
		if (sh_in_ints(c, 2, &want, &n) && n <= SHAPE_MAX_RANK) {
			for (int64_t i = 0; i < n; i++)
				dims[i] = want[i] >= 0 ? dim_of(want[i]) : dim_unknown();
			r = (int32_t)n;
		} else {
			for (int32_t i = 0; i < r && i < SHAPE_MAX_RANK; i++)
				dims[i] = dim_unknown();
		}
		sh_set(c, 0, dt, r <= SHAPE_MAX_RANK ? r : -1, dims);
		return;
	}
	if (r < 3 || r > SHAPE_MAX_RANK || !k || nk != r - 2) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	for (int32_t i = 0; i < r - 2; i++) {
		int64_t in = x->dims[2 + i].value, s = st && i < ns ? st[i] : 1;
		__int128 pb = pads && np == 2 * nk ? (__int128)pads[i] + pads[nk + i] : 0;
		__int128 o = ((__int128)in - 1) * s + k[i] - pb;
		dims[2 + i] = in >= 0 && o >= 0 && o <= INT64_MAX ? dim_of((int64_t)o) : dim_unknown();
	}
	sh_set(c, 0, dt, r, dims);
}

/* Unique(X): Y, indices, inverse_indices, counts. How many are unique is
 * data; the inverse indices have one entry per input element (or slice). */
static void infer_unique(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	fd_dim dims[SHAPE_MAX_RANK], n_inv = dim_unknown();
	int32_t ax;

	if (!sh_attr(c, "axis")) {
		int64_t n = x && x->rank >= 0 ? shape_dims_product(x->dims, 0, x->rank) : -1;
		sh_set(c, 0, sh_in_dtype(c, 0), 1, (fd_dim[1]){ { -1, NULL } });
		n_inv = n >= 0 ? dim_of(n) : dim_unknown();
	} else if (x && x->rank >= 1 && x->rank <= SHAPE_MAX_RANK &&
	           shape_axis_norm(sh_attr_int(c, "axis", 0), x->rank, &ax)) {
		dims_copy(dims, x->dims, x->rank);
		dims[ax] = dim_unknown();
		sh_set(c, 0, sh_in_dtype(c, 0), x->rank, dims);
		n_inv = x->dims[ax];
	} else {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
	}
	sh_set(c, 1, DT_INT64, 1, (fd_dim[1]){ { -1, NULL } });
	sh_set(c, 2, DT_INT64, 1, &n_inv);
	sh_set(c, 3, DT_INT64, 1, (fd_dim[1]){ { -1, NULL } });
}

/* DFT: the signal axis becomes dft_length (halved plus one when onesided),
 * the last dim (1 real / 2 complex) becomes 2. */
static void infer_dft(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	int64_t len = -1, axis = c->opset >= 20 ? -2 : sh_attr_int(c, "axis", 1);
	int32_t ax, r = x ? x->rank : -1;
	fd_dim dims[SHAPE_MAX_RANK];

	if (c->opset >= 20 && sh_in(c, 2) && !sh_in_int(c, 2, &axis))
		r = -1;
	if (r < 2 || r > SHAPE_MAX_RANK || !shape_axis_norm(axis, r, &ax) || ax == r - 1) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	dims_copy(dims, x->dims, r);
	if (sh_in(c, 1) && !sh_in_int(c, 1, &len))
		dims[ax] = dim_unknown();
	else if (len >= 0)
		dims[ax] = dim_of(len);
	if (sh_attr_int(c, "onesided", 0))
		dims[ax] = dim_add(dim_floordiv(dims[ax], 2), dim_of(1));
	dims[r - 1] = dim_of(2);
	sh_set(c, 0, sh_in_dtype(c, 0), r, dims);
}

/* STFT(signal (B, L, 1|2), frame_step, window, frame_length):
 * (B, frames, bins, 2). */
static void infer_stft(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0), *w = sh_in_shape(c, 2);
	int64_t step = -1, flen = -1;
	fd_dim dims[4] = { dim_unknown(), dim_unknown(), dim_unknown(), dim_of(2) };

	if (!sh_in_int(c, 3, &flen) && w && w->rank == 1)
		flen = w->dims[0].value;
	sh_in_int(c, 1, &step);
	if (x && x->rank == 3) {
		int64_t l = x->dims[1].value;
		dims[0] = x->dims[0];
		if (flen > 0 && step > 0 && (l >= flen || (l < 0 && x->dims[1].expr)))
			dims[1] = dim_add(dim_floordiv(dim_sub(x->dims[1], dim_of(flen)), step), dim_of(1));
	}
	if (flen > 0)
		dims[2] = dim_of(sh_attr_int(c, "onesided", 1) ? flen / 2 + 1 : flen);
	sh_set(c, 0, sh_in_dtype(c, 0), 4, dims);
}

static void infer_mel(shape_ctx *c)
{
	int64_t bins = -1, dft = -1;
	fd_dim dims[2];

	sh_in_int(c, 0, &bins);
	sh_in_int(c, 1, &dft);
	dims[0] = dft >= 0 ? dim_of(dft / 2 + 1) : dim_unknown();
	dims[1] = bins >= 0 ? dim_of(bins) : dim_unknown();
	sh_set(c, 0, (int32_t)sh_attr_int(c, "output_datatype", DT_FLOAT), 2, dims);
}

/* AffineGrid(theta, size [N, C, H, W] or [N, C, D, H, W]): (N, H, W, 2) or
 * (N, D, H, W, 3). */
static void infer_affine_grid(shape_ctx *c)
{
	const int64_t *size;
	int64_t n;
	fd_dim dims[5];

	if (!sh_in_ints(c, 1, &size, &n) || (n != 4 && n != 5)) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	dims[0] = dim_of(size[0]);
	for (int64_t i = 2; i < n; i++)
		dims[i - 1] = size[i] >= 0 ? dim_of(size[i]) : dim_unknown();
	dims[n - 1] = dim_of(n - 2);
	sh_set(c, 0, sh_in_dtype(c, 0), (int32_t)n, dims);
}

/* CenterCropPad(X, shape, axes attr): X with the listed axes resized. */
static void infer_center_crop_pad(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	const int64_t *want, *axes;
	int64_t n, na = 0;
	int32_t ax, r = x ? x->rank : -1;
	fd_dim dims[SHAPE_MAX_RANK];

	if (r < 0 || r > SHAPE_MAX_RANK) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	axes = sh_attr_ints(c, "axes", &na);
	bool ok = sh_in_ints(c, 1, &want, &n) && n == (axes ? na : r);
	dims_copy(dims, x->dims, r);
	for (int64_t i = 0; i < n && ok; i++)
		if (shape_axis_norm(axes ? axes[i] : i, r, &ax))
			dims[ax] = want[i] >= 0 ? dim_of(want[i]) : dim_unknown();
	if (!ok)
		for (int32_t i = 0; i < r; i++)
			dims[i] = dim_unknown();
	sh_set(c, 0, sh_in_dtype(c, 0), r, dims);
}

const shape_op shape_ops_misc[] = {
	{ "", "AffineGrid", infer_affine_grid, 0 },
	{ "", "BlackmanWindow", infer_window, 0 },
	{ "", "CenterCropPad", infer_center_crop_pad, 0 },
	{ "", "DFT", infer_dft, 0 },
	{ "", "HammingWindow", infer_window, 0 },
	{ "", "HannWindow", infer_window, 0 },
	{ "", "MaxUnpool", infer_maxunpool, 0 },
	{ "", "MelWeightMatrix", infer_mel, 0 },
	{ "", "NegativeLogLikelihoodLoss", infer_loss, 0 },
	{ "", "STFT", infer_stft, 0 },
	{ "", "SoftmaxCrossEntropyLoss", infer_loss, 0 },
	{ "", "Unique", infer_unique, 0 },
	{ NULL, NULL, NULL, 0 },
};
