/* shape_contrib.c — the common onnxruntime contrib ops (com.microsoft) whose
 * shapes are simple: Gelu kin, SkipLayerNormalization, Attention,
 * EmbedLayerNormalization. Other contrib ops stay unknown.
 * */
#include <string.h>
#include "shape/shape_infer.h"

static void infer_like_input(shape_ctx *c)
{
	sh_same(c, 0, 0, DT_UNDEFINED);
}

/* output, mean, inv_std_var, input_skip_bias_sum: the statistics keep every
 * dim but the last, which becomes 1. */
static void infer_skip_layernorm(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0);
	fd_dim dims[SHAPE_MAX_RANK];

	sh_same(c, 0, 0, DT_UNDEFINED);
	sh_same(c, 3, 0, DT_UNDEFINED);
	if (!x || x->rank < 1 || x->rank > SHAPE_MAX_RANK)
		return;
	dims_copy(dims, x->dims, x->rank);
	dims[x->rank - 1] = dim_of(1);
	sh_set(c, 1, DT_FLOAT, x->rank, dims);
	sh_set(c, 2, DT_FLOAT, x->rank, dims);
}

/* Attention(input, weights, bias, mask_index, past): output (B, S, Hv);
 * present (2, B, heads, past + S, head size). */
static void infer_attention(shape_ctx *c)
{
	const fd_shape *x = sh_in_shape(c, 0), *w = sh_in_shape(c, 1), *past = sh_in_shape(c, 4);
	int32_t dt = sh_in_dtype(c, 0);
	int64_t nq = 0, heads = sh_attr_int(c, "num_heads", 0), hv = -1;
	const int64_t *qkv = sh_attr_ints(c, "qkv_hidden_sizes", &nq);

	if (!x || x->rank != 3) {
		sh_set(c, 0, dt, -1, NULL);
		return;
	}
	if (qkv && nq == 3)
		hv = qkv[2];
	else if (w && w->rank == 2 && w->dims[1].value >= 0)
		hv = w->dims[1].value / 3;
	fd_dim out[3] = { x->dims[0], x->dims[1], hv >= 0 ? dim_of(hv) : dim_unknown() };
	sh_set(c, 0, dt, 3, out);
	if (!past || past->rank != 5) {
		sh_set(c, 1, dt, -1, NULL);
		return;
	}
	fd_dim present[5];
	dims_copy(present, past->dims, 5);
	present[3] = dim_add(past->dims[3], x->dims[1]);   /* past_seq + seq */
	if (hv >= 0 && heads > 0) {
		present[2] = dim_of(heads);
		present[4] = dim_of(hv / heads);
	}
	sh_set(c, 1, dt, 5, present);
}

/* EmbedLayerNormalization(input_ids, segment_ids, word_embedding, …):
 * output and embedding_sum (B, S, hidden), mask_index (B) int32. */
static void infer_embed_layernorm(shape_ctx *c)
{
	const fd_shape *ids = sh_in_shape(c, 0), *we = sh_in_shape(c, 2);
	int32_t dt = sh_in_dtype(c, 2);
	fd_dim b = ids && ids->rank == 2 ? ids->dims[0] : dim_unknown();
	fd_dim s = ids && ids->rank == 2 ? ids->dims[1] : dim_unknown();
	fd_dim h = we && we->rank == 2 ? we->dims[1] : dim_unknown();
	fd_dim out[3] = { b, s, h };

	sh_set(c, 0, dt, 3, out);
	sh_set(c, 1, DT_INT32, 1, &b);
	sh_set(c, 2, dt, 3, out);
}

/* MultiHeadAttention(query, key, value, …): (B, S, value hidden). */
static void infer_mha(shape_ctx *c)
{
	const fd_shape *q = sh_in_shape(c, 0), *v = sh_in_shape(c, 2);

	if (!q || q->rank != 3) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	fd_dim out[3] = { q->dims[0], q->dims[1], v && v->rank == 3 ? v->dims[2] : q->dims[2] };
	sh_set(c, 0, sh_in_dtype(c, 0), 3, out);
}

/* MatMulNBits(A, packed B, …): A's dims with the last one replaced by N. */
static void infer_matmul_nbits(shape_ctx *c)
{
	const fd_shape *a = sh_in_shape(c, 0);
	int64_t n = sh_attr_int(c, "N", -1);
	fd_dim dims[SHAPE_MAX_RANK];

	if (!a || a->rank < 1 || a->rank > SHAPE_MAX_RANK) {
		sh_set(c, 0, sh_in_dtype(c, 0), -1, NULL);
		return;
	}
	dims_copy(dims, a->dims, a->rank);
	dims[a->rank - 1] = n >= 0 ? dim_of(n) : dim_unknown();
	sh_set(c, 0, sh_in_dtype(c, 0), a->rank, dims);
}

const shape_op shape_ops_contrib[] = {
	{ "com.microsoft", "Attention", infer_attention, 0 },
	{ "com.microsoft", "BiasAdd", infer_like_input, 0 },
	{ "com.microsoft", "BiasDropout", infer_like_input, 0 },
	{ "com.microsoft", "BiasGelu", infer_like_input, 0 },
	{ "com.microsoft", "EmbedLayerNormalization", infer_embed_layernorm, 0 },
	{ "com.microsoft", "FastGelu", infer_like_input, 0 },
	{ "com.microsoft", "Gelu", infer_like_input, 0 },
	{ "com.microsoft", "MatMulNBits", infer_matmul_nbits, 0 },
	{ "com.microsoft", "MultiHeadAttention", infer_mha, 0 },
	{ "com.microsoft", "QuickGelu", infer_like_input, 0 },
	{ "com.microsoft", "RotaryEmbedding", infer_like_input, 0 },
	{ "com.microsoft", "SkipLayerNormalization", infer_skip_layernorm, 0 },
	{ "com.microsoft", "SkipSimplifiedLayerNormalization", infer_skip_layernorm, 0 },
	{ NULL, NULL, NULL, 0 },
};
