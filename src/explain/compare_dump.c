/* compare_dump.c — a GE dump's own record as the compiler's groups
 * (compare.h): its UB groups and graph fusions found in the model compared,
 * the groups put in c->compiled and c->dump_groups (one each, same index),
 * then the rows made as for an optimized graph (compare_rows). */
#include <stdlib.h>
#include <string.h>
#include "base/text.h"
#include "explain/compare.h"
#include "explain/compare_internal.h"
#include "ge/ge_record.h"
#include "ir/node_origin.h"

static const char *const unmapped_words[] = {
#define WORDS(id, key, words) [CMP_UNMAPPED_##id] = words,
	FD_CMP_UNMAPPED(WORDS)
#undef WORDS
};

static const char *const unmapped_keys[] = {
#define KEY(id, key, words) [CMP_UNMAPPED_##id] = key,
	FD_CMP_UNMAPPED(KEY)
#undef KEY
};

const char *compare_unmapped_words(fd_cmp_unmapped u)
{
	return u < CMP_UNMAPPED_COUNT ? unmapped_words[u] : "?";
}

const char *compare_unmapped_key(fd_cmp_unmapped u)
{
	return u < CMP_UNMAPPED_COUNT ? unmapped_keys[u] : "?";
}

/* A group's nodes in the model, while they are gathered. */
typedef struct mapped {
	VEC(int32_t) nodes;
	int32_t graph;             /* -1 none yet, -2 several */
	int32_t n_absent;
} mapped;

/* Adds the model's node named name (in graph hint first: a dump compared
 * with itself has the same graphs) to mp. */
static void add_name(const fd_model *m, int32_t hint, const char *name, mapped *mp)
{
	int32_t g = hint, n = hint < m->n_graphs ? graph_find_node(&m->graphs[hint], name) : -1;
	if (n < 0 && !model_find_node(m, name, &g, &n)) {
		mp->n_absent++;
		return;
	}
	if (mp->graph == -1)
		mp->graph = g;
	else if (mp->graph != g)
		mp->graph = -2;
	for (size_t k = 0; k < mp->nodes.n; k++)
		if (mp->nodes.items[k] == n)
			return;
	vec_push(&mp->nodes, n);
}

/* Dump node dn of graph dg as the model's nodes: itself by name, or, when
 * the model is not a dump, the originals it absorbed where it has some. */
static void add_dump_node(const fd_comparison *c, const fd_model *m, const fd_model *dump, int32_t dg, int32_t dn,
                          mapped *mp)
{
	const fd_node *node = &dump->graphs[dg].nodes[dn];
	const fd_node_origin *o = node->origin;
	if (c->by_name || !o || !o->original_names.n) {
		add_name(m, dg, node->name, mp);
		return;
	}
	for (int32_t k = 0; k < o->original_names.n; k++)
		add_name(m, dg, o->original_names.items[k], mp);
}

static int by_id(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* mp as a compiler group, or the reason it is none. */
static void add_group(fd_comparison *c, mapped *mp, const char *name, fd_cmp_dump_group dg)
{
	fd_cmp_unmapped why = CMP_UNMAPPED_COUNT;
	if (!mp->nodes.n)
		why = CMP_UNMAPPED_ABSENT;
	else if (mp->graph < 0)
		why = CMP_UNMAPPED_GRAPHS;
	else if (mp->nodes.n == 1)
		why = mp->n_absent ? CMP_UNMAPPED_GONE : CMP_UNMAPPED_ONE_NODE;
	else
		for (size_t k = 0; k < mp->nodes.n && why == CMP_UNMAPPED_COUNT; k++)
			if (c->compiled.group_of[mp->graph][mp->nodes.items[k]] >= 0)
				why = CMP_UNMAPPED_OVERLAP;
	if (why != CMP_UNMAPPED_COUNT) {
		c->unmapped[why]++;
		vec_release(&mp->nodes);
		return;
	}
	qsort(mp->nodes.items, mp->nodes.n, sizeof *mp->nodes.items, by_id);
	fd_compiled_group g = { .graph = mp->graph, .fused_node = name, .op_type = dg.pass ? dg.pass : "",
	                        .domain = "", .n_replaced = (int32_t)mp->nodes.n, .n_optimized = 1 };
	g.replaced = arena_array(&c->compiled.arena, mp->nodes.n, sizeof *g.replaced);
	memcpy(g.replaced, mp->nodes.items, mp->nodes.n * sizeof *g.replaced);
	for (int32_t k = 0; k < g.n_replaced; k++)
		c->compiled.group_of[g.graph][g.replaced[k]] = (int32_t)c->compiled.groups.n;
	dg.n_absent = mp->n_absent;
	vec_push(&c->compiled.groups, g);
	vec_push(&c->dump_groups, dg);
	vec_release(&mp->nodes);
}

static const char *pass_chain(fd_comparison *c, const fd_name_list *passes)
{
	if (!passes->n)
		return NULL;
	size_t len = 1;
	for (int32_t k = 0; k < passes->n; k++)
		len += strlen(passes->items[k]) + 3;
	char *s = arena_array(&c->arena, len, 1);
	s[0] = '\0';
	for (int32_t k = 0; k < passes->n; k++) {
		if (k)
			strcat(s, " > ");
		strcat(s, passes->items[k]);
	}
	return s;
}

void compare_dump(fd_comparison *c, const fd_rounds *rd, const fd_model *dump, const char *with)
{
	const fd_model *m = rd->items[0]->model;
	c->with = with;
	c->record = false;
	c->dump = true;
	c->by_name = m->format && !strcmp(m->format, dump->format ? dump->format : "");
	fd_compiled *cd = &c->compiled;
	cd->n_graphs = m->n_graphs;
	cd->group_of = arena_array(&cd->arena, (size_t)m->n_graphs + 1, sizeof *cd->group_of);
	for (int32_t g = 0; g < m->n_graphs; g++) {
		cd->group_of[g] = arena_array(&cd->arena, (size_t)m->graphs[g].n_nodes + 1, sizeof **cd->group_of);
		for (int32_t i = 0; i < m->graphs[g].n_nodes; i++)
			cd->group_of[g][i] = -1;
	}
	ge_record r;
	ge_record_compute(dump, &r);
	/* the nodes of a UB group that compiled: through originals, their graph
	 * fusions are part of that group, not groups of their own */
	bool **in_ub = arena_array(&c->arena, (size_t)dump->n_graphs + 1, sizeof *in_ub);
	for (int32_t g = 0; g < dump->n_graphs; g++)
		in_ub[g] = arena_array(&c->arena, (size_t)dump->graphs[g].n_nodes + 1, sizeof **in_ub);
	for (int32_t k = 0; k < r.n_groups; k++) {   /* compiled groups first: failed ones yield to them */
		const ge_ub_group *ug = &r.groups[k];
		mapped mp = { .graph = -1 };
		for (int32_t j = 0; j < ug->n_nodes; j++) {
			add_dump_node(c, m, dump, ug->graph, ug->nodes[j], &mp);
			in_ub[ug->graph][ug->nodes[j]] |= !ug->failed;
		}
		c->dump_ub++;
		c->dump_ub_failed += ug->failed;
		add_group(c, &mp, dump->graphs[ug->graph].nodes[ug->nodes[0]].name,
		          (fd_cmp_dump_group){ .ub = true, .failed = ug->failed, .scope = ug->id, .pass = ug->pass_name_ub });
	}
	for (int32_t k = 0; k < r.n_absorbing; k++) {
		const ge_node_ref *a = &r.absorbing[k];
		const fd_node *node = &dump->graphs[a->graph].nodes[a->node];
		if (!c->by_name && in_ub[a->graph][a->node])
			continue;
		mapped mp = { .graph = -1 };
		for (int32_t j = 0; j < node->origin->original_names.n; j++)
			add_name(m, a->graph, node->origin->original_names.items[j], &mp);
		c->dump_fusions++;
		add_group(c, &mp, node->name,
		          (fd_cmp_dump_group){ .scope = -1, .pass = pass_chain(c, &node->origin->pass_names) });
	}
	ge_record_release(&r);
	compare_rows(c, rd);
}

void compare_dump_group_words(FILE *f, const fd_comparison *c, const fd_model *m, size_t group)
{
	const fd_compiled_group *g = &c->compiled.groups.items[group];
	const fd_cmp_dump_group *dg = &c->dump_groups.items[group];
	if (dg->ub)
		txt_fprintf(f, "UB group %lld %s%s: ", (long long)dg->scope, dg->failed ? "(failed to compile) " : "",
		            dg->pass ? dg->pass : "(no pass_name_ub)");
	else
		txt_fprintf(f, "graph fusion %s %s: ", g->fused_node, dg->pass ? dg->pass : "(no pass_name)");
	for (int32_t k = 0; k < g->n_replaced; k++)
		txt_fprintf(f, "%s%s", k ? ", " : "", m->graphs[g->graph].nodes[g->replaced[k]].name);
	if (dg->n_absent)
		txt_fprintf(f, " (+%d not in the model)", (int)dg->n_absent);
}

char *compare_dump_summary(const fd_comparison *c, char *buf, size_t size)
{
	int32_t unmapped = 0;
	for (int k = 0; k < CMP_UNMAPPED_COUNT; k++)
		unmapped += c->unmapped[k];
	snprintf(buf, size, "%s: compiler %d UB group%s (%d failed to compile), %d graph fusion%s, %d not mapped %s; "
	         "same %zu, compiler only %zu, fusiondbg only %zu, different %zu", c->with, (int)c->dump_ub,
	         c->dump_ub == 1 ? "" : "s", (int)c->dump_ub_failed, (int)c->dump_fusions, c->dump_fusions == 1 ? "" : "s",
	         (int)unmapped, c->by_name ? "by name" : "by original names", c->counts[CMP_SAME],
	         c->counts[CMP_COMPILER_ONLY], c->counts[CMP_PREDICTED_ONLY], c->counts[CMP_DIFFERENT]);
	return buf;
}
