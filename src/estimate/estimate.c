/* estimate.c — memory and cost estimates of a match result, as numbers: per
 * fusion (bytes in, out, removed, workspace, kernel peak with chunking,
 * roofline speed-up) and per graph (liveness peak before / after the
 * fusions, and the tensors that make it). Formulas: estimate.h. Words (text,
 * JSON, formatting): estimate_report.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "estimate/estimate.h"
#include "base/arena.h"

/* ---- FLOPs per op, as a table -------------------------------------------- */

typedef enum flop_kind {
	FL_OUT,       /* factor · output elements (elementwise and the like) */
	FL_IN,        /* factor · input elements (reductions) */
	FL_ZERO,      /* data movement: no arithmetic */
	FL_CONV,      /* 2 · out elements · Π weight dims[1:] (Cin/g · kh · kw) */
	FL_CONVT,     /* 2 · in elements · Π weight dims[1:] */
	FL_MATMUL,    /* 2 · out elements · K (batch included in out elements) */
	FL_GEMM,
	FL_POOL,      /* out elements · Π kernel_shape */
} flop_kind;

static const struct flop_def {
	const char *op_type;
	flop_kind kind;
	double factor;
} flop_table[] = {
	/* sorted by op_type (bsearch) */
	{ "Abs", FL_OUT, 1 },              { "Add", FL_OUT, 1 },
	{ "And", FL_OUT, 1 },              { "ArgMax", FL_IN, 1 },
	{ "ArgMin", FL_IN, 1 },            { "AveragePool", FL_POOL, 1 },
	{ "BatchNormalization", FL_OUT, 2 }, { "BiasGelu", FL_OUT, 9 },
	{ "Cast", FL_OUT, 1 },             { "Ceil", FL_OUT, 1 },
	{ "Clip", FL_OUT, 1 },             { "Concat", FL_ZERO, 0 },
	{ "Constant", FL_ZERO, 0 },        { "ConstantOfShape", FL_ZERO, 0 },
	{ "Conv", FL_CONV, 2 },            { "ConvTranspose", FL_CONVT, 2 },
	{ "DepthToSpace", FL_ZERO, 0 },    { "Div", FL_OUT, 1 },
	{ "Dropout", FL_ZERO, 0 },         { "Elu", FL_OUT, 3 },
	{ "Equal", FL_OUT, 1 },            { "Erf", FL_OUT, 4 },
	{ "Exp", FL_OUT, 2 },              { "Expand", FL_ZERO, 0 },
	{ "FastGelu", FL_OUT, 8 },         { "Flatten", FL_ZERO, 0 },
	{ "Floor", FL_OUT, 1 },            { "FusedMatMul", FL_MATMUL, 2 },
	{ "Gather", FL_ZERO, 0 },          { "GatherElements", FL_ZERO, 0 },
	{ "GatherND", FL_ZERO, 0 },        { "Gelu", FL_OUT, 8 },
	{ "Gemm", FL_GEMM, 2 },            { "GlobalAveragePool", FL_IN, 1 },
	{ "GlobalMaxPool", FL_IN, 1 },     { "Greater", FL_OUT, 1 },
	{ "GroupNormalization", FL_OUT, 5 }, { "HardSigmoid", FL_OUT, 3 },
	{ "HardSwish", FL_OUT, 4 },        { "Identity", FL_ZERO, 0 },
	{ "InstanceNormalization", FL_OUT, 5 }, { "LRN", FL_OUT, 5 },
	{ "LayerNormalization", FL_OUT, 5 }, { "LeakyRelu", FL_OUT, 2 },
	{ "Less", FL_OUT, 1 },             { "Log", FL_OUT, 2 },
	{ "LogSoftmax", FL_OUT, 5 },       { "MatMul", FL_MATMUL, 2 },
	{ "MatMulInteger", FL_MATMUL, 2 }, { "Max", FL_OUT, 1 },
	{ "MaxPool", FL_POOL, 1 },         { "Mean", FL_OUT, 1 },
	{ "Min", FL_OUT, 1 },              { "Mish", FL_OUT, 6 },
	{ "Mul", FL_OUT, 1 },              { "Neg", FL_OUT, 1 },
	{ "Not", FL_OUT, 1 },              { "Or", FL_OUT, 1 },
	{ "PRelu", FL_OUT, 2 },            { "Pad", FL_ZERO, 0 },
	{ "Pow", FL_OUT, 2 },              { "Reciprocal", FL_OUT, 1 },
	{ "ReduceL2", FL_IN, 2 },          { "ReduceMax", FL_IN, 1 },
	{ "ReduceMean", FL_IN, 1 },        { "ReduceMin", FL_IN, 1 },
	{ "ReduceProd", FL_IN, 1 },        { "ReduceSum", FL_IN, 1 },
	{ "ReduceSumSquare", FL_IN, 2 },   { "Relu", FL_OUT, 1 },
	{ "Reshape", FL_ZERO, 0 },         { "Resize", FL_OUT, 4 },
	{ "Shape", FL_ZERO, 0 },           { "Sigmoid", FL_OUT, 4 },
	{ "Sign", FL_OUT, 1 },             { "SimplifiedLayerNormalization", FL_OUT, 4 },
	{ "SkipLayerNormalization", FL_OUT, 6 }, { "Slice", FL_ZERO, 0 },
	{ "Softmax", FL_OUT, 5 },          { "Softplus", FL_OUT, 3 },
	{ "SpaceToDepth", FL_ZERO, 0 },    { "Split", FL_ZERO, 0 },
	{ "Sqrt", FL_OUT, 1 },             { "Squeeze", FL_ZERO, 0 },
	{ "Sub", FL_OUT, 1 },              { "Sum", FL_OUT, 1 },
	{ "Tanh", FL_OUT, 4 },             { "Tile", FL_ZERO, 0 },
	{ "Transpose", FL_ZERO, 0 },       { "Unsqueeze", FL_ZERO, 0 },
	{ "Upsample", FL_OUT, 1 },         { "Where", FL_OUT, 1 },
	{ "Xor", FL_OUT, 1 },
};

static int cmp_flop(const void *key, const void *item)
{
	return strcmp((const char *)key, ((const struct flop_def *)item)->op_type);
}

static double elements(const fd_graph *g, int32_t t)
{
	int64_t n;
	if (t < 0 || !shape_elements(&g->tensors[t].shape, &n))
		return -1;
	return (double)n;
}

static double sum_elements(const fd_graph *g, const int32_t *ids, int32_t n)
{
	double total = 0;
	for (int32_t i = 0; i < n; i++) {
		if (ids[i] < 0)
			continue;
		double e = elements(g, ids[i]);
		if (e < 0)
			return -1;
		total += e;
	}
	return total;
}

/* Π of a tensor's dims [from, rank). */
static double dims_product(const fd_graph *g, int32_t t, int from)
{
	if (t < 0)
		return -1;
	const fd_shape *s = &g->tensors[t].shape;
	if (s->rank < from)
		return -1;
	double p = 1;
	for (int d = from; d < s->rank; d++) {
		if (s->dims[d].value < 0)
			return -1;
		p *= (double)s->dims[d].value;
	}
	return p;
}

double estimate_node_flops(const fd_graph *g, const fd_node *n)
{
	const struct flop_def *def = NULL;
	if (n->op_type)
		def = bsearch(n->op_type, flop_table, sizeof flop_table / sizeof *flop_table,
		              sizeof *flop_table, cmp_flop);
	flop_kind kind = def ? def->kind : FL_OUT;   /* unknown ops: one per output element */
	double factor = def ? def->factor : 1;
	int32_t out = n->n_outputs > 0 ? n->outputs[0] : FD_NONE;
	int32_t in0 = n->n_inputs > 0 ? n->inputs[0] : FD_NONE;
	int32_t in1 = n->n_inputs > 1 ? n->inputs[1] : FD_NONE;
	double e, k;
	switch (kind) {
	case FL_ZERO:
		return 0;
	case FL_OUT:
		e = sum_elements(g, n->outputs, n->n_outputs);
		return e < 0 ? -1 : factor * e;
	case FL_IN:
		e = elements(g, in0);
		return e < 0 ? -1 : factor * e;
	case FL_CONV:
	case FL_CONVT:
		e = elements(g, kind == FL_CONV ? out : in0);
		k = dims_product(g, in1, 1);
		return e < 0 || k < 0 ? -1 : factor * e * k;
	case FL_MATMUL: {
		e = elements(g, out);
		if (in0 < 0 || e < 0)
			return -1;
		const fd_shape *a = &g->tensors[in0].shape;
		if (a->rank < 1 || a->dims[a->rank - 1].value < 0)
			return -1;
		return factor * e * (double)a->dims[a->rank - 1].value;
	}
	case FL_GEMM: {
		e = elements(g, out);
		if (in0 < 0 || e < 0)
			return -1;
		const fd_shape *a = &g->tensors[in0].shape;
		const fd_attr *ta = node_attr(n, "transA");
		int kd = ta && ta->type == ATTR_INT && ta->u.i ? 0 : 1;
		if (a->rank != 2 || a->dims[kd].value < 0)
			return -1;
		return factor * e * (double)a->dims[kd].value;
	}
	case FL_POOL: {
		e = elements(g, out);
		const fd_attr *ks = node_attr(n, "kernel_shape");
		if (e < 0)
			return -1;
		double kp = 1;
		if (ks && ks->type == ATTR_INTS)
			for (int64_t i = 0; i < ks->count; i++)
				kp *= ks->u.ints[i] > 0 ? (double)ks->u.ints[i] : 1;
		return e * kp;
	}
	}
	return -1;
}

/* ---- per fusion ------------------------------------------------------------ */

/* Bytes of a tensor, or 0 (and one more unknown) when its size is unknown. */
static int64_t bytes_or_zero(const fd_graph *g, int32_t t, int32_t *n_unknown)
{
	int64_t b;
	if (t < 0)
		return 0;
	const fd_tensor *x = &g->tensors[t];
	if (x->dtype == DT_UNDEFINED || dtype_bits(x->dtype) <= 0 || !tensor_bytes(x, &b)) {
		(*n_unknown)++;
		return 0;
	}
	return b;
}

/* Tensor sizes and node times depend on the model only: computed once per
 * model and kept in the estimate (est_cache), so a what-if re-run only adds
 * them up. */
typedef struct est_cache {
	const fd_match_ctx *ctx;
	const fd_model *model;
	const fd_hwprofile *hw;
	int32_t n_graphs;
	int64_t **tbytes;          /* [graph][tensor]: bytes, -1 unknown */
	double **ntime, **nflops;  /* [graph][node] */
} est_cache;

static int64_t cached_bytes(const est_cache *c, int32_t gi, const fd_graph *g, int32_t t, int32_t *n_unknown)
{
	if (!c)
		return bytes_or_zero(g, t, n_unknown);
	if (t < 0)
		return 0;
	int64_t b = c->tbytes[gi][t];
	if (b < 0) {
		(*n_unknown)++;
		return 0;
	}
	return b;
}

static int64_t add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static double node_time(const fd_graph *g, const fd_node *n, const fd_hwprofile *hw, double *flops_out)
{
	int32_t unk = 0;
	int64_t bytes = 0;
	for (int32_t i = 0; i < n->n_inputs; i++)
		bytes = add_sat(bytes, bytes_or_zero(g, n->inputs[i], &unk));
	for (int32_t i = 0; i < n->n_outputs; i++)
		bytes = add_sat(bytes, bytes_or_zero(g, n->outputs[i], &unk));
	double fl = estimate_node_flops(g, n);
	if (fl < 0)
		fl = 0;
	*flops_out = fl;
	int32_t dt = n->n_outputs > 0 && n->outputs[0] >= 0 ? g->tensors[n->outputs[0]].dtype : DT_UNDEFINED;
	double tm = (double)bytes / hw->mem_bytes_per_s, tc = fl / hwprofile_flops(hw, dt);
	return tm > tc ? tm : tc;
}

static void fill_defaults(fd_estimate_options *o, const fd_estimate_options *in)
{
	memset(o, 0, sizeof *o);
	if (in)
		*o = *in;
	if (o->peak_warn <= 0)
		o->peak_warn = ESTIMATE_PEAK_WARN_DEFAULT;
	if (!o->hw)
		o->hw = hwprofile_default();
}

/* Initializers (overridable ones too: their default is stored with the
 * model) and constants, and what only they compute, are weights: never in
 * the activation peak, counted apart as weight_bytes. */
static bool is_weight(const fd_tensor *x, uint8_t tflags)
{
	return (tflags & TF_CONST) || x->kind == TENSOR_INITIALIZER || x->kind == TENSOR_CONSTANT;
}

static void fusion_est(const fd_match_result *r, size_t fi, const fd_estimate_options *opt_in,
                       const est_cache *c, fd_fusion_est *out)
{
	fd_estimate_options opt;
	fill_defaults(&opt, opt_in);
	memset(out, 0, sizeof *out);
	out->chunk_ratio = 1;
	const fd_fusion *fu = &r->fusions[fi];
	const fd_graph_index *gx = &r->ctx->graphs[fu->graph];
	const fd_graph *g = gx->g;
	const fd_rule *rule = &r->rules->rules[fu->rule];
	const int32_t *ids;

	ids = fusion_ids(r, fu->inputs);
	for (int32_t i = 0; i < fu->n_inputs; i++) {
		int64_t b = cached_bytes(c, fu->graph, g, ids[i], &out->n_unknown);
		if (ids[i] >= 0 && is_weight(&g->tensors[ids[i]], gx->tflags[ids[i]]))
			out->input_const_bytes = add_sat(out->input_const_bytes, b);
		else
			out->input_act_bytes = add_sat(out->input_act_bytes, b);
	}
	out->inputs_bytes = add_sat(out->input_act_bytes, out->input_const_bytes);
	ids = fusion_ids(r, fu->outputs);
	double out_elems = 0;
	for (int32_t i = 0; i < fu->n_outputs; i++) {
		out->outputs_bytes = add_sat(out->outputs_bytes, cached_bytes(c, fu->graph, g, ids[i], &out->n_unknown));
		double e = elements(g, ids[i]);
		if (e > out_elems)
			out_elems = e;
	}
	ids = fusion_ids(r, fu->intermediates);
	for (int32_t i = 0; i < fu->n_intermediates; i++) {
		int64_t b = cached_bytes(c, fu->graph, g, ids[i], &out->n_unknown);
		out->intermediate_bytes_removed = add_sat(out->intermediate_bytes_removed, b);
		if (b > out->largest_intermediate_bytes)
			out->largest_intermediate_bytes = b;
	}
	out->workspace_known = fu->workspace_bytes >= 0;
	out->workspace_bytes = fu->workspace_bytes >= 0 ? fu->workspace_bytes : 0;

	int64_t peak = add_sat(add_sat(out->inputs_bytes, out->outputs_bytes),
	                       add_sat(out->workspace_bytes, out->largest_intermediate_bytes));
	out->kernel_peak_unchunked_bytes = peak;
	bool chunked = rule->tile_policy && !strcmp(rule->tile_policy, "chunked");
	if (chunked && rule->n_chunk_size > 0 && out_elems > 0) {
		double chunk = 1;
		for (int i = 0; i < rule->n_chunk_size; i++)
			chunk *= rule->chunk_size[i] > 0 ? (double)rule->chunk_size[i] : 1;
		out->chunk_ratio = chunk / out_elems < 1 ? chunk / out_elems : 1;
	}
	out->kernel_peak_bytes = (int64_t)ceil((double)peak * out->chunk_ratio);
	if (out->kernel_peak_bytes > opt.peak_warn) {
		if (chunked && out->chunk_ratio < 1)
			out->advice = ADVICE_SMALLER_CHUNK;
		else if (out->workspace_bytes > peak / 2)
			out->advice = ADVICE_SPILL_L2;
		else
			out->advice = ADVICE_CHUNKED;
	}

	/* roofline */
	const int32_t *nodes = fusion_ids(r, fu->nodes);
	double unfused = 0, flops = 0;
	for (int32_t i = 0; i < fu->n_nodes; i++) {
		double fl;
		if (c && c->hw == opt.hw) {
			unfused += c->ntime[fu->graph][nodes[i]];
			fl = c->nflops[fu->graph][nodes[i]];
		} else {
			unfused += node_time(g, &g->nodes[nodes[i]], opt.hw, &fl);
		}
		flops += fl;
	}
	int32_t dt = DT_UNDEFINED;
	ids = fusion_ids(r, fu->outputs);
	if (fu->n_outputs > 0 && ids[0] >= 0)
		dt = g->tensors[ids[0]].dtype;
	double tm = (double)out->inputs_bytes / opt.hw->mem_bytes_per_s;
	tm += (double)out->outputs_bytes / opt.hw->mem_bytes_per_s;
	double tc = flops / hwprofile_flops(opt.hw, dt);
	out->flops = flops;
	out->time_unfused_s = unfused;
	out->time_fused_s = tm > tc ? tm : tc;
	out->compute_bound = tc > tm;
	out->speedup = out->time_fused_s > 0 ? unfused / out->time_fused_s : 0;
}

void estimate_fusion(const fd_match_result *r, size_t fi, const fd_estimate_options *opt, fd_fusion_est *out)
{
	fusion_est(r, fi, opt, NULL, out);
}

static void cache_free(est_cache *c)
{
	if (!c)
		return;
	for (int32_t gi = 0; gi < c->n_graphs; gi++) {
		free(c->tbytes[gi]);
		free(c->ntime[gi]);
		free(c->nflops[gi]);
	}
	free(c->tbytes);
	free(c->ntime);
	free(c->nflops);
	free(c);
}

static est_cache *cache_get(fd_estimate *e, const fd_match_result *r)
{
	est_cache *c = e->cache;
	if (c && c->ctx == r->ctx && c->model == r->ctx->model && c->n_graphs == r->ctx->n_graphs &&
	    c->hw == e->opt.hw)
		return c;
	cache_free(c);
	c = xcalloc(1, sizeof *c);
	c->ctx = r->ctx;
	c->model = r->ctx->model;
	c->hw = e->opt.hw;
	c->n_graphs = r->ctx->n_graphs;
	size_t ng = c->n_graphs ? (size_t)c->n_graphs : 1;
	c->tbytes = xcalloc(ng, sizeof *c->tbytes);
	c->ntime = xcalloc(ng, sizeof *c->ntime);
	c->nflops = xcalloc(ng, sizeof *c->nflops);
	for (int32_t gi = 0; gi < c->n_graphs; gi++) {
		const fd_graph *g = r->ctx->graphs[gi].g;
		c->tbytes[gi] = xmalloc((g->n_tensors ? (size_t)g->n_tensors : 1) * sizeof **c->tbytes);
		for (int32_t t = 0; t < g->n_tensors; t++) {
			int32_t unk = 0;
			int64_t b = bytes_or_zero(g, t, &unk);
			c->tbytes[gi][t] = unk ? -1 : b;
		}
		c->ntime[gi] = xmalloc((g->n_nodes ? (size_t)g->n_nodes : 1) * sizeof **c->ntime);
		c->nflops[gi] = xmalloc((g->n_nodes ? (size_t)g->n_nodes : 1) * sizeof **c->nflops);
		for (int32_t i = 0; i < g->n_nodes; i++)
			c->ntime[gi][i] = node_time(g, &g->nodes[i], c->hw, &c->nflops[gi][i]);
	}
	e->cache = c;
	return c;
}

/* ---- whole graph: liveness --------------------------------------------------- */

typedef struct live_scratch {
	int32_t *start, *end;      /* per tensor; start < 0: not an activation */
	int64_t *bytes;
	int64_t *delta;            /* per step + 1 */
	int32_t *step_of;          /* per node */
	int32_t *order;
} live_scratch;

static const fd_graph *sort_g;
static const int64_t *sort_bytes;

static int cmp_peak(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	if (sort_bytes[x] != sort_bytes[y])
		return sort_bytes[x] > sort_bytes[y] ? -1 : 1;
	int c = strcmp(sort_g->tensors[x].name, sort_g->tensors[y].name);
	return c ? c : (x > y) - (x < y);
}

/* Peak over steps 0..n_steps-1 of the tensors with start >= 0. */
static void liveness_peak(const fd_graph *g, live_scratch *ls, int32_t n_steps, fd_liveness *out)
{
	memset(out, 0, sizeof *out);
	out->peak_step = -1;
	if (n_steps <= 0)
		return;
	memset(ls->delta, 0, ((size_t)n_steps + 1) * sizeof *ls->delta);
	for (int32_t t = 0; t < g->n_tensors; t++) {
		if (ls->start[t] < 0)
			continue;
		ls->delta[ls->start[t]] += ls->bytes[t];
		ls->delta[ls->end[t] + 1] -= ls->bytes[t];
	}
	int64_t live = 0, best = -1;
	for (int32_t k = 0; k < n_steps; k++) {
		live += ls->delta[k];
		if (live > best) {
			best = live;
			out->peak_step = k;
		}
	}
	out->peak_bytes = best > 0 ? best : 0;
	int32_t n = 0;
	for (int32_t t = 0; t < g->n_tensors; t++)
		if (ls->start[t] >= 0 && ls->start[t] <= out->peak_step && out->peak_step <= ls->end[t])
			ls->order[n++] = t;
	sort_g = g;
	sort_bytes = ls->bytes;
	qsort(ls->order, (size_t)n, sizeof *ls->order, cmp_peak);
	out->n_live_at_peak = n;
	out->n_peak_tensors = n < ESTIMATE_PEAK_TENSORS ? n : ESTIMATE_PEAK_TENSORS;
	for (int32_t i = 0; i < out->n_peak_tensors; i++) {
		out->peak_tensors[i].tensor = ls->order[i];
		out->peak_tensors[i].bytes = ls->bytes[ls->order[i]];
	}
}


/* Live intervals with each node at step_of[node]; skip marks tensors never
 * materialised (fusion intermediates). */
static void intervals(const fd_graph *g, const uint8_t *tflags, live_scratch *ls, const uint8_t *skip,
                      int32_t n_steps)
{
	for (int32_t t = 0; t < g->n_tensors; t++) {
		const fd_tensor *x = &g->tensors[t];
		ls->start[t] = ls->end[t] = -1;
		if (is_weight(x, tflags[t]) || x->kind == TENSOR_OUTER_SCOPE || (skip && skip[t]))
			continue;
		int32_t s = x->producer >= 0 ? ls->step_of[x->producer] : 0;
		int32_t e = s;
		for (int32_t c = 0; c < x->n_consumers; c++)
			if (ls->step_of[x->consumers[c]] > e)
				e = ls->step_of[x->consumers[c]];
		if (x->is_graph_output)
			e = n_steps - 1;
		ls->start[t] = s;
		ls->end[t] = e;
	}
}

/* Carves the scratch arrays of one graph out of e's reusable buffer. */
static void *carve(char **p, size_t n, size_t size)
{
	void *at = *p;
	*p += (n * size + 15) & ~(size_t)15;
	return at;
}

static void graph_estimate(fd_estimate *e, const est_cache *c, const fd_match_result *r, int32_t gi,
                           fd_graph_est *ge)
{
	const fd_graph_index *gx = &r->ctx->graphs[gi];
	const fd_graph *g = gx->g;
	memset(ge, 0, sizeof *ge);
	ge->graph = gi;
	size_t nt = g->n_tensors ? (size_t)g->n_tensors : 1, nn = g->n_nodes ? (size_t)g->n_nodes : 1;
	size_t nf = r->n_fusions + 1;
	size_t need = nt * (3 * sizeof(int32_t) + sizeof(int64_t) + 1) + (nn + 1) * (sizeof(int64_t) + sizeof(int32_t)) +
	              nf * sizeof(int32_t) + 8 * 16;
	if (need > e->scratch_size) {
		free(e->scratch);
		e->scratch = xmalloc(need);
		e->scratch_size = need;
	}
	char *p = e->scratch;
	live_scratch ls;
	ls.start = carve(&p, nt, sizeof *ls.start);
	ls.end = carve(&p, nt, sizeof *ls.end);
	ls.bytes = carve(&p, nt, sizeof *ls.bytes);
	ls.order = carve(&p, nt, sizeof *ls.order);
	ls.delta = carve(&p, nn + 1, sizeof *ls.delta);
	ls.step_of = carve(&p, nn, sizeof *ls.step_of);
	uint8_t *skip = carve(&p, nt, 1);
	int32_t *fstep = carve(&p, nf, sizeof *fstep);
	memset(ls.bytes, 0, nt * sizeof *ls.bytes);
	memset(skip, 0, nt);

	for (int32_t t = 0; t < g->n_tensors; t++) {
		const fd_tensor *x = &g->tensors[t];
		int32_t unk = 0;
		int64_t b = cached_bytes(c, gi, g, t, &unk);
		if (is_weight(x, gx->tflags[t])) {
			ge->weight_bytes = add_sat(ge->weight_bytes, b);
			continue;
		}
		if (x->kind == TENSOR_OUTER_SCOPE)
			continue;
		ge->n_activations++;
		ge->n_unknown += unk;
		ls.bytes[t] = b;
	}
	/* before */
	for (int32_t i = 0; i < g->n_nodes; i++)
		ls.step_of[i] = g->nodes[i].topo;
	intervals(g, gx->tflags, &ls, NULL, g->n_nodes);
	liveness_peak(g, &ls, g->n_nodes, &ge->before);
	/* after: a fusion runs at its last member's step */
	const int32_t *claim = r->claim ? r->claim[gi] : NULL;
	for (size_t f = 0; f < r->n_fusions; f++) {
		const fd_fusion *fu = &r->fusions[f];
		if (fu->graph != gi)
			continue;
		const int32_t *ids = fusion_ids(r, fu->intermediates);
		for (int32_t i = 0; i < fu->n_intermediates; i++)
			if (ids[i] >= 0)
				skip[ids[i]] = 1;
	}
	if (claim && r->n_fusions) {
		for (size_t f = 0; f < r->n_fusions; f++) {
			const fd_fusion *fu = &r->fusions[f];
			fstep[f] = -1;
			const int32_t *nodes = fusion_ids(r, fu->nodes);
			for (int32_t i = 0; fu->graph == gi && i < fu->n_nodes; i++)
				if (g->nodes[nodes[i]].topo > fstep[f])
					fstep[f] = g->nodes[nodes[i]].topo;
		}
		for (int32_t i = 0; i < g->n_nodes; i++)
			if (claim[i] >= 0 && (size_t)claim[i] < r->n_fusions && fstep[claim[i]] >= 0)
				ls.step_of[i] = fstep[claim[i]];
	}
	intervals(g, gx->tflags, &ls, skip, g->n_nodes);
	liveness_peak(g, &ls, g->n_nodes, &ge->after);
}

/* ---- the whole estimate --------------------------------------------------- */

void estimate_init(fd_estimate *e)
{
	memset(e, 0, sizeof *e);
}

void estimate_release(fd_estimate *e)
{
	free(e->fusions);
	free(e->graphs);
	free(e->scratch);
	cache_free(e->cache);
	memset(e, 0, sizeof *e);
}

int estimate_compute(fd_estimate *e, const fd_match_result *r, const fd_estimate_options *opt)
{
	fd_doing("estimating memory and cost");
	e->r = r;
	fill_defaults(&e->opt, opt);
	e->n_fusions = r->n_fusions;
	e->n_over_threshold = 0;
	if (r->n_fusions > e->cap_fusions || !e->fusions) {
		free(e->fusions);
		e->cap_fusions = r->n_fusions ? r->n_fusions : 1;
		e->fusions = xmalloc(e->cap_fusions * sizeof *e->fusions);
	}
	const est_cache *c = r->ctx ? cache_get(e, r) : NULL;
	for (size_t i = 0; i < r->n_fusions; i++) {
		fusion_est(r, i, &e->opt, c, &e->fusions[i]);
		if (e->fusions[i].advice != ADVICE_NONE)
			e->n_over_threshold++;
	}
	e->n_graphs = r->ctx ? r->ctx->n_graphs : 0;
	if (e->n_graphs > e->cap_graphs || !e->graphs) {
		free(e->graphs);
		e->cap_graphs = e->n_graphs ? e->n_graphs : 1;
		e->graphs = xmalloc((size_t)e->cap_graphs * sizeof *e->graphs);
	}
	for (int32_t gi = 0; gi < e->n_graphs; gi++)
		graph_estimate(e, c, r, gi, &e->graphs[gi]);
	return 0;
}
