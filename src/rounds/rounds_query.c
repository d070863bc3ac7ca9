/* rounds_query.c — what a node of one round is in another (rounds.h): the
 * fused node that made it, the original nodes it stands for, the node an
 * original node became; and the fused nodes of every round composed over
 * the original model. */
#include <stdlib.h>
#include <string.h>
#include "rounds/rounds.h"

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

static const fd_graph *topo_graph;
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
	qsort(out->items, out->n, sizeof *out->items, cmp_topo);
	return out->n;
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

size_t rounds_n_fusions(const fd_rounds *rd)
{
	size_t n = 0;
	for (int32_t i = 0; i < rd->n; i++)
		n += rd->items[i]->result->n_fusions;
	return n;
}
