/* graph.c — graph helpers over the IR of graph.h: name indexes, producer and
 * consumer links with the load-time checks (dangling input, duplicate output,
 * self-consumption), the stable topological order and small queries.
 *
 * Everything allocated here lives in the model's arena; the strmaps of a graph
 * own only their slot arrays (model_release frees them). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir/graph.h"

/* The name indexes are caches: built on first use, freed by model_release.
 * A graph is otherwise read-only here, hence the casts. The name of item i
 * is the const char * at name_at in it; the first of equal names wins. */
static int32_t find_by_name(strmap *map, const void *items, int32_t n, size_t stride, size_t name_at,
                            const char *name)
{
	if (!name)
		return FD_NONE;
	if (!map->cap && n) {
		strmap_reserve(map, (size_t)n);
		for (int32_t i = 0; i < n; i++) {
			const char *key = *(const char *const *)((const char *)items + (size_t)i * stride + name_at);
			if (key)
				strmap_put(map, key, i);
		}
	}
	return strmap_get(map, name);
}

int32_t graph_find_tensor(const fd_graph *g, const char *name)
{
	return find_by_name((strmap *)&g->tensor_by_name, g->tensors, g->n_tensors, sizeof *g->tensors,
	                    offsetof(fd_tensor, name), name);
}

int32_t graph_find_node(const fd_graph *g, const char *name)
{
	return find_by_name((strmap *)&g->node_by_name, g->nodes, g->n_nodes, sizeof *g->nodes,
	                    offsetof(fd_node, name), name);
}

bool model_find_node(const fd_model *m, const char *name, int32_t *graph, int32_t *node)
{
	for (int32_t gi = 0; m && gi < m->n_graphs; gi++) {
		int32_t n = graph_find_node(&m->graphs[gi], name);
		if (n >= 0) {
			*graph = gi;
			*node = n;
			return true;
		}
	}
	*graph = *node = FD_NONE;
	return false;
}

const fd_attr *node_attr(const fd_node *n, const char *name)
{
	for (int32_t i = 0; i < n->n_attrs; i++)
		if (!strcmp(n->attrs[i].name, name))
			return &n->attrs[i];
	return NULL;
}

bool node_is(const fd_node *n, const char *op_type)
{
	return !n->domain[0] && !strcmp(n->op_type, op_type);
}

bool graph_node_is(const fd_graph *g, int32_t node, const char *op_type)
{
	return node >= 0 && node < g->n_nodes && node_is(&g->nodes[node], op_type);
}

bool tensor_is_constant(const fd_graph *g, int32_t t)
{
	if (t < 0 || t >= g->n_tensors)
		return false;
	uint8_t k = g->tensors[t].kind;
	return (k == TENSOR_INITIALIZER && !g->tensors[t].overridable) || k == TENSOR_CONSTANT;
}

bool shape_is_static(const fd_model *m, const fd_shape *s)
{
	(void)m;  /* a dim caches its value at the model's bindings */
	if (s->rank < 0)
		return false;
	for (int32_t i = 0; i < s->rank; i++)
		if (!dim_known(s->dims[i]))
			return false;
	return true;
}

const char *tensor_initializer_words(const fd_model *m, const fd_tensor *x)
{
	if (!x->listed_input)
		return "initializer";
	if (x->overridable)
		return "initializer, overridable (also a graph input)";
	if (m && m->ir_version < 4)
		return "initializer, also a graph input (a constant before IR 4)";
	return "initializer, also a graph input (a weight: initializers constant)";
}

void model_set_initializer_policy(fd_model *m, bool initializers_constant)
{
	m->initializers_constant = initializers_constant;
	bool overridable = m->ir_version >= 4 && !initializers_constant;
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		fd_graph *g = &m->graphs[gi];
		for (int32_t t = 0; t < g->n_tensors; t++)
			g->tensors[t].overridable = g->tensors[t].listed_input && overridable;
	}
}

/* Ops whose input 0 is N x C x spatial…; the rank of the spatial part is what
 * tells Conv1d from Conv2d. */
static const char *const spatial_ops[] = {
	"AveragePool", "Conv", "ConvInteger", "ConvTranspose", "DeformConv",
	"GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool", "LpPool", "MaxPool",
	"MaxRoiPool", "MaxUnpool", "QLinearConv",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int32_t node_spatial_rank(const fd_graph *g, const fd_node *n)
{
	if (!bsearch(&n->op_type, spatial_ops, sizeof spatial_ops / sizeof *spatial_ops,
	             sizeof *spatial_ops, cmp_str))
		return -1;
	/* the activation's rank first, then the kernel, then the weight */
	if (n->n_inputs > 0 && n->inputs[0] >= 0 && g->tensors[n->inputs[0]].shape.rank >= 2)
		return g->tensors[n->inputs[0]].shape.rank - 2;
	const fd_attr *k = node_attr(n, "kernel_shape");
	if (k && k->type == ATTR_INTS)
		return (int32_t)k->count;
	int w = !strcmp(n->op_type, "QLinearConv") ? 3 : 1;
	if (n->n_inputs > w && n->inputs[w] >= 0 && g->tensors[n->inputs[w]].shape.rank >= 2)
		return g->tensors[n->inputs[w]].shape.rank - 2;
	if (n->n_outputs > 0 && n->outputs[0] >= 0 && g->tensors[n->outputs[0]].shape.rank >= 2)
		return g->tensors[n->outputs[0]].shape.rank - 2;
	return -1;
}

static const char *kind_phrase(fd_tensor_kind k)
{
	switch (k) {
	case TENSOR_GRAPH_INPUT: return "a graph input";
	case TENSOR_INITIALIZER: return "an initializer";
	case TENSOR_OUTER_SCOPE: return "an outer-scope value";
	default: return "a tensor";
	}
}

/* "" for the main graph, " (in subgraph 'body' of node 'loop')" otherwise. */
static const char *where(const fd_model *m, const fd_graph *g, char *buf, size_t size)
{
	if (g->parent < 0 || !m || g->parent >= m->n_graphs) {
		buf[0] = '\0';
		return buf;
	}
	const fd_graph *p = &m->graphs[g->parent];
	const char *owner = g->owner_node >= 0 && g->owner_node < p->n_nodes
	                    ? p->nodes[g->owner_node].name : "?";
	snprintf(buf, size, " (in subgraph '%s' of node '%s')", g->name ? g->name : "", owner);
	return buf;
}

/* Appends node i to the consumer list of each tensor it reads, and once to
 * each outer tensor its bodies read (stamp[t] == i: already counted for i).
 * The lists were sized by graph_link's count. */
static void add_uses(const fd_model *m, fd_graph *g, int32_t i, int32_t *stamp)
{
	const fd_node *n = &g->nodes[i];
	for (int32_t s = 0; s < n->n_inputs; s++) {
		int32_t t = n->inputs[s];
		if (t >= 0)
			g->tensors[t].consumers[g->tensors[t].n_consumers++] = i;
	}
	for (int32_t b = 0; b < n->n_subgraphs; b++) {
		const fd_graph *body = &m->graphs[n->subgraphs[b]];
		for (int32_t bt = 0; bt < body->n_tensors; bt++) {
			int32_t t = body->tensors[bt].outer;
			if (body->tensors[bt].kind != TENSOR_OUTER_SCOPE || t < 0 || t >= g->n_tensors || stamp[t] == i)
				continue;
			stamp[t] = i;
			g->tensors[t].consumers[g->tensors[t].n_consumers++] = i;
		}
	}
}

int graph_link(fd_model *m, fd_graph *g, fd_diags *d)
{
	fd_srcpos pos = srcpos_file(m->path);
	char in[512];
	int32_t *count = xcalloc((size_t)g->n_tensors + 1, sizeof *count);
	int32_t *stamp = xmalloc(((size_t)g->n_tensors + 1) * sizeof *stamp);
	int rc = -1;

	for (int32_t t = 0; t < g->n_tensors; t++) {
		g->tensors[t].producer = g->tensors[t].producer_port = FD_NONE;
		stamp[t] = FD_NONE;
	}
	for (int32_t i = 0; i < g->n_nodes; i++) {
		fd_node *n = &g->nodes[i];
		bool constant = node_is(n, "Constant");
		for (int32_t s = 0; s < n->n_outputs; s++) {
			int32_t t = n->outputs[s];
			if (t < 0)
				continue;
			fd_tensor *x = &g->tensors[t];
			if (x->producer >= 0) {
				const fd_node *o = &g->nodes[x->producer];
				diag_error(d, pos, "node '%s' (%s) writes '%s', which node '%s' (%s) also writes%s",
				           n->name, n->op_type, x->name, o->name, o->op_type, where(m, g, in, sizeof in));
				goto out;
			}
			if (x->kind != TENSOR_ACTIVATION && x->kind != TENSOR_CONSTANT) {
				diag_error(d, pos, "node '%s' (%s) writes '%s', which is %s%s", n->name, n->op_type,
				           x->name, kind_phrase(x->kind), where(m, g, in, sizeof in));
				goto out;
			}
			x->producer = i;
			x->producer_port = s;
			x->kind = constant ? TENSOR_CONSTANT : TENSOR_ACTIVATION;
		}
	}
	for (int32_t i = 0; i < g->n_nodes; i++) {
		fd_node *n = &g->nodes[i];
		for (int32_t s = 0; s < n->n_inputs; s++) {
			int32_t t = n->inputs[s];
			if (t < 0)
				continue;
			fd_tensor *x = &g->tensors[t];
			if (x->producer == i) {
				diag_error(d, pos, "node '%s' (%s) consumes its own output '%s'%s",
				           n->name, n->op_type, x->name, where(m, g, in, sizeof in));
				goto out;
			}
			if (x->producer < 0 && (x->kind == TENSOR_ACTIVATION || x->kind == TENSOR_CONSTANT)) {
				diag_error(d, pos, "node '%s' (%s) reads '%s', which nothing produces%s",
				           n->name, n->op_type, x->name, where(m, g, in, sizeof in));
				goto out;
			}
			count[t]++;
		}
		/* a body's outer-scope reads are reads of the node owning the body */
		for (int32_t b = 0; b < n->n_subgraphs; b++) {
			const fd_graph *body = &m->graphs[n->subgraphs[b]];
			for (int32_t bt = 0; bt < body->n_tensors; bt++) {
				int32_t t = body->tensors[bt].outer;
				if (body->tensors[bt].kind != TENSOR_OUTER_SCOPE || t < 0 || t >= g->n_tensors)
					continue;
				if (stamp[t] == i)
					continue;
				stamp[t] = i;
				if (g->tensors[t].producer == i) {
					diag_error(d, pos, "node '%s' (%s) reads its own output '%s' inside its subgraph '%s'",
					           n->name, n->op_type, g->tensors[t].name, body->name);
					goto out;
				}
				count[t]++;
			}
		}
	}
	for (int32_t o = 0; o < g->n_outputs; o++) {
		fd_tensor *x = &g->tensors[g->outputs[o]];
		x->is_graph_output = true;
		if (x->producer < 0 && (x->kind == TENSOR_ACTIVATION || x->kind == TENSOR_CONSTANT)) {
			diag_error(d, pos, "graph output '%s' is not produced by any node%s",
			           x->name, where(m, g, in, sizeof in));
			goto out;
		}
	}
	/* every tensor's list is a slice of one array: one allocation, no padding */
	size_t uses = 0;
	for (int32_t t = 0; t < g->n_tensors; t++)
		uses += (size_t)count[t];
	int32_t *all = arena_array(&m->arena, uses + 1, sizeof *all);
	for (int32_t t = 0; t < g->n_tensors; t++) {
		g->tensors[t].n_consumers = 0;
		g->tensors[t].consumers = count[t] ? all : NULL;
		all += count[t];
		stamp[t] = FD_NONE;
	}
	/* fill in file order; graph_topo_sort reorders them topologically */
	for (int32_t i = 0; i < g->n_nodes; i++)
		add_uses(m, g, i, stamp);
	rc = 0;
out:
	free(count);
	free(stamp);
	return rc;
}

/* A binary min-heap of node indices: only nodes that become ready behind the
 * file-order cursor go here, so a graph already in order never touches it. */
typedef struct { int32_t *v; size_t n; } minheap;

static void heap_push(minheap *h, int32_t x)
{
	size_t i = h->n++;
	while (i > 0 && h->v[(i - 1) / 2] > x) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

static int32_t heap_pop(minheap *h)
{
	int32_t top = h->v[0], x = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1] < h->v[c])
			c++;
		if (h->v[c] >= x)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
	return top;
}

/* Reports one cycle among the nodes left with inputs pending: every such node
 * has a pending producer, so walking producers backwards must repeat. */
static void report_cycle(fd_model *m, fd_graph *g, const int32_t *indeg, fd_diags *d)
{
	int32_t start = 0;
	while (start < g->n_nodes && indeg[start] == 0)
		start++;
	int32_t *seen = xmalloc((size_t)g->n_nodes * sizeof *seen); /* step at which visited, or -1 */
	int32_t *path = xmalloc((size_t)g->n_nodes * sizeof *path);
	int32_t *outer = xmalloc((size_t)g->n_nodes * sizeof *outer);
	for (int32_t i = 0; i < g->n_nodes; i++)
		seen[i] = outer[i] = -1;
	/* a pending producer of each node by any edge, outer-scope reads included */
	for (int32_t t = 0; t < g->n_tensors; t++) {
		const fd_tensor *x = &g->tensors[t];
		if (x->producer < 0 || indeg[x->producer] == 0)
			continue;
		for (int32_t c = 0; c < x->n_consumers; c++)
			if (outer[x->consumers[c]] < 0)
				outer[x->consumers[c]] = x->producer;
	}
	int32_t len = 0, cur = start;
	while (cur >= 0 && cur < g->n_nodes && seen[cur] < 0) {
		seen[cur] = len;
		path[len++] = cur;
		const fd_node *n = &g->nodes[cur];
		int32_t next = FD_NONE;
		for (int32_t s = 0; s < n->n_inputs && next < 0; s++) {
			int32_t t = n->inputs[s];
			if (t >= 0 && g->tensors[t].producer >= 0 && indeg[g->tensors[t].producer] > 0)
				next = g->tensors[t].producer;
		}
		cur = next >= 0 ? next : outer[cur];
	}
	free(outer);
	char text[1024];
	size_t used = 0;
	text[0] = '\0';
	if (cur >= 0) {
		/* the cycle is path[seen[cur]..len-1], walked against the edges: print it forwards */
		int32_t first = seen[cur], shown = 0;
		for (int32_t k = len - 1; k >= first && used < sizeof text - 64; k--, shown++) {
			if (shown == 8 && k > first) {
				used += (size_t)snprintf(text + used, sizeof text - used, " -> …");
				break;
			}
			used += (size_t)snprintf(text + used, sizeof text - used, "%s%s",
			                         shown ? " -> " : "", g->nodes[path[k]].name);
		}
		snprintf(text + used, sizeof text - used, " -> %s", g->nodes[path[len - 1]].name);
		cur = path[len - 1];
	} else {
		cur = start;
	}
	char in[512] = "";
	if (g->parent >= 0)
		snprintf(in, sizeof in, " in subgraph '%s'", g->name ? g->name : "");
	diag_error(d, srcpos_file(m->path), "node '%s' (%s) is on a cycle%s: %s",
	           g->nodes[cur].name, g->nodes[cur].op_type, in, text);
	free(seen);
	free(path);
}

/* Kahn's algorithm; among ready nodes the lowest file index goes first, so
 * the order is the file's wherever the edges allow. A cursor walks the file
 * order and only nodes that become ready behind it go through the heap: a
 * graph already in order costs O(N + E), a scrambled one O((N + E) log N).
 * Edges are the consumer lists, so a body's outer reads order its owner. */
int graph_topo_sort(fd_model *m, fd_graph *g, fd_diags *d)
{
	int32_t n = g->n_nodes;
	int32_t *indeg = xcalloc((size_t)n + 1, sizeof *indeg);
	int32_t *order = arena_array(&m->arena, (size_t)n + 1, sizeof *order);
	minheap heap = { xmalloc(((size_t)n + 1) * sizeof(int32_t)), 0 };

	for (int32_t t = 0; t < g->n_tensors; t++) {
		const fd_tensor *x = &g->tensors[t];
		if (x->producer >= 0)
			for (int32_t c = 0; c < x->n_consumers; c++)
				indeg[x->consumers[c]]++;
	}
	int32_t done = 0, cursor = 0;
	bool in_file_order = true;
	while (done < n) {
		int32_t next;
		if (heap.n) {
			next = heap_pop(&heap);
		} else {
			while (cursor < n && indeg[cursor] != 0)
				cursor++;
			if (cursor == n)
				break;
			next = cursor++;
		}
		indeg[next] = -1; /* emitted */
		in_file_order &= next == done;
		order[done] = next;
		g->nodes[next].topo = done++;
		const fd_node *nd = &g->nodes[next];
		for (int32_t s = 0; s < nd->n_outputs; s++) {
			int32_t t = nd->outputs[s];
			if (t < 0)
				continue;
			const fd_tensor *x = &g->tensors[t];
			for (int32_t c = 0; c < x->n_consumers; c++) {
				int32_t k = x->consumers[c];
				if (--indeg[k] == 0 && k < cursor)
					heap_push(&heap, k);
			}
		}
	}
	free(heap.v);
	if (done < n) {
		for (int32_t i = 0; i < n; i++)
			if (indeg[i] < 0)
				indeg[i] = 0;
		report_cycle(m, g, indeg, d);
		free(indeg);
		return -1;
	}
	g->topo_order = order;
	free(indeg);
	/* consumers in topological order: replay the nodes in that order, unless
	 * that is the file's order (most exports), in which graph_link filled them */
	if (in_file_order)
		return 0;
	for (int32_t t = 0; t < g->n_tensors; t++)
		g->tensors[t].n_consumers = 0;
	int32_t *tstamp = xmalloc(((size_t)g->n_tensors + 1) * sizeof *tstamp);
	for (int32_t t = 0; t < g->n_tensors; t++)
		tstamp[t] = FD_NONE;
	for (int32_t k = 0; k < n; k++)
		add_uses(m, g, order[k], tstamp);
	free(tstamp);
	return 0;
}

void model_move(fd_model *dst, fd_model *src)
{
	*dst = *src;
	dst->names.arena = &dst->arena;
	if (!dst->dimtab_borrowed)
		dimtab_rehome(dst->dimtab, &dst->arena, &dst->names);
	memset(src, 0, sizeof *src);
}

void model_release(fd_model *m)
{
	for (int32_t i = 0; i < m->n_graphs; i++) {
		strmap_release(&m->graphs[i].tensor_by_name);
		strmap_release(&m->graphs[i].node_by_name);
	}
	if (!m->dimtab_borrowed)
		dimtab_release(m->dimtab);
	strpool_release(&m->names);
	arena_release(&m->arena);
	memset(m, 0, sizeof *m);
}
