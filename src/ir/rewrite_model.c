/* rewrite_model.c — the rewritten model in memory (rewrite.h): each fused
 * node in place of its members, the tensors made inside it gone, then
 * producers, consumers and the topological order made again. Graphs are
 * built in index order (a body's parent comes first, so an outer-scope
 * reference is renumbered through the parent's tensor map), and linked only
 * when every graph is built (linking a graph reads its bodies' outer reads). */
#include <stdlib.h>
#include <string.h>
#include "ir/onnx_ops.h"
#include "ir/rewrite.h"

typedef struct builder {
	const fd_model *m;
	const fd_rewrite *rw;
	fd_model *out;
	fd_rewrite_map *map;
	fd_diags *d;
	int32_t **claim;         /* [g][old node]: fused node index, or -1 */
	int32_t **tmap;          /* [g][old tensor]: new tensor index, or -1 (gone) */
} builder;

static int fail(builder *b, const char *what, const char *name, const char *more)
{
	diag_error(b->d, srcpos_file(b->m->path), "rewritten model: %s '%s'%s", what, name, more);
	return -1;
}

static int claim_members(builder *b)
{
	for (int32_t gi = 0; gi < b->m->n_graphs; gi++) {
		int32_t n = b->m->graphs[gi].n_nodes;
		b->claim[gi] = xmalloc(((size_t)n + 1) * sizeof **b->claim);
		for (int32_t i = 0; i < n; i++)
			b->claim[gi][i] = -1;
	}
	for (size_t k = 0; k < b->rw->nodes.n; k++) {
		const fd_fused_node *fn = &b->rw->nodes.items[k];
		if (fn->graph < 0 || fn->graph >= b->m->n_graphs || (fn->n_members <= 0 && !fn->added))
			return fail(b, "fused node without members in a graph:", fn->name, "");
		for (int32_t j = 0; j < fn->n_members; j++) {
			int32_t id = fn->members[j];
			if (id < 0 || id >= b->m->graphs[fn->graph].n_nodes || b->claim[fn->graph][id] >= 0)
				return fail(b, "a member of fused node", fn->name, " is not a node of its graph or is claimed twice");
			b->claim[fn->graph][id] = (int32_t)k;
		}
	}
	return 0;
}

/* The new index of the tensor named name in graph gi; FD_NONE for "" (an
 * empty port); -2 when the graph has no such tensor or it is gone. */
static int32_t tensor_of(const builder *b, int32_t gi, const char *name)
{
	if (!name || !*name)
		return FD_NONE;
	int32_t t = graph_find_tensor(&b->m->graphs[gi], name);
	if (t >= 0)
		return b->tmap[gi][t] >= 0 ? b->tmap[gi][t] : -2;
	const fd_graph *ng = &b->out->graphs[gi];
	for (int32_t k = 0; k < ng->n_tensors; k++)   /* a new constant: the model lacks its name */
		if (ng->tensors[k].name && !strcmp(ng->tensors[k].name, name))
			return k;
	return -2;
}

/* Tensors: every one but those made by a member and not output by its fused
 * node; renumbered, links cleared for graph_link. */
static void new_const(builder *b, const fd_new_const *c, fd_tensor *x);

static bool new_tensor_named(const builder *b, int32_t gi, const char *name)
{
	for (size_t k = 0; k < b->rw->tensors.n; k++)
		if (b->rw->tensors.items[k].graph == gi && !strcmp(b->rw->tensors.items[k].name, name))
			return true;
	return false;
}

static int build_tensors(builder *b, int32_t gi)
{
	const fd_graph *g = &b->m->graphs[gi];
	fd_graph *ng = &b->out->graphs[gi];
	int32_t *map = b->tmap[gi] = xmalloc(((size_t)g->n_tensors + 1) * sizeof *map);
	for (int32_t t = 0; t < g->n_tensors; t++)
		map[t] = g->tensors[t].producer >= 0 && b->claim[gi][g->tensors[t].producer] >= 0 ? -1 : 0;
	for (size_t k = 0; k < b->rw->nodes.n; k++) {
		const fd_fused_node *fn = &b->rw->nodes.items[k];
		for (int32_t j = 0; fn->graph == gi && j < fn->n_outputs; j++) {
			int32_t t = graph_find_tensor(g, fn->outputs[j]);
			if (t < 0 && !new_tensor_named(b, gi, fn->outputs[j]))
				return fail(b, "fused node output names no tensor:", fn->outputs[j], "");
			if (t >= 0)
				map[t] = 0;
		}
	}
	int32_t n = 0, added = 0;
	for (int32_t t = 0; t < g->n_tensors; t++)
		if (map[t] == 0)
			map[t] = n++;
	for (size_t k = 0; k < b->rw->consts.n; k++)
		added += b->rw->consts.items[k].graph == gi;
	for (size_t k = 0; k < b->rw->tensors.n; k++)
		added += b->rw->tensors.items[k].graph == gi;
	ng->n_tensors = n + added;
	ng->tensors = arena_array(&b->out->arena, (size_t)n + added + 1, sizeof *ng->tensors);
	for (size_t k = 0; k < b->rw->consts.n; k++)
		if (b->rw->consts.items[k].graph == gi)
			new_const(b, &b->rw->consts.items[k], &ng->tensors[n++]);
	for (size_t k = 0; k < b->rw->tensors.n; k++) {
		const fd_new_tensor *c = &b->rw->tensors.items[k];
		if (c->graph != gi)
			continue;
		fd_tensor *x = &ng->tensors[n++];
		memset(x, 0, sizeof *x);
		x->name = strpool_intern(&b->out->names, c->name);
		x->kind = TENSOR_ACTIVATION;
		x->dtype = c->dtype;
		x->shape = c->shape;
		x->producer = x->producer_port = x->outer = FD_NONE;
	}
	for (int32_t t = 0; t < g->n_tensors; t++) {
		if (map[t] < 0)
			continue;
		fd_tensor *x = &ng->tensors[map[t]];
		*x = g->tensors[t];
		x->producer = x->producer_port = FD_NONE;
		x->consumers = NULL;
		x->n_consumers = 0;
		if (x->kind == TENSOR_OUTER_SCOPE && x->outer >= 0) {
			int32_t p = g->parent;
			if (p < 0 || p >= gi || x->outer >= b->m->graphs[p].n_tensors || b->tmap[p][x->outer] < 0)
				return fail(b, "a body reads a tensor made inside a fused node:", x->name, "");
			x->outer = b->tmap[p][x->outer];
		}
	}
	return 0;
}

/* A rewrite's new constant as an initializer of the rewritten graph. */
static void new_const(builder *b, const fd_new_const *c, fd_tensor *x)
{
	fd_arena *a = &b->out->arena;
	memset(x, 0, sizeof *x);
	x->name = strpool_intern(&b->out->names, c->name);
	x->kind = TENSOR_INITIALIZER;
	x->dtype = c->dtype;
	x->producer = x->producer_port = FD_NONE;
	x->outer = FD_NONE;
	x->shape.rank = 1;
	x->shape.dims = arena_array(a, 1, sizeof *x->shape.dims);
	x->shape.dims[0] = dim_of(c->count);
	x->value = arena_alloc(a, sizeof *x->value);
	x->value->dtype = c->dtype;
	x->value->count = c->count;
	x->value->i64 = arena_array(a, (size_t)c->count + 1, sizeof *x->value->i64);
	memcpy(x->value->i64, c->values, (size_t)c->count * sizeof *c->values);
}

static int32_t *remap_list(builder *b, int32_t gi, const int32_t *ids, int32_t n)
{
	int32_t *out = arena_array(&b->out->arena, (size_t)n + 1, sizeof *out);
	for (int32_t k = 0; k < n; k++)
		out[k] = ids[k] >= 0 ? b->tmap[gi][ids[k]] : FD_NONE;
	return out;
}

/* The tensors of names[0..*n) but those skip says to leave out (NULL: none);
 * *n becomes their count. */
static int32_t *name_list(builder *b, int32_t gi, const char *const *names, int32_t *n, const bool *skip)
{
	int32_t *out = arena_array(&b->out->arena, (size_t)*n + 1, sizeof *out), kept = 0;
	for (int32_t k = 0; k < *n; k++) {
		if (skip && skip[k])
			continue;
		if ((out[kept++] = tensor_of(b, gi, names[k])) == -2) {
			fail(b, "fused node reads a tensor its graph lacks or that is made inside it:", names[k], "");
			return NULL;
		}
	}
	*n = kept;
	return out;
}

/* The fused node: the rewrite's name, type, ports and attributes; the
 * bodies its members owned. */
static int fused_node(builder *b, int32_t gi, int32_t k, fd_node *out)
{
	const fd_fused_node *fn = &b->rw->nodes.items[k];
	const fd_graph *g = &b->m->graphs[gi];
	memset(out, 0, sizeof *out);
	out->name = arena_strdup(&b->out->arena, fn->name ? fn->name : "");
	out->op_type = strpool_intern(&b->out->names, fn->op_type ? fn->op_type : "");
	out->domain = strpool_intern(&b->out->names, onnx_domain_normal(fn->domain));
	out->n_inputs = fn->n_inputs;
	out->n_outputs = fn->n_outputs;
	if (!(out->inputs = name_list(b, gi, fn->inputs, &out->n_inputs, fn->folded)) ||
	    !(out->outputs = name_list(b, gi, fn->outputs, &out->n_outputs, NULL)))
		return -1;
	out->n_attrs = fn->n_attrs;
	out->attrs = fn->attrs;
	int32_t bodies = 0;
	for (int32_t j = 0; j < fn->n_members; j++)
		bodies += g->nodes[fn->members[j]].n_subgraphs;
	out->subgraphs = arena_array(&b->out->arena, (size_t)bodies + 1, sizeof *out->subgraphs);
	for (int32_t j = 0; j < fn->n_members; j++) {
		const fd_node *mn = &g->nodes[fn->members[j]];
		for (int32_t s = 0; s < mn->n_subgraphs; s++)
			out->subgraphs[out->n_subgraphs++] = mn->subgraphs[s];
	}
	return 0;
}

static int build_nodes(builder *b, int32_t gi)
{
	const fd_graph *g = &b->m->graphs[gi];
	fd_graph *ng = &b->out->graphs[gi];
	const int32_t *claim = b->claim[gi];
	/* a fused node stands at its last member */
	int32_t *last = xmalloc((b->rw->nodes.n + 1) * sizeof *last);
	for (size_t k = 0; k < b->rw->nodes.n; k++)
		last[k] = -1;
	for (int32_t i = 0; i < g->n_nodes; i++)
		if (claim[i] >= 0)
			last[claim[i]] = i;
	int32_t n = 0;
	for (int32_t i = 0; i < g->n_nodes; i++)
		n += claim[i] < 0 || (last[claim[i]] == i && !b->rw->nodes.items[claim[i]].removed);
	for (size_t k = 0; k < b->rw->nodes.n; k++)
		n += b->rw->nodes.items[k].added && b->rw->nodes.items[k].graph == gi;
	ng->n_nodes = n;
	ng->nodes = arena_array(&b->out->arena, (size_t)n + 1, sizeof *ng->nodes);
	int32_t *from = b->map->from[gi] = arena_array(&b->out->arena, (size_t)n + 1, sizeof *from);
	int32_t *to = b->map->to[gi] = arena_array(&b->out->arena, (size_t)g->n_nodes + 1, sizeof *to);
	int32_t j = 0, rc = 0;
	for (int32_t i = 0; i < g->n_nodes && rc == 0; i++) {
		int32_t k = claim[i];
		if (k >= 0 && (last[k] != i || b->rw->nodes.items[k].removed))
			continue;
		fd_node *nd = &ng->nodes[j];
		if (k < 0) {
			*nd = g->nodes[i];
			nd->inputs = remap_list(b, gi, nd->inputs, nd->n_inputs);
			nd->outputs = remap_list(b, gi, nd->outputs, nd->n_outputs);
			from[j] = i;
		} else {
			rc = fused_node(b, gi, k, nd);
			from[j] = -k - 1;
		}
		nd->topo = 0;
		j++;
	}
	for (size_t k = 0; k < b->rw->nodes.n && rc == 0; k++) {
		if (!b->rw->nodes.items[k].added || b->rw->nodes.items[k].graph != gi)
			continue;
		rc = fused_node(b, gi, (int32_t)k, &ng->nodes[j]);
		from[j++] = -(int32_t)k - 1;
	}
	for (int32_t i = 0; i < g->n_nodes; i++)
		to[i] = -1;
	for (int32_t x = 0; x < j; x++) {
		if (from[x] >= 0) {
			to[from[x]] = x;
			continue;
		}
		const fd_fused_node *fn = &b->rw->nodes.items[-from[x] - 1];
		for (int32_t m = 0; m < fn->n_members; m++)
			to[fn->members[m]] = x;
	}
	free(last);
	return rc;
}

static int build_graph(builder *b, int32_t gi)
{
	const fd_graph *g = &b->m->graphs[gi];
	fd_graph *ng = &b->out->graphs[gi];
	*ng = (fd_graph){ .name = g->name, .index = gi, .parent = g->parent, .owner_node = g->owner_node,
	                  .owner_attr = g->owner_attr, .depth = g->depth, .n_inputs = g->n_inputs,
	                  .n_outputs = g->n_outputs, .n_initializers = g->n_initializers };
	if (build_tensors(b, gi) < 0 || build_nodes(b, gi) < 0)
		return -1;
	ng->inputs = remap_list(b, gi, g->inputs, g->n_inputs);
	ng->outputs = remap_list(b, gi, g->outputs, g->n_outputs);
	for (int32_t k = 0; k < g->n_outputs; k++)
		if (ng->outputs[k] < 0)
			return fail(b, "a graph output is made inside a fused node and not among its outputs:",
			            g->tensors[g->outputs[k]].name, "");
	return 0;
}

int rewrite_build_model(const fd_model *m, const fd_rewrite *rw, fd_model *out, fd_rewrite_map *map,
                        fd_diags *d)
{
	/* the header (path, versions, opsets, symbolic dims) borrowed; graphs, names, arena its own */
	*out = *m;
	out->dimtab_borrowed = true;   /* dims keep pointing into m's expressions */
	memset(map, 0, sizeof *map);
	arena_init(&out->arena);
	strpool_init(&out->names, &out->arena);
	out->graphs = arena_array(&out->arena, (size_t)m->n_graphs + 1, sizeof *out->graphs);
	map->from = arena_array(&out->arena, (size_t)m->n_graphs + 1, sizeof *map->from);
	map->to = arena_array(&out->arena, (size_t)m->n_graphs + 1, sizeof *map->to);
	builder b = { m, rw, out, map, d, xcalloc((size_t)m->n_graphs + 1, sizeof *b.claim),
	              xcalloc((size_t)m->n_graphs + 1, sizeof *b.tmap) };
	int rc = claim_members(&b);
	for (int32_t gi = 0; rc == 0 && gi < m->n_graphs; gi++)
		rc = build_graph(&b, gi);
	/* bodies belong to the node that now holds them */
	for (int32_t gi = 0; rc == 0 && gi < out->n_graphs; gi++)
		for (int32_t j = 0; j < out->graphs[gi].n_nodes; j++)
			for (int32_t s = 0; s < out->graphs[gi].nodes[j].n_subgraphs; s++)
				out->graphs[out->graphs[gi].nodes[j].subgraphs[s]].owner_node = j;
	for (int32_t gi = 0; rc == 0 && gi < out->n_graphs; gi++)
		if (graph_link(out, &out->graphs[gi], d) || graph_topo_sort(out, &out->graphs[gi], d))
			rc = -1;
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		free(b.claim[gi]);
		free(b.tmap[gi]);
	}
	free(b.claim);
	free(b.tmap);
	if (rc < 0) {
		model_release(out);
		memset(map, 0, sizeof *map);
	}
	return rc;
}
