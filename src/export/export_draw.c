/* export_draw.c — the Graphviz objects of one picture, made in an order that
 * never depends on memory: the legend, the subgraph bodies' clusters and the
 * fusions' clusters (fusion order), the graph inputs (model order), the
 * nodes (topological order), then the edges (consumers in topological
 * order, inputs in slot order), the graph outputs and, in a picture of a
 * part, a stub for each edge cut at its border. The words on them come
 * from export_label.c. */
#include <stdlib.h>
#include "export/export_internal.h"

static Agraph_t *container_of(export_builder *b, int32_t g, int32_t n)
{
	int32_t f = b->r->claim[g][n];
	if (!b->after && f >= 0 && b->sel->fusion_drawn[f])
		return b->fusion[f].cluster;
	int32_t k = export_compiler_group(b, g, n);
	return k >= 0 ? export_compiler_cluster(b, k) : b->graph[g].cont;
}

/* Where fusion f's cluster goes: in the compiler's group that holds every
 * member, else in its graph's container. */
static Agraph_t *fusion_parent(export_builder *b, const fd_fusion *fu)
{
	const int32_t *nodes = fusion_ids(b->r, fu->nodes);
	int32_t k = fu->n_nodes ? export_compiler_group(b, fu->graph, nodes[0]) : -1;
	for (int32_t i = 1; i < fu->n_nodes && k >= 0; i++)
		if (export_compiler_group(b, fu->graph, nodes[i]) != k)
			k = -1;
	return k >= 0 ? export_compiler_cluster(b, k) : b->graph[fu->graph].cont;
}

/* A node in c whose id is graph g's prefix, head and tail (made unique). */
static Agnode_t *new_node(export_builder *b, Agraph_t *c, int32_t g, const char *head, const char *tail,
                          strbuf *s)
{
	char pre[24];
	sb_clear(s);
	sb_puts(s, export_graph_prefix(g, pre, sizeof pre));
	export_id_part(s, head);
	export_id_part(s, tail);
	return agnode(c, (char *)export_unique_id(b, sb_str(s)), 1);
}

static void make_legend(export_builder *b)
{
	strbuf h = { 0 };
	export_legend_label(b, &h);
	Agnode_t *n = agnode(b->root, (char *)export_unique_id(b, "legend"), 1);
	export_set(n, "shape", "plaintext");
	export_set(n, "margin", "0");
	export_set(n, "style", "");
	export_set(n, "tooltip", "legend");
	export_set_html(b, n, "label", sb_str(&h));
	sb_release(&h);
}

static void make_containers(export_builder *b)
{
	const fd_model *m = b->m;
	strbuf s = { 0 };
	b->graph[0].cont = b->root;
	for (int32_t g = 1; g < m->n_graphs; g++) {
		const fd_graph *gr = &m->graphs[g];
		if (!b->sel->graph_on[g])
			continue;
		Agraph_t *parent = gr->parent >= 0 && b->graph[gr->parent].cont ? b->graph[gr->parent].cont : b->root;
		char name[48];
		snprintf(name, sizeof name, "cluster_g%d", (int)g);
		Agraph_t *c = agsubg(parent, name, 1);
		b->graph[g].cont = c;
		sb_clear(&s);
		export_body_label(b, &s, g);
		export_set(c, "label", sb_str(&s));
		export_set(c, "style", "dotted,rounded");
		export_set(c, "color", "#888888");
	}
	for (size_t f = 0; !b->after && f < b->r->n_fusions; f++) {
		if (!b->sel->fusion_drawn[f])
			continue;
		const fd_fusion *fu = &b->r->fusions[f];
		const export_palette_entry *pe = export_rule_palette(b, fu->rule);
		char name[48];
		snprintf(name, sizeof name, "cluster_%zu", f);
		Agraph_t *c = agsubg(fusion_parent(b, fu), name, 1);
		b->fusion[f].cluster = c;
		sb_clear(&s);
		export_cluster_label(b, &s, f);
		export_set(c, "label", sb_str(&s));
		export_set(c, "style", "dashed,rounded,filled");
		export_set(c, "color", pe->border);
		export_set(c, "fillcolor", pe->fill);
		export_set(c, "fontcolor", b->est->fusions[f].advice != ADVICE_NONE ? EXPORT_PEAK_COLOR : pe->border);
		export_set(c, "penwidth", "1.6");
		sb_clear(&s);
		export_fusion_tooltip(b, &s, f);
		export_set(c, "tooltip", sb_str(&s));
	}
	sb_release(&s);
}

static Agnode_t *make_op_node(export_builder *b, int32_t g, int32_t n, strbuf *s)
{
	Agnode_t *an = new_node(b, container_of(b, g, n), g, b->m->graphs[g].nodes[n].name, "", s);
	sb_clear(s);
	export_node_label(b, s, g, n);
	export_set_html(b, an, "label", sb_str(s));
	sb_clear(s);
	export_node_tooltip(b, s, g, n);
	export_set(an, "tooltip", sb_str(s));
	if (b->graph[g].in_float[n]) {   /* amber: the float op between a dequantize and a quantize */
		export_set(an, "fillcolor", EXPORT_FLOAT_FILL);
		export_set(an, "color", EXPORT_FLOAT_BORDER);
		export_set(an, "penwidth", "2");
	}
	int32_t k = b->graph[g].mark_head[n];
	if (k >= 0) {
		const fd_attempt *at = &b->r->trace.attempts[b->marks.items[k].attempt];
		export_set(an, "style", "rounded,filled,dashed");
		export_set(an, "color", export_rule_palette(b, at->rule)->border);
		export_set(an, "penwidth", "2");
	}
	return an;
}

static Agnode_t *make_fusion_node(export_builder *b, size_t f, strbuf *s)
{
	const fd_fusion *fu = &b->r->fusions[f];
	const export_palette_entry *pe = export_rule_palette(b, fu->rule);
	char seq[24];
	snprintf(seq, sizeof seq, "_%d", (int)b->fusion[f].seq);
	Agnode_t *an = new_node(b, b->graph[fu->graph].cont, fu->graph, b->r->rules->rules[fu->rule].name, seq, s);
	sb_clear(s);
	export_fusion_node_label(b, s, f);
	export_set_html(b, an, "label", sb_str(s));
	export_set(an, "style", "rounded,filled,bold");
	export_set(an, "color", pe->border);
	export_set(an, "fillcolor", pe->fill);
	export_set(an, "penwidth", "2");
	sb_clear(s);
	export_fusion_tooltip(b, s, f);
	export_set(an, "tooltip", sb_str(s));
	return an;
}

static Agnode_t *make_io_node(export_builder *b, int32_t g, int32_t t, bool output, strbuf *s)
{
	const fd_tensor *ten = &b->m->graphs[g].tensors[t];
	Agnode_t *an = new_node(b, b->graph[g].cont, g, output ? "output:" : "input:", ten->name, s);
	sb_clear(s);
	export_io_label(b, s, g, t, output);
	export_set_html(b, an, "label", sb_str(s));
	export_set(an, "shape", output ? "house" : "invhouse");
	export_set(an, "style", "filled");
	export_set(an, "fillcolor", output ? "#fde9d4" : "#e4f3e4");
	sb_clear(s);
	export_esc(s, ten->name);
	export_set(an, "tooltip", sb_str(s));
	if (b->graph[g].peak[t]) {
		export_set(an, "color", EXPORT_PEAK_COLOR);
		export_set(an, "penwidth", "2.5");
	}
	return an;
}

/* The drawn object that produces tensor t of graph g (following outer-scope
 * reads up to the graph that makes it), or NULL. *outer says it crossed;
 * *pg, *pt name the tensor where it is made. */
static Agnode_t *producer_obj(export_builder *b, int32_t g, int32_t t, bool *outer, int32_t *pg,
                              int32_t *pt, strbuf *s)
{
	*outer = false;
	for (int guard = 0; guard < 64; guard++) {
		const fd_graph *gr = &b->m->graphs[g];
		const fd_tensor *ten = &gr->tensors[t];
		*pg = g;
		*pt = t;
		if (ten->kind == TENSOR_OUTER_SCOPE && gr->parent >= 0 && ten->outer >= 0) {
			g = gr->parent;
			t = ten->outer;
			*outer = true;
			continue;
		}
		if (ten->producer >= 0)
			return b->sel->node_on[g][ten->producer] ? b->graph[g].obj[ten->producer] : NULL;
		if (ten->kind == TENSOR_GRAPH_INPUT && b->graph[g].cont) {
			if (!b->graph[g].tobj[t])
				b->graph[g].tobj[t] = make_io_node(b, g, t, false, s);
			return b->graph[g].tobj[t];
		}
		return NULL;
	}
	return NULL;
}

/* An edge from what makes tensor t of graph g to head, once per pair and
 * tensor. */
static void make_edge(export_builder *b, int32_t g, int32_t t, Agnode_t *head, strbuf *s)
{
	bool outer;
	int32_t pg, pt;
	Agnode_t *tail = producer_obj(b, g, t, &outer, &pg, &pt, s);
	if (!tail || !head || tail == head)
		return;
	char key[96];
	snprintf(key, sizeof key, "%u %u %d %d", (unsigned)AGSEQ(tail), (unsigned)AGSEQ(head), (int)pg, (int)pt);
	if (strmap_get(&b->edges, key) >= 0)
		return;
	strmap_put(&b->edges, arena_strdup(&b->arena, key), 1);
	Agedge_t *e = agedge(b->root, tail, head, NULL, 1);
	sb_clear(s);
	export_edge_tooltip(b, s, pg, pt);
	export_set(e, "tooltip", sb_str(s));
	if (outer)
		export_set(e, "style", "dotted");
	if (b->graph[pg].peak[pt]) {
		export_set(e, "color", EXPORT_PEAK_COLOR);
		export_set(e, "penwidth", "3");
		sb_clear(s);
		export_edge_label(b, s, pg, pt);
		export_set(e, "label", sb_str(s));
		export_set(e, "fontcolor", EXPORT_PEAK_COLOR);
	}
}

/* Graph inputs that something drawn reads (in the model's order), then the
 * nodes, a collapsed fusion once for all its members. */
static void make_nodes(export_builder *b, int32_t g, strbuf *s)
{
	const fd_graph *gr = &b->m->graphs[g];
	for (int32_t k = 0; k < gr->n_inputs; k++) {
		const fd_tensor *t = &gr->tensors[gr->inputs[k]];
		bool read = false;
		for (int32_t c = 0; c < t->n_consumers && !read; c++)
			read = b->sel->node_on[g][t->consumers[c]];
		if (read && !b->graph[g].tobj[gr->inputs[k]])
			b->graph[g].tobj[gr->inputs[k]] = make_io_node(b, g, gr->inputs[k], false, s);
	}
	for (int32_t i = 0; i < gr->n_nodes; i++) {
		int32_t n = gr->topo_order[i];
		if (!b->sel->node_on[g][n])
			continue;
		int32_t f = b->r->claim[g][n];
		if (b->after && f >= 0 && b->sel->fusion_drawn[f]) {
			if (!b->fusion[f].node)
				b->fusion[f].node = make_fusion_node(b, (size_t)f, s);
			b->graph[g].obj[n] = b->fusion[f].node;
		} else {
			b->graph[g].obj[n] = make_op_node(b, g, n, s);
		}
	}
}

/* ---- stubs: the edges a part of the model cuts at its border ------------ */

/* Is node n of graph g a neighbour a part leaves out (drawn in a whole
 * picture, not in this one)? */
static bool left_out(const export_builder *b, int32_t g, int32_t n)
{
	return !b->sel->node_on[g][n] &&
	       (b->o->show_constants || b->r->claim[g][n] >= 0 || !export_node_is_constant(b->r, g, n));
}

/* A small grey "…" node standing for what lies beyond the border, with an
 * edge from or to the drawn node; label: the nearest node left out there. */
static void make_stub(export_builder *b, int32_t g, int32_t t, Agnode_t *drawn, bool in, int32_t far,
                      int32_t more, strbuf *s)
{
	const fd_graph *gr = &b->m->graphs[g];
	Agnode_t *stub = new_node(b, b->graph[g].cont, g, in ? "stub:in:" : "stub:out:", gr->tensors[t].name, s);
	sb_clear(s);
	sb_puts(s, "… ");
	export_esc(s, gr->nodes[far].name);
	if (more)
		sb_printf(s, " +%d", (int)more);
	export_set(stub, "label", sb_str(s));
	export_set(stub, "shape", "plaintext");
	export_set(stub, "style", "");
	export_set(stub, "fontcolor", "#777777");
	export_set(stub, "fontsize", "9");
	sb_clear(s);
	sb_puts(s, "left out of this picture: ");
	export_esc(s, gr->nodes[far].name);
	sb_printf(s, " (%s)%s", gr->nodes[far].op_type, more ? " and more" : "");
	export_set(stub, "tooltip", sb_str(s));
	Agedge_t *e = agedge(b->root, in ? stub : drawn, in ? drawn : stub, NULL, 1);
	export_set(e, "style", "dashed");
	export_set(e, "color", "#999999");
	sb_clear(s);
	export_edge_tooltip(b, s, g, t);
	export_set(e, "tooltip", sb_str(s));
}

/* Every tensor edge of graph g between a drawn node and one left out, once
 * per tensor and direction; with make, each gets its stub. Returns the count. */
static int64_t cut_edges(export_builder *b, int32_t g, bool make, strbuf *s)
{
	const fd_graph *gr = &b->m->graphs[g];
	int64_t n_cut = 0;
	for (int32_t i = 0; i < gr->n_nodes; i++) {
		int32_t n = gr->topo_order[i];
		if (!b->sel->node_on[g][n])
			continue;
		const fd_node *node = &gr->nodes[n];
		for (int32_t k = 0; k < node->n_inputs; k++) {   /* a producer left out */
			int32_t t = node->inputs[k], p = t != FD_NONE ? gr->tensors[t].producer : -1;
			bool seen = false;
			for (int32_t j = 0; j < k && !seen; j++)
				seen = node->inputs[j] == t;
			if (p < 0 || seen || !left_out(b, g, p))
				continue;
			n_cut++;
			if (make)
				make_stub(b, g, t, b->graph[g].obj[n], true, p, 0, s);
		}
		for (int32_t k = 0; k < node->n_outputs; k++) {  /* consumers left out */
			int32_t t = node->outputs[k];
			if (t == FD_NONE)
				continue;
			const fd_tensor *ten = &gr->tensors[t];
			int32_t first = -1, more = 0;
			for (int32_t c = 0; c < ten->n_consumers; c++) {
				int32_t q = ten->consumers[c];
				bool dup = false;
				for (int32_t e = 0; e < c && !dup; e++)
					dup = ten->consumers[e] == q;
				if (dup || !left_out(b, g, q))
					continue;
				if (first < 0)
					first = q;
				else
					more++;
			}
			if (first < 0)
				continue;
			n_cut++;
			if (make)
				make_stub(b, g, t, b->graph[g].obj[n], false, first, more, s);
		}
	}
	return n_cut;
}

int64_t export_count_cut_edges(export_builder *b)
{
	int64_t n = 0;
	for (int32_t g = 0; b->sel->part && g < b->m->n_graphs; g++)
		if (b->sel->graph_on[g])
			n += cut_edges(b, g, false, NULL);
	return n;
}

/* Edges in the consumers' topological order, inputs in slot order, then the
 * graph outputs (each once) and their edges. */
static void make_edges(export_builder *b, int32_t g, strbuf *s)
{
	const fd_graph *gr = &b->m->graphs[g];
	Agnode_t **oobj = xcalloc((size_t)gr->n_tensors + 1, sizeof *oobj);
	for (int32_t i = 0; i < gr->n_nodes; i++) {
		int32_t n = gr->topo_order[i];
		if (!b->sel->node_on[g][n])
			continue;
		const fd_node *node = &gr->nodes[n];
		for (int32_t k = 0; k < node->n_inputs; k++)
			if (node->inputs[k] != FD_NONE)
				make_edge(b, g, node->inputs[k], b->graph[g].obj[n], s);
	}
	for (int32_t k = 0; k < gr->n_outputs; k++) {
		int32_t t = gr->outputs[k];
		bool outer;
		int32_t pg, pt;
		if (oobj[t] || !producer_obj(b, g, t, &outer, &pg, &pt, s))
			continue;
		oobj[t] = make_io_node(b, g, t, true, s);
		make_edge(b, g, t, oobj[t], s);
	}
	free(oobj);
	if (b->sel->part)
		cut_edges(b, g, true, s);
}

void export_build(export_builder *b)
{
	strbuf s = { 0 };
	make_legend(b);
	make_containers(b);
	for (int32_t g = 0; g < b->m->n_graphs; g++)
		if (b->sel->graph_on[g])
			make_nodes(b, g, &s);
	for (int32_t g = 0; g < b->m->n_graphs; g++)
		if (b->sel->graph_on[g])
			make_edges(b, g, &s);
	sb_release(&s);
}
