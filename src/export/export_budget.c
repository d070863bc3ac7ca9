/* export_budget.c — how much work dot's layout of a graph would be, and the
 * settings that bound it past a size (export_internal.h).
 *
 * dot's time goes where long edges are: an edge spanning k ranks becomes a
 * chain of k virtual nodes, and both the crossing minimisation and the
 * network simplex that places nodes sideways work on the graph with those
 * chains. A DenseNet, whose Concats read every earlier layer's output,
 * has few nodes but edges spanning hundreds of ranks: its 378 drawn nodes
 * become ~95000 for the placement, which left unbounded did not finish in
 * 25 minutes (nor does graphviz's own dot). So the work is estimated before
 * the layout as the sum of the edges' spans under a longest-path ranking
 * (what dot's ranking gives, without balancing), and past
 * EXPORT_LAYOUT_SPAN_FREE the layout runs bounded: each network simplex
 * stops after as many iterations as the graph has nodes (nslimit,
 * nslimit1), with a short search for the entering edge (searchsize), the
 * crossing minimisation makes a tenth of its passes (mclimit) and no second
 * round (remincross). Past EXPORT_LAYOUT_SPAN_MAX even that is too slow, and
 * the picture is refused. */
#include <stdlib.h>
#include "export/export_internal.h"

int64_t export_layout_span(Agraph_t *g)
{
	size_t cap = 0;
	for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v))
		if ((size_t)AGSEQ(v) + 1 > cap)
			cap = (size_t)AGSEQ(v) + 1;
	if (!cap)
		return 0;
	int32_t *waiting = xcalloc(cap, sizeof *waiting);   /* in-edges not yet ranked */
	int64_t *rank = xcalloc(cap, sizeof *rank);
	Agnode_t **queue = xcalloc(cap, sizeof *queue);
	size_t head = 0, tail = 0;
	for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v)) {
		for (Agedge_t *e = agfstin(g, v); e; e = agnxtin(g, e))
			waiting[AGSEQ(v)] += agtail(e) != v;
		if (!waiting[AGSEQ(v)])
			queue[tail++] = v;
	}
	while (head < tail) {   /* Kahn's order: a node of a cycle keeps rank 0 */
		Agnode_t *v = queue[head++];
		for (Agedge_t *e = agfstout(g, v); e; e = agnxtout(g, e)) {
			Agnode_t *w = aghead(e);
			if (w == v)
				continue;
			if (rank[AGSEQ(w)] < rank[AGSEQ(v)] + 1)
				rank[AGSEQ(w)] = rank[AGSEQ(v)] + 1;
			if (!--waiting[AGSEQ(w)])
				queue[tail++] = w;
		}
	}
	int64_t span = 0;
	for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v))
		for (Agedge_t *e = agfstout(g, v); e; e = agnxtout(g, e)) {
			int64_t k = rank[AGSEQ(aghead(e))] - rank[AGSEQ(v)];
			span += k > 1 ? k - 1 : 0;
		}
	free(waiting);
	free(rank);
	free(queue);
	return span;
}

bool export_bound_layout(Agraph_t *g, int64_t span)
{
	if (span <= EXPORT_LAYOUT_SPAN_FREE)
		return false;
	static const char *const bounded[][2] = {
		{ "nslimit", "1" }, { "nslimit1", "1" }, { "searchsize", "5" },
		{ "mclimit", "0.1" }, { "remincross", "false" }, { "splines", "line" },
	};
	for (size_t i = 0; i < sizeof bounded / sizeof *bounded; i++)
		agsafeset(g, (char *)bounded[i][0], (char *)bounded[i][1], "");
	return true;
}
