/* export_select.c — what an export draws: the whole graph (constant-only
 * nodes left out unless asked), the neighbourhood of a node (--around NODE
 * --depth K, breadth-first over producers and consumers within its graph),
 * one rule's fusions and their neighbourhood (--rule NAME), or one fusion and
 * its neighbourhood (the TUI's "this fusion"). A fusion is never drawn in
 * part: touching one member draws them all. A part counts what it leaves out
 * (the drawing ends its cut edges in stubs). No printing, no Graphviz here. */
#include <stdlib.h>
#include <string.h>
#include "ruleset/ruleset.h"
#include "explain/explain.h"
#include "export/export.h"
#include "trace/trace.h"

bool export_node_is_constant(const fd_match_result *r, int32_t g, int32_t n)
{
	return match_node_is_constant(&r->ctx->graphs[g], n);
}

void export_selection_release(fd_export_selection *sel)
{
	if (sel->node_on)
		for (int32_t g = 0; g < sel->n_graphs; g++)
			free(sel->node_on[g]);
	free(sel->node_on);
	free(sel->fusion_drawn);
	free(sel->graph_on);
	memset(sel, 0, sizeof *sel);
}

static bool hidden(const fd_match_result *r, const fd_export_options *o, int32_t g, int32_t n)
{
	return !o->show_constants && r->claim[g][n] < 0 && export_node_is_constant(r, g, n);
}

/* Breadth-first from the nodes already marked 2 (the seeds) in graph g, depth
 * hops over producers and consumers; reached nodes are marked 1. Nodes that
 * are not drawn (constants) are neither marked nor passed through. */
static void grow(const fd_match_result *r, const fd_export_options *o, int32_t g, uint8_t *on,
                 int depth)
{
	const fd_graph *gr = &r->ctx->model->graphs[g];
	int32_t *frontier = xmalloc(((size_t)gr->n_nodes + 1) * sizeof *frontier);
	int32_t *next = xmalloc(((size_t)gr->n_nodes + 1) * sizeof *next);
	size_t nf = 0;
	for (int32_t i = 0; i < gr->n_nodes; i++)     /* topo order keeps it deterministic */
		if (on[gr->topo_order[i]])
			frontier[nf++] = gr->topo_order[i];
	for (int d = 0; d < depth && nf; d++) {
		size_t nn = 0;
		for (size_t i = 0; i < nf; i++) {
			const fd_node *node = &gr->nodes[frontier[i]];
			for (int32_t k = 0; k < node->n_inputs; k++) {
				int32_t t = node->inputs[k];
				if (t == FD_NONE)
					continue;
				int32_t p = gr->tensors[t].producer;
				if (p >= 0 && !on[p] && !hidden(r, o, g, p)) {
					on[p] = 1;
					next[nn++] = p;
				}
			}
			for (int32_t k = 0; k < node->n_outputs; k++) {
				int32_t t = node->outputs[k];
				if (t == FD_NONE)
					continue;
				const fd_tensor *ten = &gr->tensors[t];
				for (int32_t c = 0; c < ten->n_consumers; c++) {
					int32_t q = ten->consumers[c];
					if (!on[q] && !hidden(r, o, g, q)) {
						on[q] = 1;
						next[nn++] = q;
					}
				}
			}
		}
		int32_t *tmp = frontier;
		frontier = next;
		next = tmp;
		nf = nn;
	}
	free(frontier);
	free(next);
}

/* Seeds of --rule: its fusions' members, and with near_misses the anchors of
 * its failed attempts. Returns how many seeds were marked. */
static int64_t seed_rule(const fd_match_result *r, const fd_export_options *o, int32_t rule,
                         fd_export_selection *sel)
{
	int64_t seeds = 0;
	for (size_t f = 0; f < r->n_fusions; f++) {
		const fd_fusion *fu = &r->fusions[f];
		if (fu->rule != rule)
			continue;
		const int32_t *nodes = fusion_ids(r, fu->nodes);
		for (int32_t i = 0; i < fu->n_nodes; i++, seeds++)
			sel->node_on[fu->graph][nodes[i]] = 2;
	}
	if (!o->near_misses)
		return seeds;
	for (size_t a = 0; a < r->trace.n_attempts; a++) {
		const fd_attempt *at = &r->trace.attempts[a];
		if (at->rule != rule || at->anchor == FD_NONE || at->rung == RUNG_FIRED)
			continue;
		int32_t n = match_unit_node(r->ctx, at->graph, at->anchor);
		if (n >= 0) {
			sel->node_on[at->graph][n] = 2;
			seeds++;
		}
	}
	return seeds;
}

int export_select(const fd_match_result *r, const fd_export_options *o, fd_export_selection *sel,
                  fd_diags *d)
{
	const fd_model *m = r->ctx->model;
	fd_srcpos pos = srcpos_file(m->path);
	memset(sel, 0, sizeof *sel);
	sel->n_graphs = m->n_graphs;
	sel->node_on = xcalloc((size_t)m->n_graphs + 1, sizeof *sel->node_on);
	sel->graph_on = xcalloc((size_t)m->n_graphs + 1, 1);
	sel->fusion_drawn = xcalloc(r->n_fusions + 1, 1);
	for (int32_t g = 0; g < m->n_graphs; g++)
		sel->node_on[g] = xcalloc((size_t)m->graphs[g].n_nodes + 1, 1);

	int32_t rule = -1;
	if (o->rule) {
		rule = ruleset_find(r->rules, o->rule);
		if (rule < 0) {
			char hint[600];
			diag_error(d, (fd_srcpos){ 0 }, "no rule named '%s' is loaded%s", o->rule,
			           explain_rule_hint(r->rules, o->rule, hint, sizeof hint));
			goto fail;
		}
	}
	if (o->fusion >= 0 && (size_t)o->fusion >= r->n_fusions) {
		diag_error(d, pos, "no fusion #%d (the run made %zu)", (int)o->fusion, r->n_fusions);
		goto fail;
	}
	for (size_t f = 0; f < r->n_fusions; f++)   /* one fusion, or one rule's: the others' members are plain nodes */
		sel->fusion_drawn[f] = o->fusion >= 0 ? (int32_t)f == o->fusion : rule < 0 || r->fusions[f].rule == rule;
	sel->part = o->around || rule >= 0 || o->fusion >= 0;

	if (o->fusion >= 0) {   /* one fusion: its members and depth hops around them */
		const fd_fusion *fu = &r->fusions[o->fusion];
		const int32_t *nodes = fusion_ids(r, fu->nodes);
		for (int32_t i = 0; i < fu->n_nodes; i++)
			sel->node_on[fu->graph][nodes[i]] = 2;
		grow(r, o, fu->graph, sel->node_on[fu->graph], o->depth);
	} else if (o->around) {
		int32_t g, n;
		if (!model_find_node(m, o->around, &g, &n)) {
			char hint[600];
			diag_error(d, pos, "no node named '%s' (--around)%s", o->around,
			           explain_node_hint(m, o->around, hint, sizeof hint));
			goto fail;
		}
		sel->node_on[g][n] = 2;
		grow(r, o, g, sel->node_on[g], o->depth);
	} else if (rule >= 0) {
		if (seed_rule(r, o, rule, sel) == 0) {
			diag_error(d, pos, "rule %s fired nowhere%s, so --rule has nothing to draw; "
			           "try --near-misses, or `fusiondbg why`", o->rule,
			           o->near_misses ? " and has no failed attempt" : "");
			goto fail;
		}
		for (int32_t g = 0; g < m->n_graphs; g++)
			grow(r, o, g, sel->node_on[g], o->depth);
	} else {
		for (int32_t g = 0; g < m->n_graphs; g++)
			for (int32_t n = 0; n < m->graphs[g].n_nodes; n++)
				sel->node_on[g][n] = !hidden(r, o, g, n);
	}

	/* never half a fusion */
	for (size_t f = 0; f < r->n_fusions; f++) {
		const fd_fusion *fu = &r->fusions[f];
		if (!sel->fusion_drawn[f])
			continue;
		const int32_t *nodes = fusion_ids(r, fu->nodes);
		bool any = false;
		for (int32_t i = 0; i < fu->n_nodes; i++)
			any |= sel->node_on[fu->graph][nodes[i]] != 0;
		for (int32_t i = 0; any && i < fu->n_nodes; i++)
			sel->node_on[fu->graph][nodes[i]] |= 1;
		sel->fusion_drawn[f] = any;
	}

	for (int32_t g = 0; g < m->n_graphs; g++) {
		const fd_graph *gr = &m->graphs[g];
		for (int32_t n = 0; n < gr->n_nodes; n++) {
			if (sel->node_on[g][n]) {
				sel->node_on[g][n] = 1;
				sel->n_nodes++;
				sel->graph_on[g] = 1;
			}
		}
	}
	/* a drawn body makes its owner (and its enclosing graphs) drawn context */
	for (int32_t g = m->n_graphs - 1; g > 0; g--) {
		const fd_graph *gr = &m->graphs[g];
		if (!sel->graph_on[g] || gr->parent < 0 || o->around)
			continue;
		sel->graph_on[gr->parent] = 1;
	}
	for (int32_t g = 0; g < m->n_graphs; g++) {
		if (!sel->graph_on[g])
			continue;
		const fd_graph *gr = &m->graphs[g];
		sel->n_initializers += gr->n_initializers;
		for (int32_t n = 0; n < gr->n_nodes; n++)
			if (!sel->node_on[g][n] && export_node_is_constant(r, g, n))
				sel->n_hidden_consts++;
	}
	/* what a part leaves out: every node a whole picture would draw */
	for (int32_t g = 0; sel->part && g < m->n_graphs; g++)
		for (int32_t n = 0; n < m->graphs[g].n_nodes; n++)
			sel->n_left_out += !sel->node_on[g][n] && !hidden(r, o, g, n);
	return 0;
fail:
	export_selection_release(sel);
	return -1;
}
