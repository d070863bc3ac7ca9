/* rounds_query.c — what a node of one round is in another (rounds.h): the
 * fused node that made it, the original nodes it stands for, the node an
 * original node became; and the fused nodes of every round composed over
 * the original model. */
#include <stdlib.h>
#include <string.h>
#include "rounds/rounds.h"

static int32_t *dup_ids(const int32_t *p, size_t n)
{
	int32_t *q = xmalloc((n + 1) * sizeof *q);
	if (n)
		memcpy(q, p, n * sizeof *q);
	return q;
}

const fd_fused_node *rounds_made_by(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node,
                                    int32_t *prev)
{
	const fd_round *r = rounds_get(rd, number);
	*prev = node;
	if (!r || number == 1 || !r->built_own)
		return NULL;
	if (graph < 0 || graph >= r->model->n_graphs || node < 0 || node >= r->model->graphs[graph].n_nodes)
		return NULL;
	int32_t from = r->map.from[graph][node];
	if (from >= 0) {
		*prev = from;
		return NULL;
	}
	*prev = FD_NONE;
	return &rd->items[number - 2]->made.nodes.items[-from - 1];
}

static void collect(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node, fd_id_vec *out)
{
	int32_t prev;
	for (;;) {
		if (number <= 1) {
			vec_push(out, node);
			return;
		}
		const fd_fused_node *fn = rounds_made_by(rd, number, graph, node, &prev);
		if (fn) {
			for (int32_t k = 0; k < fn->n_members; k++)
				collect(rd, number - 1, graph, fn->members[k], out);
			return;
		}
		if (prev < 0)
			return;
		node = prev;
		number--;
	}
}

static _Thread_local const fd_graph *topo_graph;   /* qsort's comparator; per thread: the writers run on several */
static int cmp_topo(const void *a, const void *b)
{
	int32_t x = topo_graph->nodes[*(const int32_t *)a].topo, y = topo_graph->nodes[*(const int32_t *)b].topo;
	return (x > y) - (x < y);
}

size_t rounds_original_nodes(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node, fd_id_vec *out)
{
	out->n = 0;
	if (rd->n == 0 || graph < 0 || graph >= rd->items[0]->model->n_graphs)
		return 0;
	collect(rd, number, graph, node, out);
	topo_graph = &rd->items[0]->model->graphs[graph];
	if (out->n > 1)
		qsort(out->items, out->n, sizeof *out->items, cmp_topo);
	return out->n;
}

int32_t rounds_node_in(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node)
{
	if (rd->n == 0 || graph < 0 || graph >= rd->items[0]->model->n_graphs || node < 0 ||
	    node >= rd->items[0]->model->graphs[graph].n_nodes)
		return FD_NONE;
	for (int32_t k = 2; k <= number && k <= rd->n; k++) {
		const fd_round *r = rd->items[k - 1];
		if (r->built_own)
			node = rd->items[k - 2]->built ? r->map.to[graph][node] : node;
		if (node < 0)
			return FD_NONE;
	}
	return node;
}

bool rounds_fusion_is_final(const fd_rounds *rd, int32_t number, size_t fusion)
{
	const fd_round *r = rounds_get(rd, number);
	if (!r || fusion >= r->result->n_fusions)
		return false;
	const fd_fusion *fu = &r->result->fusions[fusion];
	int32_t node = r->result->pool[fu->nodes];
	for (int32_t k = number + 1; k <= rd->n; k++) {
		const fd_round *next = rd->items[k - 1];
		if (next->built_own)
			node = next->map.to[fu->graph][node];
		if (node < 0)
			return true;
		if (next->result->claim[fu->graph][node] >= 0)
			return false;
	}
	return true;
}

size_t rounds_fusion_originals(const fd_rounds *rd, int32_t number, size_t fusion, fd_id_vec *out)
{
	const fd_round *r = rounds_get(rd, number);
	out->n = 0;
	if (!r || fusion >= r->result->n_fusions)
		return 0;
	const fd_fusion *fu = &r->result->fusions[fusion];
	for (int32_t k = 0; k < fu->n_nodes; k++)
		collect(rd, number, fu->graph, r->result->pool[fu->nodes + k], out);
	topo_graph = &rd->items[0]->model->graphs[fu->graph];
	if (out->n > 1)
		qsort(out->items, out->n, sizeof *out->items, cmp_topo);
	return out->n;
}

void rounds_each_final(const fd_rounds *rd, void (*visit)(const fd_final_fusion *f, void *arg), void *arg)
{
	fd_id_vec orig = { 0 };
	for (int32_t k = 1; k <= rd->n; k++) {
		const fd_match_result *r = rd->items[k - 1]->result;
		for (size_t f = 0; f < r->n_fusions; f++) {
			if (!rounds_fusion_is_final(rd, k, f))
				continue;
			rounds_fusion_originals(rd, k, f, &orig);
			visit(&(fd_final_fusion){ .round = k, .index = f, .fusion = &r->fusions[f], .originals = orig.items,
			                          .n_originals = orig.n }, arg);
		}
	}
	vec_release(&orig);
}

/* ---- the composed rewrite ---------------------------------------------------------- */

/* A nested fused node's fused_nodes are the nodes of its round: it also
 * says which nodes of the model it replaces. */
static void add_original_nodes(fd_rewrite *out, fd_fused_node *o, const fd_model *m)
{
	fd_attr *attrs = arena_array(&out->arena, (size_t)o->n_attrs + 1, sizeof *attrs);
	memcpy(attrs, o->attrs, (size_t)o->n_attrs * sizeof *attrs);
	fd_attr *a = &attrs[o->n_attrs];
	*a = (fd_attr){ .name = "original_nodes", .type = ATTR_STRINGS, .count = o->n_members };
	a->u.strings = arena_array(&out->arena, (size_t)o->n_members + 1, sizeof *a->u.strings);
	for (int32_t k = 0; k < o->n_members; k++)
		a->u.strings[k] = m->graphs[o->graph].nodes[o->members[k]].name;
	o->attrs = attrs;
	o->n_attrs++;
}

void rounds_final_rewrite(const fd_rounds *rd, fd_rewrite *out)
{
	fd_id_vec orig = { 0 };
	for (int32_t number = 1; number <= rd->n; number++) {
		const fd_round *r = rd->items[number - 1];
		for (size_t k = 0; k < r->made.nodes.n; k++) {
			if (!rounds_fusion_is_final(rd, number, (size_t)r->made.nodes.items[k].fusion))
				continue;
			const fd_fused_node *fn = &r->made.nodes.items[k];
			orig.n = 0;
			for (int32_t j = 0; j < fn->n_members; j++) {
				fd_id_vec one = { 0 };
				collect(rd, number, fn->graph, fn->members[j], &one);
				for (size_t x = 0; x < one.n; x++)
					vec_push(&orig, one.items[x]);
				vec_release(&one);
			}
			topo_graph = &rd->items[0]->model->graphs[fn->graph];
			if (orig.n > 1)
				qsort(orig.items, orig.n, sizeof *orig.items, cmp_topo);
			fd_fused_node *o = rewrite_add(out, fn->graph);
			*o = *fn;
			o->members = arena_memdup(&out->arena, orig.items, orig.n * sizeof *orig.items);
			o->n_members = (int32_t)orig.n;
			if (number > 1)
				add_original_nodes(out, o, rd->items[0]->model);
		}
	}
	vec_release(&orig);
}

/* ---- the final fusions as one result ------------------------------------------------ */

static uint32_t pool_add(fd_match_result *r, const int32_t *ids, size_t n)
{
	if (r->n_pool + n > r->cap_pool) {
		r->cap_pool = (r->n_pool + n) * 2 + 64;
		r->pool = xrealloc(r->pool, r->cap_pool * sizeof *r->pool);
	}
	memcpy(r->pool + r->n_pool, ids, n * sizeof *ids);
	r->n_pool += n;
	return (uint32_t)(r->n_pool - n);
}

/* A fusion's tensors over graph g from its member nodes (claim[node] == f):
 * inputs read from outside (first use), outputs leaving it, intermediates. */
static void fusion_tensors(fd_match_result *r, const fd_graph *g, int32_t f, const int32_t *nodes, int32_t n,
                           fd_id_vec *tmp)
{
	fd_fusion *fu = &r->fusions[f];
	const int32_t *claim = r->claim[fu->graph];
	for (int kind = 0; kind < 3; kind++) {
		tmp->n = 0;
		for (int32_t k = 0; k < n; k++) {
			const fd_node *nd = &g->nodes[nodes[k]];
			int32_t count = kind == 0 ? nd->n_inputs : nd->n_outputs;
			for (int32_t s = 0; s < count; s++) {
				int32_t t = kind == 0 ? nd->inputs[s] : nd->outputs[s];
				if (t < 0)
					continue;
				const fd_tensor *x = &g->tensors[t];
				bool inside = x->producer >= 0 && claim[x->producer] == f;
				bool leaves = x->is_graph_output;
				for (int32_t c = 0; c < x->n_consumers && !leaves; c++)
					leaves = claim[x->consumers[c]] != f;
				bool want = kind == 0 ? !inside : kind == 1 ? leaves : !leaves;
				bool dup = false;
				for (size_t j = 0; j < tmp->n && !dup; j++)
					dup = tmp->items[j] == t;
				if (want && !dup)
					vec_push(tmp, t);
			}
		}
		uint32_t off = pool_add(r, tmp->items, tmp->n);
		fu = &r->fusions[f];
		if (kind == 0) {
			fu->inputs = off;
			fu->n_inputs = (int32_t)tmp->n;
		} else if (kind == 1) {
			fu->outputs = off;
			fu->n_outputs = (int32_t)tmp->n;
		} else {
			fu->intermediates = off;
			fu->n_intermediates = (int32_t)tmp->n;
		}
	}
}

/* What rounds_final_result adds each final fusion to. */
typedef struct final_result_build {
	fd_match_result *out;
	const fd_model *m;             /* the model as loaded */
	fd_id_vec tmp;
} final_result_build;

static void add_final(const fd_final_fusion *ff, void *arg)
{
	final_result_build *b = arg;
	fd_match_result *out = b->out;
	const fd_fusion *src = ff->fusion;
	const fd_graph *g = &b->m->graphs[src->graph];
	if (out->n_fusions == out->cap_fusions) {
		out->cap_fusions = out->cap_fusions * 2 + 16;
		out->fusions = xrealloc(out->fusions, out->cap_fusions * sizeof *out->fusions);
	}
	int32_t fi = (int32_t)out->n_fusions++;
	int64_t ws = 0;
	for (size_t j = 0; j < ff->n_originals; j++) {
		out->claim[src->graph][ff->originals[j]] = fi;
		bool known = true;
		int64_t w = workspace_estimate(g, &g->nodes[ff->originals[j]], &known);
		ws = ws < 0 || !known ? -1 : ws + w;
	}
	out->fusions[fi] = (fd_fusion){ .rule = src->rule, .graph = src->graph,
	                                .anchor = ff->n_originals ? ff->originals[0] : FD_NONE, .attempt = -1,
	                                .branch = -1, .workspace_bytes = ws, .n_nodes = (int32_t)ff->n_originals };
	out->fusions[fi].nodes = pool_add(out, ff->originals, ff->n_originals);
	fusion_tensors(out, g, fi, ff->originals, (int32_t)ff->n_originals, &b->tmp);
	out->stats[src->rule].effect_times++;
}

void rounds_final_result(const fd_rounds *rd, fd_match_result *out)
{
	const fd_match_result *r1 = rd->items[0]->result;
	const fd_model *m = rd->items[0]->model;
	match_result_release(out);
	match_result_init(out);
	out->ctx = r1->ctx;
	out->rules = r1->rules;
	out->target = r1->target;
	out->n_rules = r1->n_rules;
	out->order = dup_ids(r1->order, (size_t)r1->n_rules);
	out->stats = xcalloc((size_t)r1->n_rules + 1, sizeof *out->stats);
	out->claim = xcalloc((size_t)m->n_graphs + 1, sizeof *out->claim);
	out->n_claim = m->n_graphs;
	for (int32_t g = 0; g < m->n_graphs; g++) {
		out->claim[g] = xmalloc(((size_t)m->graphs[g].n_nodes + 1) * sizeof **out->claim);
		memset(out->claim[g], 0xff, ((size_t)m->graphs[g].n_nodes + 1) * sizeof **out->claim);
	}
	final_result_build b = { .out = out, .m = m };
	rounds_each_final(rd, add_final, &b);
	vec_release(&b.tmp);
}

size_t rounds_n_fusions(const fd_rounds *rd)
{
	size_t n = 0;
	for (int32_t i = 0; i < rd->n; i++)
		n += rd->items[i]->result->n_fusions;
	return n;
}
