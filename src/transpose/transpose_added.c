/* transpose_added.c — the nodes the transpose optimizer adds where
 * onnxruntime's does (transpose_apply.h): the Transpose that stays after a
 * node a push stopped behind (TransposeOutputs), the Unsqueeze and
 * Transpose of a broadcast op's input that is not a constant
 * (UnsqueezeInput Case 3, TransposeInputImpl Case 4), a Shape's Gather
 * (HandleShape); each with its new tensors and constants. */
#include <string.h>
#include "transpose/transpose_apply.h"

static bool given(const tp_apply *a, const char *name, bool is_node)
{
	const char *const *names = is_node ? a->node_names.items : a->arg_names.items;
	size_t n = is_node ? a->node_names.n : a->arg_names.n;
	for (size_t k = 0; k < n; k++)
		if (!strcmp(names[k], name))
			return true;
	return false;
}

const char *transpose_new_name(tp_apply *a, const char *base, bool is_node)
{
	const fd_graph *g = a->s->g;
	const char *name = base;
	/* "" is the absent tensor's name: an unnamed node's output gets a token */
	while (!name[0] || (is_node ? graph_find_node(g, name) : graph_find_tensor(g, name)) >= 0 || given(a, name, is_node))
		name = transpose_fmt(&a->r->rewrite.arena, "%s_token_%d", base, a->made++);
	if (is_node)
		vec_push(&a->node_names, name);
	else
		vec_push(&a->arg_names, name);
	return name;
}

/* A new node named as onnxruntime's CreateNodeHelper names it (its op
 * type), its output out, or NULL for the one onnxruntime gives it
 * ("NAME_out0"). */
static fd_fused_node *new_node(tp_apply *a, const char *op, const char *in0, const char *in1, const char *out)
{
	fd_arena *ar = &a->r->rewrite.arena;
	fd_fused_node *f = rewrite_add(&a->r->rewrite, 0);
	f->added = true;
	f->name = transpose_new_name(a, op, true);
	if (!out)
		out = transpose_new_name(a, transpose_fmt(ar, "%s_out0", f->name), false);
	f->op_type = op;
	f->domain = "";
	f->n_inputs = in1 ? 2 : 1;
	f->n_outputs = 1;
	f->inputs = arena_array(ar, 2, sizeof *f->inputs);
	f->outputs = arena_array(ar, 1, sizeof *f->outputs);
	f->inputs[0] = in0;
	f->inputs[1] = in1;
	f->outputs[0] = out;
	return f;
}

static void node_ints(tp_apply *a, fd_fused_node *f, const char *name, const int64_t *v, int32_t n)
{
	fd_arena *ar = &a->r->rewrite.arena;
	int64_t *copy = arena_array(ar, (size_t)n + 1, sizeof *copy);
	if (n)
		memcpy(copy, v, (size_t)n * sizeof *v);
	f->n_attrs = 1;
	f->attrs = arena_array(ar, 1, sizeof *f->attrs);
	f->attrs[0] = (fd_attr){ .name = name, .type = ATTR_INTS, .count = n, .u.ints = copy };
}

static const char *new_int_const(tp_apply *a, const int64_t *v, int32_t n)
{
	fd_arena *ar = &a->r->rewrite.arena;
	int64_t *copy = arena_array(ar, (size_t)n + 1, sizeof *copy);
	if (n)
		memcpy(copy, v, (size_t)n * sizeof *v);
	fd_new_const c = { 0, transpose_new_name(a, "const_transpose_optimizer", false), DT_INT64, n, copy };
	vec_push(&a->r->rewrite.consts, c);
	return c.name;
}

/* The shape of new tensor name (transpose_new_name's). */
static void new_tensor(tp_apply *a, const char *name, int32_t dtype, int32_t rank, fd_dim *dims)
{
	fd_new_tensor t = { 0, name, dtype, { rank, dims } };
	vec_push(&a->r->rewrite.tensors, t);
}

/* The new nodes of the broadcast ops' other inputs (UnsqueezeInput Case 3,
 * TransposeInputImpl Case 4) and of the Shapes (HandleShape's Gather). */
void transpose_add_input_nodes(tp_apply *a)
{
	tp_state *s = a->s;
	const fd_graph *g = s->g;
	fd_arena *ar = &a->r->rewrite.arena;
	for (int32_t k = 0; k < g->n_nodes; k++) {
		int32_t i = g->topo_order[k];
		const fd_node *n = &g->nodes[i];
		const tp_change *ch = &s->change[i];
		if (s->role[i] != ROLE_PUSHED || !tp_group_ok(s, transpose_node_group(s, i)))
			continue;
		if (ch->shape_set) {
			const tp_perm *part = &s->perms.items[ch->shape_perm];
			int32_t rank = s->perms.items[s->carry[n->inputs[0]]].rank;
			fd_dim *d = arena_array(ar, 1, sizeof *d);
			d[0] = dim_of(s->opset >= 15 ? rank : part->rank);
			/* HandleShape: the index constant, the Gather (its own output name
			 * taken, then MoveOutput gives the Shape a new one after its name) */
			const char *idx = new_int_const(a, part->p, part->rank);
			fd_fused_node *gather = new_node(a, "Gather", NULL, idx, NULL);
			gather->outputs[0] = g->tensors[n->outputs[0]].name;
			a->new_out[i] = transpose_new_name(a, n->name_synthesized ? "" : n->name, false);
			gather->inputs[0] = a->new_out[i];
			new_tensor(a, a->new_out[i], DT_INT64, 1, d);
			gather->n_attrs = 1;
			gather->attrs = arena_array(ar, 1, sizeof *gather->attrs);
			gather->attrs[0] = (fd_attr){ .name = "axis", .type = ATTR_INT, .count = 1, .u.i = 0 };
			fd_tpose_event *e = transpose_add_event(a, TPOSE_CHANGED, i, FD_NONE);
			e->text = transpose_fmt(ar, "reads the data before the Transpose; a new %s gathers its dims in the Transpose's "
			                        "order (HandleShape)", gather->name);
			a->r->n_changed++;
		}
		if (!ch->new_inputs)
			continue;
		int32_t carried = FD_NONE;
		for (int32_t j = 0; j < n->n_inputs && carried < 0; j++)
			if (n->inputs[j] >= 0 && s->carry[n->inputs[j]] >= 0)
				carried = n->inputs[j];
		const tp_perm *p = &s->perms.items[s->carry[carried]];
		int64_t inv[64];
		for (int32_t j = 0; j < p->rank; j++)
			inv[p->p[j]] = j;
		a->new_in[i] = arena_array(ar, (size_t)n->n_inputs + 1, sizeof **a->new_in);
		for (int32_t j = 0; j < n->n_inputs && j < 32; j++) {
			if (!(ch->new_inputs & (1u << j)))
				continue;
			const fd_tensor *x = &g->tensors[n->inputs[j]];
			const char *cur = transpose_name_for(a, i, n->inputs[j], 0);
			int32_t lead = p->rank - x->shape.rank;
			fd_dim *unsq = arena_array(ar, (size_t)p->rank + 1, sizeof *unsq);
			for (int32_t d = 0; d < p->rank; d++)
				unsq[d] = d < lead ? dim_of(1) : x->shape.dims[d - lead];
			if (lead > 0) {
				int64_t axes[64];
				for (int32_t d = 0; d < lead; d++)
					axes[d] = d;
				const char *axes_const = s->opset >= 13 ? new_int_const(a, axes, lead) : NULL;
				fd_fused_node *f = new_node(a, "Unsqueeze", cur, axes_const, NULL);
				new_tensor(a, f->outputs[0], x->dtype, p->rank, unsq);
				if (s->opset < 13)
					node_ints(a, f, "axes", axes, lead);
				cur = f->outputs[0];
			}
			fd_dim *td = arena_array(ar, (size_t)p->rank + 1, sizeof *td);
			for (int32_t d = 0; d < p->rank; d++)
				td[d] = unsq[inv[d]];
			fd_fused_node *f = new_node(a, "Transpose", cur, NULL, NULL);
			new_tensor(a, f->outputs[0], x->dtype, p->rank, td);
			node_ints(a, f, "perm", inv, p->rank);
			a->new_in[i][j] = f->outputs[0];
			fd_tpose_event *e = transpose_add_event(a, TPOSE_CHANGED, i, FD_NONE);
			e->text = transpose_fmt(ar, "input %s given %s%s (UnsqueezeInput, TransposeInputImpl): a Transpose was pushed "
			                        "through it (HandleSimpleNodeBroadcast)", x->name, lead > 0 ? "a new Unsqueeze and " : "",
			                        f->name);
			a->r->n_changed++;
		}
	}
}

/* TransposeOutputs' Transpose that stays after pushed node N on its output
 * t: N now makes a new tensor (the data before the Transpose), the new
 * Transpose makes t, so t's other readers and a graph output keep it. */
void transpose_add_moved(tp_apply *a)
{
	tp_state *s = a->s;
	const fd_graph *g = s->g;
	fd_arena *ar = &a->r->rewrite.arena;
	for (int32_t t = 0; t < g->n_tensors; t++) {
		if (!transpose_stays(a, t) || s->role[s->pusher[t]] != ROLE_PUSHED)
			continue;
		const tp_perm *p = &s->perms.items[s->carry[t]];
		/* MakeNode1Attr's Transpose (its own output name taken), then
		 * MoveOutput names what the pusher makes now after the pusher:
		 * two moved Transposes never share a name */
		const char *node = transpose_new_name(a, "Transpose", true);
		transpose_new_name(a, transpose_fmt(ar, "%s_out0", node), false);
		const fd_node *pusher = &g->nodes[s->pusher[t]];
		const char *name = transpose_new_name(a, pusher->name_synthesized ? "" : pusher->name, false);
		a->moved_name[t] = name;
		fd_new_tensor nt = { 0, name, g->tensors[t].dtype, g->tensors[t].shape };
		if (nt.shape.rank == p->rank) {
			fd_dim *d = arena_array(ar, (size_t)p->rank + 1, sizeof *d);
			for (int32_t k = 0; k < p->rank; k++)
				d[p->p[k]] = g->tensors[t].shape.dims[k];
			nt.shape.dims = d;
		}
		vec_push(&a->r->rewrite.tensors, nt);
		fd_fused_node *f = rewrite_add(&a->r->rewrite, 0);
		f->added = true;
		f->name = node;
		f->op_type = "Transpose";
		f->domain = "";
		f->n_inputs = f->n_outputs = 1;
		f->inputs = arena_array(ar, 1, sizeof *f->inputs);
		f->outputs = arena_array(ar, 1, sizeof *f->outputs);
		f->inputs[0] = name;
		f->outputs[0] = g->tensors[t].name;
		f->n_attrs = 1;
		f->attrs = arena_array(ar, 1, sizeof *f->attrs);
		f->attrs[0] = (fd_attr){ .name = "perm", .type = ATTR_INTS, .count = p->rank, .u.ints = p->p };
		char perm[200];
		transpose_perm_text(perm, sizeof perm, p);
		fd_tpose_event *e = transpose_add_event(a, TPOSE_CHANGED, s->pusher[t], FD_NONE);
		e->text = transpose_fmt(ar, "a Transpose (perm %s) stays after it, a new node %s: a push stopped at a reader of "
		                        "%s (TransposeOutputs)", perm, node, g->tensors[t].name);
		a->r->n_changed++;
	}
}

