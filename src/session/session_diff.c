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

int session_diff(const fd_session *s, fd_session_diff *df)
{
	memset(df, 0, sizeof *df);
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
			push(df, &cap, (fd_fusion_change){ CHANGE_LOST, fa->graph, naming_node(A, fa), (int32_t)i, -1 });
			df->n_lost++;
		} else if (!same_fusion(A, fa, B, &B->fusions[pair_a[i]])) {
			push(df, &cap, (fd_fusion_change){ CHANGE_CHANGED, fa->graph, naming_node(A, fa), (int32_t)i,
			                                   pair_a[i] });
			df->n_changed++;
		} else {
			df->n_unchanged++;
		}
	}
	for (size_t j = 0; j < B->n_fusions; j++) {
		const fd_fusion *fb = &B->fusions[j];
		if (pair_b[j] < 0) {
			push(df, &cap, (fd_fusion_change){ CHANGE_GAINED, fb->graph, naming_node(B, fb), -1, (int32_t)j });
			df->n_gained++;
		}
	}
	free(pair_a);
	free(pair_b);
	sort_s = s;
	if (df->n_changes)
		qsort(df->changes, df->n_changes, sizeof *df->changes, cmp_change);

	df->rules = xcalloc(s->rules.n_rules ? (size_t)s->rules.n_rules : 1, sizeof *df->rules);
	for (int32_t i = 0; i < s->rules.n_rules; i++) {
		const fd_rule *r = &s->rules.rules[i];
		fd_rule_change c = { i, s->prio0[i], r->priority, s->enabled0[i], r->enabled,
		                     A->stats ? A->stats[i].effect_times : 0, B->stats ? B->stats[i].effect_times : 0 };
		if (c.priority_before != c.priority_after || c.enabled_before != c.enabled_after ||
		    c.effect_before != c.effect_after)
			df->rules[df->n_rules++] = c;
	}
	const fd_estimate *ea = session_baseline_estimate(s), *eb = &s->current_est;
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

static void fusion_text(FILE *f, const fd_match_result *r, int32_t i)
{
	const fd_fusion *fu = &r->fusions[i];
	const fd_graph *g = r->ctx->graphs[fu->graph].g;
	txt_fprintf(f, "%s [", r->rules->rules[fu->rule].name);
	for (int32_t k = 0; k < fu->n_nodes; k++)
		txt_fprintf(f, "%s%s", k ? " " : "", g->nodes[r->pool[fu->nodes + (uint32_t)k]].name);
	fputc(']', f);
}

void session_write_diff_text(FILE *f, const fd_session *s, const fd_session_diff *df)
{
	char b1[32], b2[32];
	txt_fprintf(f, "diff against the rules as loaded: %zu gained, %zu lost, %zu changed, %zu unchanged\n",
	        df->n_gained, df->n_lost, df->n_changed, df->n_unchanged);
	for (size_t i = 0; i < df->n_changes; i++) {
		const fd_fusion_change *c = &df->changes[i];
		const fd_graph *g = &s->model.graphs[c->graph];
		switch (c->kind) {
		case CHANGE_GAINED:
			fputs("  + ", f);
			fusion_text(f, &s->current, c->after);
			break;
		case CHANGE_LOST:
			fputs("  - ", f);
			fusion_text(f, session_baseline(s), c->before);
			break;
		case CHANGE_CHANGED:
			fputs("  ~ ", f);
			fusion_text(f, session_baseline(s), c->before);
			fputs(" -> ", f);
			fusion_text(f, &s->current, c->after);
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
	txt_fprintf(f, "  peak memory (main graph): %s -> %s\n",
	        estimate_format_bytes(df->peak_before_bytes, b1, sizeof b1),
	        estimate_format_bytes(df->peak_after_bytes, b2, sizeof b2));
}

static void json_s(FILE *f, const char *s)
{
	json_write_string(f, s);
}

static void fusion_json(FILE *f, const fd_match_result *r, int32_t i)
{
	const fd_fusion *fu = &r->fusions[i];
	const fd_graph *g = r->ctx->graphs[fu->graph].g;
	fputs("{\"rule\": ", f);
	json_s(f, r->rules->rules[fu->rule].name);
	fputs(", \"nodes\": [", f);
	for (int32_t k = 0; k < fu->n_nodes; k++) {
		if (k)
			fputs(", ", f);
		json_s(f, g->nodes[r->pool[fu->nodes + (uint32_t)k]].name);
	}
	fputs("]}", f);
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
				fusion_json(f, &s->current, c->after);
			} else if (kind == CHANGE_LOST) {
				fusion_json(f, session_baseline(s), c->before);
			} else {
				fputs("{\"before\": ", f);
				fusion_json(f, session_baseline(s), c->before);
				fputs(", \"after\": ", f);
				fusion_json(f, &s->current, c->after);
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
