/* estimate_bodies.c — what a node that owns bodies (If, Loop, Scan) holds
 * while it runs, on top of what is live in its own graph: the peak of the
 * body it runs, less the node's outputs (the body's peak counts them as its
 * own). An If runs the branch its condition picks when the condition is
 * known (a constant, or an input given with --value), else the larger
 * branch: the one at least the other for every binding (unknown when
 * neither is; then both branches' formulas, which the liveness takes as
 * as many candidates at the If's step). Bodies are estimated before the graphs that own them
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

/* The formulas a body's peak is the max of: one when it is one, its
 * peak_max when those are exact; added to *n (pruned of those another is
 * always at least); false when there are none or too many. */
static bool add_body_alts(const fd_estimate *e, int32_t b, int side, fd_sint *alts, int *n)
{
	if (b < 0 || b >= e->n_graphs)
		return false;
	const fd_liveness *lv = side ? &e->graphs[b].after : &e->graphs[b].before;
	const fd_sint *f = sint_defined(lv->peak_f) ? &lv->peak_f : lv->peak_max;
	int nf = sint_defined(lv->peak_f) ? 1 : lv->peak_max_lower ? 0 : lv->n_peak_max;
	if (nf == 0)
		return false;
	for (int i = 0; i < nf; i++)
		if (!est_max_insert(alts, n, f[i], 0))
			return false;
	return true;
}

/* Node n's body peak as a few formulas when it is not one: the body's own
 * max, or for an If whose condition is not known both branches'. */
static int body_alts(const fd_estimate *e, const fd_graph *g, const fd_node *n, int32_t body, int side,
                     fd_sint *alts)
{
	int k = 0;
	const fd_model *m = e->r->ctx->model;
	if (!strcmp(n->op_type, "If") && if_condition(g, n) < 0) {
		if (!add_body_alts(e, body_named(g, n, m, "then_branch"), side, alts, &k) ||
		    !add_body_alts(e, body_named(g, n, m, "else_branch"), side, alts, &k))
			return 0;
		return k;
	}
	return add_body_alts(e, body, side, alts, &k) ? k : 0;
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
	size_t n_rows = 0;
	for (int32_t i = 0; i < g->n_nodes; i++)
		n_rows += g->nodes[i].n_subgraphs > 0;
	x->n_alt = xcalloc(nn, sizeof *x->n_alt);
	x->alt_row = xmalloc(nn * sizeof *x->alt_row);
	x->alt = xcalloc(n_rows, sizeof *x->alt);
	x->alt_peak = xcalloc(n_rows, sizeof *x->alt_peak);
	int32_t row = 0;
	for (int32_t i = 0; i < g->n_nodes; i++) {
		const fd_node *n = &g->nodes[i];
		x->body[i] = -1;
		x->alt_row[i] = -1;
		x->size[i] = x->peak[i] = sint_num(0);
		if (!n->n_subgraphs)
			continue;
		int32_t r = x->alt_row[i] = row++;
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
		/* An If's outputs are its branch's, live at the branch's end, so its
		 * peak holds them for every binding even where the formulas cannot
		 * show it (a floor that reaches 0 only at sizes no model runs with) */
		bool holds_outs = !strcmp(n->op_type, "If");
		fd_sint extra = sint_defined(outs) && (holds_outs || sint_ge_always(peak, outs)) ? sint_sub(peak, outs) : peak;
		x->size[i] = extra;
		if (!sint_defined(peak) && sint_defined(outs)) {
			int k = body_alts(e, g, n, x->body[i], side, x->alt_peak[r]);
			for (int a = 0; a < k; a++)
				x->alt[r][a] = holds_outs || sint_ge_always(x->alt_peak[r][a], outs) ? sint_sub(x->alt_peak[r][a], outs)
				                                                                        : x->alt_peak[r][a];
			x->n_alt[i] = (int8_t)(k > 1 ? k : 0);
			if (k == 1) {   /* one after all (a branch always the larger) */
				x->peak[i] = x->alt_peak[r][0];
				x->size[i] = x->alt[r][0];
			}
		}
		int64_t v;
		x->bytes[i] = !x->size[i].e && sint_value(x->size[i], &v) ? v : -1;
	}
	return true;
}

void est_body_extras_release(est_extra *x)
{
	free(x->bytes);
	free(x->size);
	free(x->peak);
	free(x->body);
	free(x->n_alt);
	free(x->alt_row);
	free(x->alt);
	free(x->alt_peak);
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
