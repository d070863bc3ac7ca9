/* estimate_bodies.c — what a node that owns bodies (If, Loop, Scan) holds
 * while it runs, on top of what is live in its own graph: the peak of the
 * body it runs, less the node's outputs (the body's peak counts them as its
 * own). An If runs the branch its condition picks when the condition is
 * known (a constant, or an input given with --value), else the larger
 * branch: the one at least the other for every binding (unknown when
 * neither is). Bodies are estimated before the graphs that own them
 * (estimate_compute), so their peaks are there to read. Also the words that
 * name a branch and its condition ("else branch (sr != 16000)"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "estimate/estimate_internal.h"

/* The index of the body of node n named attr (then_branch, else_branch), -1. */
static int32_t body_named(const fd_graph *g, const fd_node *n, const fd_model *m, const char *attr)
{
	for (int32_t k = 0; k < n->n_subgraphs; k++) {
		int32_t b = n->subgraphs[k];
		if (b > g->index && b < m->n_graphs && m->graphs[b].owner_attr && !strcmp(m->graphs[b].owner_attr, attr))
			return b;
	}
	return -1;
}

/* An If's condition at the bindings: 1 true, 0 false, -1 not known. */
static int if_condition(const fd_graph *g, const fd_node *n)
{
	if (n->n_inputs < 1 || n->inputs[0] < 0)
		return -1;
	const fd_const *v = g->tensors[n->inputs[0]].value;
	if (v && v->count >= 1 && v->i64)
		return v->i64[0] != 0;
	if (v && v->count >= 1 && v->f64)
		return v->f64[0] != 0;
	return -1;
}

static fd_sint body_peak(const fd_estimate *e, int32_t b, int side)
{
	if (b < 0 || b >= e->n_graphs)
		return sint_unknown();
	return side ? e->graphs[b].after.peak_f : e->graphs[b].before.peak_f;
}

/* The body node n runs (graph index, -1 none) and its peak. */
static int32_t run_body(const fd_estimate *e, const fd_graph *g, const fd_node *n, int side, fd_sint *peak)
{
	const fd_model *m = e->r->ctx->model;
	*peak = sint_unknown();
	if (!strcmp(n->op_type, "If")) {
		int32_t t = body_named(g, n, m, "then_branch"), f = body_named(g, n, m, "else_branch");
		int cond = if_condition(g, n);
		if (cond >= 0) {
			int32_t b = cond ? t : f;
			*peak = body_peak(e, b, side);
			return b;
		}
		fd_sint pt = body_peak(e, t, side), pf = body_peak(e, f, side);
		if (sint_ge_always(pt, pf)) {
			*peak = pt;
			return t;
		}
		if (sint_ge_always(pf, pt)) {
			*peak = pf;
			return f;
		}
		return t >= 0 ? t : f;   /* neither is always the larger: the peak is not known */
	}
	for (int32_t k = 0; k < n->n_subgraphs; k++)
		if (n->subgraphs[k] > g->index && n->subgraphs[k] < e->n_graphs) {
			*peak = body_peak(e, n->subgraphs[k], side);
			return n->subgraphs[k];
		}
	return -1;
}

bool est_body_extras(const fd_estimate *e, const est_cache *c, int32_t gi, int side, est_extra *x)
{
	memset(x, 0, sizeof *x);
	if (!e || !e->r || !e->r->ctx || gi < 0 || gi >= e->n_graphs)
		return false;
	const fd_graph *g = e->r->ctx->graphs[gi].g;
	bool any = false;
	for (int32_t i = 0; i < g->n_nodes && !any; i++)
		any = g->nodes[i].n_subgraphs > 0;
	if (!any)
		return false;
	size_t nn = (size_t)g->n_nodes;
	x->bytes = xcalloc(nn, sizeof *x->bytes);
	x->size = xcalloc(nn, sizeof *x->size);
	x->peak = xcalloc(nn, sizeof *x->peak);
	x->body = xmalloc(nn * sizeof *x->body);
	for (int32_t i = 0; i < g->n_nodes; i++) {
		const fd_node *n = &g->nodes[i];
		x->body[i] = -1;
		x->size[i] = x->peak[i] = sint_num(0);
		if (!n->n_subgraphs)
			continue;
		fd_sint peak;
		x->body[i] = run_body(e, g, n, side, &peak);
		x->peak[i] = peak;
		/* its outputs are live in this graph already: the body's peak holds them too */
		fd_sint outs = sint_num(0);
		for (int32_t k = 0; k < n->n_outputs; k++) {
			int32_t t = n->outputs[k];
			if (t < 0)
				continue;
			fd_sint s = c && c->tsize[gi] ? c->tsize[gi][t] : tensor_bytes_sym(&g->tensors[t]);
			outs = sint_add(outs, s);
		}
		fd_sint extra = sint_defined(outs) && sint_ge_always(peak, outs) ? sint_sub(peak, outs) : peak;
		x->size[i] = extra;
		int64_t v;
		x->bytes[i] = !extra.e && sint_value(extra, &v) ? v : -1;
	}
	return true;
}

void est_body_extras_release(est_extra *x)
{
	free(x->bytes);
	free(x->size);
	free(x->peak);
	free(x->body);
	memset(x, 0, sizeof *x);
}

char *estimate_body_words(const fd_model *m, int32_t body, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!m || body <= 0 || body >= m->n_graphs)
		return buf;
	const fd_graph *b = &m->graphs[body], *g = &m->graphs[b->parent];
	const char *attr = b->owner_attr ? b->owner_attr : "body";
	bool then = !strcmp(attr, "then_branch"), other = !strcmp(attr, "else_branch");
	if ((!then && !other) || b->owner_node < 0) {
		snprintf(buf, size, "%s", attr);
		return buf;
	}
	const fd_node *n = &g->nodes[b->owner_node];
	const fd_tensor *cond = n->n_inputs > 0 && n->inputs[0] >= 0 ? &g->tensors[n->inputs[0]] : NULL;
	const fd_node *p = cond && cond->producer >= 0 ? &g->nodes[cond->producer] : NULL;
	/* Equal(x, constant): the condition in the model's own terms */
	if (p && !strcmp(p->op_type, "Equal") && p->n_inputs == 2 && p->inputs[0] >= 0 && p->inputs[1] >= 0) {
		const fd_tensor *x = &g->tensors[p->inputs[0]], *k = &g->tensors[p->inputs[1]];
		if (k->value && k->value->count == 1 && k->value->i64) {
			snprintf(buf, size, "%s branch (%s %s %lld)", then ? "then" : "else", x->name, then ? "==" : "!=",
			         (long long)k->value->i64[0]);
			return buf;
		}
	}
	snprintf(buf, size, "%s branch (%s %s)", then ? "then" : "else", cond ? cond->name : "?", then ? "true" : "false");
	return buf;
}
