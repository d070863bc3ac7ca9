/* suggest_chain.c — suggest_chain: the pattern of one chain a user names
 * by its first and last node, and the rule made from that chain alone. The
 * chain is every node on a dataflow path from the one to the other; it
 * must be a piece a rule can match as the search's are (suggest.h): nodes
 * no rule fused that a fusion can take, each after the first reading one
 * before it, no tensor but the last node's leaving it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/clock.h"
#include "rounds/fuse.h"
#include "suggest/suggest_internal.h"

static int chain_error(fd_diags *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int chain_error(fd_diags *d, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	diag_error(d, (fd_srcpos){ 0 }, "%s", line);
	return -1;
}

/* Marks every node reachable from `from` (forward: over consumers, else
 * over producers) in seen. */
static void reach(const fd_graph *g, int32_t from, bool forward, bool *seen)
{
	int32_t *stack = xmalloc(((size_t)g->n_nodes + 1) * sizeof *stack);
	int32_t n = 0;
	seen[from] = true;
	stack[n++] = from;
	while (n) {
		const fd_node *x = &g->nodes[stack[--n]];
		int32_t nt = forward ? x->n_outputs : x->n_inputs;
		for (int32_t k = 0; k < nt; k++) {
			int32_t t = forward ? x->outputs[k] : x->inputs[k];
			if (t < 0)
				continue;
			const fd_tensor *tt = &g->tensors[t];
			int32_t nn = forward ? tt->n_consumers : (tt->producer >= 0 ? 1 : 0);
			for (int32_t q = 0; q < nn; q++) {
				int32_t c = forward ? tt->consumers[q] : tt->producer;
				if (!seen[c]) {
					seen[c] = true;
					stack[n++] = c;
				}
			}
		}
	}
	free(stack);
}

/* The unfused node of the fused graph standing for original node `node`, or -1. */
static int32_t fused_id(const suggest_fused *fz, int32_t graph, int32_t node)
{
	int32_t j = fz->map.to[graph][node];
	return j >= 0 && fz->map.from[graph][j] == node ? j : -1;
}

/* The chain's piece in the fused graph's ids; -1 + d naming the node when
 * there is none. */
static int chain_piece(const suggest_fused *fz, int32_t graph, int32_t first, int32_t last, suggest_piece *p,
                       fd_diags *d)
{
	const fd_graph *g = &fz->fm.graphs[graph];
	int32_t a = fused_id(fz, graph, first), b = fused_id(fz, graph, last);
	bool *fwd = xcalloc((size_t)g->n_nodes + 1, sizeof *fwd), *bwd = xcalloc((size_t)g->n_nodes + 1, sizeof *bwd);
	int rc = 0;
	if (a < 0 || b < 0)
		rc = -2;   /* named by the caller, who knows the original names */
	else if (a == b)
		rc = chain_error(d, "a chain needs two nodes: '%s' is its start and its end", g->nodes[a].name);
	if (rc == 0) {
		reach(g, a, true, fwd);
		if (!fwd[b]) {   /* marked the other way round? */
			memset(fwd, 0, (size_t)g->n_nodes * sizeof *fwd);
			reach(g, b, true, fwd);
			int32_t t = a;
			a = b;
			b = t;
		}
		if (!fwd[b])
			rc = chain_error(d, "no dataflow path joins '%s' and '%s'", g->nodes[a].name, g->nodes[b].name);
	}
	if (rc == 0) {
		reach(g, b, false, bwd);
		p->graph = graph;
		p->n = 0;
		for (int32_t t = 0; t < g->n_nodes && rc == 0; t++) {
			int32_t i = g->topo_order[t];
			if (!fwd[i] || !bwd[i])
				continue;
			if (p->n == SUGGEST_MAX_OPS_LIMIT)
				rc = chain_error(d, "the chain from '%s' is longer than a pattern can be (%d nodes)", g->nodes[a].name,
				                 SUGGEST_MAX_OPS_LIMIT);
			else if (!strcmp(g->nodes[i].domain, FD_FUSED_DOMAIN))
				rc = chain_error(d, "'%s' on the path is a fusion the rules made (%s): a chain cannot take it",
				                 g->nodes[i].name, g->nodes[i].op_type);
			else if (!suggest_node_eligible(&fz->ctx, graph, i))
				rc = chain_error(d, "'%s' (%s) cannot join a fusion: the op table cannot name it, marks it not fusible, "
				                 "or it only computes constants", g->nodes[i].name, g->nodes[i].op_type);
			else
				p->nodes[p->n++] = i;
		}
	}
	/* only the last node's tensors may leave the chain */
	for (int32_t i = 0; rc == 0 && i + 1 < p->n; i++) {
		const fd_node *x = &g->nodes[p->nodes[i]];
		for (int32_t k = 0; rc == 0 && k < x->n_outputs; k++) {
			int32_t t = x->outputs[k];
			if (t < 0)
				continue;
			const fd_tensor *tt = &g->tensors[t];
			if (tt->is_graph_output)
				rc = chain_error(d, "'%s' of '%s' is a graph output: it would leave the fusion", tt->name, x->name);
			for (int32_t q = 0; rc == 0 && q < tt->n_consumers; q++)
				if (!fwd[tt->consumers[q]] || !bwd[tt->consumers[q]])
					rc = chain_error(d, "'%s' of '%s' is read outside the chain: it would leave the fusion", tt->name,
					                 x->name);
		}
	}
	free(fwd);
	free(bwd);
	return rc;
}

int suggest_chain(fd_suggest *sg, fd_rounds *rd, const fd_ruleset *rs, const fd_suggest_options *opt, int32_t graph,
                  int32_t first, int32_t last, fd_diags *d)
{
	fd_suggest_options o = *opt;
	suggest_options_settle(&o);
	sg->max_ops = SUGGEST_MAX_OPS_LIMIT;
	sg->max_heavy = SUGGEST_MAX_OPS_LIMIT;   /* the user's chain, as marked */
	const fd_model *m = rd->items[0]->model;
	if (graph < 0 || graph >= m->n_graphs || first < 0 || last < 0 || first >= m->graphs[graph].n_nodes ||
	    last >= m->graphs[graph].n_nodes)
		return chain_error(d, "no such node (graph %d, nodes %d and %d)", (int)graph, (int)first, (int)last);
	double t0 = clock_ms();
	suggest_fused fz;
	if (suggest_fused_open(&fz, rd, d) < 0)
		return -1;
	suggest_piece p;
	int rc = chain_piece(&fz, graph, first, last, &p, d);
	if (rc == -2) {
		int32_t who = fused_id(&fz, graph, first) < 0 ? first : last;
		rc = chain_error(d, "'%s' is fused already: a rule of the set takes it", m->graphs[graph].nodes[who].name);
	}
	if (rc == 0) {
		sg->n_pieces = 1;
		sg->n_keys = 1;
		sg->search_ms = clock_ms() - t0;
		suggest_verify vs;
		suggest_verify_init(&vs, &fz.ctx, rs, &o, sg, NULL);
		fd_suggest_pattern *pat = arena_array(&sg->arena, 1, sizeof *pat);
		/* rounds 0: the rule of this chain alone, run once; its firings are
		 * where it fires (verified: nowhere else) */
		bool on_chain = false;
		if (suggest_verify_pieces(&vs, "chain", &p, 1, 0, pat))
			for (int32_t i = 0; i < pat->n_instances && !on_chain; i++)
				on_chain = pat->instances[i].graph == p.graph &&
				           !memcmp(pat->instances[i].nodes, p.nodes, (size_t)p.n * sizeof *p.nodes);
		if (on_chain)
			suggest_finish(sg, rd, rs, &fz, pat, 1);
		else
			rc = chain_error(d, "the rule made from the chain at '%s' does not fire on it",
			                 m->graphs[graph].nodes[first].name);
		suggest_verify_release(&vs);
		sg->verify_ms = clock_ms() - t0 - sg->search_ms;
	}
	suggest_fused_close(&fz);
	return rc;
}
