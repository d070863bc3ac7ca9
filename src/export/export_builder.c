/* export_builder.c — the drawing's state before any object is made: which
 * colour each rule gets, which failed attempts are marked as near misses,
 * which tensors are at the memory peak; and the look (palette, default
 * attributes) with the small setters the drawing uses. */
#include <stdlib.h>
#include <string.h>
#include "explain/explain.h"
#include "export/export_internal.h"
#include "trace/trace.h"

/* ---- the look --------------------------------------------------------------- */

/* Border and fill per rule, assigned in the order rules ran (first fired rule
 * blue, like CANN's fusion visualiser). Red is kept for the peak. */
static const export_palette_entry palette[] = {
	{ "#1f77b4", "#e3eef8" },   /* blue */
	{ "#ff7f0e", "#fff0e0" },   /* orange */
	{ "#2ca02c", "#e2f4e2" },   /* green */
	{ "#9467bd", "#eee6f6" },   /* purple */
	{ "#8c564b", "#f1e6e2" },   /* brown */
	{ "#e377c2", "#fbe8f5" },   /* pink */
	{ "#7f7f7f", "#eeeeee" },   /* grey */
	{ "#bcbd22", "#f5f5d6" },   /* olive */
	{ "#17becf", "#dcf5f8" },   /* cyan */
};
#define PALETTE_N ((int)(sizeof palette / sizeof *palette))

/* Default attributes per kind, declared on the root before anything is made
 * (agwrite prints them in this order): name, value, name, value, …, NULL. */
static const struct attr_defaults {
	int kind;
	const char *const pairs[2 * 16 + 1];
} attr_defaults[] = {
	{ AGRAPH, { "fontname", EXPORT_FONT, "fontsize", "11", "rankdir", "TB", "newrank", "true",
	            "nodesep", "0.2", "ranksep", "0.25", "label", "", "labeljust", "l", "style", "",
	            "color", "", "fillcolor", "", "fontcolor", "", "penwidth", "1", "tooltip", "", NULL } },
	{ AGNODE, { "shape", "box", "style", "rounded,filled", "fillcolor", "white", "color", "#555555",
	            "fontname", EXPORT_FONT, "fontsize", "10", "margin", "0.08,0.02", "height", "0.3",
	            "label", "\\N", "penwidth", "1", "tooltip", "", "fontcolor", "black", NULL } },
	{ AGEDGE, { "color", "#666666", "arrowsize", "0.6", "penwidth", "1", "tooltip", "", "style", "",
	            "label", "", "fontname", EXPORT_FONT, "fontsize", "9", "fontcolor", "black", NULL } },
};

const export_palette_entry *export_rule_palette(const export_builder *b, int32_t rule)
{
	int32_t c = b->rule[rule].color;
	return &palette[(c < 0 ? 0 : c) % PALETTE_N];
}

/* ---- objects and attributes ------------------------------------------------- */

const char *export_unique_id(export_builder *b, const char *want)
{
	if (strmap_get(&b->ids, want) < 0) {
		const char *s = arena_strdup(&b->arena, want);
		strmap_put(&b->ids, s, 1);
		return s;
	}
	for (int k = 2;; k++) {
		char *s = arena_printf(&b->arena, "%s#%d", want, k);
		if (strmap_get(&b->ids, s) < 0) {
			strmap_put(&b->ids, s, 1);
			return s;
		}
	}
}

const char *export_graph_prefix(int32_t g, char *buf, size_t size)
{
	if (g == 0)
		buf[0] = '\0';
	else
		snprintf(buf, size, "g%d/", (int)g);
	return buf;
}

void export_set(void *obj, const char *name, const char *value)
{
	/* a value ending in a backslash would escape the quote cgraph writes after
	 * it (a name's doubled backslash can end a tooltip): end it with a space */
	size_t n = strlen(value);
	if (n && value[n - 1] == '\\') {
		char *v = xmalloc(n + 2);
		memcpy(v, value, n);
		memcpy(v + n, " ", 2);
		agsafeset(obj, (char *)name, v, "");
		free(v);
		return;
	}
	agsafeset(obj, (char *)name, (char *)value, "");
}

void export_set_html(export_builder *b, void *obj, const char *name, const char *html)
{
	Agsym_t *sym = agattr(b->root, agobjkind(obj), (char *)name, NULL);
	if (!sym)
		sym = agattr(b->root, agobjkind(obj), (char *)name, "");
	char *s = agstrdup_html(b->root, (char *)html);
	agxset(obj, sym, s);
	agstrfree(b->root, s);
}

/* ---- near misses -------------------------------------------------------------- */

static bool attempt_failed(const fd_attempt *at)
{
	return at->anchor != FD_NONE && at->rung > RUNG_NOT_RUN && at->rung < RUNG_FIRED;
}

/* Per rule (run order), the failed attempts that got furthest: the highest
 * score among its failures, at most EXPORT_NEAR_MISS_MAX_PER_RULE marks on
 * drawn nodes, in the matcher's ranking (depth, then topological order). */
static void collect_near_misses(export_builder *b)
{
	const fd_match_result *r = b->r;
	uint32_t *idx = xmalloc((r->trace.n_attempts + 1) * sizeof *idx);
	for (int32_t oi = 0; oi < r->n_rules; oi++) {
		int32_t rule = r->order[oi];
		if (b->o->rule && strcmp(r->rules->rules[rule].name, b->o->rule))
			continue;
		size_t n = explain_rank_attempts(r, rule, idx, r->trace.n_attempts);
		uint32_t best = 0;
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			const fd_attempt *at = &r->trace.attempts[idx[i]];
			if (attempt_failed(at) && (!any || at->score > best)) {
				best = at->score;
				any = true;
			}
		}
		for (size_t i = 0; any && i < n; i++) {
			const fd_attempt *at = &r->trace.attempts[idx[i]];
			if (!attempt_failed(at) || at->score != best)
				continue;
			int32_t node = match_unit_node(r->ctx, at->graph, at->anchor);
			if (node < 0 || !b->sel->node_on[at->graph][node])
				continue;
			if (b->rule[rule].marks == EXPORT_NEAR_MISS_MAX_PER_RULE) {
				b->rule[rule].marks_left++;
				continue;
			}
			/* appended at the node's tail: marks read in run order */
			export_near_mark mk = { idx[i], -1 };
			vec_push(&b->marks, mk);
			int32_t *link = &b->graph[at->graph].mark_head[node];
			while (*link >= 0)
				link = &b->marks.items[*link].next;
			*link = (int32_t)b->marks.n - 1;
			b->rule[rule].marks++;
		}
	}
	free(idx);
}

/* ---- init / release ------------------------------------------------------------ */

/* A zeroed array of n (at least one) items in the builder's arena. */
#define ARENA_ARRAY(b, n, type) ((type *)arena_array(&(b)->arena, (size_t)(n) + 1, sizeof(type)))

/* Per graph: the node and tensor tables, and the tensors at the peak of the
 * view drawn (after the fusions or before). */
static void init_graphs(export_builder *b)
{
	const fd_model *m = b->m;
	const fd_estimate *est = b->est;
	b->graph = ARENA_ARRAY(b, m->n_graphs, export_graph_state);
	for (int32_t g = 0; g < m->n_graphs; g++) {
		const fd_graph *gr = &m->graphs[g];
		export_graph_state *gs = &b->graph[g];
		gs->obj = ARENA_ARRAY(b, gr->n_nodes, Agnode_t *);
		gs->tobj = ARENA_ARRAY(b, gr->n_tensors, Agnode_t *);
		gs->peak = ARENA_ARRAY(b, gr->n_tensors, uint8_t);
		gs->mark_head = ARENA_ARRAY(b, gr->n_nodes, int32_t);
		for (int32_t n = 0; n < gr->n_nodes; n++)
			gs->mark_head[n] = -1;
		gs->in_float = ARENA_ARRAY(b, gr->n_nodes, bool);
		gs->n_float = explain_float_ops(b->r, g, gs->in_float);
		/* a peak that is not known (it depends on values nobody bound, or on
		 * sizes nobody knows) marks nothing: red edges would claim a peak */
		if (g < est->n_graphs && sint_defined((b->after ? &est->graphs[g].after : &est->graphs[g].before)->peak_f)) {
			const fd_liveness *lv = b->after ? &est->graphs[g].after : &est->graphs[g].before;
			for (int32_t k = 0; k < lv->n_peak_tensors; k++)
				if (lv->peak_tensors[k].tensor >= 0 && lv->peak_tensors[k].tensor < gr->n_tensors)
					gs->peak[lv->peak_tensors[k].tensor] = 1;
		}
	}
}

/* Per rule: its fusions numbered, those drawn counted, near misses marked,
 * then the colours: rules with drawn fusions first, then rules with only
 * marks, each in run order. */
static void init_rules(export_builder *b)
{
	const fd_match_result *r = b->r;
	b->fusion = ARENA_ARRAY(b, r->n_fusions, export_fusion_state);
	b->rule = ARENA_ARRAY(b, r->n_rules, export_rule_state);
	for (size_t f = 0; f < r->n_fusions; f++) {
		export_rule_state *rs = &b->rule[r->fusions[f].rule];
		b->fusion[f].seq = ++rs->n_fusions;
		if (b->sel->fusion_drawn[f])
			rs->drawn++;
	}
	if (b->near)
		collect_near_misses(b);
	for (int32_t i = 0; i < r->n_rules; i++)
		b->rule[i].color = -1;
	int32_t next = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int32_t oi = 0; oi < r->n_rules; oi++) {
			int32_t rule = r->order[oi];
			if (b->rule[rule].color < 0 && (pass ? b->rule[rule].marks > 0 : b->rule[rule].drawn > 0))
				b->rule[rule].color = next++;
		}
}

void export_builder_init(export_builder *b, const fd_match_result *r, const fd_export_options *o,
                         const fd_estimate *est, const fd_export_selection *sel)
{
	memset(b, 0, sizeof *b);
	b->r = r;
	b->m = r->ctx->model;
	b->o = o;
	b->est = est;
	b->sel = sel;
	b->after = o->after;
	b->near = o->near_misses && !o->after;
	strmap_init(&b->ids);
	strmap_init(&b->edges);
	arena_init(&b->arena);
	init_graphs(b);
	init_rules(b);
	export_compiler_init(b);
	b->root = export_gv_open("fusiondbg");
	for (size_t i = 0; i < sizeof attr_defaults / sizeof *attr_defaults; i++)
		for (const char *const *p = attr_defaults[i].pairs; *p; p += 2)
			agattr(b->root, attr_defaults[i].kind, (char *)p[0], (char *)p[1]);
}

void export_builder_release(export_builder *b)
{
	vec_release(&b->marks);
	export_compiler_release(b);
	strmap_release(&b->ids);
	strmap_release(&b->edges);
	arena_release(&b->arena);
	if (b->root)
		agclose(b->root);
	memset(b, 0, sizeof *b);
}
