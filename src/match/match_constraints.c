/* match_constraints.c — the five constraint kinds of a rule, measured on a
 * complete match (s->cover), as a table of checkers. Each emits one event
 * (memory_limit: one per limit given) with the measured value and the limit.
 * A measure that depends on symbols nobody bound (batch, an unnamed input
 * dim) ends the attempt as FD-CF06 "unknown: depends on …", naming the
 * tensor whose dims say which symbols: neither a pass nor a fail on a
 * number that means nothing. Where a formula decides for every binding it
 * decides (256 KiB × batch is over 64 KiB for any batch; 16 × C is
 * divisible by 16). What cannot be measured at all (unknown dtype, a shape
 * nothing knows, a fresh symbol no binding reaches) passes with a WN02
 * warning event: the estimate cannot decide, and the trace says so. */
#include <string.h>
#include "match/match_internal.h"
#include "rules/optable.h"

typedef bool (*checker)(match_run_state *s, int k, const fd_constraint *c, int n_ops, uint32_t passed);

static bool fail(match_run_state *s, int k, fd_reason why, int op, int32_t unit, int32_t other,
                 int64_t a, int64_t b, int n_ops, uint32_t passed)
{
	uint32_t ev = match_emit(s, EV_CONSTRAINT, ST_FAIL, why, op, k, unit, other, a, b);
	match_fail(s, ev, why, n_ops, passed);
	return false;
}

/* A dim that a binding would make a number: an expression over the
 * model's symbols, unbound, without a fresh one. */
static bool dim_waits(fd_dim d)
{
	return d.expr && d.value < 0 && !dexpr_has_fresh(d.expr);
}

static bool shape_waits(const fd_shape *sh)
{
	for (int32_t i = 0; i < sh->rank; i++)
		if (dim_waits(sh->dims[i]))
			return true;
	return false;
}

/* Ends the attempt as "unknown: depends on …" (the explanation reads the
 * symbols off tensor other, or the inputs a and b of node unit). */
static bool unbound(match_run_state *s, int k, int op, int32_t unit, int32_t other, int64_t a, int64_t b,
                    int n_ops, uint32_t passed)
{
	return fail(s, k, REASON_CF06_UNBOUND, op, unit, other, a, b, n_ops, passed);
}

static bool pass(match_run_state *s, int k, bool undecided, int op, int32_t unit, int32_t other,
                 int64_t a, int64_t b)
{
	match_emit(s, EV_CONSTRAINT, undecided ? ST_WARN : ST_PASS,
	           undecided ? REASON_WN02_UNDECIDED : REASON_NONE, op, k, unit, other, a, b);
	return true;
}

/* True when every use of t inside the match is at a slot the op table lists
 * as a param input (Reshape's shape, Slice's starts, Dropout's ratio): such a
 * tensor is an argument, not data, even when computed at run time. */
static bool param_input_only(const match_run_state *s, int32_t t)
{
	bool any = false;
	const fd_graph_index *ix = s->ix;
	for (size_t i = 0; i < s->cover.nodes.n; i++) {
		int32_t nd = s->cover.nodes.items[i];
		const fd_node *n = &s->g->nodes[nd];
		for (int k = 0; k < n->n_inputs; k++) {
			if (n->inputs[k] != t)
				continue;
			/* the node's op ids, from the index's bitset */
			bool param = false;
			for (int w = 0; w < ix->ops_words && !param; w++)
				for (uint64_t bits = ix->node_ops[(size_t)nd * (size_t)ix->ops_words + (size_t)w]; bits && !param;
				     bits &= bits - 1) {
					const fd_op_def *d = optable_get(w * 64 + __builtin_ctzll(bits));
					for (int p = 0; d && p < d->n_params && !param; p++)
						param = d->params[p].input == k;
				}
			if (!param)
				return false;
			any = true;
		}
	}
	return any;
}

/* Every non-constant data tensor of the match (external activation inputs,
 * intermediates, outputs) has an allowed dtype. Weights (overridable
 * initializers too) and argument inputs (param_input_only) are not checked:
 * an int64 Reshape shape is not data. */
static bool check_dtype(match_run_state *s, int k, const fd_constraint *c, int n_ops, uint32_t passed)
{
	const match_cover *cv = &s->cover;
	const i32_vec *sets[3] = { &cv->inputs, &cv->intermediates, &cv->outputs };
	int32_t unknown = FD_NONE, checked = 0;
	for (int q = 0; q < 3; q++)
		for (size_t i = 0; i < sets[q]->n; i++) {
			int32_t t = sets[q]->items[i];
			if ((s->ix->tflags[t] & TF_CONST) || s->g->tensors[t].kind == TENSOR_INITIALIZER ||
			    (q == 0 && param_input_only(s, t)))
				continue;
			int32_t dt = s->g->tensors[t].dtype;
			if (dt == DT_UNDEFINED) {
				if (unknown == FD_NONE)
					unknown = t;
				continue;
			}
			bool ok = false;
			for (int a = 0; a < c->n_allowed_dtypes; a++)
				if (c->allowed_dtypes[a] == dt)
					ok = true;
			if (!ok)
				return fail(s, k, REASON_CF01_DTYPE, -1, s->g->tensors[t].producer, t, dt, -1, n_ops, passed);
			checked++;
		}
	if (unknown != FD_NONE)
		return pass(s, k, true, -1, FD_NONE, unknown, DT_UNDEFINED, -1);
	return pass(s, k, false, -1, FD_NONE, FD_NONE, checked, -1);
}

/* Elementwise ops with several inputs, whose shapes must broadcast. */
static const char *const elementwise[] = {
	"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Where", "Equal",
	"Greater", "Less", "GreaterOrEqual", "LessOrEqual", "And", "Or", "Xor", "PRelu", "Mod",
	"BitShift", "AddV2", "RealDiv", "Maximum", "Minimum", "BiasAdd",
};

static bool is_elementwise(const fd_node *n)
{
	for (size_t i = 0; i < sizeof elementwise / sizeof *elementwise; i++)
		if (n->op_type && !strcmp(n->op_type, elementwise[i]))
			return true;
	return false;
}

/* numpy broadcasting of two shapes: -1 unknown, -2 unknown until a symbol
 * is bound, 0 no, 1 yes. */
static int broadcasts(const fd_shape *a, const fd_shape *b)
{
	if (a->rank < 0 || b->rank < 0)
		return -1;
	int unknown = 0;
	for (int i = 1; i <= a->rank && i <= b->rank; i++) {
		fd_dim dx = a->dims[a->rank - i], dy = b->dims[b->rank - i];
		int64_t x = dx.value, y = dy.value;
		if (x < 0 || y < 0) {
			if (dim_equal(dx, dy) || x == 1 || y == 1)
				continue;
			if (unknown != -1)
				unknown = (dim_waits(dx) || x >= 0) && (dim_waits(dy) || y >= 0) ? -2 : -1;
			continue;
		}
		if (x != y && x != 1 && y != 1)
			return 0;
	}
	return unknown ? unknown : 1;
}

static bool check_shape(match_run_state *s, int k, const fd_constraint *c, int n_ops, uint32_t passed)
{
	const match_cover *cv = &s->cover;
	int32_t unknown_node = FD_NONE, checked = 0, wait_node = FD_NONE, wait_a = FD_NONE, wait_b = FD_NONE;
	for (size_t i = 0; i < cv->nodes.n; i++) {
		int32_t node = cv->nodes.items[i];
		const fd_node *n = &s->g->nodes[node];
		if (!is_elementwise(n))
			continue;
		int32_t first = FD_NONE;
		for (int q = 0; q < n->n_inputs; q++) {
			int32_t t = n->inputs[q];
			if (t < 0)
				continue;
			if (first == FD_NONE) {
				first = t;
				continue;
			}
			int r = broadcasts(&s->g->tensors[first].shape, &s->g->tensors[t].shape);
			if (r == 0)
				return fail(s, k, REASON_CF02_SHAPE, -1, node, t, first, t, n_ops, passed);
			if (r == -2 && wait_node == FD_NONE) {
				wait_node = node;
				wait_a = first;
				wait_b = t;
			} else if (r == -1 && unknown_node == FD_NONE) {
				unknown_node = node;
			}
			checked++;
		}
	}
	if (wait_node != FD_NONE)
		return unbound(s, k, -1, wait_node, wait_b, wait_a, wait_b, n_ops, passed);
	if (unknown_node != FD_NONE)
		return pass(s, k, true, -1, unknown_node, FD_NONE, -1, -1);
	return pass(s, k, false, -1, FD_NONE, FD_NONE, checked, -1);
}

/* The smallest value of a size formula over every binding (each unbound
 * symbol >= 1) when it has one: all its coefficients positive. */
static bool formula_floor(fd_sint b, int64_t *min)
{
	return b.e && !dexpr_has_fresh(b.e) && dexpr_monotone(b.e) && dexpr_value_with(b.e, 1, min) && *min >= 0;
}

/* The largest tensor of a set: its size (a formula's smallest value
 * counts), the one whose size waits on a binding and allows the smallest
 * value of it under limit (*allows), the first unknowable. */
static int64_t largest(const match_run_state *s, const i32_vec *set, int64_t limit, int32_t *which,
                       int32_t *waits, int64_t *allows, int32_t *unknown)
{
	int64_t best = -1;
	*which = *waits = *unknown = FD_NONE;
	*allows = INT64_MAX;
	for (size_t i = 0; i < set->n; i++) {
		const fd_tensor *t = &s->g->tensors[set->items[i]];
		int64_t bytes;
		if (t->dtype == DT_UNDEFINED || !tensor_bytes(t, &bytes)) {
			fd_sint f = tensor_bytes_sym(t);
			bool bindable = t->dtype != DT_UNDEFINED && f.e && !dexpr_has_fresh(f.e);
			int64_t v = INT64_MAX;
			if (bindable && !dexpr_largest_within(f.e, limit, &v))
				v = INT64_MAX;
			if (bindable && (*waits == FD_NONE || v < *allows)) {
				*waits = set->items[i];
				*allows = v;
			} else if (!bindable && *unknown == FD_NONE) {
				*unknown = set->items[i];
			}
			if (!bindable || !formula_floor(f, &bytes))
				continue;
		}
		if (bytes > best) {
			best = bytes;
			*which = set->items[i];
		}
	}
	return best;
}

/* op 0: intermediates against max_intermediate_size, op 1: outputs against max_output_size. */
static bool check_memory(match_run_state *s, int k, const fd_constraint *c, int n_ops, uint32_t passed)
{
	const i32_vec *sets[2] = { &s->cover.intermediates, &s->cover.outputs };
	int64_t limits[2] = { c->max_intermediate_size, c->max_output_size };
	/* a limit decided over the limit fails at once; of the limits that wait
	 * on a binding, the one that allows the least is the one to name */
	int32_t wait_t = FD_NONE;
	int wait_q = -1;
	int64_t wait_allows = INT64_MAX;
	for (int q = 0; q < 2; q++) {
		if (limits[q] < 0)
			continue;
		int32_t which, waits, unknown;
		int64_t allows;
		int64_t big = largest(s, sets[q], limits[q], &which, &waits, &allows, &unknown);
		if (which != FD_NONE && big > limits[q])
			return fail(s, k, REASON_CF03_MEMORY, q, s->g->tensors[which].producer, which, big, limits[q],
			            n_ops, passed);
		if (waits != FD_NONE) {
			if (wait_t == FD_NONE || allows < wait_allows) {
				wait_t = waits;
				wait_q = q;
				wait_allows = allows;
			}
			continue;
		}
		if (unknown != FD_NONE)
			pass(s, k, true, q, s->g->tensors[unknown].producer, unknown, -1, limits[q]);
		else
			pass(s, k, false, q, which >= 0 ? s->g->tensors[which].producer : FD_NONE, which,
			     big < 0 ? 0 : big, limits[q]);
	}
	if (wait_t != FD_NONE)
		return unbound(s, k, wait_q, s->g->tensors[wait_t].producer, wait_t, -1, limits[wait_q], n_ops, passed);
	return true;
}

static bool check_workspace(match_run_state *s, int k, const fd_constraint *c, int n_ops, uint32_t passed)
{
	int64_t total = 0;
	int32_t unknown = FD_NONE, top = FD_NONE, waits = FD_NONE;
	int64_t top_bytes = -1;
	for (size_t i = 0; i < s->cover.nodes.n; i++) {
		int32_t node = s->cover.nodes.items[i];
		bool known = true;
		const fd_node *n = &s->g->nodes[node];
		int64_t w = workspace_estimate(s->g, n, &known);
		if (!known) {
			bool wait = false;
			for (int q = 0; q < n->n_inputs && !wait; q++)
				wait = n->inputs[q] >= 0 && shape_waits(&s->g->tensors[n->inputs[q]].shape);
			for (int q = 0; q < n->n_outputs && !wait; q++)
				wait = n->outputs[q] >= 0 && shape_waits(&s->g->tensors[n->outputs[q]].shape);
			if (wait && waits == FD_NONE)
				waits = node;
			else if (!wait && unknown == FD_NONE)
				unknown = node;
			continue;
		}
		total += w;
		if (w > top_bytes) {
			top_bytes = w;
			top = node;
		}
	}
	if (c->max_workspace >= 0 && total > c->max_workspace) {
		if (c->spill_to_l2) {
			match_emit(s, EV_CONSTRAINT, ST_WARN, REASON_WN03_SPILL, -1, k, top, FD_NONE, total,
			           c->max_workspace);
			return true;
		}
		return fail(s, k, REASON_CF04_WORKSPACE, -1, top, FD_NONE, total, c->max_workspace, n_ops, passed);
	}
	if (waits != FD_NONE && c->max_workspace >= 0) {
		const fd_node *n = &s->g->nodes[waits];
		return unbound(s, k, -1, waits, n->n_outputs > 0 ? n->outputs[0] : FD_NONE, total, c->max_workspace,
		               n_ops, passed);
	}
	return pass(s, k, unknown != FD_NONE || waits != FD_NONE, -1,
	            unknown != FD_NONE ? unknown : waits != FD_NONE ? waits : top, FD_NONE, total, c->max_workspace);
}

static bool check_channel(match_run_state *s, int k, const fd_constraint *c, int n_ops, uint32_t passed)
{
	int32_t unknown = FD_NONE, waits = FD_NONE;
	int64_t last = -1;
	for (size_t i = 0; i < s->cover.outputs.n; i++) {
		int32_t t = s->cover.outputs.items[i];
		const fd_shape *sh = &s->g->tensors[t].shape;
		int dim = c->channel_dim < 0 && sh->rank >= 0 ? c->channel_dim + sh->rank : c->channel_dim;
		if (sh->rank < 0 || dim < 0 || dim >= sh->rank || sh->dims[dim].value < 0) {
			fd_dim d = sh->rank >= 0 && dim >= 0 && dim < sh->rank ? sh->dims[dim] : dim_unknown();
			/* 16 * C is divisible by 16 whatever C is */
			if (d.expr && c->divisor > 0 && dexpr_divisible(d.expr, c->divisor))
				continue;
			int32_t *slot = dim_waits(d) ? &waits : &unknown;
			if (*slot == FD_NONE)
				*slot = t;
			continue;
		}
		int64_t v = sh->dims[dim].value;
		if (c->divisor > 0 && v % c->divisor)
			return fail(s, k, REASON_CF05_CHANNEL, -1, s->g->tensors[t].producer, t, v, c->divisor,
			            n_ops, passed);
		last = v;
	}
	if (waits != FD_NONE)
		return unbound(s, k, -1, s->g->tensors[waits].producer, waits, -1, c->divisor, n_ops, passed);
	if (unknown != FD_NONE)
		return pass(s, k, true, -1, s->g->tensors[unknown].producer, unknown, -1, c->divisor);
	return pass(s, k, false, -1, FD_NONE, FD_NONE, last, c->divisor);
}

static bool check_unknown(match_run_state *s, int k, const fd_constraint *c, int n_ops, uint32_t passed)
{
	match_emit(s, EV_CONSTRAINT, ST_WARN, REASON_WN01_UNKNOWN_CONSTRAINT, -1, k, FD_NONE, FD_NONE, 0, 0);
	return true;
}

static const checker checkers[CONSTRAINT_KIND_COUNT] = {
	[CONSTRAINT_UNKNOWN] = check_unknown,
	[CONSTRAINT_DTYPE_MATCH] = check_dtype,
	[CONSTRAINT_SHAPE] = check_shape,
	[CONSTRAINT_MEMORY_LIMIT] = check_memory,
	[CONSTRAINT_WORKSPACE_SIZE] = check_workspace,
	[CONSTRAINT_CHANNEL_DIVISIBILITY] = check_channel,
};

bool match_constraint(match_run_state *s, int index, int n_ops, uint32_t passed)
{
	const fd_constraint *c = &s->r->constraints[index];
	checker f = c->kind < CONSTRAINT_KIND_COUNT ? checkers[c->kind] : check_unknown;
	return (f ? f : check_unknown)(s, index, c, n_ops, passed);
}
