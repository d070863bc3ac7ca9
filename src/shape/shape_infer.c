/* shape_infer.c — the shape inference driver. It merges the per-family op
 * tables into one sorted table once per process (pthread_once: models may
 * be inferred on several threads), then walks every graph in topological
 * order and calls each node's fn, which fills dtype, shape and small constant
 * values of the node's outputs. Bodies of If / Loop / Scan are walked when
 * their owner node is reached, after their outer-scope reads and inputs are
 * known, so that the owner can take its outputs from the body's.
 * Unknown ops and domains leave their outputs as the model declares them.
 * */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "shape/shape_infer.h"

static const shape_op *const families[] = {
	shape_ops_elementwise, shape_ops_nn, shape_ops_tensor, shape_ops_gen,
	shape_ops_misc, shape_ops_contrib, shape_ops_control,
};

#define TABLE_MAX 1024
static shape_op table[TABLE_MAX];
static size_t table_n;

static int op_cmp(const void *a, const void *b)
{
	const shape_op *x = a, *y = b;
	int r = strcmp(x->domain, y->domain);
	return r ? r : strcmp(x->op_type, y->op_type);
}

static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_build(void)
{
	for (size_t f = 0; f < sizeof families / sizeof *families; f++)
		for (const shape_op *r = families[f]; r->op_type && table_n < TABLE_MAX; r++)
			table[table_n++] = *r;
	qsort(table, table_n, sizeof *table, op_cmp);
}

/* Only the default domain ("" however the model spelled it) and
 * com.microsoft have rows. */
static const char *domain_class(const char *domain)
{
	if (!domain[0])
		return "";
	if (!strcmp(domain, "com.microsoft"))
		return "com.microsoft";
	return NULL;
}

static const shape_op *table_find(const char *domain, const char *op_type)
{
	shape_op key = { domain, op_type, NULL, 0 };
	return bsearch(&key, table, table_n, sizeof *table, op_cmp);
}

static int64_t opset_of(const fd_model *m, const char *cls)
{
	for (int32_t i = 0; i < m->n_opsets; i++) {
		const char *d = domain_class(m->opsets[i].domain);
		if (d && !strcmp(d, cls))
			return m->opsets[i].version;
	}
	/* no import: the newest rules read attributes and inputs both */
	return cls[0] ? 1 : 21;
}

/* Op types and domains are interned in the model, so a node's row can be
 * remembered by pointer: most nodes then skip the binary search. */
#define OP_CACHE 256
typedef struct op_cache_slot {
	const char *op_type, *domain;
	const shape_op *op;     /* NULL: no row */
} op_cache_slot;

typedef struct infer_state {
	fd_model *m;
	fd_diags *d;
	bool *done;             /* per graph */
	dims_cache dims;
	bool *input_symbol;     /* by symbol index (dimtab) */
	int64_t opset_onnx, opset_ms;
	op_cache_slot cache[OP_CACHE];
} infer_state;

static const shape_op *row_for(infer_state *st, const fd_node *n)
{
	uintptr_t h = ((uintptr_t)n->op_type >> 4) ^ ((uintptr_t)n->domain >> 6);
	op_cache_slot *slot = &st->cache[h % OP_CACHE];
	const char *cls;

	if (slot->op_type == n->op_type && slot->domain == n->domain && n->op_type)
		return slot->op;
	cls = domain_class(n->domain);
	slot->op_type = n->op_type;
	slot->domain = n->domain;
	slot->op = cls && n->op_type ? table_find(cls, n->op_type) : NULL;
	return slot->op;
}

static void infer_graph(infer_state *st, int32_t gi);

/* A body's reads of the enclosing graph see what is known there. */
static void resolve_outer(fd_model *m, fd_graph *g)
{
	if (g->parent < 0 || g->parent >= m->n_graphs)
		return;
	const fd_graph *p = &m->graphs[g->parent];
	for (int32_t t = 0; t < g->n_tensors; t++) {
		fd_tensor *x = &g->tensors[t];
		if (x->kind != TENSOR_OUTER_SCOPE || x->outer < 0 || x->outer >= p->n_tensors)
			continue;
		const fd_tensor *o = &p->tensors[x->outer];
		if (x->dtype == DT_UNDEFINED)
			x->dtype = o->dtype;
		if (x->shape.rank < 0)
			x->shape = o->shape;
		if (!x->value)
			x->value = o->value;
	}
}

static void fill_input(infer_state *st, fd_tensor *t, int32_t dtype, int32_t rank, const fd_dim *dims)
{
	if (t->dtype == DT_UNDEFINED)
		t->dtype = dtype;
	if (t->shape.rank >= 0 || rank < 0)
		return;
	t->shape.rank = rank;
	t->shape.dims = shape_dims_shared(&st->dims, &st->m->arena, rank, dims);
}

/* Loop body inputs: (iteration, condition, carried...) from the Loop's
 * inputs; Scan body inputs: states, then one slice of each scan input. */
static void body_inputs(infer_state *st, const fd_graph *pg, const fd_node *n, fd_graph *body)
{
	const char *cls = domain_class(n->domain);

	if (!cls || cls[0])
		return;
	if (!strcmp(n->op_type, "Loop")) {
		for (int32_t k = 0; k < body->n_inputs; k++) {
			fd_tensor *t = &body->tensors[body->inputs[k]];
			if (k == 0)
				fill_input(st, t, DT_INT64, 0, NULL);
			else if (k == 1)
				fill_input(st, t, DT_BOOL, 0, NULL);
			else if (k < n->n_inputs && n->inputs[k] != FD_NONE) {
				const fd_tensor *x = &pg->tensors[n->inputs[k]];
				fill_input(st, t, x->dtype, x->shape.rank, x->shape.dims);
			}
		}
	} else if (!strcmp(n->op_type, "Scan") && st->opset_onnx >= 9) {
		const fd_attr *a = node_attr(n, "num_scan_inputs");
		const fd_attr *ax = node_attr(n, "scan_input_axes");
		int64_t n_scan = a && a->type == ATTR_INT ? a->u.i : 0;
		if (n_scan < 0 || n_scan > n->n_inputs)
			return;
		int32_t n_state = n->n_inputs - (int32_t)n_scan;
		for (int32_t k = 0; k < body->n_inputs && k < n->n_inputs; k++) {
			fd_tensor *t = &body->tensors[body->inputs[k]];
			if (n->inputs[k] == FD_NONE)
				continue;
			const fd_tensor *x = &pg->tensors[n->inputs[k]];
			if (k < n_state) {
				fill_input(st, t, x->dtype, x->shape.rank, x->shape.dims);
				continue;
			}
			int64_t axis = 0;
			int32_t j = k - n_state, ax_n;
			if (ax && ax->type == ATTR_INTS && j < ax->count)
				axis = ax->u.ints[j];
			if (x->shape.rank < 1 || x->shape.rank > SHAPE_MAX_RANK ||
			    !shape_axis_norm(axis, x->shape.rank, &ax_n)) {
				fill_input(st, t, x->dtype, -1, NULL);
				continue;
			}
			fd_dim dims[SHAPE_MAX_RANK];
			int32_t r = 0;
			for (int32_t i = 0; i < x->shape.rank; i++)
				if (i != ax_n)
					dims[r++] = x->shape.dims[i];
			fill_input(st, t, x->dtype, r, dims);
		}
	}
}

static void infer_node(infer_state *st, fd_graph *g, const fd_node *n)
{
	const shape_op *op;
	shape_ctx c;

	for (int32_t s = 0; s < n->n_subgraphs; s++) {
		int32_t bi = n->subgraphs[s];
		if (bi <= 0 || bi >= st->m->n_graphs || st->done[bi])
			continue;
		body_inputs(st, g, n, &st->m->graphs[bi]);
		infer_graph(st, bi);
	}
	if (!(op = row_for(st, n)))
		return;
	c.m = st->m;
	c.dims = &st->dims;
	c.input_symbol = st->input_symbol;
	c.g = g;
	c.n = n;
	c.d = st->d;
	c.opset = op->domain[0] ? st->opset_ms : st->opset_onnx;
	c.arg = op->arg;
	op->fn(&c);
	shape_onnx_mode_settle(&c);
}

static void infer_graph(infer_state *st, int32_t gi)
{
	fd_graph *g = &st->m->graphs[gi];

	st->done[gi] = true;
	resolve_outer(st->m, g);
	if (!g->topo_order)
		return;
	for (int32_t k = 0; k < g->n_nodes; k++) {
		int32_t ni = g->topo_order[k];
		if (ni >= 0 && ni < g->n_nodes)
			infer_node(st, g, &g->nodes[ni]);
	}
}

int shape_infer(fd_model *m, fd_diags *d)
{
	infer_state st = { 0 };

	if (!m || m->n_graphs <= 0)
		return 0;
	pthread_once(&table_once, table_build);
	st.m = m;
	st.d = d;
	st.done = xcalloc((size_t)m->n_graphs, sizeof *st.done);
	/* symbols the graph inputs carry: the ones a user binds */
	int32_t n_sym = dimtab_n_symbols(m->dimtab);
	st.input_symbol = xcalloc((size_t)n_sym + 1, sizeof *st.input_symbol);
	const fd_graph *g0 = &m->graphs[0];
	for (int32_t i = 0; i < g0->n_inputs; i++) {
		const fd_shape *s = &g0->tensors[g0->inputs[i]].shape;
		for (int32_t k = 0; k < s->rank; k++) {
			const char *names[16];
			int n = dexpr_symbols(s->dims[k].expr, false, names, 16);
			for (int j = 0; j < n && j < 16; j++) {
				int32_t at = dimtab_find_symbol(m->dimtab, names[j]);
				if (at >= 0 && at < n_sym)
					st.input_symbol[at] = true;
			}
		}
	}
	st.opset_onnx = opset_of(m, "");
	st.opset_ms = opset_of(m, "com.microsoft");
	size_t errors = d ? d->errors : 0;
	for (int32_t gi = 0; gi < m->n_graphs; gi++)
		if (!st.done[gi])
			infer_graph(&st, gi);
	shape_onnx_mode_finish(m);
	free(st.done);
	free(st.input_symbol);
	shape_dims_cache_release(&st.dims);
	return d && d->errors > errors ? -1 : 0;   /* bindings the model cannot run with */
}
