/* session_diff.c — what the current rules do differently from the rules as
 * loaded: fusions gained, lost and changed (same anchor, or overlapping
 * nodes, with other nodes or another rule), rules whose priority / enabled /
 * effect_times changed, and the main graph's peak before → after. */
#include <stdlib.h>
#include <string.h>
#include "base/json.h"
#include "session/session_internal.h"
#include "base/text.h"

static bool same_fusion(const fd_match_result *a, const fd_fusion *fa, const fd_match_result *b,
                        const fd_fusion *fb)
{
	if (fa->rule != fb->rule || fa->n_nodes != fb->n_nodes || fa->graph != fb->graph)
		return false;
	return !memcmp(a->pool + fa->nodes, b->pool + fb->nodes, (size_t)fa->n_nodes * sizeof(int32_t));
}

static int32_t naming_node(const fd_match_result *r, const fd_fusion *fu)
{
	int32_t n = match_unit_node(r->ctx, fu->graph, fu->anchor);
	return n >= 0 ? n : (fu->n_nodes ? r->pool[fu->nodes] : 0);
}

static const fd_session *sort_s;
static const fd_match_result *sort_r;

static int cmp_anchor(const void *x, const void *y)
{
	const fd_fusion *a = &sort_r->fusions[*(const int32_t *)x], *b = &sort_r->fusions[*(const int32_t *)y];
	if (a->graph != b->graph)
		return a->graph < b->graph ? -1 : 1;
	if (a->anchor != b->anchor)
		return a->anchor < b->anchor ? -1 : 1;
	return (*(const int32_t *)x > *(const int32_t *)y) - (*(const int32_t *)x < *(const int32_t *)y);
}

static int cmp_change(const void *x, const void *y)
{
	const fd_fusion_change *a = x, *b = y;
	if (a->graph != b->graph)
		return a->graph < b->graph ? -1 : 1;
	const fd_graph *g = &sort_s->model.graphs[a->graph];
	int32_t ta = g->nodes[a->node].topo, tb = g->nodes[b->node].topo;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	return (int)a->kind - (int)b->kind;
}

static void push(fd_session_diff *df, size_t *cap, fd_fusion_change c)
{
	if (df->n_changes == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		df->changes = xrealloc(df->changes, *cap * sizeof *df->changes);
	}
	df->changes[df->n_changes++] = c;
}

static void diff_one_round(const fd_session *s, fd_session_diff *df)
{
	const fd_match_result *A = session_baseline(s), *B = &s->current;
	size_t cap = 0;
	int32_t *pair_a = xmalloc((A->n_fusions + 1) * sizeof *pair_a);
	int32_t *pair_b = xmalloc((B->n_fusions + 1) * sizeof *pair_b);
	for (size_t i = 0; i < A->n_fusions; i++)
		pair_a[i] = -1;
	for (size_t j = 0; j < B->n_fusions; j++)
		pair_b[j] = -1;
	/* 1. same graph and anchor unit: both sorted by (graph, anchor), merged */
	int32_t *sa = xmalloc((A->n_fusions + 1) * sizeof *sa), *sb = xmalloc((B->n_fusions + 1) * sizeof *sb);
	for (size_t i = 0; i < A->n_fusions; i++)
		sa[i] = (int32_t)i;
	for (size_t j = 0; j < B->n_fusions; j++)
		sb[j] = (int32_t)j;
	sort_r = A;
	qsort(sa, A->n_fusions, sizeof *sa, cmp_anchor);
	sort_r = B;
	qsort(sb, B->n_fusions, sizeof *sb, cmp_anchor);
	for (size_t i = 0, j = 0; i < A->n_fusions && j < B->n_fusions;) {
		const fd_fusion *fa = &A->fusions[sa[i]], *fb = &B->fusions[sb[j]];
		int c = fa->graph != fb->graph ? (fa->graph < fb->graph ? -1 : 1)
		      : fa->anchor != fb->anchor ? (fa->anchor < fb->anchor ? -1 : 1) : 0;
		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			pair_a[sa[i]] = sb[j];
			pair_b[sb[j]] = sa[i];
			i++;
			j++;
		}
	}
	free(sa);
	free(sb);
	/* 2. overlapping nodes (the same place, claimed by another rule) */
	for (size_t j = 0; j < B->n_fusions; j++) {
		const fd_fusion *fb = &B->fusions[j];
		if (pair_b[j] >= 0)
			continue;
		for (int32_t k = 0; k < fb->n_nodes && pair_b[j] < 0; k++) {
			int32_t node = B->pool[fb->nodes + (uint32_t)k];
			int32_t i = A->claim ? A->claim[fb->graph][node] : -1;
			if (i >= 0 && pair_a[i] < 0) {
				pair_a[i] = (int32_t)j;
				pair_b[j] = i;
			}
		}
	}
	for (size_t i = 0; i < A->n_fusions; i++) {
		const fd_fusion *fa = &A->fusions[i];
		if (pair_a[i] < 0) {
			push(df, &cap, (fd_fusion_change){ CHANGE_LOST, fa->graph, naming_node(A, fa), (int32_t)i, -1, 1, 0 });
			df->n_lost++;
		} else if (!same_fusion(A, fa, B, &B->fusions[pair_a[i]])) {
			push(df, &cap, (fd_fusion_change){ CHANGE_CHANGED, fa->graph, naming_node(A, fa), (int32_t)i,
			                                   pair_a[i], 1, 1 });
			df->n_changed++;
		} else {
			df->n_unchanged++;
		}
	}
	for (size_t j = 0; j < B->n_fusions; j++) {
		const fd_fusion *fb = &B->fusions[j];
		if (pair_b[j] < 0) {
			push(df, &cap, (fd_fusion_change){ CHANGE_GAINED, fb->graph, naming_node(B, fb), -1, (int32_t)j, 0, 1 });
			df->n_gained++;
		}
	}
	free(pair_a);
	free(pair_b);
}

/* ---- with rounds: the final fusions, by original nodes ----------------------------- */

typedef struct final {
	int32_t round;
	int32_t fusion, rule, graph;
	int32_t n;
	int32_t *nodes;               /* original, topological order */
} final;

typedef VEC(final) final_vec;

/* rounds_each_final's visitor: a copy of the fusion into the final_vec arg. */
static void add_final(const fd_final_fusion *ff, void *arg)
{
	final x = { ff->round, (int32_t)ff->index, ff->fusion->rule, ff->fusion->graph, (int32_t)ff->n_originals,
	            xmalloc((ff->n_originals + 1) * sizeof *x.nodes) };
	memcpy(x.nodes, ff->originals, ff->n_originals * sizeof *x.nodes);
	vec_push((final_vec *)arg, x);
}

static void finals_release(final_vec *v)
{
	for (size_t k = 0; k < v->n; k++)
		free(v->items[k].nodes);
	vec_release(v);
}

/* [graph][original node] → the final fusion holding it, -1 */
static int32_t **owners(const fd_model *m, const final_vec *v)
{
	int32_t **own = xcalloc((size_t)m->n_graphs + 1, sizeof *own);
	for (int32_t g = 0; g < m->n_graphs; g++) {
		own[g] = xmalloc(((size_t)m->graphs[g].n_nodes + 1) * sizeof **own);
		for (int32_t i = 0; i < m->graphs[g].n_nodes; i++)
			own[g][i] = -1;
	}
	for (size_t k = 0; k < v->n; k++)
		for (int32_t j = 0; j < v->items[k].n; j++)
			own[v->items[k].graph][v->items[k].nodes[j]] = (int32_t)k;
	return own;
}

static void diff_rounds(const fd_session *s, fd_session_diff *df)
{
	final_vec A = { 0 }, B = { 0 };
	rounds_each_final(session_baseline_rounds(s), add_final, &A);
	rounds_each_final(session_rounds(s), add_final, &B);
	int32_t **own_a = owners(&s->model, &A);
	int32_t *pair_a = xmalloc((A.n + 1) * sizeof *pair_a), *pair_b = xmalloc((B.n + 1) * sizeof *pair_b);
	for (size_t i = 0; i < A.n; i++)
		pair_a[i] = -1;
	/* the same place: a baseline fusion sharing a node, the first one */
	for (size_t j = 0; j < B.n; j++) {
		pair_b[j] = -1;
		for (int32_t k = 0; k < B.items[j].n && pair_b[j] < 0; k++) {
			int32_t i = own_a[B.items[j].graph][B.items[j].nodes[k]];
			if (i >= 0 && pair_a[i] < 0) {
				pair_a[i] = (int32_t)j;
				pair_b[j] = i;
			}
		}
	}
	size_t cap = 0;
	for (size_t i = 0; i < A.n; i++) {
		const final *a = &A.items[i];
		if (pair_a[i] < 0) {
			push(df, &cap, (fd_fusion_change){ CHANGE_LOST, a->graph, a->nodes[0], a->fusion, -1, a->round, 0 });
			df->n_lost++;
			continue;
		}
		const final *b = &B.items[pair_a[i]];
		if (a->rule != b->rule || a->n != b->n || memcmp(a->nodes, b->nodes, (size_t)a->n * sizeof *a->nodes)) {
			push(df, &cap, (fd_fusion_change){ CHANGE_CHANGED, a->graph, a->nodes[0], a->fusion, b->fusion, a->round,
			                                   b->round });
			df->n_changed++;
		} else {
			df->n_unchanged++;
		}
	}
	for (size_t j = 0; j < B.n; j++)
		if (pair_b[j] < 0) {
			const final *b = &B.items[j];
			push(df, &cap, (fd_fusion_change){ CHANGE_GAINED, b->graph, b->nodes[0], -1, b->fusion, 0, b->round });
			df->n_gained++;
		}
	for (int32_t g = 0; g < s->model.n_graphs; g++)
		free(own_a[g]);
	free(own_a);
	free(pair_a);
	free(pair_b);
	finals_release(&A);
	finals_release(&B);
}

static void rule_effects(const fd_rounds *rd, int32_t rule, int64_t *effect)
{
	*effect = 0;
	for (int32_t k = 0; k < rd->n; k++)
		if (rd->items[k]->result->stats && rule < rd->items[k]->result->n_rules)
			*effect += rd->items[k]->result->stats[rule].effect_times;
}

int session_diff(const fd_session *s, fd_session_diff *df)
{
	memset(df, 0, sizeof *df);
	const fd_rounds *ra = session_baseline_rounds(s), *rb = session_rounds(s);
	bool rounds = ra->n > 1 || rb->n > 1;
	if (rounds)
		diff_rounds(s, df);
	else
		diff_one_round(s, df);
	sort_s = s;
	if (df->n_changes)
		qsort(df->changes, df->n_changes, sizeof *df->changes, cmp_change);
	const fd_match_result *A = session_baseline(s), *B = &s->current;

	df->rules = xcalloc(s->rules.n_rules ? (size_t)s->rules.n_rules : 1, sizeof *df->rules);
	for (int32_t i = 0; i < s->rules.n_rules; i++) {
		const fd_rule *r = &s->rules.rules[i];
		fd_rule_change c = { i, s->prio0[i], r->priority, s->enabled0[i], r->enabled,
		                     A->stats && i < A->n_rules ? A->stats[i].effect_times : 0,
		                     B->stats && i < B->n_rules ? B->stats[i].effect_times : 0 };
		if (rounds) {
			rule_effects(ra, i, &c.effect_before);
			rule_effects(rb, i, &c.effect_after);
		}
		if (c.priority_before != c.priority_after || c.enabled_before != c.enabled_after ||
		    c.effect_before != c.effect_after)
			df->rules[df->n_rules++] = c;
	}
	const fd_estimate *ea = session_baseline_final_estimate(s), *eb = session_final_estimate(s);
	if (ea->n_graphs > 0) {
		df->peak_unfused_bytes = ea->graphs[0].before.peak_bytes;
		df->peak_before_bytes = ea->graphs[0].after.peak_bytes;
	}
	if (eb->n_graphs > 0)
		df->peak_after_bytes = eb->graphs[0].after.peak_bytes;
	return 0;
}

void session_diff_release(fd_session_diff *df)
{
	free(df->changes);
	free(df->rules);
	memset(df, 0, sizeof *df);
}

/* ---- words ---------------------------------------------------------------------- */

const fd_match_result *session_change_result(const fd_session *s, const fd_fusion_change *c, bool after)
{
	const fd_round *r = rounds_get(after ? session_rounds(s) : session_baseline_rounds(s),
	                               after ? c->round_after : c->round_before);
	return r ? r->result : NULL;
}

/* The change's fusion: its rule and original nodes. */
static const fd_rule *change_nodes(const fd_session *s, const fd_fusion_change *c, bool after, fd_id_vec *nodes)
{
	const fd_rounds *rd = after ? session_rounds(s) : session_baseline_rounds(s);
	int32_t round = after ? c->round_after : c->round_before, f = after ? c->after : c->before;
	const fd_match_result *r = session_change_result(s, c, after);
	nodes->n = 0;
	if (!r || f < 0)
		return NULL;
	rounds_fusion_originals(rd, round, (size_t)f, nodes);
	return &r->rules->rules[r->fusions[f].rule];
}

static void session_change_words(FILE *f, const fd_session *s, const fd_fusion_change *c, bool after)
{
	fd_id_vec nodes = { 0 };
	const fd_rule *rule = change_nodes(s, c, after, &nodes);
	const fd_graph *g = &s->model.graphs[c->graph];
	txt_fprintf(f, "%s [", rule ? rule->name : "?");
	for (size_t k = 0; k < nodes.n; k++)
		txt_fprintf(f, "%s%s", k ? " " : "", g->nodes[nodes.items[k]].name);
	fputc(']', f);
	vec_release(&nodes);
}

char *session_diff_peak_words(const fd_session *s, int which, char *buf, size_t size)
{
	const fd_estimate *e = which == 2 ? session_final_estimate(s) : session_baseline_final_estimate(s);
	if (e->n_graphs < 1)
		return estimate_format_bytes(0, buf, size);
	return estimate_format_peak(&s->model, which == 0 ? &e->graphs[0].before : &e->graphs[0].after, buf, size);
}

void session_write_diff_text(FILE *f, const fd_session *s, const fd_session_diff *df)
{
	char b1[256], b2[256];
	txt_fprintf(f, "diff against the rules as loaded: %zu gained, %zu lost, %zu changed, %zu unchanged\n",
	        df->n_gained, df->n_lost, df->n_changed, df->n_unchanged);
	for (size_t i = 0; i < df->n_changes; i++) {
		const fd_fusion_change *c = &df->changes[i];
		const fd_graph *g = &s->model.graphs[c->graph];
		switch (c->kind) {
		case CHANGE_GAINED:
			fputs("  + ", f);
			session_change_words(f, s, c, true);
			break;
		case CHANGE_LOST:
			fputs("  - ", f);
			session_change_words(f, s, c, false);
			break;
		case CHANGE_CHANGED:
			fputs("  ~ ", f);
			session_change_words(f, s, c, false);
			fputs(" -> ", f);
			session_change_words(f, s, c, true);
			break;
		}
		txt_fprintf(f, "  @ %s\n", g->nodes[c->node].name);
	}
	for (size_t i = 0; i < df->n_rules; i++) {
		const fd_rule_change *c = &df->rules[i];
		txt_fprintf(f, "  rule %s:", s->rules.rules[c->rule].name);
		if (c->priority_before != c->priority_after)
			txt_fprintf(f, " priority %lld -> %lld", (long long)c->priority_before, (long long)c->priority_after);
		if (c->enabled_before != c->enabled_after)
			txt_fprintf(f, " enabled %s -> %s", c->enabled_before ? "true" : "false",
			        c->enabled_after ? "true" : "false");
		if (c->effect_before != c->effect_after)
			txt_fprintf(f, " fired %lld -> %lld", (long long)c->effect_before, (long long)c->effect_after);
		fputc('\n', f);
	}
	txt_fprintf(f, "  peak memory (main graph): %s -> %s\n", session_diff_peak_words(s, 1, b1, sizeof b1),
	            session_diff_peak_words(s, 2, b2, sizeof b2));
}

static void json_s(FILE *f, const char *s)
{
	json_write_string(f, s);
}

static void fusion_json(FILE *f, const fd_session *s, const fd_fusion_change *c, bool after)
{
	fd_id_vec nodes = { 0 };
	const fd_rule *rule = change_nodes(s, c, after, &nodes);
	const fd_graph *g = &s->model.graphs[c->graph];
	fputs("{\"rule\": ", f);
	json_s(f, rule ? rule->name : NULL);
	fputs(", \"nodes\": [", f);
	for (size_t k = 0; k < nodes.n; k++) {
		if (k)
			fputs(", ", f);
		json_s(f, g->nodes[nodes.items[k]].name);
	}
	fputs("]}", f);
	vec_release(&nodes);
}

void session_write_diff_json(FILE *f, const fd_session *s, const fd_session_diff *df)
{
	static const char *const keys[] = { "gained", "lost", "changed" };
	fputs("{", f);
	for (int kind = CHANGE_GAINED; kind <= CHANGE_CHANGED; kind++) {
		fprintf(f, "%s\"%s\": [", kind ? ", " : "", keys[kind]);
		bool first = true;
		for (size_t i = 0; i < df->n_changes; i++) {
			const fd_fusion_change *c = &df->changes[i];
			if ((int)c->kind != kind)
				continue;
			fputs(first ? "" : ", ", f);
			first = false;
			if (kind == CHANGE_GAINED) {
				fusion_json(f, s, c, true);
			} else if (kind == CHANGE_LOST) {
				fusion_json(f, s, c, false);
			} else {
				fputs("{\"before\": ", f);
				fusion_json(f, s, c, false);
				fputs(", \"after\": ", f);
				fusion_json(f, s, c, true);
				fputc('}', f);
			}
		}
		fputc(']', f);
	}
	fputs(", \"rules\": [", f);
	for (size_t i = 0; i < df->n_rules; i++) {
		const fd_rule_change *c = &df->rules[i];
		fputs(i ? ", {\"name\": " : "{\"name\": ", f);
		json_s(f, s->rules.rules[c->rule].name);
		fprintf(f, ", \"priority_before\": %lld, \"priority_after\": %lld, \"enabled_before\": %s, "
		        "\"enabled_after\": %s, \"effect_before\": %lld, \"effect_after\": %lld}",
		        (long long)c->priority_before, (long long)c->priority_after,
		        c->enabled_before ? "true" : "false", c->enabled_after ? "true" : "false",
		        (long long)c->effect_before, (long long)c->effect_after);
	}
	fprintf(f, "], \"peak_unfused_bytes\": %lld, \"peak_before_bytes\": %lld, \"peak_after_bytes\": %lld}",
	        (long long)df->peak_unfused_bytes, (long long)df->peak_before_bytes, (long long)df->peak_after_bytes);
}
