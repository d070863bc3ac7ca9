/* transpose_apply.c — the push's outcome (transpose_push.c) as a rewritten
 * model: the cancelled Transposes gone (their readers read what they read),
 * the crossed nodes with their axes remapped and their tensors' shapes
 * permuted, the merged Transposes with their new perm, the new nodes
 * (transpose_added.c), then the empty DequantizeLinear → QuantizeLinear
 * pairs gone (TryRemoveEmptyDQQ) and the Transposes of weights folded
 * (transpose_fold.c); and the events that say so. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "transpose/transpose_apply.h"

int32_t transpose_resolve(const tp_apply *a, int32_t t)
{
	for (int guard = 0; t >= 0 && a->rename[t] >= 0 && guard < 1 << 20; guard++)
		t = a->rename[t];
	return t;
}

int32_t transpose_node_group(const tp_state *s, int32_t i)
{
	if (s->role[i] == ROLE_NONE)
		return -1;
	return transpose_group((tp_state *)s, s->role[i] == ROLE_PUSHED ? s->comp[s->g->nodes[i].outputs[0]] : i);
}

bool transpose_stays(const tp_apply *a, int32_t t)
{
	return t >= 0 && a->s->stays[t] && tp_group_ok(a->s, transpose_group(a->s, a->s->comp[t]));
}

/* The name node c reads for its input x: what x was renamed to; where a
 * Transpose stays on it, the data before that Transpose when c took the
 * push over (or reads a removed Transpose's output that x fed). */
const char *transpose_name_for(const tp_apply *a, int32_t c, int32_t x, int depth)
{
	tp_state *s = a->s;
	int32_t r = transpose_resolve(a, x);
	bool took = s->role[c] != ROLE_NONE && s->role[c] != ROLE_SOURCE &&
	            tp_group_ok(s, transpose_node_group(s, c)) && s->carry[x] >= 0;
	if (transpose_stays(a, r) && (r != x || took) && depth < 64) {
		int32_t p = s->pusher[r];
		if (s->role[p] == ROLE_SOURCE)
			return transpose_name_for(a, p, s->g->nodes[p].inputs[0], depth + 1);
		return a->moved_name[r];
	}
	return s->g->tensors[r].name;
}

const char *transpose_fmt(fd_arena *ar, const char *f, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, sizeof buf, f, ap);
	va_end(ap);
	return arena_strdup(ar, buf);
}

void transpose_perm_text(char *buf, size_t size, const tp_perm *p)
{
	size_t k = (size_t)snprintf(buf, size, "[");
	for (int32_t i = 0; i < p->rank && k < size; i++)
		k += (size_t)snprintf(buf + k, size - k, "%s%lld", i ? ", " : "", (long long)p->p[i]);
	if (k < size)
		snprintf(buf + k, size - k, "]");
}

fd_tpose_event *transpose_add_event(tp_apply *a, fd_tpose_kind kind, int32_t node, int32_t other)
{
	const fd_graph *g = a->s->g;
	fd_tpose_event e = { .kind = kind, .node = g->nodes[node].name, .op_type = g->nodes[node].op_type,
	                     .other = other >= 0 ? g->nodes[other].name : NULL };
	vec_push(&a->r->events, e);
	return &a->r->events.items[a->r->events.n - 1];
}

/* ---- the cancelled Transposes ------------------------------------------------------ */

/* The path from source i forward to the first cancellation its push met:
 * the nodes crossed (out), the sink (returned). */
static int32_t forward_path(tp_apply *a, int32_t i, id_vec *out)
{
	const fd_graph *g = a->s->g;
	int32_t t = g->nodes[i].outputs[0];
	for (int guard = 0; guard < g->n_nodes; guard++) {
		const fd_tensor *x = &g->tensors[t];
		int32_t next = FD_NONE;
		for (int32_t c = 0; c < x->n_consumers && next < 0; c++)
			if (a->s->role[x->consumers[c]] == ROLE_PUSHED || a->s->role[x->consumers[c]] == ROLE_SINK)
				next = x->consumers[c];
		if (next < 0)
			return FD_NONE;
		if (a->s->role[next] == ROLE_SINK)
			return next;
		vec_push(out, next);
		t = g->nodes[next].outputs[0];
	}
	return FD_NONE;
}

/* The path from sink i back to the source whose push reached it. */
static int32_t backward_path(tp_apply *a, int32_t i, id_vec *out)
{
	const fd_graph *g = a->s->g;
	int32_t t = g->nodes[i].inputs[0];
	id_vec rev = { 0 };
	int32_t src = FD_NONE;
	for (int guard = 0; t >= 0 && guard < g->n_nodes; guard++) {
		int32_t p = a->s->pusher[t];
		if (a->s->role[p] == ROLE_SOURCE) {
			src = p;
			break;
		}
		vec_push(&rev, p);
		t = a->s->parent[t];
	}
	for (size_t k = rev.n; k-- > 0;)
		vec_push(out, rev.items[k]);
	vec_release(&rev);
	return src;
}

static void cancelled_event(tp_apply *a, int32_t i, int32_t group_sources, int32_t group_sinks)
{
	tp_state *s = a->s;
	const fd_graph *g = s->g;
	id_vec path = { 0 };
	bool source = s->role[i] == ROLE_SOURCE;
	int32_t other = source ? forward_path(a, i, &path) : backward_path(a, i, &path);
	fd_tpose_event *e = transpose_add_event(a, TPOSE_CANCELLED, i, other);
	e->n_through = (int32_t)path.n;
	e->through = arena_array(&a->r->rewrite.arena, path.n + 1, sizeof *e->through);
	char via[600] = "";
	size_t k = 0;
	int32_t qdq = 0;
	for (size_t j = 0; j < path.n; j++) {
		const fd_node *n = &g->nodes[path.items[j]];
		e->through[j] = n->name;
		if (node_is(n, "QuantizeLinear") || node_is(n, "DequantizeLinear")) {
			qdq++;
			continue;
		}
		if (k < sizeof via - 1)
			k += (size_t)snprintf(via + k, sizeof via - k, "%s%s", k ? ", " : "", n->name);
	}
	char perm[200];
	transpose_perm_text(perm, sizeof perm, &s->perms.items[s->carry[g->nodes[i].inputs[0]] >= 0
	                                               ? s->carry[g->nodes[i].inputs[0]] : s->carry[g->nodes[i].outputs[0]]]);
	char qdqs[64] = "";
	if (qdq)
		snprintf(qdqs, sizeof qdqs, "%s%d QuantizeLinear/DequantizeLinear", k ? " and " : "", qdq);
	char group[120] = "";
	if (group_sources + group_sinks > 2)
		snprintf(group, sizeof group, "; %d Transposes cancel together, %d pushed and %d met",
		         group_sources + group_sinks, group_sources, group_sinks);
	if (source && other < 0)   /* the push ended in an identity perm (transpose_push.c) */
		e->text = transpose_fmt(&a->r->rewrite.arena, "removed by the transpose optimizer: pushed through %s%s, where "
		                        "what is left of perm %s is the identity, so no Transpose follows (TransposeOutputs)%s",
		                        via, qdqs, perm, group);
	else
		e->text = transpose_fmt(&a->r->rewrite.arena, "cancelled by the transpose optimizer against %s%s%s%s%s (perm %s, "
		                        "HandleTranspose)%s", other >= 0 ? g->nodes[other].name : "?",
		                        source ? ", pushed through " : ", which was pushed here through ", via, qdqs,
		                        k || qdq ? "" : "nothing", perm, group);
	vec_release(&path);
	a->r->n_cancelled++;
}

/* A Transpose of a group whose pushes end in Transposes that stay: the
 * source (removed, or kept for readers that did not take it over) and a
 * sink it merged into. */
static void moved_event(tp_apply *a, int32_t i)
{
	tp_state *s = a->s;
	const fd_graph *g = s->g;
	fd_arena *ar = &a->r->rewrite.arena;
	char perm[200];
	if (s->merged[i]) {
		char was[200];
		transpose_perm_text(perm, sizeof perm, &s->perms.items[s->change[i].merged_perm]);
		transpose_perm_text(was, sizeof was, &s->perms.items[s->carry[g->nodes[i].inputs[0]]]);
		fd_tpose_event *e = transpose_add_event(a, TPOSE_CHANGED, i, FD_NONE);
		e->text = transpose_fmt(ar, "perm -> %s: the Transpose (perm %s) pushed here merged into it (HandleTranspose, "
		                        "ComposePerm)", perm, was);
		a->r->n_changed++;
		return;
	}
	transpose_perm_text(perm, sizeof perm, &s->perms.items[s->carry[g->nodes[i].outputs[0]]]);
	fd_tpose_event *e = transpose_add_event(a, TPOSE_MOVED, i, FD_NONE);
	e->text = transpose_fmt(ar, "%s by the transpose optimizer: pushed through its readers (perm %s); where a "
	                        "push stops a Transpose stays (TransposeOutputs) and one that meets another "
	                        "Transpose merges into it",
	                        a->removed[i] ? "moved" : "kept for the readers that did not take it over, and pushed", perm);
}

/* ---- the crossed nodes ----------------------------------------------------------- */

static void changed_event(tp_apply *a, int32_t i)
{
	const tp_change *ch = &a->s->change[i];
	fd_arena *ar = &a->r->rewrite.arena;
	const char *op = a->s->g->nodes[i].op_type;
	const fd_node *n = &a->s->g->nodes[i];
	for (int32_t k = 0; k < n->n_inputs; k++) {
		int32_t t = n->inputs[k];
		if (t < 0 || a->s->const_user[t] != i)
			continue;
		fd_tpose_event *e = transpose_add_event(a, TPOSE_CHANGED, i, FD_NONE);
		e->text = transpose_fmt(ar, "its constant %s unsqueezed and transposed in place to the other input's layout: "
		                        "a Transpose was pushed through it (HandleSimpleNodeBroadcast)", a->s->g->tensors[t].name);
		a->r->n_changed++;
	}
	if (ch->axis_set && (ch->axis != ch->old_axis || ch->old_axis_absent)) {
		fd_tpose_event *e = transpose_add_event(a, TPOSE_CHANGED, i, FD_NONE);
		e->text = transpose_fmt(ar, "axis %lld%s -> %lld: a Transpose was pushed through it (%s)", (long long)ch->old_axis,
		                        ch->old_axis_absent ? " (default)" : "", (long long)ch->axis,
		                        !strcmp(op, "Concat") ? "HandleConcat" : !strcmp(op, "Gather") ? "HandleGather"
		                        : "HandleQuantizeDequantizeLinear");
		a->r->n_changed++;
	}
	if (ch->n_axes > 0) {
		char list[300];
		size_t k = (size_t)snprintf(list, sizeof list, "[");
		for (int32_t j = 0; j < ch->n_axes && k < sizeof list; j++)
			k += (size_t)snprintf(list + k, sizeof list - k, "%s%lld", j ? ", " : "", (long long)ch->axes[j]);
		if (k < sizeof list)
			snprintf(list + k, sizeof list - k, "]");
		fd_tpose_event *e = transpose_add_event(a, TPOSE_CHANGED, i, FD_NONE);
		const char *handler = !strcmp(op, "Slice") ? "HandleSlice" : "HandleReduceOps";
		if (ch->axes_as_attr)
			e->text = transpose_fmt(ar, "axes %s: a Transpose was pushed through it (%s)", list, handler);
		else
			e->text = transpose_fmt(ar, "axes %s, a new constant %s: a Transpose was pushed through it (%s)", list,
			                        ch->axes_name, handler);
		a->r->n_changed++;
	}
}

/* ---- TryRemoveEmptyDQQ ------------------------------------------------------------ */

void transpose_set_rename(tp_apply *a, int32_t from, int32_t to)
{
	a->rename[from] = to;
	a->renamed_next[from] = a->renamed_in[to];
	a->renamed_in[to] = from;
}

/* Nodes that read tensor t once the renames hold (each node once, up to 2:
 * all the callers ask is whether there is exactly one); *only is the last. */
static int32_t readers_of(const tp_apply *a, int32_t t, int32_t *only, int32_t n, int depth)
{
	const fd_tensor *x = &a->s->g->tensors[t];
	for (int32_t c = 0; c < x->n_consumers && n < 2; c++) {
		int32_t i = x->consumers[c];
		if (!a->removed[i] && i != *only) {
			n++;
			*only = i;
		}
	}
	for (int32_t u = a->renamed_in[t]; u >= 0 && n < 2 && depth < 64; u = a->renamed_next[u])
		n = readers_of(a, u, only, n, depth + 1);
	return n;
}

int32_t transpose_readers(const tp_apply *a, int32_t t, int32_t *only)
{
	*only = FD_NONE;
	return readers_of(a, t, only, 0, 0);
}

static bool same_values(const fd_graph *g, int32_t x, int32_t y)
{
	if (x == y)
		return true;
	if (x < 0 || y < 0 || !tensor_is_constant(g, x) || !tensor_is_constant(g, y))
		return false;
	const fd_tensor *a = &g->tensors[x], *b = &g->tensors[y];
	if (!a->value || !b->value || a->dtype != b->dtype || a->value->count != b->value->count)
		return false;
	size_t n = (size_t)a->value->count;
	if (a->value->f64 && b->value->f64)
		return !memcmp(a->value->f64, b->value->f64, n * sizeof *a->value->f64);
	if (a->value->i64 && b->value->i64)
		return !memcmp(a->value->i64, b->value->i64, n * sizeof *a->value->i64);
	return false;
}

static bool all_zero(const fd_graph *g, int32_t x)
{
	if (x < 0 || !tensor_is_constant(g, x) || !g->tensors[x].value)
		return false;
	const fd_const *v = g->tensors[x].value;
	for (int64_t k = 0; k < v->count; k++)
		if ((v->i64 && v->i64[k] != 0) || (v->f64 && v->f64[k] != 0))
			return false;
	return v->i64 || v->f64;
}

/* CheckQDQNodePairMatch */
static bool pair_matches(const fd_graph *g, const fd_node *dq, const fd_node *q)
{
	if (strcmp(dq->domain, q->domain) || dq->n_inputs < 2 || q->n_inputs < 2 || dq->inputs[0] < 0 ||
	    q->n_outputs < 1 || q->outputs[0] < 0)
		return false;
	int32_t t1 = g->tensors[dq->inputs[0]].dtype, t2 = g->tensors[q->outputs[0]].dtype;
	if (t1 == DT_UNDEFINED || t1 != t2 || !same_values(g, dq->inputs[1], q->inputs[1]))
		return false;
	int32_t zd = dq->n_inputs > 2 ? dq->inputs[2] : FD_NONE, zq = q->n_inputs > 2 ? q->inputs[2] : FD_NONE;
	if (zd == zq)
		return true;
	if (zd >= 0 && zq >= 0)
		return same_values(g, zd, zq);
	return all_zero(g, zd >= 0 ? zd : zq);
}

static void remove_empty_pairs(tp_apply *a)
{
	const fd_graph *g = a->s->g;
	for (int32_t k = 0; k < g->n_nodes; k++) {
		int32_t qi = g->topo_order[k];
		const fd_node *q = &g->nodes[qi];
		if (a->removed[qi] || !node_is(q, "QuantizeLinear") || q->n_inputs < 1 || q->inputs[0] < 0)
			continue;
		int32_t in = transpose_resolve(a, q->inputs[0]);
		int32_t di = g->tensors[in].producer;
		if (di < 0 || a->removed[di] || !node_is(&g->nodes[di], "DequantizeLinear"))
			continue;
		const fd_node *dq = &g->nodes[di];
		int32_t only, consumer;
		if (g->tensors[in].is_graph_output || transpose_readers(a, in, &only) != 1 || only != qi ||
		    !pair_matches(g, dq, q))
			continue;
		int32_t out = q->outputs[0];
		if (g->tensors[out].is_graph_output || transpose_readers(a, out, &consumer) != 1)
			continue;   /* (parent -> DQ -> Q -> graph output): not modelled */
		a->removed[di] = a->removed[qi] = true;
		transpose_set_rename(a, out, dq->inputs[0]);
		for (int side = 0; side < 2; side++) {
			fd_tpose_event *e = transpose_add_event(a, TPOSE_EMPTY_QDQ, side ? qi : di, consumer);
			e->text = transpose_fmt(&a->r->rewrite.arena, "removed by the transpose optimizer with %s: an empty "
			                        "DequantizeLinear -> QuantizeLinear pair (TryRemoveEmptyDQQ); %s now reads %s",
			                        side ? dq->name : q->name, g->nodes[consumer].name, g->tensors[dq->inputs[0]].name);
		}
		a->r->n_qdq_removed += 2;
	}
}

/* ---- the rewrite ------------------------------------------------------------------ */

static fd_attr *changed_attrs(tp_apply *a, const fd_node *n, const tp_change *ch, int32_t *count)
{
	fd_arena *ar = &a->r->rewrite.arena;
	bool axes_attr = ch->n_axes > 0 && ch->axes_as_attr;
	*count = n->n_attrs + (ch->axis_set && !node_attr(n, "axis")) + (axes_attr && !node_attr(n, "axes"));
	fd_attr *at = arena_array(ar, (size_t)*count + 1, sizeof *at);
	if (n->n_attrs)   /* a node without attributes may have none allocated */
		memcpy(at, n->attrs, (size_t)n->n_attrs * sizeof *at);
	int32_t end = n->n_attrs;
	if (ch->axis_set) {
		int32_t k = 0;
		while (k < end && strcmp(at[k].name, "axis"))
			k++;
		end += k == end;
		at[k] = (fd_attr){ .name = "axis", .type = ATTR_INT, .count = 1, .u.i = ch->axis };
	}
	if (axes_attr) {
		int32_t k = 0;
		while (k < end && strcmp(at[k].name, "axes"))
			k++;
		at[k] = (fd_attr){ .name = "axes", .type = ATTR_INTS, .count = ch->n_axes, .u.ints = ch->axes };
	}
	return at;
}

static void rewrite_node(tp_apply *a, int32_t i)
{
	const fd_graph *g = a->s->g;
	const fd_node *n = &g->nodes[i];
	fd_arena *ar = &a->r->rewrite.arena;
	const tp_change *ch = &a->s->change[i];
	bool merged = a->s->merged[i] && tp_group_ok(a->s, transpose_node_group(a->s, i));
	bool reads_renamed = merged;
	for (int32_t j = 0; j < n->n_inputs; j++)
		reads_renamed = reads_renamed || (n->inputs[j] >= 0 &&
		                strcmp(transpose_name_for(a, i, n->inputs[j], 0), g->tensors[n->inputs[j]].name));
	for (int32_t j = 0; j < n->n_outputs; j++)
		reads_renamed = reads_renamed || (n->outputs[j] >= 0 && transpose_stays(a, n->outputs[j]) &&
		                a->s->role[i] == ROLE_PUSHED);
	reads_renamed = reads_renamed || a->new_in[i] || a->new_out[i];
	bool axes_new = ch->n_axes > 0 && !ch->axes_as_attr;
	if (!reads_renamed && !ch->axis_set && ch->n_axes == 0)
		return;
	fd_fused_node *f = rewrite_add(&a->r->rewrite, 0);
	f->members = arena_array(ar, 1, sizeof *f->members);
	f->members[0] = i;
	f->n_members = 1;
	f->name = n->name;
	f->op_type = n->op_type;
	f->domain = n->domain;
	f->n_inputs = axes_new && n->n_inputs <= ch->axes_input ? ch->axes_input + 1 : n->n_inputs;
	f->inputs = arena_array(ar, (size_t)f->n_inputs + 1, sizeof *f->inputs);
	for (int32_t j = 0; j < f->n_inputs; j++) {
		int32_t t = j < n->n_inputs ? n->inputs[j] : FD_NONE;
		f->inputs[j] = t >= 0 ? transpose_name_for(a, i, t, 0) : "";
		if (a->new_in[i] && j < n->n_inputs && a->new_in[i][j])
			f->inputs[j] = a->new_in[i][j];
	}
	if (axes_new)
		f->inputs[ch->axes_input] = ch->axes_name;
	f->n_outputs = n->n_outputs;
	f->outputs = arena_array(ar, (size_t)n->n_outputs + 1, sizeof *f->outputs);
	for (int32_t j = 0; j < n->n_outputs; j++)
		f->outputs[j] = n->outputs[j] < 0 ? "" : a->s->role[i] == ROLE_PUSHED && transpose_stays(a, n->outputs[j])
		                ? a->moved_name[n->outputs[j]] : g->tensors[n->outputs[j]].name;
	f->attrs = changed_attrs(a, n, ch, &f->n_attrs);
	if (a->new_out[i]) {   /* HandleShape: start and end cleared, the new output */
		f->outputs[0] = a->new_out[i];
		int32_t kept = 0;
		for (int32_t k = 0; k < f->n_attrs; k++)
			if (strcmp(f->attrs[k].name, "start") && strcmp(f->attrs[k].name, "end"))
				f->attrs[kept++] = f->attrs[k];
		if (a->s->opset >= 15)
			f->n_attrs = kept;
	}
	if (merged) {   /* HandleTransposeImpl Case 2: the merged perm */
		const tp_perm *p = &a->s->perms.items[ch->merged_perm];
		for (int32_t k = 0; k < f->n_attrs; k++)
			if (!strcmp(f->attrs[k].name, "perm"))
				f->attrs[k] = (fd_attr){ .name = "perm", .type = ATTR_INTS, .count = p->rank, .u.ints = p->p };
	}
}

/* A broadcast op's constant input edited in place (UnsqueezeInput,
 * TransposeInputImpl Case 1): ones in front up to the perm's rank, then
 * the perm's inverse, as the carried tensor it meets. Its values keep
 * their order: at most one dim of it is not 1 (transpose_broadcast). */
static void reshape_constants(tp_apply *a)
{
	tp_state *s = a->s;
	const fd_graph *g = s->g;
	fd_graph *ng = &a->r->model.graphs[0];
	for (int32_t t = 0; t < g->n_tensors; t++) {
		int32_t i = s->const_user[t];
		if (i < 0 || s->role[i] != ROLE_PUSHED || g->nodes[i].n_outputs < 1 ||
		    !tp_group_ok(s, transpose_group(s, s->comp[g->nodes[i].outputs[0]])))
			continue;
		int32_t from = FD_NONE;
		for (int32_t k = 0; k < g->nodes[i].n_inputs && from < 0; k++) {
			int32_t x = g->nodes[i].inputs[k];
			if (x >= 0 && s->carry[x] >= 0)
				from = x;
		}
		int32_t nt = graph_find_tensor(ng, g->tensors[t].name);
		if (from < 0 || nt < 0)
			continue;
		const tp_perm *p = &s->perms.items[s->carry[from]];
		const fd_shape *old = &g->tensors[t].shape;
		fd_dim *unsq = arena_array(&a->r->model.arena, (size_t)p->rank + 1, sizeof *unsq);
		fd_dim *d = arena_array(&a->r->model.arena, (size_t)p->rank + 1, sizeof *d);
		int32_t lead = p->rank - old->rank;
		for (int32_t k = 0; k < p->rank; k++)
			unsq[k] = k < lead ? dim_of(1) : old->dims[k - lead];
		for (int32_t k = 0; k < p->rank; k++)
			d[p->p[k]] = unsq[k];
		ng->tensors[nt].shape.rank = p->rank;
		ng->tensors[nt].shape.dims = d;
	}
}

/* Shapes in the rewritten model: a carried tensor now holds the data before
 * the Transpose, dims[k] = old dims[perm^-1[k]]. */
static void permute_shapes(tp_apply *a)
{
	const fd_graph *g = a->s->g;
	fd_graph *ng = &a->r->model.graphs[0];
	for (int32_t t = 0; t < g->n_tensors; t++) {
		if (!a->permuted[t] || g->tensors[t].shape.rank < 0)
			continue;
		const tp_perm *p = &a->s->perms.items[a->s->carry[t]];
		int32_t nt = graph_find_tensor(ng, g->tensors[t].name);
		if (nt < 0 || p->rank != g->tensors[t].shape.rank)
			continue;
		fd_dim *d = arena_array(&a->r->model.arena, (size_t)p->rank + 1, sizeof *d);
		for (int32_t k = 0; k < p->rank; k++)
			d[p->p[k]] = g->tensors[t].shape.dims[k];
		ng->tensors[nt].shape.dims = d;
	}
}

static void not_modelled_events(tp_apply *a, int32_t i)
{
	tp_state *s = a->s;
	int32_t root = transpose_group(s, i);
	if (!s->pushed_any[root] || !s->failed[root])
		return;
	fd_tpose_event *e = transpose_add_event(a, TPOSE_NOT_MODELLED, i, s->where[root]);
	e->text = transpose_fmt(&a->r->rewrite.arena,
	                        "left as it is: onnxruntime's transpose optimizer pushes it on, and at %s %s",
	                        s->where[root] >= 0 ? s->g->nodes[s->where[root]].name : "?", s->why[root]);
	a->r->n_not_modelled++;
}

int transpose_apply(tp_state *s, fd_transpose_result *r, fd_diags *d)
{
	const fd_graph *g = s->g;
	size_t nt = (size_t)g->n_tensors + 1;
	tp_apply a = { s, r, xcalloc((size_t)g->n_nodes + 1, sizeof *a.removed), xmalloc(nt * sizeof *a.rename),
	               xmalloc(nt * sizeof *a.renamed_in), xmalloc(nt * sizeof *a.renamed_next),
	               xcalloc(nt, sizeof *a.permuted), NULL, NULL, NULL, 0, { 0 }, { 0 }, NULL };
	for (size_t t = 0; t < nt; t++)
		a.rename[t] = a.renamed_in[t] = a.renamed_next[t] = -1;
	int32_t *sources = xcalloc((size_t)g->n_nodes + 1, sizeof *sources);
	int32_t *sinks = xcalloc((size_t)g->n_nodes + 1, sizeof *sinks);
	int32_t *moves = xcalloc((size_t)g->n_nodes + 1, sizeof *moves);
	a.moved_name = xcalloc(nt, sizeof *a.moved_name);
	a.new_in = xcalloc((size_t)g->n_nodes + 1, sizeof *a.new_in);
	a.new_out = xcalloc((size_t)g->n_nodes + 1, sizeof *a.new_out);
	a.fold_dq = xmalloc(((size_t)g->n_nodes + 1) * sizeof *a.fold_dq);
	for (int32_t i = 0; i <= g->n_nodes; i++)
		a.fold_dq[i] = FD_NONE;
	for (int32_t i = 0; i < g->n_nodes; i++) {
		int32_t root = s->role[i] == ROLE_SOURCE || s->role[i] == ROLE_SINK ? transpose_group(s, i) : -1;
		if (!tp_group_ok(s, root))
			continue;
		moves[root] += s->merged[i] || (s->role[i] == ROLE_SOURCE && s->stays[g->nodes[i].outputs[0]]);
		if (s->merged[i] || (s->role[i] == ROLE_SOURCE && s->stays[g->nodes[i].outputs[0]]))
			continue;   /* the Transpose stays */
		a.removed[i] = true;
		transpose_set_rename(&a, g->nodes[i].outputs[0], g->nodes[i].inputs[0]);
		(s->role[i] == ROLE_SOURCE ? sources : sinks)[root]++;
	}
	for (int32_t t = 0; t < g->n_tensors; t++) {
		a.permuted[t] = s->carry[t] >= 0 && s->pusher[t] >= 0 && s->role[s->pusher[t]] == ROLE_PUSHED &&
		                tp_group_ok(s, transpose_group(s, s->comp[t])) && !s->stays[t];
		if (s->stays[t] && s->role[s->pusher[t]] == ROLE_PUSHED)
			moves[transpose_group(s, s->comp[t])]++;
	}
	transpose_add_moved(&a);
	transpose_add_input_nodes(&a);
	for (int32_t k = 0; k < g->n_nodes; k++) {
		int32_t i = g->topo_order[k];
		int32_t root = s->role[i] == ROLE_NONE ? -1 : transpose_group(s, s->role[i] == ROLE_PUSHED
		                                                          ? s->comp[g->nodes[i].outputs[0]] : i);
		if (s->role[i] == ROLE_PUSHED && !tp_group_ok(s, root)) {
			memset(&s->change[i], 0, sizeof s->change[i]);
			for (int32_t j = 0; j < g->nodes[i].n_inputs; j++)
				if (g->nodes[i].inputs[j] >= 0 && s->const_user[g->nodes[i].inputs[j]] == i)
					s->const_user[g->nodes[i].inputs[j]] = -1;
		}
		if (s->role[i] == ROLE_PUSHED && s->change[i].n_axes > 0 && !s->change[i].axes_as_attr) {
			tp_change *ch = &s->change[i];
			ch->axes_name = transpose_new_name(&a, "const_transpose_optimizer", false);
			fd_new_const c = { 0, ch->axes_name, ch->axes_dtype, ch->n_axes, ch->axes };
			vec_push(&r->rewrite.consts, c);
		}
		if ((s->role[i] == ROLE_SOURCE || s->role[i] == ROLE_SINK) && tp_group_ok(s, root) &&
		    (moves[root] > 0 && (s->role[i] == ROLE_SOURCE || s->merged[i])))
			moved_event(&a, i);
		else if ((s->role[i] == ROLE_SOURCE || s->role[i] == ROLE_SINK) && tp_group_ok(s, root))
			cancelled_event(&a, i, sources[root], sinks[root]);
		else if (s->role[i] == ROLE_SOURCE)
			not_modelled_events(&a, i);
		else if (s->role[i] == ROLE_PUSHED)
			changed_event(&a, i);
	}
	bool has_dq = false;
	for (int32_t i = 0; i < g->n_nodes && !has_dq; i++)
		has_dq = node_is(&g->nodes[i], "DequantizeLinear");
	if (has_dq) {   /* FixQDQNodeUnits */
		remove_empty_pairs(&a);
		transpose_fold_weights(&a);
	}
	for (int32_t i = 0; i < g->n_nodes; i++) {
		if (!a.removed[i]) {
			rewrite_node(&a, i);
			continue;
		}
		fd_fused_node *f = rewrite_add(&r->rewrite, 0);
		f->members = arena_array(&r->rewrite.arena, 1, sizeof *f->members);
		f->members[0] = i;
		f->n_members = 1;
		f->name = g->nodes[i].name;
		f->removed = true;
	}
	int rc = 0;
	if (r->rewrite.nodes.n > 0) {
		rc = rewrite_build_model(s->m, &r->rewrite, &r->model, &r->map, d);
		r->changed = rc == 0;
		if (rc == 0) {
			permute_shapes(&a);
			reshape_constants(&a);
			transpose_fold_shapes(&a);
		}
	}
	free(sources);
	free(sinks);
	free(moves);
	vec_release(&a.node_names);
	vec_release(&a.arg_names);
	free(a.moved_name);
	free(a.new_in);
	free(a.new_out);
	free(a.fold_dq);
	free(a.removed);
	free(a.rename);
	free(a.renamed_in);
	free(a.renamed_next);
	free(a.permuted);
	return rc;
}
