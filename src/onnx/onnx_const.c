/* onnx_const.c — small ONNX tensor values → fd_const (int64 or double). The
 * element table says, per dtype, how wide a raw element is and which typed
 * field carries it otherwise. */
#include <string.h>
#include "ir/dtype.h"
#include "onnx/onnx_const.h"

enum field { F_NONE, F_FLOAT, F_INT32, F_INT64, F_DOUBLE, F_UINT64 };

static const struct elem {
	uint8_t raw_bytes;     /* 0: not decoded */
	uint8_t field;         /* typed field used without raw_data */
	bool is_signed;
} elems[DT_COUNT] = {
	[DT_FLOAT]    = { 4, F_FLOAT, true },
	[DT_UINT8]    = { 1, F_INT32, false },
	[DT_INT8]     = { 1, F_INT32, true },
	[DT_UINT16]   = { 2, F_INT32, false },
	[DT_INT16]    = { 2, F_INT32, true },
	[DT_INT32]    = { 4, F_INT32, true },
	[DT_INT64]    = { 8, F_INT64, true },
	[DT_BOOL]     = { 1, F_INT32, false },
	[DT_FLOAT16]  = { 2, F_INT32, false },
	[DT_DOUBLE]   = { 8, F_DOUBLE, true },
	[DT_UINT32]   = { 4, F_UINT64, false },
	[DT_UINT64]   = { 8, F_UINT64, false },
	[DT_BFLOAT16] = { 2, F_INT32, false },
};

/* Per dtype, the typed field its values go in without raw_data, and how
 * many of that field's values an element takes (2: complex) or how many
 * elements one value packs (-2: two 4-bit elements an int32). */
enum data_field { D_NONE, D_FLOAT, D_INT32, D_STRING, D_INT64, D_DOUBLE, D_UINT64 };
static const struct data_layout {
	uint8_t field;
	int8_t per_elem;
} layouts[DT_COUNT] = {
	[DT_FLOAT] = { D_FLOAT, 1 },       [DT_UINT8] = { D_INT32, 1 },     [DT_INT8] = { D_INT32, 1 },
	[DT_UINT16] = { D_INT32, 1 },      [DT_INT16] = { D_INT32, 1 },     [DT_INT32] = { D_INT32, 1 },
	[DT_INT64] = { D_INT64, 1 },       [DT_STRING] = { D_STRING, 1 },   [DT_BOOL] = { D_INT32, 1 },
	[DT_FLOAT16] = { D_INT32, 1 },     [DT_DOUBLE] = { D_DOUBLE, 1 },   [DT_UINT32] = { D_UINT64, 1 },
	[DT_UINT64] = { D_UINT64, 1 },     [DT_COMPLEX64] = { D_FLOAT, 2 }, [DT_COMPLEX128] = { D_DOUBLE, 2 },
	[DT_BFLOAT16] = { D_INT32, 1 },    [DT_FLOAT8E4M3FN] = { D_INT32, 1 },
	[DT_FLOAT8E4M3FNUZ] = { D_INT32, 1 }, [DT_FLOAT8E5M2] = { D_INT32, 1 },
	[DT_FLOAT8E5M2FNUZ] = { D_INT32, 1 }, [DT_UINT4] = { D_INT32, -2 }, [DT_INT4] = { D_INT32, -2 },
};

int onnx_data_check(int32_t dtype, int64_t count, const onnx_tensor_src *src, const onnx_data_counts *c,
                    onnx_data_mismatch *out)
{
	if (dtype <= DT_UNDEFINED || dtype >= DT_COUNT || !layouts[dtype].field || count < 0)
		return 0;
	const struct data_layout *l = &layouts[dtype];
	uint64_t n = (uint64_t)count;
	if (n > UINT64_MAX / 16)   /* no data is that long: say so without wrapping */
		n = UINT64_MAX / 16;
	if (src->has_raw) {
		int bits = dtype_bits(dtype);
		if (dtype == DT_STRING || bits <= 0)
			return 0;
		uint64_t want = bits < 8 ? (n * (uint64_t)bits + 7) / 8 : n * (uint64_t)(bits / 8);
		if (src->raw_len == want)
			return 0;
		*out = (onnx_data_mismatch){ "raw_data", src->raw_len, want, true };
		return -1;
	}
	static const char *const names[] = { "", "float_data", "int32_data", "string_data",
	                                     "int64_data", "double_data", "uint64_data" };
	const size_t have[] = { 0, c->f32, c->i32, c->strings, c->i64, c->f64, c->u64 };
	uint64_t want = l->per_elem < 0 ? (n + 1) / 2 : n * (uint64_t)l->per_elem;
	if (have[l->field] == want)
		return 0;
	*out = (onnx_data_mismatch){ names[l->field], have[l->field], want, false };
	return -1;
}

int64_t onnx_dims_count(const int64_t *dims, size_t n)
{
	int64_t c = 1;
	for (size_t i = 0; i < n; i++) {
		if (dims[i] < 0 || (dims[i] && c > INT64_MAX / dims[i]))
			return -1;
		c *= dims[i];
	}
	return c;
}

bool onnx_tensor_small(const int64_t *dims, size_t n, bool external)
{
	int64_t count = onnx_dims_count(dims, n);
	return !external && count >= 0 && count <= FD_CONST_MAX;
}

double onnx_half_to_double(uint16_t h)
{
	int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
	double v;
	if (exp == 0)
		v = frac / 1024.0 / 16384.0;              /* subnormal: frac * 2^-24 */
	else if (exp == 31)
		v = frac ? __builtin_nan("") : __builtin_inf();
	else
		v = (1.0 + frac / 1024.0) * (double)(1u << exp) / 32768.0; /* 2^(exp-15) */
	return sign ? -v : v;
}

double onnx_bfloat16_to_double(uint16_t b)
{
	uint32_t bits = (uint32_t)b << 16;
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

/* Little-endian load of n bytes, independent of the host's byte order. */
static uint64_t load_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_raw(fd_const *c, int32_t dtype, const struct elem *e, int64_t i, uint64_t bits)
{
	switch (dtype) {
	case DT_FLOAT: {
		uint32_t b = (uint32_t)bits;
		float f;
		memcpy(&f, &b, sizeof f);
		c->f64[i] = f;
		return;
	}
	case DT_DOUBLE: {
		double f;
		memcpy(&f, &bits, sizeof f);
		c->f64[i] = f;
		return;
	}
	case DT_FLOAT16: c->f64[i] = onnx_half_to_double((uint16_t)bits); return;
	case DT_BFLOAT16: c->f64[i] = onnx_bfloat16_to_double((uint16_t)bits); return;
	case DT_BOOL: c->i64[i] = bits != 0; return;
	default:
		break;
	}
	int width = e->raw_bytes * 8;
	if (e->is_signed && width < 64 && (bits >> (width - 1)) & 1)
		bits |= ~(uint64_t)0 << width; /* sign-extend */
	c->i64[i] = (int64_t)bits;
}

fd_const *onnx_const_decode(fd_arena *a, int32_t dtype, int64_t count, const onnx_tensor_src *src)
{
	if (dtype <= 0 || dtype >= DT_COUNT || !elems[dtype].raw_bytes || count < 0 || count > FD_CONST_MAX)
		return NULL;
	const struct elem *e = &elems[dtype];
	size_t n = (size_t)count;
	bool raw = src->has_raw && src->raw_len > 0;
	if (raw && src->raw_len < n * e->raw_bytes)
		return NULL;
	if (!raw && n > 0) {
		size_t have = 0;
		switch (e->field) {
		case F_FLOAT: have = src->n_f32; break;
		case F_INT32: have = src->n_i32; break;
		case F_INT64: have = src->n_i64; break;
		case F_DOUBLE: have = src->n_f64; break;
		case F_UINT64: have = src->n_u64; break;
		}
		if (have < n)
			return NULL; /* no data: a weight stored elsewhere, or a broken tensor */
	}
	fd_const *c = arena_alloc(a, sizeof *c);
	c->dtype = dtype;
	c->count = count;
	bool is_float = dtype == DT_FLOAT || dtype == DT_DOUBLE || dtype == DT_FLOAT16 || dtype == DT_BFLOAT16;
	if (is_float)
		c->f64 = arena_array(a, n ? n : 1, sizeof *c->f64);
	else
		c->i64 = arena_array(a, n ? n : 1, sizeof *c->i64);
	/* the common raw forms (an exporter's small weights, shapes) in loops of
	 * their own: a model has hundreds of thousands of them */
	if (raw && dtype == DT_FLOAT) {
		for (size_t i = 0; i < n; i++) {
			const uint8_t *q = src->raw + i * 4;   /* one load, as the compiler reads it */
			uint32_t b = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
			float f;
			memcpy(&f, &b, sizeof f);
			c->f64[i] = f;
		}
		return c;
	}
	if (raw && dtype == DT_INT64) {
		for (size_t i = 0; i < n; i++) {
			const uint8_t *q = src->raw + i * 8;
			uint64_t lo = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
			uint64_t hi = (uint32_t)q[4] | (uint32_t)q[5] << 8 | (uint32_t)q[6] << 16 | (uint32_t)q[7] << 24;
			c->i64[i] = (int64_t)(lo | hi << 32);
		}
		return c;
	}
	for (size_t i = 0; i < n; i++) {
		if (raw) {
			put_raw(c, dtype, e, (int64_t)i, load_le(src->raw + i * e->raw_bytes, e->raw_bytes));
			continue;
		}
		switch (e->field) {
		case F_FLOAT: c->f64[i] = src->f32[i]; break;
		case F_DOUBLE: c->f64[i] = src->f64[i]; break;
		case F_INT64: c->i64[i] = src->i64[i]; break;
		case F_UINT64: c->i64[i] = (int64_t)src->u64[i]; break;
		case F_INT32:
			if (dtype == DT_FLOAT16)
				c->f64[i] = onnx_half_to_double((uint16_t)src->i32[i]);
			else if (dtype == DT_BFLOAT16)
				c->f64[i] = onnx_bfloat16_to_double((uint16_t)src->i32[i]);
			else if (dtype == DT_BOOL)
				c->i64[i] = src->i32[i] != 0;
			else
				c->i64[i] = src->i32[i];
			break;
		}
	}
	return c;
}
