/* transpose_push.c — OptimizeImpl's main loop over the model (transpose.h):
 * which Transposes onnxruntime pushes through which nodes, where they
 * cancel, and what the nodes they cross change. Each handler is the
 * onnxruntime function it names; a handler fusiondbg does not model is
 * still known to exist, since onnxruntime's cost check asks whether every
 * consumer of a Transpose has one (CanLikelyRemoveTranspose). */
#include <stdlib.h>
#include <string.h>
#include "transpose/transpose_internal.h"

typedef enum handler_kind {
	H_NONE, H_SIMPLE, H_NODE1, H_QDQ, H_UNSQUEEZE, H_CONCAT, H_SLICE, H_TRANSPOSE,
	H_BROADCAST, H_REDUCE, H_GATHER, /* transpose_handlers.c */
	H_OTHER,      /* onnxruntime has a handler fusiondbg does not model (Squeeze, Split, …) */
	H_OTHER_STOP, /* the same, and it does not transpose its outputs (Reshape) */
	H_SHAPE,      /* HandleShape: does not transpose its outputs */
} handler_kind;

typedef enum inputs_kind { IN_ALL, IN_FIRST, IN_NON_SCALAR } inputs_kind;

typedef struct handler {
	const char *op;
	handler_kind kind;
	inputs_kind inputs;
} handler;

/* handler_map of onnx_transpose_optimization.cc (with the Gather that
 * onnxruntime 1.30 has: HandleGather, a scalar constant index), and
 * OrtExtendedHandlers' MaxPool (ort_transpose_optimization.cc). */
static const handler HANDLERS[] = {
	{ "Cast", H_SIMPLE, IN_ALL }, { "Exp", H_SIMPLE, IN_ALL }, { "Gelu", H_SIMPLE, IN_ALL },
	{ "Identity", H_SIMPLE, IN_ALL }, { "LeakyRelu", H_SIMPLE, IN_ALL }, { "Log", H_SIMPLE, IN_ALL },
	{ "Reciprocal", H_SIMPLE, IN_ALL }, { "Relu", H_SIMPLE, IN_ALL }, { "Sigmoid", H_SIMPLE, IN_ALL },
	{ "Sqrt", H_SIMPLE, IN_ALL }, { "Tanh", H_SIMPLE, IN_ALL }, { "Abs", H_SIMPLE, IN_ALL },
	{ "Not", H_SIMPLE, IN_ALL }, { "Ceil", H_SIMPLE, IN_ALL }, { "Floor", H_SIMPLE, IN_ALL },
	{ "Neg", H_SIMPLE, IN_ALL }, { "Erf", H_SIMPLE, IN_ALL }, { "HardSigmoid", H_SIMPLE, IN_ALL },
	{ "Round", H_SIMPLE, IN_ALL }, { "IsInf", H_SIMPLE, IN_ALL }, { "IsNaN", H_SIMPLE, IN_ALL },
	{ "Selu", H_SIMPLE, IN_ALL }, { "Shrink", H_SIMPLE, IN_ALL }, { "Sign", H_SIMPLE, IN_ALL },
	{ "Softplus", H_SIMPLE, IN_ALL }, { "Softsign", H_SIMPLE, IN_ALL }, { "ThresholdedRelu", H_SIMPLE, IN_ALL },
	{ "Celu", H_SIMPLE, IN_ALL }, { "HardSwish", H_SIMPLE, IN_ALL }, { "Sin", H_SIMPLE, IN_ALL },
	{ "Cos", H_SIMPLE, IN_ALL }, { "Tan", H_SIMPLE, IN_ALL }, { "Sinh", H_SIMPLE, IN_ALL },
	{ "Cosh", H_SIMPLE, IN_ALL }, { "Asin", H_SIMPLE, IN_ALL }, { "Acos", H_SIMPLE, IN_ALL },
	{ "Atan", H_SIMPLE, IN_ALL }, { "Asinh", H_SIMPLE, IN_ALL }, { "Acosh", H_SIMPLE, IN_ALL },
	{ "Atanh", H_SIMPLE, IN_ALL },
	{ "Add", H_BROADCAST, IN_NON_SCALAR }, { "Max", H_BROADCAST, IN_NON_SCALAR }, { "Min", H_BROADCAST, IN_NON_SCALAR },
	{ "Mul", H_BROADCAST, IN_NON_SCALAR }, { "Sub", H_BROADCAST, IN_NON_SCALAR }, { "Div", H_BROADCAST, IN_NON_SCALAR },
	{ "And", H_BROADCAST, IN_NON_SCALAR }, { "Or", H_BROADCAST, IN_NON_SCALAR }, { "Xor", H_BROADCAST, IN_NON_SCALAR },
	{ "Mod", H_BROADCAST, IN_NON_SCALAR }, { "PRelu", H_BROADCAST, IN_NON_SCALAR },
	{ "BitShift", H_BROADCAST, IN_NON_SCALAR }, { "Equal", H_BROADCAST, IN_NON_SCALAR },
	{ "Greater", H_BROADCAST, IN_NON_SCALAR }, { "Less", H_BROADCAST, IN_NON_SCALAR },
	{ "GreaterOrEqual", H_BROADCAST, IN_NON_SCALAR }, { "LessOrEqual", H_BROADCAST, IN_NON_SCALAR },
	{ "Mean", H_BROADCAST, IN_NON_SCALAR }, { "Sum", H_BROADCAST, IN_NON_SCALAR }, { "Pow", H_BROADCAST, IN_NON_SCALAR },
	{ "Where", H_BROADCAST, IN_NON_SCALAR },
	{ "Clip", H_NODE1, IN_FIRST }, { "CastLike", H_NODE1, IN_FIRST },
	{ "Transpose", H_TRANSPOSE, IN_FIRST }, { "Concat", H_CONCAT, IN_ALL }, { "Split", H_OTHER, IN_FIRST },
	{ "Shape", H_SHAPE, IN_FIRST }, { "Pad", H_OTHER, IN_FIRST },
	{ "ReduceLogSum", H_REDUCE, IN_FIRST }, { "ReduceLogSumExp", H_REDUCE, IN_FIRST },
	{ "ReduceMax", H_REDUCE, IN_FIRST }, { "ReduceMean", H_REDUCE, IN_FIRST }, { "ReduceMin", H_REDUCE, IN_FIRST },
	{ "ReduceProd", H_REDUCE, IN_FIRST }, { "ReduceSum", H_REDUCE, IN_FIRST },
	{ "ReduceSumSquare", H_REDUCE, IN_FIRST }, { "ReduceL1", H_REDUCE, IN_FIRST }, { "ReduceL2", H_REDUCE, IN_FIRST },
	{ "ArgMin", H_OTHER, IN_FIRST }, { "ArgMax", H_OTHER, IN_FIRST }, { "Squeeze", H_OTHER, IN_FIRST },
	{ "Unsqueeze", H_UNSQUEEZE, IN_FIRST }, { "Slice", H_SLICE, IN_FIRST }, { "Tile", H_OTHER, IN_FIRST },
	{ "Softmax", H_OTHER, IN_FIRST }, { "Hardmax", H_OTHER, IN_FIRST }, { "LogSoftmax", H_OTHER, IN_FIRST },
	{ "QuantizeLinear", H_QDQ, IN_FIRST }, { "DequantizeLinear", H_QDQ, IN_FIRST },
	{ "Reshape", H_OTHER_STOP, IN_FIRST }, { "MaxPool", H_OTHER, IN_FIRST },
	{ "Gather", H_GATHER, IN_FIRST },   /* HandleGather, onnxruntime 1.30 */
};

/* GetHandler: ONNX-domain ops by type; com.microsoft's Q/DQ and QLinear ops
 * have extended handlers fusiondbg does not model. */
static const handler *handler_of(const fd_node *n)
{
	static const handler contrib = { "", H_OTHER, IN_FIRST };
	if (n->domain[0])
		return !strcmp(n->domain, "com.microsoft") && (strstr(n->op_type, "QLinear") == n->op_type ||
		       !strcmp(n->op_type, "QuantizeLinear") || !strcmp(n->op_type, "DequantizeLinear"))
		       ? &contrib : NULL;
	for (size_t k = 0; k < sizeof HANDLERS / sizeof *HANDLERS; k++)
		if (!strcmp(HANDLERS[k].op, n->op_type))
			return &HANDLERS[k];
	return NULL;
}

static bool transposes_outputs(const handler *h)
{
	return h->kind != H_TRANSPOSE && h->kind != H_OTHER_STOP && h->kind != H_SHAPE;
}

/* transposible_inputs_fn: AllInputs, FirstInput, NonScalarInputs. */
static bool transposible(const tp_state *s, const fd_node *n, const handler *h, int32_t j)
{
	if (h->inputs == IN_FIRST)
		return j == 0;
	if (h->inputs == IN_ALL)
		return j < n->n_inputs;
	int32_t t = n->inputs[j];
	return t < 0 || s->g->tensors[t].shape.rank != 0;
}

bool transpose_transposible(const tp_state *s, const fd_node *n, int32_t j)
{
	const handler *h = handler_of(n);
	return h && transposible(s, n, h, j);
}

/* ---- permutations (the helpers of onnx_transpose_optimization.cc) ---------- */

int32_t transpose_add_perm(tp_state *s, int32_t rank, const int64_t *p)
{
	for (size_t k = 0; k < s->perms.n; k++)
		if (s->perms.items[k].rank == rank && !memcmp(s->perms.items[k].p, p, (size_t)rank * sizeof *p))
			return (int32_t)k;
	tp_perm q = { rank, arena_array(s->arena, (size_t)rank + 1, sizeof *p) };
	memcpy(q.p, p, (size_t)rank * sizeof *p);
	vec_push(&s->perms, q);
	return (int32_t)s->perms.n - 1;
}

/* IsValidPerm on a node's perm attribute (GetPermAttrIfValid); its rank, -1 */
static int32_t valid_perm(const fd_node *n, const int64_t **out)
{
	const fd_attr *a = node_attr(n, "perm");
	if (!a || a->type != ATTR_INTS || a->count <= 0 || a->count > 64)
		return -1;
	bool used[64] = { false };
	for (int64_t i = 0; i < a->count; i++) {
		int64_t x = a->u.ints[i];
		if (x < 0 || x >= a->count || used[x])
			return -1;
		used[x] = true;
	}
	*out = a->u.ints;
	return (int32_t)a->count;
}

/* Is q the inverse of p (InvertPerm(p) == q)? */
static bool inverse_of(const tp_perm *p, const int64_t *q, int32_t rank)
{
	if (p->rank != rank)
		return false;
	for (int32_t i = 0; i < rank; i++)
		if (q[p->p[i]] != i)
			return false;
	return true;
}

/* NormalizeAndValidateAxes */
bool transpose_normalize_axes(int64_t *axes, int32_t n, int64_t rank)
{
	bool used[64] = { false };
	if (rank > 64)
		return false;
	for (int32_t i = 0; i < n; i++) {
		if (axes[i] < 0)
			axes[i] += rank;
		if (axes[i] < 0 || axes[i] >= rank || used[axes[i]])
			return false;
		used[axes[i]] = true;
	}
	return true;
}

/* UnsqueezePerm(axes, perm): the perm of the unsqueezed tensor. */
static int32_t unsqueeze_perm(tp_state *s, const tp_perm *p, const int64_t *axes, int32_t n_axes)
{
	int32_t rank = p->rank + n_axes;
	bool added[128] = { false };
	int64_t map[128], out[128];
	int32_t m = 0, j = 0;
	for (int32_t k = 0; k < n_axes; k++)
		added[axes[k]] = true;
	for (int32_t i = 0; i < rank; i++)
		if (!added[i])
			map[m++] = i;
	for (int32_t i = 0; i < rank; i++)
		out[i] = added[i] ? i : map[p->p[j++]];
	return transpose_add_perm(s, rank, out);
}

/* ---- constants as onnxruntime reads them ------------------------------------- */

/* GetConstant: an initializer that is not overridable, or a Constant's output
 * (onnxruntime makes those initializers), with its integer values. */
const fd_const *transpose_int_constant(const tp_state *s, int32_t t)
{
	if (t < 0 || !tensor_is_constant(s->g, t))
		return NULL;
	const fd_const *v = s->g->tensors[t].value;
	return v && v->i64 ? v : NULL;
}

/* ReadFromAttrOrInput(…, "axes", 1, 13) for Unsqueeze; n = -1 when absent. */
static int64_t *read_axes(tp_state *s, const fd_node *n, int32_t input, int64_t since, int32_t *count)
{
	*count = -1;
	if (s->opset < since) {
		const fd_attr *a = node_attr(n, "axes");
		if (!a || a->type != ATTR_INTS)
			return NULL;
		int64_t *out = arena_array(s->arena, (size_t)a->count + 1, sizeof *out);
		if (a->count)
			memcpy(out, a->u.ints, (size_t)a->count * sizeof *out);
		*count = (int32_t)a->count;
		return out;
	}
	const fd_const *v = input < n->n_inputs ? transpose_int_constant(s, n->inputs[input]) : NULL;
	if (!v || v->count > 64)
		return NULL;
	int64_t *out = arena_array(s->arena, (size_t)v->count + 1, sizeof *out);
	if (v->count)
		memcpy(out, v->i64, (size_t)v->count * sizeof *out);
	*count = (int32_t)v->count;
	return out;
}

/* ---- the cost check (DefaultCostCheck, CalculateCost) ------------------------ */

/* EstimateValueRank: dims other than 1; 5 when the rank is unknown. */
static int value_rank(const tp_state *s, int32_t t)
{
	if (t < 0)
		return 0;
	const fd_shape *sh = &s->g->tensors[t].shape;
	if (sh->rank < 0)
		return 5;
	int r = 0;
	for (int32_t i = 0; i < sh->rank; i++)
		r += !(dim_known(sh->dims[i]) && !dim_is_symbolic(sh->dims[i]) && sh->dims[i].value == 1);
	return r;
}

/* GetDQWithConstInitializerInputAndSingleConsumer, per-tensor or per-axis */
static bool dq_of_constant(const tp_state *s, int32_t t)
{
	const fd_tensor *x = &s->g->tensors[t];
	if (x->producer < 0 || !node_is(&s->g->nodes[x->producer], "DequantizeLinear"))
		return false;
	const fd_node *dq = &s->g->nodes[x->producer];
	return dq->n_inputs > 0 && dq->inputs[0] >= 0 && tensor_is_constant(s->g, dq->inputs[0]) &&
	       !x->is_graph_output && x->n_consumers == 1;
}

/* CanLikelyRemoveTranspose: every consumer of its output has a handler. */
static bool can_likely_remove(const tp_state *s, int32_t t)
{
	const fd_tensor *x = &s->g->tensors[t];
	if (x->is_graph_output)
		return false;
	for (int32_t c = 0; c < x->n_consumers; c++)
		if (!handler_of(&s->g->nodes[x->consumers[c]]))
			return false;
	return true;
}

/* EstimateTransposeValueCost(input, perm_inv) where perm_inv is the pushed
 * Transpose's perm p. */
static int value_cost(const tp_state *s, int32_t t, const tp_perm *p)
{
	if (t < 0)
		return 0;
	const fd_tensor *x = &s->g->tensors[t];
	/* IsConstant: an initializer, which a Constant's output is to onnxruntime */
	if (tensor_is_constant(s->g, t))
		return 0;
	if (x->producer < 0)
		return value_rank(s, t);
	if (dq_of_constant(s, t))
		return 0;
	int32_t from = t;
	const fd_node *pn = &s->g->nodes[x->producer];
	if (s->carry[t] < 0 && node_is(pn, "DequantizeLinear") && pn->n_inputs > 0 && pn->inputs[0] >= 0 &&
	    s->carry[pn->inputs[0]] >= 0)
		from = pn->inputs[0];   /* look past a DQ for the Transpose */
	if (s->carry[from] >= 0) {
		const tp_perm *q = &s->perms.items[s->carry[from]];
		bool same = q->rank == p->rank && !memcmp(q->p, p->p, (size_t)p->rank * sizeof *p->p);
		return same && can_likely_remove(s, from) ? -value_rank(s, t) : 0;
	}
	return value_rank(s, t);
}

static bool cost_says_push(const tp_state *s, const fd_node *n, const handler *h, const tp_perm *p)
{
	if (h->kind == H_TRANSPOSE)
		return true;
	int cost = 0;
	for (int32_t j = 0; j < n->n_inputs; j++)
		if (transposible(s, n, h, j))
			cost += value_cost(s, n->inputs[j], p);
	if (cost < 0 && transposes_outputs(h)) {
		bool leads = false;
		int out = 0;
		for (int32_t k = 0; k < n->n_outputs; k++) {
			int32_t t = n->outputs[k];
			if (t < 0)
				continue;
			out = value_rank(s, t) > out ? value_rank(s, t) : out;
			leads = leads || s->leading[t];
		}
		if (!leads)
			cost += out;
	}
	return cost < 0;
}

/* The set outputs_leading_to_transpose, from the last node to the first. */
static void find_leading(tp_state *s)
{
	const fd_graph *g = s->g;
	for (int32_t k = g->n_nodes - 1; k >= 0; k--) {
		const fd_node *n = &g->nodes[g->topo_order[k]];
		if (node_is(n, "Transpose")) {
			if (n->n_inputs > 0 && n->inputs[0] >= 0)
				s->leading[n->inputs[0]] = true;
			continue;
		}
		bool leads = false;
		for (int32_t o = 0; o < n->n_outputs; o++)
			leads = leads || (n->outputs[o] >= 0 && s->leading[n->outputs[o]]);
		const handler *h = leads ? handler_of(n) : NULL;
		if (!h || !transposes_outputs(h))
			continue;
		for (int32_t j = 0; j < n->n_inputs; j++)
			if (transposible(s, n, h, j) && n->inputs[j] >= 0)
				s->leading[n->inputs[j]] = true;
	}
}

/* ---- groups -------------------------------------------------------------------- */

int32_t transpose_group(tp_state *s, int32_t c)
{
	while (s->uf[c] != c)
		c = s->uf[c] = s->uf[s->uf[c]];
	return c;
}

static int32_t join(tp_state *s, int32_t a, int32_t b)
{
	a = transpose_group(s, a);
	b = transpose_group(s, b);
	if (a == b)
		return a;
	if (b < a) {
		int32_t x = a;
		a = b;
		b = x;
	}
	s->uf[b] = a;
	s->failed[a] = s->failed[a] || s->failed[b];
	s->pushed_any[a] = s->pushed_any[a] || s->pushed_any[b];
	if (!s->why[a] && s->why[b]) {
		s->why[a] = s->why[b];
		s->where[a] = s->where[b];
	}
	return a;
}

static void fail(tp_state *s, int32_t group, int32_t node, const char *why)
{
	group = transpose_group(s, group);
	if (!s->failed[group]) {
		s->why[group] = why;
		s->where[group] = node;
	}
	s->failed[group] = true;
}

/* ---- the handlers ---------------------------------------------------------------- */

/* HandleQuantizeDequantizeLinear's axis (TransposeQuantizeDequantizeAxis):
 * remapped unless the scale is a scalar; false when it cannot be. */
static bool qdq_axis(tp_state *s, const fd_node *n, const tp_perm *p, tp_change *ch)
{
	if (s->opset < 13)
		return true;
	int32_t scale = n->n_inputs > 1 ? n->inputs[1] : FD_NONE;
	if (scale >= 0 && s->g->tensors[scale].shape.rank == 0)
		return true;
	const fd_attr *a = node_attr(n, "axis");
	int64_t axis = a && a->type == ATTR_INT ? a->u.i : 1;
	ch->old_axis = axis;
	ch->old_axis_absent = !a;
	if (axis < 0)
		axis += p->rank;
	if (axis < 0 || axis >= p->rank)
		return false;
	ch->axis_set = true;
	ch->axis = p->p[axis];
	return true;
}

/* HandleSimpleNodeWithAxis for Concat (no default axis). */
static bool concat_axis(const fd_node *n, const tp_perm *p, tp_change *ch)
{
	const fd_attr *a = node_attr(n, "axis");
	if (!a || a->type != ATTR_INT)
		return false;
	int64_t axis = a->u.i < 0 ? a->u.i + p->rank : a->u.i;
	if (axis < 0 || axis >= p->rank)
		return false;
	ch->axis_set = true;
	ch->old_axis = a->u.i;
	ch->axis = p->p[axis];
	return true;
}

/* HandleSlice: the axes (given, constant, or 0..len(starts)-1) remapped
 * through the perm, in a new constant of the axes' (or starts') type. */
static bool slice_axes(tp_state *s, const fd_node *n, const tp_perm *p, tp_change *ch)
{
	if (s->opset < 10)
		return false;   /* the axes attribute of Slice-1: not modelled */
	int32_t count;
	int64_t *axes;
	if (n->n_inputs < 4 || n->inputs[3] < 0) {
		int32_t st = n->n_inputs > 1 ? n->inputs[1] : FD_NONE;
		if (st < 0 || s->g->tensors[st].shape.rank != 1 || !dim_known(s->g->tensors[st].shape.dims[0]) ||
		    dim_is_symbolic(s->g->tensors[st].shape.dims[0]))
			return false;
		count = (int32_t)s->g->tensors[st].shape.dims[0].value;
		if (count > p->rank)
			return false;
		axes = arena_array(s->arena, (size_t)count + 1, sizeof *axes);
		for (int32_t i = 0; i < count; i++)
			axes[i] = p->p[i];
		ch->axes_dtype = s->g->tensors[st].dtype == DT_INT32 ? DT_INT32 : DT_INT64;
	} else {
		axes = read_axes(s, n, 3, 0, &count);
		if (!axes || !transpose_normalize_axes(axes, count, p->rank))
			return false;
		for (int32_t i = 0; i < count; i++)
			axes[i] = p->p[axes[i]];
		ch->axes_dtype = s->g->tensors[n->inputs[3]].dtype == DT_INT32 ? DT_INT32 : DT_INT64;
	}
	ch->n_axes = count;
	ch->axes = axes;
	ch->axes_input = 3;
	return true;
}

/* HandleReshape's first checks, which most Reshapes fail: the shape a
 * constant of the Transpose's rank, every dim of the Transpose's known
 * (FinalizeReshapeShape). One that passes them may be a Transpose in
 * disguise, which fusiondbg does not model. */
static bool reshape_declines(const tp_state *s, const fd_node *n, int32_t t)
{
	if (!node_is(n, "Reshape"))
		return false;
	const fd_shape *sh = &s->g->tensors[t].shape;
	const fd_const *v = n->n_inputs > 1 ? transpose_int_constant(s, n->inputs[1]) : NULL;
	if (sh->rank < 0 || !v || v->count == 0 || v->count != sh->rank)
		return true;
	for (int32_t k = 0; k < sh->rank; k++)
		if (!dim_known(sh->dims[k]) || dim_is_symbolic(sh->dims[k]))
			return true;
	return false;
}

/* HandleShape: Shape(Transpose(x, perm)) = Gather(Shape(x), perm), from
 * opset 15 perm[start:end] with start and end cleared. */
static void shape_gather(tp_state *s, const fd_node *n, const tp_perm *p, tp_change *ch)
{
	int64_t lo = 0, hi = p->rank;
	if (s->opset >= 15) {
		const fd_attr *a = node_attr(n, "start"), *b = node_attr(n, "end");
		lo = a && a->type == ATTR_INT ? a->u.i : 0;
		hi = b && b->type == ATTR_INT ? b->u.i : p->rank;
		lo = lo < 0 ? lo + p->rank : lo;
		hi = hi < 0 ? hi + p->rank : hi;
		lo = lo < 0 ? 0 : lo > p->rank ? p->rank : lo;
		hi = hi < 0 ? 0 : hi > p->rank ? p->rank : hi;
	}
	int64_t part[64];
	int32_t m = 0;
	for (int64_t k = lo; k < hi; k++)
		part[m++] = p->p[k];
	ch->shape_set = true;
	ch->shape_perm = transpose_add_perm(s, m, part);
}

/* From opset 17 LayerNormFusion is a level-1 transformer ahead of the
 * TransposeOptimizer: a ReduceMean whose mean a Sub takes from the same x
 * may be the head of a LayerNorm it fuses first. */
static bool layer_norm_first(const tp_state *s, const fd_node *n)
{
	if (s->opset < 17 || !node_is(n, "ReduceMean") || n->n_inputs < 1 || n->n_outputs < 1 || n->outputs[0] < 0)
		return false;
	const fd_tensor *mean = &s->g->tensors[n->outputs[0]];
	for (int32_t c = 0; c < mean->n_consumers; c++) {
		const fd_node *sub = &s->g->nodes[mean->consumers[c]];
		if (node_is(sub, "Sub") && sub->n_inputs == 2 && sub->inputs[0] == n->inputs[0])
			return true;
	}
	return false;
}

/* The carried input j of node i is consumed by a push whose output carries
 * out_perm (-1: the push ends, a cancellation). */
static void take(tp_state *s, int32_t i, int32_t j, int32_t group)
{
	int32_t t = s->g->nodes[i].inputs[j];
	s->n_push[t]++;
	join(s, s->comp[t], group);
}

/* TransposeOutputs skips an identity perm (a reduce or Gather that drops
 * the axes the perm moved): the push ends there, with no Transpose left. */
static bool is_identity(const tp_perm *p)
{
	for (int32_t k = 0; k < p->rank; k++)
		if (p->p[k] != k)
			return false;
	return true;
}

/* perm -1: the outputs carry nothing (their group and pusher still kept). */
static void carry_out(tp_state *s, int32_t i, int32_t perm, int32_t group, int32_t from)
{
	const fd_node *n = &s->g->nodes[i];
	for (int32_t k = 0; k < n->n_outputs; k++) {
		int32_t t = n->outputs[k];
		if (t < 0)
			continue;
		s->carry[t] = perm;
		s->comp[t] = group;
		s->parent[t] = from;
		s->pusher[t] = i;
		if (perm >= 0 && s->g->tensors[t].is_graph_output && !s->materialize)
			fail(s, group, i, "its output is a graph output, which onnxruntime keeps by name");
	}
}

/* ProcessTranspose for input j of node i; true when the Transpose went
 * through (or is not modelled past here: then its group failed). */
static bool process(tp_state *s, int32_t i, int32_t j, const handler *h)
{
	const fd_node *n = &s->g->nodes[i];
	int32_t t = n->inputs[j];
	const tp_perm *p = &s->perms.items[s->carry[t]];
	int32_t group = transpose_group(s, s->comp[t]);
	if (p->rank > 64 || !transposible(s, n, h, j) || !cost_says_push(s, n, h, p))
		return false;   /* (an Unsqueeze can widen a perm past the handlers' 64 axes) */
	if (s->pusher[t] >= 0 && s->merged[s->pusher[t]]) {
		fail(s, group, i, "onnxruntime pushes the Transpose merged before it on, which fusiondbg does not model");
		s->pushed_any[transpose_group(s, group)] = true;
		take(s, i, j, group);
		return true;
	}
	tp_change ch = { 0 };
	int32_t out = s->carry[t];
	switch (h->kind) {
	case H_TRANSPOSE: {
		const int64_t *q;
		int32_t rank = valid_perm(n, &q);
		if (rank != p->rank)
			return false;
		take(s, i, j, group);
		s->pushed_any[transpose_group(s, group)] = true;
		s->role[i] = ROLE_SINK;
		s->uf[i] = i;
		join(s, i, group);
		if (!inverse_of(p, q, rank) && s->materialize) {
			/* HandleTransposeImpl Case 2: this Transpose stays, perm ComposePerm(p, q) */
			int64_t c[64];
			for (int32_t k = 0; k < rank; k++)
				c[k] = p->p[q[k]];
			s->merged[i] = true;
			s->change[i].merged_perm = transpose_add_perm(s, rank, c);
			carry_out(s, i, s->change[i].merged_perm, group, t);
		} else if (!inverse_of(p, q, rank))
			fail(s, group, i, "the permutations do not cancel: onnxruntime merges them into this Transpose");
		else if (n->n_outputs > 0 && n->outputs[0] >= 0 && s->g->tensors[n->outputs[0]].is_graph_output)
			fail(s, group, i, "the cancelling Transpose makes a graph output");
		return true;
	}
	case H_QDQ:
		if (!qdq_axis(s, n, p, &ch))
			return false;
		break;
	case H_UNSQUEEZE: {
		int32_t count;
		int64_t *axes = read_axes(s, n, 1, 13, &count);
		if (!axes || !transpose_normalize_axes(axes, count, p->rank + count))
			return false;
		out = unsqueeze_perm(s, p, axes, count);
		break;
	}
	case H_CONCAT:
		if (!concat_axis(n, p, &ch))
			return false;
		break;
	case H_SLICE:
		if (!slice_axes(s, n, p, &ch))
			return false;
		break;
	case H_REDUCE:
		if (layer_norm_first(s, n)) {
			fail(s, group, i, "from opset 17 onnxruntime's LayerNormFusion runs first, at level 1: where it "
			     "fuses, this push meets a LayerNormalization, which fusiondbg does not model");
			s->pushed_any[transpose_group(s, group)] = true;
			take(s, i, j, group);
			return true;
		}
		if (!transpose_reduce(s, n, p, &ch, &out))
			return false;
		break;
	case H_GATHER:
		if (!transpose_gather(s, n, p, &ch, &out))
			return false;
		break;
	case H_BROADCAST: {
		const char *why;
		if (!transpose_broadcast(s, i, t, &ch, &why))
			return false;
		if (why)
			fail(s, group, i, why);
		break;
	}
	case H_SHAPE:
		if (!s->materialize)
			goto other;
		shape_gather(s, n, p, &ch);
		out = -1;
		break;
	case H_SIMPLE:
	case H_NODE1:
		break;
	default:
	other:
		if (reshape_declines(s, n, t))
			return false;
		/* onnxruntime would push it here (its handler may still decline) */
		fail(s, group, i, "onnxruntime would push it through this node, which fusiondbg does not model");
		s->pushed_any[transpose_group(s, group)] = true;
		take(s, i, j, group);
		return true;
	}
	/* every transposible input must carry the same permutation: otherwise
	 * onnxruntime would transpose the others (TransposeInputs) */
	for (int32_t k = 0; k < n->n_inputs; k++) {
		if (!transposible(s, n, h, k) || n->inputs[k] < 0)
			continue;
		int32_t x = n->inputs[k];
		if (h->kind == H_BROADCAST && s->carry[x] < 0 &&
		    (tensor_is_constant(s->g, x) || (k < 32 && (ch.new_inputs & (1u << k)))))
			continue;   /* edited in place or given new nodes, or its failure said already */
		if (s->carry[x] != s->carry[t]) {
			fail(s, group, i, "another input does not carry the same Transpose; onnxruntime would "
			     "transpose it");
			continue;
		}
		take(s, i, k, group);
	}
	group = transpose_group(s, group);
	s->pushed_any[group] = true;
	s->role[i] = ROLE_PUSHED;
	s->change[i] = ch;
	carry_out(s, i, out >= 0 && !is_identity(&s->perms.items[out]) ? out : -1, group, t);
	return true;
}

void transpose_push(tp_state *s)
{
	const fd_graph *g = s->g;
	find_leading(s);
	s->materialize = true;
	for (int32_t i = 0; i < g->n_nodes; i++)
		s->materialize = s->materialize && strcmp(g->nodes[i].op_type, "DequantizeLinear");
	for (int32_t k = 0; k < g->n_nodes; k++) {
		int32_t i = g->topo_order[k];
		const fd_node *n = &g->nodes[i];
		const handler *h = handler_of(n);
		bool done = false;
		for (int32_t j = 0; j < n->n_inputs && !done; j++)
			if (n->inputs[j] >= 0 && s->carry[n->inputs[j]] >= 0 && h)
				done = process(s, i, j, h);
		if (done || !node_is(n, "Transpose") || n->n_inputs < 1 || n->inputs[0] < 0 || n->n_outputs < 1 ||
		    n->outputs[0] < 0 || tensor_is_constant(g, n->inputs[0]))
			continue;
		const int64_t *q;
		int32_t rank = valid_perm(n, &q);
		if (rank < 0 || s->carry[n->inputs[0]] >= 0)
			continue;
		/* a Transpose whose input carries none: it starts a push */
		s->role[i] = ROLE_SOURCE;
		s->uf[i] = i;
		int32_t t = n->outputs[0];
		s->carry[t] = transpose_add_perm(s, rank, q);
		s->comp[t] = i;
		s->pusher[t] = i;
		s->parent[t] = -1;
	}
	/* a Transpose left on a tensor some of whose readers took it over, or
	 * before a graph output: onnxruntime keeps one there */
	for (int32_t t = 0; t < g->n_tensors; t++) {
		if (s->carry[t] < 0 || s->n_push[t] == 0 || s->merged[s->pusher[t]])
			continue;
		const fd_tensor *x = &g->tensors[t];
		if ((s->n_push[t] < x->n_consumers || x->is_graph_output) && s->materialize) {
			s->stays[t] = true;
		} else if (s->n_push[t] < x->n_consumers || x->is_graph_output) {
			int32_t at = FD_NONE;
			for (int32_t c = 0; c < x->n_consumers && at < 0; c++)
				if (s->role[x->consumers[c]] == ROLE_NONE)
					at = x->consumers[c];
			fail(s, s->comp[t], at >= 0 ? at : s->pusher[t],
			     "onnxruntime stops it before this node, after moving it");
		}
	}
	/* a push that ended before a node that did not take it over (not a
	 * cancellation): the Transpose stays there, moved */
	for (int32_t t = 0; t < g->n_tensors; t++) {
		if (s->carry[t] < 0 || s->role[s->pusher[t]] == ROLE_SOURCE || s->merged[s->pusher[t]])
			continue;
		const fd_tensor *x = &g->tensors[t];
		if ((s->n_push[t] < x->n_consumers || x->n_consumers == 0 || x->is_graph_output) && s->materialize) {
			s->stays[t] = true;   /* TransposeOutputs' Transpose stays here */
		} else if (s->n_push[t] < x->n_consumers || x->n_consumers == 0) {
			int32_t at = FD_NONE;
			for (int32_t c = 0; c < x->n_consumers && at < 0; c++)
				if (s->role[x->consumers[c]] == ROLE_NONE)
					at = x->consumers[c];
			fail(s, s->comp[t], at >= 0 ? at : s->pusher[t],
			     "onnxruntime moves it here and it stays, before this node");
		}
	}
}
