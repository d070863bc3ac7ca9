/* canon.c — recognisers of decomposed ops (canon.h): SiLU, Gelu (Erf and
 * tanh forms), LayerNorm (with Reciprocal and Cast variants, scale and bias),
 * BiasAdd (Add of a 1-D constant, or the bias input of Conv/Gemm). Each
 * recogniser starts at one node type and walks single-consumer links, so the
 * whole pass is linear in the graph. A candidate whose interior tensors are
 * used outside it (or are graph outputs) is not a composite. Owned by the
 * matcher. */
#include "match/canon.h"
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/vec.h"
#include "match/match.h"

static fd_composite canon_recogniser_composite(fd_recogniser r);

/* A tensor the graph does not compute: a constant or a graph input (a
 * LayerNorm's scale, an epsilon fed from outside). Values are read from
 * constants only (TF_CONST). */
#define FIXED (TF_CONST | TF_INPUT)

#define MAX_MEMBERS 16
#define MAX_INPUTS 4

typedef struct builder {
	const fd_graph *g;
	const uint8_t *tconst;   /* the index's TF_ flags per tensor (match.h) */
	int32_t members[MAX_MEMBERS];
	int n;
	bool overflow;
} builder;

typedef struct found {
	fd_composite_rec rec;
	int32_t members[MAX_MEMBERS];
	int32_t inputs[MAX_INPUTS];
	int32_t topo;
} found;

typedef VEC(found) found_list;

static void add_member(builder *b, int32_t node)
{
	for (int i = 0; i < b->n; i++)
		if (b->members[i] == node)
			return;
	if (b->n == MAX_MEMBERS) {
		b->overflow = true;
		return;
	}
	b->members[b->n++] = node;
}

static bool is_member(const builder *b, int32_t node)
{
	for (int i = 0; i < b->n; i++)
		if (b->members[i] == node)
			return true;
	return false;
}

static int32_t producer(const fd_graph *g, int32_t t)
{
	return t >= 0 ? g->tensors[t].producer : FD_NONE;
}

/* The one node reading t (possibly in several slots), or FD_NONE. */
static int32_t sole_consumer(const fd_graph *g, int32_t t)
{
	if (t < 0)
		return FD_NONE;
	const fd_tensor *x = &g->tensors[t];
	if (x->n_consumers < 1 || x->is_graph_output)
		return FD_NONE;
	for (int i = 1; i < x->n_consumers; i++)
		if (x->consumers[i] != x->consumers[0])
			return FD_NONE;
	return x->consumers[0];
}

static int32_t in(const fd_graph *g, int32_t node, int slot)
{
	const fd_node *n = &g->nodes[node];
	return slot < n->n_inputs ? n->inputs[slot] : FD_NONE;
}

static int32_t out0(const fd_graph *g, int32_t node)
{
	const fd_node *n = &g->nodes[node];
	return n->n_outputs > 0 ? n->outputs[0] : FD_NONE;
}

/* Binary node's input other than t, or FD_NONE when t is not one of the two. */
static int32_t other_input(const fd_graph *g, int32_t node, int32_t t)
{
	if (g->nodes[node].n_inputs != 2)
		return FD_NONE;
	if (in(g, node, 0) == t)
		return in(g, node, 1);
	if (in(g, node, 1) == t)
		return in(g, node, 0);
	return FD_NONE;
}

/* A constant whose elements are all equal: that value. */
static bool cval(const builder *b, int32_t t, double *v)
{
	if (t < 0 || !(b->tconst[t] & TF_CONST))
		return false;
	const fd_const *c = b->g->tensors[t].value;
	if (!c || c->count < 1)
		return false;
	double first = c->f64 ? c->f64[0] : c->i64 ? (double)c->i64[0] : NAN;
	if (isnan(first))
		return false;
	for (int64_t i = 1; i < c->count; i++) {
		double x = c->f64 ? c->f64[i] : (double)c->i64[i];
		if (x != first)
			return false;
	}
	*v = first;
	return true;
}

static bool cval_near(const builder *b, int32_t t, double want)
{
	double v;
	return cval(b, t, &v) && fabs(v - want) <= 1e-3 * fabs(want);
}

/* The constant input of binary node `node` when its other input is x. */
static bool binary_with_const(const builder *b, int32_t node, int32_t x, double want)
{
	int32_t o = other_input(b->g, node, x);
	return o != FD_NONE && o != x && cval_near(b, o, want);
}

/* Skips one Cast that is the sole consumer of *t (LayerNorm in mixed precision). */
static void skip_cast(builder *b, int32_t *t)
{
	int32_t c = sole_consumer(b->g, *t);
	if (c != FD_NONE && graph_node_is(b->g, c, "Cast")) {
		add_member(b, c);
		*t = out0(b->g, c);
	}
}

/* Interior tensors (outputs of members other than `output`) must stay inside. */
static bool interior_ok(const builder *b, int32_t output)
{
	if (b->overflow)
		return false;
	for (int i = 0; i < b->n; i++) {
		const fd_node *n = &b->g->nodes[b->members[i]];
		for (int o = 0; o < n->n_outputs; o++) {
			int32_t t = n->outputs[o];
			if (t < 0 || t == output)
				continue;
			const fd_tensor *x = &b->g->tensors[t];
			if (x->is_graph_output)
				return false;
			for (int k = 0; k < x->n_consumers; k++)
				if (!is_member(b, x->consumers[k]))
					return false;
		}
	}
	return true;
}


/* ---- recognisers ---------------------------------------------------------
 * Each returns the composite's output tensor (FD_NONE: not recognised) and
 * leaves members in b; x is its one activation input. */

/* Sigmoid(x) -> Mul(x, s) in either order. */
static int32_t rec_silu(builder *b, int32_t s, int32_t *x)
{
	const fd_graph *g = b->g;
	*x = in(g, s, 0);
	int32_t y = out0(g, s);
	int32_t m = sole_consumer(g, y);
	if (*x < 0 || m == FD_NONE || !graph_node_is(g, m, "Mul") || other_input(g, m, y) != *x)
		return FD_NONE;
	add_member(b, s);
	add_member(b, m);
	return out0(g, m);
}

/* After the Erf / Tanh core: Add 1, then ·x and ·0.5 in the usual orders. */
static int32_t gelu_tail(builder *b, int32_t x, int32_t t)
{
	const fd_graph *g = b->g;
	int32_t a1 = sole_consumer(g, t);
	if (!graph_node_is(g, a1, "Add") || !binary_with_const(b, a1, t, 1.0))
		return FD_NONE;
	add_member(b, a1);
	int32_t u = out0(g, a1);
	int32_t m1 = sole_consumer(g, u);
	if (!graph_node_is(g, m1, "Mul"))
		return FD_NONE;
	add_member(b, m1);
	int32_t o = other_input(g, m1, u);
	if (o == x) {                       /* (x · (1+erf)) · 0.5 */
		int32_t m2 = sole_consumer(g, out0(g, m1));
		if (!graph_node_is(g, m2, "Mul") || !binary_with_const(b, m2, out0(g, m1), 0.5))
			return FD_NONE;
		add_member(b, m2);
		return out0(g, m2);
	}
	if (cval_near(b, o, 0.5)) {         /* ((1+erf) · 0.5) · x */
		int32_t m2 = sole_consumer(g, out0(g, m1));
		if (!graph_node_is(g, m2, "Mul") || other_input(g, m2, out0(g, m1)) != x)
			return FD_NONE;
		add_member(b, m2);
		return out0(g, m2);
	}
	int32_t h = producer(g, o);          /* (x · 0.5) · (1+erf) */
	if (graph_node_is(g, h, "Mul") && binary_with_const(b, h, x, 0.5) && sole_consumer(g, o) == m1) {
		add_member(b, h);
		return out0(g, m1);
	}
	return FD_NONE;
}

/* Div(x, √2) | Mul(x, 1/√2) -> Erf -> tail. */
static int32_t rec_gelu_erf(builder *b, int32_t e, int32_t *x)
{
	const fd_graph *g = b->g;
	int32_t p = producer(g, in(g, e, 0));
	if (p < 0)
		return FD_NONE;
	*x = in(g, p, 0);
	if (graph_node_is(g, p, "Div") && cval_near(b, in(g, p, 1), 1.41421356)) {
		/* x / √2 */
	} else if (graph_node_is(g, p, "Mul")) {
		int32_t a = in(g, p, 0), c = in(g, p, 1);
		if (cval_near(b, a, 0.70710678)) {
			int32_t tmp = a; a = c; c = tmp;
		}
		if (!cval_near(b, c, 0.70710678))
			return FD_NONE;
		*x = a;
	} else {
		return FD_NONE;
	}
	if (*x < 0 || (b->tconst[*x] & TF_CONST))
		return FD_NONE;
	add_member(b, p);
	add_member(b, e);
	return gelu_tail(b, *x, out0(g, e));
}

/* x³ as Pow(x, 3) or Mul(x, Mul(x, x)) / Mul(Mul(x, x), x): returns x. */
static int32_t cube_base(builder *b, int32_t node)
{
	const fd_graph *g = b->g;
	if (graph_node_is(g, node, "Pow") && cval_near(b, in(g, node, 1), 3.0)) {
		add_member(b, node);
		return in(g, node, 0);
	}
	if (!graph_node_is(g, node, "Mul") || g->nodes[node].n_inputs != 2)
		return FD_NONE;
	for (int s = 0; s < 2; s++) {
		int32_t sq = producer(g, in(g, node, s));
		int32_t x = in(g, node, 1 - s);
		if (graph_node_is(g, sq, "Mul") && in(g, sq, 0) == x && in(g, sq, 1) == x) {
			add_member(b, sq);
			add_member(b, node);
			return x;
		}
	}
	return FD_NONE;
}

/* Tanh(√(2/π) · (x + 0.044715 · x³)) -> tail. */
static int32_t rec_gelu_tanh(builder *b, int32_t th, int32_t *x)
{
	const fd_graph *g = b->g;
	int32_t m = producer(g, in(g, th, 0));
	if (!graph_node_is(g, m, "Mul"))
		return FD_NONE;
	int32_t a = FD_NONE;
	for (int s = 0; s < 2; s++)
		if (cval_near(b, in(g, m, 1 - s), 0.7978845608))
			a = producer(g, in(g, m, s));
	if (!graph_node_is(g, a, "Add"))
		return FD_NONE;
	for (int s = 0; s < 2; s++) {
		int32_t k = producer(g, in(g, a, s));
		int32_t xx = in(g, a, 1 - s);
		if (!graph_node_is(g, k, "Mul"))
			continue;
		for (int q = 0; q < 2; q++) {
			if (!cval_near(b, in(g, k, 1 - q), 0.044715))
				continue;
			builder save = *b;
			int32_t base = cube_base(b, producer(g, in(g, k, q)));
			if (base != xx || base < 0) {
				*b = save;
				continue;
			}
			*x = xx;
			add_member(b, k);
			add_member(b, a);
			add_member(b, m);
			add_member(b, th);
			return gelu_tail(b, xx, out0(g, th));
		}
	}
	return FD_NONE;
}

/* Tanh(√(2/π)·x · (1 + 0.044715·x · x)) -> tail: the tanh form factored
 * as BLOOM and Megatron write it (bloom_gelu_forward), no cube: the inner
 * Mul of 0.044715 and x first, then times x again. */
static int32_t rec_gelu_tanh_factored(builder *b, int32_t th, int32_t *x)
{
	const fd_graph *g = b->g;
	int32_t m = producer(g, in(g, th, 0));
	if (!graph_node_is(g, m, "Mul") || g->nodes[m].n_inputs != 2)
		return FD_NONE;
	for (int s = 0; s < 2; s++) {
		int32_t sx = producer(g, in(g, m, s)), a = producer(g, in(g, m, 1 - s));
		if (!graph_node_is(g, sx, "Mul") || !graph_node_is(g, a, "Add") || g->nodes[a].n_inputs != 2)
			continue;
		int32_t xx = FD_NONE;
		for (int q = 0; q < 2; q++)
			if (cval_near(b, in(g, sx, 1 - q), 0.7978845608))
				xx = in(g, sx, q);
		if (xx < 0 || (b->tconst[xx] & TF_CONST))
			continue;
		int32_t sq = FD_NONE;   /* the Add's input beside its 1: (0.044715·x)·x */
		for (int q = 0; q < 2; q++)
			if (cval_near(b, in(g, a, 1 - q), 1.0))
				sq = producer(g, in(g, a, q));
		if (!graph_node_is(g, sq, "Mul") || other_input(g, sq, xx) == FD_NONE)
			continue;
		int32_t k = producer(g, other_input(g, sq, xx));
		if (!graph_node_is(g, k, "Mul") || !binary_with_const(b, k, xx, 0.044715))
			continue;
		*x = xx;
		add_member(b, k);
		add_member(b, sq);
		add_member(b, a);
		add_member(b, sx);
		add_member(b, m);
		add_member(b, th);
		return gelu_tail(b, xx, out0(g, th));
	}
	return FD_NONE;
}

/* When t's sole consumer is a `type` node whose other input is a constant:
 * takes the node as a member, moves t to its output and returns the
 * constant; else FD_NONE. */
static int32_t absorb_const(builder *b, const char *type, int32_t *t)
{
	const fd_graph *g = b->g;
	int32_t n = sole_consumer(g, *t);
	if (!graph_node_is(g, n, type))
		return FD_NONE;
	int32_t c = other_input(g, n, *t);
	if (c < 0 || !(b->tconst[c] & FIXED))
		return FD_NONE;
	add_member(b, n);
	*t = out0(g, n);
	return c;
}

/* ReduceMean(x) -> Sub(x, mean) -> Pow 2 | Mul(d, d) -> ReduceMean -> Add eps
 * -> Sqrt -> Div(d, ·) | Reciprocal -> Mul(d, ·); Casts between; then
 * Mul(scale) and Add(bias) when they are constants. */
static int32_t rec_layernorm(builder *b, int32_t r1, int32_t *x, fd_composite_rec *rec)
{
	const fd_graph *g = b->g;
	*x = in(g, r1, 0);
	int32_t mean = out0(g, r1);
	int32_t sub = sole_consumer(g, mean);
	if (*x < 0 || !graph_node_is(g, sub, "Sub") || in(g, sub, 0) != *x || in(g, sub, 1) != mean)
		return FD_NONE;
	add_member(b, r1);
	add_member(b, sub);
	int32_t d = out0(g, sub);
	/* d feeds the square and the final divide: find the square among its readers */
	int32_t sq = FD_NONE, dsq = d;
	const fd_tensor *dt = &g->tensors[d];
	for (int i = 0; i < dt->n_consumers && sq == FD_NONE; i++) {
		int32_t c = dt->consumers[i];
		if (graph_node_is(g, c, "Pow") && in(g, c, 0) == d && cval_near(b, in(g, c, 1), 2.0))
			sq = c;
		else if (graph_node_is(g, c, "Mul") && in(g, c, 0) == d && in(g, c, 1) == d)
			sq = c;
		else if (graph_node_is(g, c, "Cast")) {
			int32_t p = sole_consumer(g, out0(g, c));
			if (graph_node_is(g, p, "Pow") && cval_near(b, in(g, p, 1), 2.0)) {
				add_member(b, c);
				sq = p;
				dsq = out0(g, c);
			}
		}
	}
	if (sq == FD_NONE)
		return FD_NONE;
	add_member(b, sq);
	int32_t r2 = sole_consumer(g, out0(g, sq));
	if (!graph_node_is(g, r2, "ReduceMean"))
		return FD_NONE;
	add_member(b, r2);
	int32_t sq_in = out0(g, r2);
	int32_t eps_t = absorb_const(b, "Add", &sq_in);
	if (eps_t == FD_NONE)
		return FD_NONE;
	double eps;
	rec->epsilon = cval(b, eps_t, &eps) ? eps : NAN;
	int32_t sr = sole_consumer(g, sq_in);
	if (!graph_node_is(g, sr, "Sqrt"))
		return FD_NONE;
	add_member(b, sr);
	int32_t s = out0(g, sr);
	int32_t dv = sole_consumer(g, s), y;
	if (graph_node_is(g, dv, "Div") && in(g, dv, 1) == s && (in(g, dv, 0) == d || in(g, dv, 0) == dsq)) {
		add_member(b, dv);
		y = out0(g, dv);
	} else if (graph_node_is(g, dv, "Reciprocal")) {
		add_member(b, dv);
		int32_t mm = sole_consumer(g, out0(g, dv));
		int32_t o = graph_node_is(g, mm, "Mul") ? other_input(g, mm, out0(g, dv)) : FD_NONE;
		if (o == FD_NONE || (o != d && o != dsq))
			return FD_NONE;
		add_member(b, mm);
		y = out0(g, mm);
	} else {
		return FD_NONE;
	}
	/* the divide / multiply must read d (or its Cast) */
	skip_cast(b, &y);
	rec->scale = absorb_const(b, "Mul", &y);
	rec->bias = rec->scale != FD_NONE ? absorb_const(b, "Add", &y) : FD_NONE;
	const fd_attr *ax = node_attr(&g->nodes[r1], "axes");
	rec->axis = ax && ax->type == ATTR_INTS && ax->count > 0 ? ax->u.ints[0] : -1;
	if (!ax) {
		int32_t at = in(g, r1, 1);
		if (at >= 0 && g->tensors[at].value && g->tensors[at].value->i64 && g->tensors[at].value->count > 0)
			rec->axis = g->tensors[at].value->i64[0];
	}
	return y;
}

static bool rank1_const(const builder *b, int32_t t)
{
	return t >= 0 && (b->tconst[t] & FIXED) && b->g->tensors[t].shape.rank == 1;
}

/* ---- driver ------------------------------------------------------------- */

static int compare_found(const void *pa, const void *pb)
{
	const found *a = pa, *b = pb;
	if (a->topo != b->topo)
		return a->topo < b->topo ? -1 : 1;
	return (int)a->rec.recogniser - (int)b->rec.recogniser;
}

static void keep(found_list *list, const builder *b, fd_recogniser r, const int32_t *inputs,
                 int n_inputs, int32_t output, const fd_composite_rec *extra)
{
	const fd_graph *g = b->g;
	found f;
	memset(&f, 0, sizeof f);
	if (extra)
		f.rec = *extra;
	else {
		f.rec.scale = f.rec.bias = FD_NONE;
		f.rec.epsilon = NAN;
	}
	f.rec.recogniser = (uint8_t)r;
	f.rec.kind = (uint8_t)canon_recogniser_composite(r);
	f.rec.n_members = b->n;
	f.rec.n_inputs = n_inputs;
	f.rec.output = output;
	f.rec.last = producer(g, output);
	f.rec.host = FD_NONE;
	/* members in topo order */
	memcpy(f.members, b->members, (size_t)b->n * sizeof *b->members);
	for (int i = 1; i < b->n; i++)
		for (int j = i; j > 0 && g->nodes[f.members[j]].topo < g->nodes[f.members[j - 1]].topo; j--) {
			int32_t t = f.members[j]; f.members[j] = f.members[j - 1]; f.members[j - 1] = t;
		}
	memcpy(f.inputs, inputs, (size_t)n_inputs * sizeof *inputs);
	f.topo = g->nodes[f.rec.last].topo;
	vec_push(list, f);
}

int canon_find(const fd_graph *g, const uint8_t *tconst, fd_arena *a, fd_canon *out)
{
	found_list list = { 0 };
	memset(out, 0, sizeof *out);
	for (int32_t i = 0; i < g->n_nodes; i++) {
		int32_t node = g->topo_order ? g->topo_order[i] : i;
		const fd_node *n = &g->nodes[node];
		if (!n->op_type || n->n_outputs < 1 || n->outputs[0] < 0)
			continue;
		builder b = { .g = g, .tconst = tconst };
		int32_t x = FD_NONE, y;
		fd_composite_rec extra;
		memset(&extra, 0, sizeof extra);
		extra.scale = extra.bias = FD_NONE;
		extra.epsilon = NAN;
		if (graph_node_is(g, node, "Sigmoid")) {
			y = rec_silu(&b, node, &x);
			if (y != FD_NONE && interior_ok(&b, y))
				keep(&list, &b, RECOG_SILU, &x, 1, y, NULL);
		} else if (graph_node_is(g, node, "Erf")) {
			y = rec_gelu_erf(&b, node, &x);
			if (y != FD_NONE && interior_ok(&b, y))
				keep(&list, &b, RECOG_GELU_ERF, &x, 1, y, NULL);
		} else if (graph_node_is(g, node, "Tanh")) {
			y = rec_gelu_tanh(&b, node, &x);
			if (y != FD_NONE && interior_ok(&b, y))
				keep(&list, &b, RECOG_GELU_TANH, &x, 1, y, NULL);
			builder f = { .g = g, .tconst = tconst };
			y = rec_gelu_tanh_factored(&f, node, &x);
			if (y != FD_NONE && interior_ok(&f, y))
				keep(&list, &f, RECOG_GELU_TANH_FACTORED, &x, 1, y, NULL);
		} else if (graph_node_is(g, node, "ReduceMean")) {
			y = rec_layernorm(&b, node, &x, &extra);
			if (y != FD_NONE && interior_ok(&b, y)) {
				int32_t ins[3] = { x, extra.scale, extra.bias };
				int k = extra.bias != FD_NONE ? 3 : extra.scale != FD_NONE ? 2 : 1;
				keep(&list, &b, RECOG_LAYERNORM, ins, k, y, &extra);
			}
		} else if (graph_node_is(g, node, "Add") && n->n_inputs == 2) {
			int32_t i0 = in(g, node, 0), i1 = in(g, node, 1);
			int32_t bias = rank1_const(&b, i1) && i0 >= 0 && !(tconst[i0] & TF_CONST) ? i1
			             : rank1_const(&b, i0) && i1 >= 0 && !(tconst[i1] & TF_CONST) ? i0 : FD_NONE;
			if (bias != FD_NONE) {
				int32_t ins[2] = { bias == i1 ? i0 : i1, bias };
				add_member(&b, node);
				keep(&list, &b, RECOG_BIASADD_ADD, ins, 2, n->outputs[0], NULL);
			}
		} else if ((graph_node_is(g, node, "Conv") || graph_node_is(g, node, "Gemm")) && n->n_inputs >= 3
		           && n->inputs[2] != FD_NONE) {
			add_member(&b, node);
			int32_t bias = n->inputs[2];
			keep(&list, &b, RECOG_BIASADD_CONV, &bias, 1, n->outputs[0], NULL);
			list.items[list.n - 1].rec.host = node;
		}
	}
	if (list.n > 1)   /* nothing found: items is NULL, which qsort may not take */
		qsort(list.items, list.n, sizeof *list.items, compare_found);
	out->n = (int32_t)list.n;
	out->items = arena_array(a, list.n ? list.n : 1, sizeof *out->items);
	size_t pool = 0;
	for (size_t i = 0; i < list.n; i++)
		pool += (size_t)list.items[i].rec.n_members + (size_t)list.items[i].rec.n_inputs;
	out->pool = arena_array(a, pool ? pool : 1, sizeof *out->pool);
	for (size_t i = 0; i < list.n; i++) {
		found *f = &list.items[i];
		f->rec.members = out->n_pool;
		memcpy(out->pool + out->n_pool, f->members, (size_t)f->rec.n_members * sizeof(int32_t));
		out->n_pool += f->rec.n_members;
		f->rec.inputs = out->n_pool;
		memcpy(out->pool + out->n_pool, f->inputs, (size_t)f->rec.n_inputs * sizeof(int32_t));
		out->n_pool += f->rec.n_inputs;
		out->items[i] = f->rec;
	}
	vec_release(&list);
	return 0;
}

static const char *const recogniser_names[] = {
#define NAME(id, name, composite) [RECOG_##id] = name,
	FD_RECOGNISERS(NAME)
#undef NAME
};
static const fd_composite recogniser_kinds[] = {
#define KIND(id, name, composite) [RECOG_##id] = COMPOSITE_##composite,
	FD_RECOGNISERS(KIND)
#undef KIND
};
static_assert(sizeof recogniser_names / sizeof *recogniser_names == RECOG_COUNT &&
              sizeof recogniser_kinds / sizeof *recogniser_kinds == RECOG_COUNT, "one row per recogniser");

const char *canon_recogniser_name(fd_recogniser r)
{
	return r < RECOG_COUNT ? recogniser_names[r] : "?";
}

static fd_composite canon_recogniser_composite(fd_recogniser r)
{
	return r < RECOG_COUNT ? recogniser_kinds[r] : COMPOSITE_NONE;
}
