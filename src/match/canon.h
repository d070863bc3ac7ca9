/* canon.h — canonical forms: decomposed ops that real exporters emit,
 * recognised once per graph before matching, so a rule's Swish / Gelu /
 * LayerNorm / BiasAdd finds them. A composite is a virtual node: its inputs
 * are the members' external inputs (in a canonical slot order), its output
 * the last member's output. A fusion over a composite covers every member.
 *
 *   recogniser        members                                        inputs
 *   silu              Sigmoid(x), Mul(x, s) in either Mul order      x
 *   gelu_erf          Div(x, √2) | Mul(x, 1/√2), Erf, Add 1, Mul x, Mul 0.5
 *                     (0.5 may multiply x first or the product last) x
 *   gelu_tanh         Pow(x,3) | Mul(x,x·x), Mul .044715, Add x, Mul √(2/π),
 *                     Tanh, Add 1, Mul x, Mul 0.5 (same orders)      x
 *   gelu_tanh_factored Mul(x, .044715), Mul x, Add 1, Mul(x, √(2/π)), their
 *                     Mul, Tanh, then gelu_tanh's tail (BLOOM's spelling) x
 *   layernorm         ReduceMean, Sub, Pow 2 | Mul(d,d), ReduceMean, Add eps,
 *                     Sqrt, Div | Reciprocal+Mul, Casts in between;
 *                     then Mul(scale), Add(bias) when constant       x, scale, bias
 *   biasadd_add       Add(x, b) with b a 1-D constant (either order) x, b
 *   biasadd_conv      the Conv / Gemm itself, when it has a bias input: a
 *                     rule's BiasAdd right after Conv2d is satisfied by the
 *                     Conv's own bias, adding no node              bias
 *
 * The scale and bias Mul/Add of a LayerNorm belong to the composite (so
 * elementwise_affine and normalized_shape can be read off it), which is also
 * what a LayerNormalization node carries.
 *
 * Ownership: fd_canon owns nothing; its arrays live in the arena given to
 * canon_find (the match context's). */
#ifndef FD_CANON_H
#define FD_CANON_H
#include <stdbool.h>
#include <stdint.h>
#include "base/arena.h"
#include "ir/graph.h"
#include "rules/optable.h"

/* The recognisers: X(id, name, the composite it finds). */
#define FD_RECOGNISERS(X) \
	X(SILU,         "silu",         SILU) \
	X(GELU_ERF,     "gelu_erf",     GELU) \
	X(GELU_TANH,    "gelu_tanh",    GELU) \
	X(GELU_TANH_FACTORED, "gelu_tanh_factored", GELU) \
	X(LAYERNORM,    "layernorm",    LAYERNORM) \
	X(BIASADD_ADD,  "biasadd_add",  BIASADD) \
	X(BIASADD_CONV, "biasadd_conv", BIASADD)

typedef enum fd_recogniser {
#define FD_RECOGNISER_ENUM(id, name, composite) RECOG_##id,
	FD_RECOGNISERS(FD_RECOGNISER_ENUM)
#undef FD_RECOGNISER_ENUM
	RECOG_COUNT
} fd_recogniser;

typedef struct fd_composite_rec {
	uint8_t kind;             /* fd_composite */
	uint8_t recogniser;       /* fd_recogniser */
	int32_t members, n_members;  /* offset into fd_canon.pool: node ids, topo order */
	int32_t inputs, n_inputs;    /* offset into fd_canon.pool: tensor ids, canonical slots */
	int32_t output;           /* tensor */
	int32_t last;             /* node producing output */
	int32_t host;             /* biasadd_conv: the Conv/Gemm node; else FD_NONE */
	double epsilon;           /* layernorm: the Add constant; NaN when unknown */
	int64_t axis;             /* layernorm: ReduceMean axes[0]; 0 when unknown */
	int32_t scale, bias;      /* layernorm affine tensors, or FD_NONE */
} fd_composite_rec;

typedef struct fd_canon {
	int32_t n;
	fd_composite_rec *items;  /* sorted by the topo position of `last`, then recogniser */
	int32_t *pool;
	int32_t n_pool;
} fd_canon;

/* tconst: per tensor, the match index's TF_ flags (match.h; TF_CONST: constant-
 * foldable; a graph input is not a constant).
 * Finds every composite of g. Returns 0; never fails on odd graphs. */
int canon_find(const fd_graph *g, const uint8_t *tconst, fd_arena *a, fd_canon *out);
const char *canon_recogniser_name(fd_recogniser r);   /* "silu", "gelu_erf", … */

#endif
