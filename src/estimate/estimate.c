/* estimate.c — memory and cost estimates of a match result: the FLOPs
 * table, per fusion (bytes in, out, removed, workspace, kernel peak with
 * chunking, roofline speed-up, as numbers and as formulas), the cache of
 * per-model sizes, and the whole estimate. Per graph (liveness):
 * estimate_liveness.c. Formulas: estimate.h. Words (text, JSON,
 * formatting): estimate_report.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "estimate/estimate_internal.h"
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
static double shape_dims_product(const fd_graph *g, int32_t t, int from)
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
		k = shape_dims_product(g, in1, 1);
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

/* The size of t: a number, its formula, or unknown. */
static fd_sint est_cached_size(const est_cache *c, int32_t gi, const fd_graph *g, int32_t t)
{
	if (t < 0)
		return sint_num(0);
	if (c && c->tsize[gi])
		return c->tsize[gi][t];
	if (c)
		return c->tbytes[gi][t] >= 0 ? sint_num(c->tbytes[gi][t]) : sint_unknown();
	const fd_tensor *x = &g->tensors[t];
	return x->dtype == DT_UNDEFINED ? sint_unknown() : tensor_bytes_sym(x);
}

/* Every tensor's size as est_cached_size gives it, each formula computed
 * once per shape: tensors share their dims arrays (shape/ interns them),
 * so the same (dims, rank, dtype) is the same formula. */
static fd_sint *sizes_of(const fd_graph *g, const int64_t *tbytes)
{
	fd_sint *out = xmalloc(((size_t)g->n_tensors + 1) * sizeof *out);
	size_t cap = 16;
	while (cap < 2 * (size_t)g->n_tensors)
		cap *= 2;
	struct memo { const fd_dim *dims; int32_t rank, dtype; fd_sint s; } *m = xcalloc(cap, sizeof *m);
	for (int32_t t = 0; t < g->n_tensors; t++) {
		const fd_tensor *x = &g->tensors[t];
		if (tbytes[t] >= 0 || x->dtype == DT_UNDEFINED || x->shape.rank <= 0 || !x->shape.dims) {
			out[t] = tbytes[t] >= 0 ? sint_num(tbytes[t]) : est_cached_size(NULL, 0, g, t);
			continue;
		}
		size_t h = ((uintptr_t)x->shape.dims >> 3) * 31u + (size_t)x->shape.rank * 7u + (size_t)x->dtype;
		size_t i = (h * 0x9e3779b97f4a7c15ull) & (cap - 1);
		for (; m[i].dims; i = (i + 1) & (cap - 1))
			if (m[i].dims == x->shape.dims && m[i].rank == x->shape.rank && m[i].dtype == x->dtype)
				break;
		if (!m[i].dims) {
			m[i] = (struct memo){ x->shape.dims, x->shape.rank, x->dtype, tensor_bytes_sym(x) };
		}
		out[t] = m[i].s;
	}
	free(m);
	return out;
}


/* a + b where either may be unknown (then so is the sum). */
static fd_sint size_add(fd_sint a, fd_sint b)
{
	return sint_add(a, b);
}

/* The largest of sizes (numbers and formulas): one that is at least every
 * other for any binding, else unknown. */
static fd_sint size_max(const fd_sint *s, int32_t n)
{
	fd_sint best = sint_num(0);
	for (int32_t i = 0; i < n; i++) {
		if (!sint_defined(s[i]))
			return sint_unknown();
		if (sint_ge_always(s[i], best))
			best = s[i];
		else if (!sint_ge_always(best, s[i]))
			return sint_unknown();
	}
	return best;
}

int64_t est_cached_bytes(const est_cache *c, int32_t gi, const fd_graph *g, int32_t t, int32_t *n_unknown)
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

int64_t est_add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* tbytes: the graph's tensor sizes as the cache holds them (-1 unknown), or
 * NULL to compute them; an unknown size counts as 0 either way. */
static int64_t known_bytes(const fd_graph *g, const int64_t *tbytes, int32_t t)
{
	int32_t unk = 0;
	if (!tbytes || t < 0)
		return bytes_or_zero(g, t, &unk);
	return tbytes[t] > 0 ? tbytes[t] : 0;
}

static double node_time(const fd_graph *g, const fd_node *n, const fd_hwprofile *hw, const int64_t *tbytes,
                        double *flops_out)
{
	int64_t bytes = 0;
	for (int32_t i = 0; i < n->n_inputs; i++)
		bytes = est_add_sat(bytes, known_bytes(g, tbytes, n->inputs[i]));
	for (int32_t i = 0; i < n->n_outputs; i++)
		bytes = est_add_sat(bytes, known_bytes(g, tbytes, n->outputs[i]));
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

/* The figures as formulas (only when a size involved is one). */
static void fusion_formulas(const fd_match_result *r, size_t fi, const est_cache *c, fd_fusion_est *out)
{
	const fd_fusion *fu = &r->fusions[fi];
	const fd_graph_index *gx = &r->ctx->graphs[fu->graph];
	const fd_graph *g = gx->g;
	out->inputs_f = sint_num(out->inputs_bytes);
	out->input_act_f = sint_num(out->input_act_bytes);
	out->input_const_f = sint_num(out->input_const_bytes);
	out->outputs_f = sint_num(out->outputs_bytes);
	out->removed_f = sint_num(out->intermediate_bytes_removed);
	out->workspace_f = out->workspace_known ? sint_num(out->workspace_bytes) : sint_unknown();
	out->kernel_peak_f = sint_num(out->kernel_peak_bytes);
	if (!out->n_unknown && out->workspace_known)
		return;
	fd_sint act = sint_num(0), cst = sint_num(0), outs = sint_num(0), removed = sint_num(0), ws = sint_num(0);
	const int32_t *ids = fusion_ids(r, fu->inputs);
	for (int32_t i = 0; i < fu->n_inputs; i++) {
		fd_sint b = est_cached_size(c, fu->graph, g, ids[i]);
		if (ids[i] >= 0 && is_weight(&g->tensors[ids[i]], gx->tflags[ids[i]]))
			cst = size_add(cst, b);
		else
			act = size_add(act, b);
	}
	ids = fusion_ids(r, fu->outputs);
	for (int32_t i = 0; i < fu->n_outputs; i++)
		outs = size_add(outs, est_cached_size(c, fu->graph, g, ids[i]));
	ids = fusion_ids(r, fu->intermediates);
	fd_sint mids[64];
	int32_t n_mid = 0;
	bool too_many = fu->n_intermediates > 64;
	for (int32_t i = 0; i < fu->n_intermediates; i++) {
		fd_sint b = est_cached_size(c, fu->graph, g, ids[i]);
		removed = size_add(removed, b);
		if (n_mid < 64)
			mids[n_mid++] = b;
	}
	const int32_t *nodes = fusion_ids(r, fu->nodes);
	for (int32_t i = 0; i < fu->n_nodes; i++)
		ws = size_add(ws, workspace_estimate_sym(g, &g->nodes[nodes[i]]));
	out->input_act_f = act;
	out->input_const_f = cst;
	out->inputs_f = size_add(act, cst);
	out->outputs_f = outs;
	out->removed_f = removed;
	out->workspace_f = ws;
	/* the kernel peak as in fusion_est: in + out + workspace + the largest
	 * intermediate; a chunked peak scales by a ratio formulas do not give */
	fd_sint largest = too_many ? sint_unknown() : size_max(mids, n_mid);
	out->kernel_peak_f = out->chunk_ratio < 1 ? sint_unknown()
	                     : size_add(size_add(out->inputs_f, outs), size_add(ws, largest));
	/* a formula with a fresh symbol in it is a size nobody can know */
	fd_sint *all[] = { &out->inputs_f, &out->input_act_f, &out->input_const_f, &out->outputs_f, &out->removed_f,
	                   &out->workspace_f, &out->kernel_peak_f };
	for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
		if (all[k]->e && dexpr_has_fresh(all[k]->e))
			*all[k] = sint_unknown();
		out->symbolic |= all[k]->e != NULL;
	}
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
		int64_t b = est_cached_bytes(c, fu->graph, g, ids[i], &out->n_unknown);
		if (ids[i] >= 0 && is_weight(&g->tensors[ids[i]], gx->tflags[ids[i]]))
			out->input_const_bytes = est_add_sat(out->input_const_bytes, b);
		else
			out->input_act_bytes = est_add_sat(out->input_act_bytes, b);
	}
	out->inputs_bytes = est_add_sat(out->input_act_bytes, out->input_const_bytes);
	ids = fusion_ids(r, fu->outputs);
	double out_elems = 0;
	for (int32_t i = 0; i < fu->n_outputs; i++) {
		out->outputs_bytes = est_add_sat(out->outputs_bytes, est_cached_bytes(c, fu->graph, g, ids[i], &out->n_unknown));
		double e = elements(g, ids[i]);
		if (e > out_elems)
			out_elems = e;
	}
	ids = fusion_ids(r, fu->intermediates);
	for (int32_t i = 0; i < fu->n_intermediates; i++) {
		int64_t b = est_cached_bytes(c, fu->graph, g, ids[i], &out->n_unknown);
		out->intermediate_bytes_removed = est_add_sat(out->intermediate_bytes_removed, b);
		if (b > out->largest_intermediate_bytes)
			out->largest_intermediate_bytes = b;
	}
	out->workspace_known = fu->workspace_bytes >= 0;
	out->workspace_bytes = fu->workspace_bytes >= 0 ? fu->workspace_bytes : 0;

	int64_t peak = est_add_sat(est_add_sat(out->inputs_bytes, out->outputs_bytes),
	                       est_add_sat(out->workspace_bytes, out->largest_intermediate_bytes));
	out->kernel_peak_unchunked_bytes = peak;
	bool chunked = rule->tile_policy && !strcmp(rule->tile_policy, "chunked");
	if (chunked && rule->n_chunk_size > 0 && out_elems > 0) {
		double chunk = 1;
		for (int i = 0; i < rule->n_chunk_size; i++)
			chunk *= rule->chunk_size[i] > 0 ? (double)rule->chunk_size[i] : 1;
		out->chunk_ratio = chunk / out_elems < 1 ? chunk / out_elems : 1;
	}
	out->kernel_peak_bytes = (int64_t)ceil((double)peak * out->chunk_ratio);
	fusion_formulas(r, fi, c, out);
	/* advice on a partial sum would be advice on nothing */
	if (out->kernel_peak_bytes > opt.peak_warn && !out->symbolic && !out->n_unknown) {
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
			unfused += node_time(g, &g->nodes[nodes[i]], opt.hw, NULL, &fl);
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
	/* a ratio of partial sums would be a number that means nothing: n/a */
	if (out->symbolic || out->n_unknown)
		out->speedup = 0;
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
		free(c->tsize[gi]);
		free(c->ntime[gi]);
		free(c->nflops[gi]);
	}
	free(c->tsize);
	free(c->tbytes);
	free(c->ntime);
	free(c->nflops);
	free(c);
}

/* An If output whose branches give different shapes has no size of its
 * own: it is the larger of the two branch outputs (the one at least the
 * other for every binding), when the cache knows both. Bodies come after
 * their graphs, so this runs once every graph's sizes are in. */
static void if_output_sizes(est_cache *c, const fd_model *m)
{
	for (int32_t gi = 0; gi < c->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		for (int32_t i = 0; i < g->n_nodes; i++) {
			const fd_node *n = &g->nodes[i];
			if (strcmp(n->op_type, "If") || n->n_subgraphs != 2)
				continue;
			int32_t b0 = n->subgraphs[0], b1 = n->subgraphs[1];
			if (b0 <= gi || b1 <= gi || b0 >= c->n_graphs || b1 >= c->n_graphs)
				continue;
			for (int32_t k = 0; k < n->n_outputs; k++) {
				int32_t t = n->outputs[k];
				const fd_graph *g0 = &m->graphs[b0], *g1 = &m->graphs[b1];
				if (t < 0 || c->tbytes[gi][t] >= 0 ||
				    (c->tsize[gi] && sint_defined(c->tsize[gi][t]) &&
				     !(c->tsize[gi][t].e && dexpr_has_fresh(c->tsize[gi][t].e))) ||
				    k >= g0->n_outputs || k >= g1->n_outputs || g0->outputs[k] < 0 || g1->outputs[k] < 0)
					continue;
				fd_sint a = est_cached_size(c, b0, g0, g0->outputs[k]), b = est_cached_size(c, b1, g1, g1->outputs[k]);
				fd_sint big = sint_ge_always(a, b) ? a : sint_ge_always(b, a) ? b : sint_unknown();
				int64_t v;
				if (!sint_defined(big))
					continue;
				if (!big.e && sint_value(big, &v)) {
					c->tbytes[gi][t] = v;
					if (c->tsize[gi])
						c->tsize[gi][t] = big;
					continue;
				}
				if (!c->tsize[gi])
					c->tsize[gi] = sizes_of(g, c->tbytes[gi]);
				c->tsize[gi][t] = big;
			}
		}
	}
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
	c->tsize = xcalloc(ng, sizeof *c->tsize);
	c->ntime = xcalloc(ng, sizeof *c->ntime);
	c->nflops = xcalloc(ng, sizeof *c->nflops);
	for (int32_t gi = 0; gi < c->n_graphs; gi++) {
		const fd_graph *g = r->ctx->graphs[gi].g;
		c->tbytes[gi] = xmalloc((g->n_tensors ? (size_t)g->n_tensors : 1) * sizeof **c->tbytes);
		bool formulas = false;
		for (int32_t t = 0; t < g->n_tensors; t++) {
			int32_t unk = 0;
			int64_t b = bytes_or_zero(g, t, &unk);
			c->tbytes[gi][t] = unk ? -1 : b;
			if (!formulas && unk && g->tensors[t].dtype != DT_UNDEFINED)
				formulas = tensor_bytes_sym(&g->tensors[t]).e != NULL;
		}
		/* a graph of numbers pays nothing more */
		if (formulas)
			c->tsize[gi] = sizes_of(g, c->tbytes[gi]);
		c->ntime[gi] = xmalloc((g->n_nodes ? (size_t)g->n_nodes : 1) * sizeof **c->ntime);
		c->nflops[gi] = xmalloc((g->n_nodes ? (size_t)g->n_nodes : 1) * sizeof **c->nflops);
		for (int32_t i = 0; i < g->n_nodes; i++)
			c->ntime[gi][i] = node_time(g, &g->nodes[i], c->hw, c->tbytes[gi], &c->nflops[gi][i]);
	}
	if_output_sizes(c, r->ctx->model);
	e->cache = c;
	return c;
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
	/* bodies first: a node that runs one holds the body's peak (estimate_bodies.c) */
	for (int32_t gi = e->n_graphs - 1; gi >= 0; gi--)
		est_graph(e, c, r, gi, &e->graphs[gi]);
	return 0;
}
