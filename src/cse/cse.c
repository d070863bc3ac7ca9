/* cse.c — the pass of cse.h: values numbered in topological order, each
 * later node of a value's first node dropped, its readers renamed. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/strmap.h"
#include "cse/cse.h"

void cse_result_init(fd_cse_result *r)
{
	memset(r, 0, sizeof *r);
	rewrite_init(&r->rewrite);
}

void cse_result_release(fd_cse_result *r)
{
	if (r->changed && r->model.n_graphs)   /* unless a session took it over */
		model_release(&r->model);
	vec_release(&r->events);
	rewrite_release(&r->rewrite);
	memset(r, 0, sizeof *r);
}

/* optimizer_utils::IsOperationDeterministic: the ONNX domain but its random
 * ops and Dropout; of com.microsoft only the Q/DQ ops; no other domain. */
static bool deterministic(const fd_node *n)
{
	static const char *const onnx_random[] = { "RandomUniform", "RandomNormal", "RandomUniformLike",
	                                           "RandomNormalLike", "Multinomial", "Dropout" };
	if (!n->domain[0]) {
		for (size_t k = 0; k < sizeof onnx_random / sizeof *onnx_random; k++)
			if (!strcmp(n->op_type, onnx_random[k]))
				return false;
		return true;
	}
	if (!strcmp(n->domain, "com.microsoft"))
		return !strcmp(n->op_type, "QuantizeLinear") || !strcmp(n->op_type, "DequantizeLinear");
	return false;
}

/* IsNodeSupported; a Constant is an initializer to onnxruntime, a value of
 * its own, never a node to merge. */
static bool mergeable(const fd_node *n)
{
	return n->n_subgraphs == 0 && deterministic(n) && strcmp(n->op_type, "Constant") &&
	       !(!n->domain[0] && !strcmp(n->op_type, "DequantizeLinear"));
}

typedef VEC(char) key_buf;

static void put(key_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(key_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	vec_grow(b, b->n + (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b->items + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

static void put_bytes(key_buf *b, const char *s)
{
	put(b, "%zu:%s", strlen(s), s);
}

/* One attribute into the key; false for a kind AreEqual never finds equal
 * (tensors, graphs, sparse tensors, types) or a NaN (f() == f() fails). */
static bool put_attr(key_buf *b, const fd_attr *a)
{
	put(b, "\x1e");
	put_bytes(b, a->name);
	put(b, "=%d:", (int)a->type);
	switch (a->type) {
	case ATTR_FLOAT:
		if (isnan(a->u.f))
			return false;
		put(b, "%a", a->u.f == 0 ? 0.0 : a->u.f);   /* -0.0 == 0.0 */
		return true;
	case ATTR_INT:
		put(b, "%" PRId64, a->u.i);
		return true;
	case ATTR_STRING:
		put_bytes(b, a->u.s);
		return true;
	case ATTR_FLOATS:
		put(b, "%" PRId64, a->count);
		for (int64_t k = 0; k < a->count; k++) {
			if (isnan(a->u.floats[k]))
				return false;
			put(b, ",%a", a->u.floats[k] == 0 ? 0.0 : a->u.floats[k]);
		}
		return true;
	case ATTR_INTS:
		put(b, "%" PRId64, a->count);
		for (int64_t k = 0; k < a->count; k++)
			put(b, ",%" PRId64, a->u.ints[k]);
		return true;
	case ATTR_STRINGS:
		put(b, "%" PRId64, a->count);
		for (int64_t k = 0; k < a->count; k++) {
			put(b, ",");
			put_bytes(b, a->u.strings[k]);
		}
		return true;
	default:
		return false;
	}
}

static int by_attr_name(const void *x, const void *y)
{
	return strcmp((*(const fd_attr *const *)x)->name, (*(const fd_attr *const *)y)->name);
}

/* The node's value key without the output index: op, domain, input values
 * (trailing omitted inputs dropped, as Normalize does), attributes by name.
 * false when the node can equal no other. */
static bool node_key(const fd_node *n, const int32_t *value, key_buf *b)
{
	b->n = 0;
	put(b, "%s\x1f%s\x1f", n->op_type, n->domain);
	int32_t last = n->n_inputs;
	while (last > 0 && n->inputs[last - 1] < 0)
		last--;
	for (int32_t j = 0; j < last; j++)
		put(b, n->inputs[j] < 0 ? "-," : "%" PRId32 ",", n->inputs[j] < 0 ? 0 : value[n->inputs[j]]);
	if (n->n_attrs == 0)
		return true;
	const fd_attr **sorted = xmalloc((size_t)n->n_attrs * sizeof *sorted);
	for (int32_t k = 0; k < n->n_attrs; k++)
		sorted[k] = &n->attrs[k];
	qsort(sorted, (size_t)n->n_attrs, sizeof *sorted, by_attr_name);
	bool ok = true;
	for (int32_t k = 0; k < n->n_attrs && ok; k++)
		ok = put_attr(b, sorted[k]);
	free(sorted);
	return ok;
}

/* Every reader of t names it among its inputs (none reads it from inside a
 * body it owns). */
static bool read_explicitly(const fd_graph *g, int32_t t)
{
	const fd_tensor *x = &g->tensors[t];
	for (int32_t c = 0; c < x->n_consumers; c++) {
		const fd_node *n = &g->nodes[x->consumers[c]];
		bool named = false;
		for (int32_t j = 0; j < n->n_inputs && !named; j++)
			named = n->inputs[j] == t;
		if (!named)
			return false;
	}
	return true;
}

typedef struct cse_state {
	const fd_graph *g;
	int32_t *value;        /* per tensor: its value number, -1 before it is reached */
	int32_t *rep_node;     /* per value: the node whose output represents it, FD_NONE for a non-op value */
	int32_t *rep_port;
	int32_t n_values;
	int32_t *order;        /* onnxruntime's topological order of the nodes */
	const char **repl;     /* per tensor: the representative's output its readers read instead, or NULL */
} cse_state;

static int32_t new_value(cse_state *s, int32_t node, int32_t port)
{
	s->rep_node[s->n_values] = node;
	s->rep_port[s->n_values] = port;
	return s->n_values++;
}

static int by_index_desc(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
	return (a < b) - (a > b);
}

/* onnxruntime's topological order, which picks each value's representative
 * (GraphViewer: ReverseDFSFrom the leaves, NodeCompare by index): a depth
 * first walk up the input nodes from the nodes nothing reads, the last leaf
 * and the highest-numbered input node first, each node placed when the walk
 * leaves it. Not the file's order: of two equal Shapes the later one may
 * come first. order gets every node of g. */
static void ort_topo_order(const fd_graph *g, int32_t *order)
{
	size_t nn = (size_t)g->n_nodes;
	int32_t *n_out = xcalloc(nn + 1, sizeof *n_out);
	for (int32_t t = 0; t < g->n_tensors; t++)
		if (g->tensors[t].producer >= 0)
			n_out[g->tensors[t].producer] += g->tensors[t].n_consumers;
	/* the stack holds node ids, a leave entry as -id - 1; each node is
	 * entered once and pushes at most its readers' producers */
	size_t cap = nn + 1, top = 0;
	int32_t *stack = xmalloc(cap * sizeof *stack);
	for (int32_t i = 0; i < g->n_nodes; i++)   /* the last leaf on top */
		if (!n_out[i])
			stack[top++] = i;
	bool *visited = xcalloc(nn + 1, sizeof *visited);
	int32_t *ins = xmalloc((nn + 1) * sizeof *ins);
	int32_t placed = 0;
	while (top > 0) {
		int32_t e = stack[--top];
		if (e < 0) {
			order[placed++] = -e - 1;
			continue;
		}
		if (visited[e])
			continue;
		visited[e] = true;
		int32_t n_ins = 0;
		const fd_node *n = &g->nodes[e];
		for (int32_t j = 0; j < n->n_inputs; j++) {
			int32_t t = n->inputs[j];
			int32_t p = t >= 0 ? g->tensors[t].producer : FD_NONE;
			bool seen = p < 0;
			for (int32_t k = 0; k < n_ins && !seen; k++)
				seen = ins[k] == p;
			if (!seen)
				ins[n_ins++] = p;
		}
		/* pushed in ascending order: the highest index is walked first */
		qsort(ins, (size_t)n_ins, sizeof *ins, by_index_desc);
		if (top + (size_t)n_ins + 1 > cap) {
			cap = (top + (size_t)n_ins + 1) * 2;
			stack = xrealloc(stack, cap * sizeof *stack);
		}
		stack[top++] = -e - 1;
		for (int32_t k = n_ins - 1; k >= 0; k--)
			if (!visited[ins[k]])
				stack[top++] = ins[k];
	}
	/* nodes on a cycle the walk could not reach keep the file's order */
	for (int32_t i = 0; i < g->n_nodes; i++)
		if (!visited[i])
			order[placed++] = i;
	free(n_out);
	free(stack);
	free(visited);
	free(ins);
}

/* ApplyImpl's first loop: every tensor its value. */
static void number_values(cse_state *s)
{
	const fd_graph *g = s->g;
	strmap seen;
	strmap_init(&seen);
	fd_arena keys;
	arena_init(&keys);
	key_buf b = { 0 };
	for (int32_t p = 0; p < g->n_nodes; p++) {
		const fd_node *n = &g->nodes[s->order[p]];
		for (int32_t j = 0; j < n->n_inputs; j++)
			if (n->inputs[j] >= 0 && s->value[n->inputs[j]] < 0)
				s->value[n->inputs[j]] = new_value(s, FD_NONE, 0);
		bool keyed = mergeable(n) && node_key(n, s->value, &b);
		size_t base = b.n;
		for (int32_t k = 0; k < n->n_outputs; k++) {
			int32_t t = n->outputs[k];
			if (t < 0)
				continue;
			if (!keyed) {
				s->value[t] = new_value(s, s->order[p], k);
				continue;
			}
			b.n = base;
			put(&b, "#%" PRId32, k);
			int32_t v = strmap_get(&seen, b.items);
			if (v < 0) {
				v = new_value(s, s->order[p], k);
				strmap_put(&seen, arena_strdup(&keys, b.items), v);
			}
			s->value[t] = v;
		}
	}
	vec_release(&b);
	strmap_release(&seen);
	arena_release(&keys);
}

/* A reader of a replaced tensor, its inputs renamed. */
static void rename_reader(fd_cse_result *r, const cse_state *s, int32_t i)
{
	const fd_node *n = &s->g->nodes[i];
	fd_arena *ar = &r->rewrite.arena;
	fd_fused_node *f = rewrite_add(&r->rewrite, s->g->index);
	f->members = arena_array(ar, 1, sizeof *f->members);
	f->members[0] = i;
	f->n_members = 1;
	f->name = n->name;
	f->op_type = n->op_type;
	f->domain = n->domain;
	f->n_inputs = n->n_inputs;
	f->inputs = arena_array(ar, (size_t)n->n_inputs + 1, sizeof *f->inputs);
	for (int32_t j = 0; j < n->n_inputs; j++) {
		int32_t t = n->inputs[j];
		f->inputs[j] = t < 0 ? "" : s->repl[t] ? s->repl[t] : s->g->tensors[t].name;
	}
	f->n_outputs = n->n_outputs;
	f->outputs = arena_array(ar, (size_t)n->n_outputs + 1, sizeof *f->outputs);
	for (int32_t k = 0; k < n->n_outputs; k++)
		f->outputs[k] = n->outputs[k] < 0 ? "" : s->g->tensors[n->outputs[k]].name;
	f->n_attrs = n->n_attrs;
	f->attrs = n->attrs;
}

/* ApplyImpl's second loop: each output whose value another node represents
 * is replaced (not a graph output); the node leaves when none of its
 * outputs is still read. */
static void replace(fd_cse_result *r, cse_state *s)
{
	const fd_graph *g = s->g;
	bool *removed = xcalloc((size_t)g->n_nodes + 1, sizeof *removed);
	for (int32_t p = 0; p < g->n_nodes; p++) {
		int32_t i = s->order[p];
		const fd_node *n = &g->nodes[i];
		bool any = false, stays = false;
		int32_t into = FD_NONE;
		for (int32_t k = 0; k < n->n_outputs; k++) {
			int32_t t = n->outputs[k];
			if (t < 0)
				continue;
			int32_t v = s->value[t];
			if (s->rep_node[v] == i || s->rep_node[v] == FD_NONE) {
				stays = stays || g->tensors[t].n_consumers > 0 || g->tensors[t].is_graph_output;
				continue;
			}
			if (g->tensors[t].is_graph_output) {
				stays = true;
				continue;
			}
			const fd_node *rn = &g->nodes[s->rep_node[v]];
			s->repl[t] = g->tensors[rn->outputs[s->rep_port[v]]].name;
			into = s->rep_node[v];
			any = true;
			stays = stays || !read_explicitly(g, t);
		}
		if (!any)
			continue;
		removed[i] = !stays;
		fd_cse_event e = { n->name, n->op_type, g->nodes[into].name, NULL };
		e.text = arena_printf(&r->rewrite.arena, "merged into %s (%s of the same inputs and attributes: "
		                      "common-subexpression elimination)%s", e.into, n->op_type,
		                      stays ? "; stays for the readers of an output not replaced" : "");
		vec_push(&r->events, e);
		r->n_merged += removed[i];
	}
	for (int32_t i = 0; i < g->n_nodes; i++) {
		const fd_node *n = &g->nodes[i];
		if (removed[i]) {
			fd_fused_node *f = rewrite_add(&r->rewrite, g->index);
			f->members = arena_array(&r->rewrite.arena, 1, sizeof *f->members);
			f->members[0] = i;
			f->n_members = 1;
			f->name = n->name;
			f->removed = true;
			continue;
		}
		bool renamed = false;
		for (int32_t j = 0; j < n->n_inputs && !renamed; j++)
			renamed = n->inputs[j] >= 0 && s->repl[n->inputs[j]];
		if (renamed)
			rename_reader(r, s, i);
	}
	free(removed);
}

/* One graph's values numbered and its merged nodes into r's rewrite. */
static void eliminate_graph(const fd_graph *g, fd_cse_result *r)
{
	size_t nt = (size_t)g->n_tensors + 1;
	cse_state s = { .g = g };
	s.value = xmalloc(nt * sizeof *s.value);
	for (size_t t = 0; t < nt; t++)
		s.value[t] = -1;
	s.rep_node = xmalloc(nt * sizeof *s.rep_node);
	s.rep_port = xmalloc(nt * sizeof *s.rep_port);
	s.repl = xcalloc(nt, sizeof *s.repl);
	s.order = xmalloc(((size_t)g->n_nodes + 1) * sizeof *s.order);
	ort_topo_order(g, s.order);
	number_values(&s);
	replace(r, &s);
	free(s.value);
	free(s.rep_node);
	free(s.rep_port);
	free(s.repl);
	free(s.order);
}

int cse_eliminate(const fd_model *m, fd_cse_result *r, fd_diags *d)
{
	cse_result_release(r);
	cse_result_init(r);
	/* the bodies too, each on its own (ApplyImpl's Recurse): a value read
	 * from an enclosing graph is a value of its own there */
	for (int32_t gi = 0; gi < m->n_graphs; gi++)
		eliminate_graph(&m->graphs[gi], r);
	int rc = 0;
	if (r->rewrite.nodes.n > 0) {
		rc = rewrite_build_model(m, &r->rewrite, &r->model, &r->map, d);
		r->changed = rc == 0;
	}
	if (rc < 0) {
		cse_result_release(r);
		cse_result_init(r);
	}
	return rc;
}

const fd_cse_event *cse_event_of(const fd_cse_result *r, const char *name)
{
	for (size_t k = 0; k < r->events.n; k++)
		if (!strcmp(r->events.items[k].node, name))
			return &r->events.items[k];
	return NULL;
}
