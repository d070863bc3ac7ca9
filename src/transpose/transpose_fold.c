/* transpose_fold.c — what onnxruntime makes of a Transpose of a
 * DequantizeLinear of constants, a Linear's weight under QDQ
 * (W -> Q -> DQ -> Transpose -> MatMul), in the rewrite of
 * transpose_apply.c.
 *
 * FixQDQNodeUnits' TryFixTransposeMissingQ gives a Transpose that reads a
 * DQ and whose one reader is not a Q a new Q -> DQ pair after it
 * (MakeQDQNodeUnit: the DQ's scale and zero point, a per-axis axis through
 * the inverse perm). ConstantFolding keeps a DQ unless its whole unit
 * DQ -> X -> Q folds; here it does, X being the Transpose: what is left
 * is a DQ of one transposed constant where the Transpose was. So the
 * MatMul's weight is a DQ of a constant again, as the QDQ MatMul and Gemm
 * selectors want, and no Transpose is left for MatMulTransposeFusion or
 * GemmTransposeFusion to take.
 *
 * Modelled as the DQ taking the Transpose's place: the Transpose removed,
 * its reader reading the DQ, whose output takes the Transpose's shape and
 * whose per-axis axis moves with the perm. The constant the DQ reads is
 * not recomputed: the rules ask of it that it is constant, and its type. */
#include <string.h>
#include "transpose/transpose_apply.h"

/* A DQ input ConstantFolding has made a constant by the time it meets the
 * DQ: a stored constant, or what a deterministic node without bodies that
 * is no DQ computes from such (a Q of the float weight, an Identity of a
 * shared zero point; nodes in topological order). */
static bool folded_constant(const fd_graph *g, int32_t t, int depth)
{
	if (t < 0 || tensor_is_constant(g, t))
		return true;
	int32_t p = g->tensors[t].producer;
	if (p < 0 || depth > 16)
		return false;
	const fd_node *n = &g->nodes[p];
	if (!n->op_type || node_is(n, "DequantizeLinear") || n->n_subgraphs || !strncmp(n->op_type, "Random", 6) ||
	    node_is(n, "Multinomial") || node_is(n, "Bernoulli"))
		return false;
	for (int32_t k = 0; k < n->n_inputs; k++)
		if (!folded_constant(g, n->inputs[k], depth + 1))
			return false;
	return n->n_inputs > 0;
}

/* GetQuantizationInfo: per tensor (a scale of shape [] or [1]): true with
 * *axis -1; per axis: true with the axis normalized by the rank of the DQ's
 * input; blocked, or an axis that cannot be normalized: false. */
static bool quant_axis(const fd_graph *g, const fd_node *dq, int64_t *axis)
{
	const fd_shape *scale = &g->tensors[dq->inputs[1]].shape;
	*axis = -1;
	if (scale->rank == 0 || (scale->rank == 1 && scale->dims[0].value == 1))
		return true;
	if (scale->rank < 0)
		return false;
	const fd_attr *b = node_attr(dq, "block_size");
	if (b && b->type == ATTR_INT && b->u.i != 0)
		return false;
	const fd_attr *at = node_attr(dq, "axis");
	int64_t x = at && at->type == ATTR_INT ? at->u.i : 1;
	int32_t rank = g->tensors[dq->inputs[0]].shape.rank;
	if (rank < 0)
		return false;
	if (x < 0)
		x += rank;
	if (x < 0 || x >= rank)
		return false;
	*axis = x;
	return true;
}

/* Node i is part of a push the rewrite carries out. */
static bool in_push(tp_state *s, int32_t i)
{
	return s->role[i] != ROLE_NONE && tp_group_ok(s, transpose_node_group(s, i));
}

/* The DQ whose unit with Transpose i folds, or FD_NONE. */
static int32_t folding_dq(tp_apply *a, int32_t i, int64_t *axis)
{
	tp_state *s = a->s;
	const fd_graph *g = s->g;
	const fd_node *t = &g->nodes[i];
	if (a->removed[i] || in_push(s, i) || !node_is(t, "Transpose") || t->n_inputs < 1 ||
	    t->inputs[0] < 0 || t->n_outputs < 1 || t->outputs[0] < 0 || g->tensors[t->outputs[0]].is_graph_output)
		return FD_NONE;
	const fd_attr *perm = node_attr(t, "perm");
	if (!perm || perm->type != ATTR_INTS)
		return FD_NONE;
	int32_t in = transpose_resolve(a, t->inputs[0]);
	int32_t di = g->tensors[in].producer;
	if (di < 0 || a->removed[di] || in_push(s, di) || !node_is(&g->nodes[di], "DequantizeLinear"))
		return FD_NONE;
	const fd_node *dq = &g->nodes[di];
	int32_t only;
	/* MakeQDQNodeUnit: the DQ's one reader is the Transpose; TryFixTransposeMissingQ:
	 * the Transpose's one reader is not a Q already */
	if (g->tensors[in].is_graph_output || transpose_readers(a, in, &only) != 1 || only != i ||
	    transpose_readers(a, t->outputs[0], &only) != 1 || node_is(&g->nodes[only], "QuantizeLinear"))
		return FD_NONE;
	if (dq->n_inputs < 2 || dq->inputs[1] < 0 || !quant_axis(g, dq, axis))
		return FD_NONE;
	for (int32_t k = 0; k < dq->n_inputs; k++)   /* ConstantFolding: all its inputs constant */
		if (!folded_constant(g, dq->inputs[k], 0))
			return FD_NONE;
	if (*axis >= 0) {   /* InvertPerm(perm)[axis] */
		if (perm->count != g->tensors[dq->inputs[0]].shape.rank)
			return FD_NONE;
		for (int32_t k = 0; k < perm->count; k++)
			if (perm->u.ints[k] == *axis) {
				*axis = k;
				return di;
			}
		return FD_NONE;
	}
	return di;
}

void transpose_fold_weights(tp_apply *a)
{
	tp_state *s = a->s;
	const fd_graph *g = s->g;
	for (int32_t k = 0; k < g->n_nodes; k++) {
		int32_t i = g->topo_order[k];
		int64_t axis;
		int32_t di = folding_dq(a, i, &axis);
		if (di < 0)
			continue;
		const fd_node *dq = &g->nodes[di];
		a->removed[i] = true;
		a->fold_dq[i] = di;
		transpose_set_rename(a, g->nodes[i].outputs[0], dq->outputs[0]);
		if (axis >= 0) {
			const fd_attr *at = node_attr(dq, "axis");
			tp_change *ch = &s->change[di];
			ch->axis_set = true;
			ch->axis = axis;
			ch->old_axis = at && at->type == ATTR_INT ? at->u.i : 1;
			ch->old_axis_absent = !at;
		}
		int32_t reader;
		transpose_readers(a, dq->outputs[0], &reader);
		fd_tpose_event *e = transpose_add_event(a, TPOSE_FOLDED, i, di);
		e->text = transpose_fmt(&a->r->rewrite.arena,
		                        "folded into the constant %s reads: the transpose optimizer makes it a QDQ node unit "
		                        "(TryFixTransposeMissingQ) and ConstantFolding folds %s -> %s -> the new "
		                        "QuantizeLinear into one transposed constant; %s reads %s%s",
		                        dq->name, dq->name, g->nodes[i].name, reader >= 0 ? g->nodes[reader].name : "?",
		                        dq->name, axis >= 0 ? transpose_fmt(&a->r->rewrite.arena, ", whose axis becomes %lld",
		                                                            (long long)axis) : "");
		a->r->n_folded++;
	}
}

void transpose_fold_shapes(tp_apply *a)
{
	const fd_graph *g = a->s->g;
	fd_graph *ng = &a->r->model.graphs[0];
	for (int32_t i = 0; i < g->n_nodes; i++) {
		if (a->fold_dq[i] < 0)
			continue;
		int32_t nt = graph_find_tensor(ng, g->tensors[g->nodes[a->fold_dq[i]].outputs[0]].name);
		if (nt >= 0)
			ng->tensors[nt].shape = g->tensors[g->nodes[i].outputs[0]].shape;
	}
}
