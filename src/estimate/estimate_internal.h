/* estimate_internal.h — what estimate.c (per fusion, the cache, the whole
 * estimate) and estimate_liveness.c (per graph) share. Private to
 * src/estimate/. */
#ifndef FD_ESTIMATE_INTERNAL_H
#define FD_ESTIMATE_INTERNAL_H
#include "estimate/estimate.h"

/* Tensor sizes and node times depend on the model only: computed once per
 * model and kept in the estimate (est_cache), so a what-if re-run only adds
 * them up. */
typedef struct est_cache {
	const fd_match_ctx *ctx;
	const fd_model *model;
	const fd_hwprofile *hw;
	int32_t n_graphs;
	int64_t **tbytes;          /* [graph][tensor]: bytes, -1 unknown */
	fd_sint **tsize;           /* [graph][tensor]: the size as formula too; NULL for a graph of numbers */
	double **ntime, **nflops;  /* [graph][node] */
} est_cache;

/* The size of tensor t of graph gi: a number, its formula, or unknown (c
 * may be NULL: then from the tensor itself). */
/* Its bytes as a number, 0 (and one more *n_unknown) when not one. */
int64_t est_cached_bytes(const est_cache *c, int32_t gi, const fd_graph *g, int32_t t, int32_t *n_unknown);
int64_t est_add_sat(int64_t a, int64_t b);   /* saturates at INT64_MAX */

/* estimate_bodies.c: per node of graph gi, what it holds on top of the
 * graph's live tensors while it runs a body (If, Loop, Scan) on side 0
 * (before the fusions) or 1 (after); false (x empty) when no node owns one. */
typedef struct est_extra {
	int64_t *bytes;            /* per node: the bytes, -1 when not a number */
	fd_sint *size;             /* the same as a number, a formula or unknown */
	fd_sint *peak;             /* the body's own peak, what the report names */
	int32_t *body;             /* the body it runs (graph index), -1 none */
	/* per node whose size is not one formula because the body's peak is a
	 * max of a few (or either branch's may be): n_alt of them, 0 otherwise;
	 * they are row alt_row[node] of alt (less the outputs) and alt_peak (as
	 * the body's peaks), rows only for the nodes that own a body */
	int8_t *n_alt;
	int32_t *alt_row;
	fd_sint (*alt)[ESTIMATE_PEAK_MAX];
	fd_sint (*alt_peak)[ESTIMATE_PEAK_MAX];
} est_extra;
bool est_body_extras(const fd_estimate *e, const est_cache *c, int32_t gi, int side, est_extra *x);
/* estimate_liveness.c: adds f to the formulas c[0..*n) a peak is the max
 * of: nothing when one of them is always at least f, else f in place of
 * those it is always at least (the first keep stay); false when more than
 * ESTIMATE_PEAK_MAX would be needed. */
bool est_max_insert(fd_sint *c, int *n, fd_sint f, int keep);
void est_body_extras_release(est_extra *x);

/* estimate_liveness.c: graph gi's liveness figures into ge. */
void est_graph(fd_estimate *e, const est_cache *c, const fd_match_result *r, int32_t gi, fd_graph_est *ge);

/* Initializers (overridable ones too: their default is stored with the
 * model) and constants, and what only they compute, are weights: never in
 * the activation peak, counted apart as weight_bytes. */
static inline bool is_weight(const fd_tensor *x, uint8_t tflags)
{
	return (tflags & TF_CONST) || x->kind == TENSOR_INITIALIZER || x->kind == TENSOR_CONSTANT;
}

#endif
