/* export_compiler.c — the compiler's own UB-fusion groups of a graph dump
 * (ge/ge_record.h) as clusters of their own in the before view: dotted,
 * grey, labelled "compiler: <pass> scope N", so they read apart from
 * fusiondbg's fusions (dashed, coloured). A cluster is made when the first
 * of its nodes is drawn, so a part of the model shows only the groups it
 * touches. A fusiondbg fusion whose members all lie in one group is drawn
 * inside that group's cluster; one that straddles groups is drawn beside
 * them, its nodes taken out of theirs (Graphviz clusters nest, they do not
 * overlap). An ONNX model has no groups: nothing changes. */
#include "export/export_internal.h"

void export_compiler_init(export_builder *b)
{
	ge_record_compute(b->m, &b->ub);
	if (b->after || !b->ub.n_groups)
		return;
	b->ub_group = arena_array(&b->arena, (size_t)b->m->n_graphs, sizeof *b->ub_group);
	for (int32_t g = 0; g < b->m->n_graphs; g++) {
		int32_t n = b->m->graphs[g].n_nodes;
		b->ub_group[g] = arena_array(&b->arena, (size_t)n + 1, sizeof **b->ub_group);
		for (int32_t i = 0; i < n; i++)
			b->ub_group[g][i] = -1;
	}
	for (int32_t k = 0; k < b->ub.n_groups; k++) {
		const ge_ub_group *u = &b->ub.groups[k];
		for (int32_t i = 0; i < u->n_nodes; i++)
			b->ub_group[u->graph][u->nodes[i]] = k;
	}
	b->ub_cluster = arena_array(&b->arena, (size_t)b->ub.n_groups, sizeof *b->ub_cluster);
}

void export_compiler_release(export_builder *b)
{
	ge_record_release(&b->ub);
}

int32_t export_compiler_group(const export_builder *b, int32_t g, int32_t n)
{
	return b->ub_group ? b->ub_group[g][n] : -1;
}

Agraph_t *export_compiler_cluster(export_builder *b, int32_t k)
{
	if (b->ub_cluster[k])
		return b->ub_cluster[k];
	const ge_ub_group *u = &b->ub.groups[k];
	char name[48];
	snprintf(name, sizeof name, "cluster_ub_%d", (int)k);
	Agraph_t *c = agsubg(b->graph[u->graph].cont, name, 1);
	strbuf s = { 0 };
	sb_puts(&s, "compiler: ");
	export_esc(&s, u->pass_name_ub ? u->pass_name_ub : "UB fusion");
	sb_printf(&s, " %s %lld\\l", u->failed ? "failed scope" : "scope", (long long)u->id);
	export_set(c, "label", sb_str(&s));
	sb_clear(&s);
	sb_printf(&s, "the compiler's UB fusion (fusion_scope %lld, %d nodes)%s", (long long)u->id, (int)u->n_nodes,
	          u->failed ? ": matched, then failed to compile" : "");
	export_set(c, "tooltip", sb_str(&s));
	sb_release(&s);
	export_set(c, "style", u->failed ? "dotted" : "dotted,filled");
	export_set(c, "color", EXPORT_COMPILER_BORDER);
	export_set(c, "fillcolor", EXPORT_COMPILER_FILL);
	export_set(c, "fontcolor", EXPORT_COMPILER_BORDER);
	export_set(c, "penwidth", "1.4");
	b->ub_cluster[k] = c;
	return c;
}
