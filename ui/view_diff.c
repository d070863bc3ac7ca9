/* view_diff.c — what the edits changed against the rules as loaded: peak
 * memory before → after, the edits themselves, rules whose priority,
 * enabled or effect changed, and every fusion gained, lost or changed
 * (session_diff). Enter on a fusion shows its node in the graph.
 * State: its own diff_view (t->views[VIEW_DIFF].data): the session's diff
 * and the rows, made again after every run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view.h"
#include "base/vec.h"
#include "estimate/estimate.h"

/* A row: what it shows, and i: the edit, rule change or fusion change it
 * shows, which heading, or which "none". */
enum diff_row_kind { DR_PEAK, DR_COUNTS, DR_HEAD, DR_EDIT, DR_RULE, DR_FUSION, DR_NONE };
enum { HEAD_EDITS, HEAD_RULES, HEAD_FUSIONS };

struct diff_row { enum diff_row_kind kind; size_t i; };

/* The view's own state (t->views[VIEW_DIFF].data): the diff of the last
 * run and its rows, made when the view is first drawn after a run. */
typedef struct diff_view {
	fd_session_diff diff;
	bool valid;
	unsigned built_gen;   /* the run (t->run_gen) the diff is of */
	VEC(struct diff_row) rows;
} diff_view;

static void *open_view(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(diff_view));
}

static void close_view(void *data)
{
	diff_view *dv = data;
	if (dv->valid)
		session_diff_release(&dv->diff);
	vec_release(&dv->rows);
	free(dv);
}

static void push(diff_view *dv, enum diff_row_kind k, size_t i)
{
	vec_push(&dv->rows, ((struct diff_row){ k, i }));
}

/* The view's state, its diff that of the last run. */
static diff_view *ensure(tui *t)
{
	diff_view *dv = t->views[VIEW_DIFF].data;
	if (dv->valid && dv->built_gen == t->run_gen)
		return dv;
	if (dv->valid)
		session_diff_release(&dv->diff);
	session_diff(&t->s, &dv->diff);
	dv->valid = true;
	dv->built_gen = t->run_gen;
	dv->rows.n = 0;
	push(dv, DR_PEAK, 0);
	push(dv, DR_COUNTS, 0);
	push(dv, DR_HEAD, HEAD_EDITS);
	for (size_t i = 0; i < t->s.n_applied; i++)
		push(dv, DR_EDIT, i);
	if (!t->s.n_applied)
		push(dv, DR_NONE, 0);
	push(dv, DR_HEAD, HEAD_RULES);
	for (size_t i = 0; i < dv->diff.n_rules; i++)
		push(dv, DR_RULE, i);
	push(dv, DR_HEAD, HEAD_FUSIONS);
	for (size_t i = 0; i < dv->diff.n_changes; i++)
		push(dv, DR_FUSION, i);
	if (!dv->diff.n_changes)
		push(dv, DR_NONE, 1);
	return dv;
}

static size_t rows(tui *t)
{
	return ensure(t)->rows.n;
}

/* A change's fusion (the baseline's or the current rules'): its rule and,
 * into buf, its original nodes (with rounds, those of the final fusion). */
static const char *fusion_nodes(tui *t, const fd_fusion_change *c, bool after, char *buf, size_t size)
{
	buf[0] = 0;
	const fd_match_result *r = session_change_result(&t->s, c, after);
	int32_t f = after ? c->after : c->before;
	if (!r || f < 0 || (size_t)f >= r->n_fusions)
		return "?";
	fd_id_vec ids = { 0 };
	rounds_fusion_originals(after ? session_rounds(&t->s) : session_baseline_rounds(&t->s),
	                        after ? c->round_after : c->round_before, (size_t)f, &ids);
	const fd_graph *g = &session_model(&t->s)->graphs[c->graph];
	size_t used = 0;
	for (size_t i = 0; i < ids.n && used + 4 < size; i++) {
		int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", g->nodes[ids.items[i]].name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	vec_release(&ids);
	return r->rules->rules[r->fusions[f].rule].name;
}

static const char *row_text(tui *t, size_t row, char *buf, size_t size, int *role)
{
	diff_view *dv = ensure(t);
	const fd_session_diff *df = &dv->diff;
	const fd_ruleset *rs = session_rules(&t->s);
	const struct diff_row *d = &dv->rows.items[row];
	char b1[256], b2[256], b3[256], nodes[256];
	*role = ROLE_NORMAL;
	switch (d->kind) {
	case DR_PEAK:
		*role = ROLE_HEADER;
		snprintf(buf, size, "peak memory (main graph): as loaded %s %s now %s   (no fusion: %s)",
		         session_diff_peak_words(&t->s, 1, b1, sizeof b1), t->disp->g->arrow,
		         session_diff_peak_words(&t->s, 2, b2, sizeof b2), session_diff_peak_words(&t->s, 0, b3, sizeof b3));
		break;
	case DR_COUNTS:
		snprintf(buf, size, "fusions: %zu gained, %zu lost, %zu changed, %zu unchanged", df->n_gained, df->n_lost,
		         df->n_changed, df->n_unchanged);
		break;
	case DR_HEAD:
		*role = ROLE_HEADER;
		if (d->i == HEAD_EDITS)
			snprintf(buf, size, "edits (%zu unsaved; u undoes, s saves)", session_unsaved(&t->s));
		else
			snprintf(buf, size, "%s", d->i == HEAD_RULES ? "rules" : "fusions (Enter shows the node)");
		break;
	case DR_EDIT: {
		const fd_edit *e = &t->s.edits[d->i];
		*role = ROLE_EDITED;
		snprintf(buf, size, "  %s.%s: %s %s %s", rs->rules[e->rule].name, e->path, e->old_text ? e->old_text : "(absent)",
		         t->disp->g->arrow, e->new_text ? e->new_text : "(absent)");
		break;
	}
	case DR_RULE: {
		const fd_rule_change *c = &df->rules[d->i];
		char pr[96] = "", en[64] = "";
		if (c->priority_before != c->priority_after)
			snprintf(pr, sizeof pr, " priority %lld %s %lld", (long long)c->priority_before, t->disp->g->arrow,
			         (long long)c->priority_after);
		if (c->enabled_before != c->enabled_after)
			snprintf(en, sizeof en, " %s", c->enabled_after ? "enabled" : "disabled");
		*role = c->effect_after > c->effect_before ? ROLE_GAIN : c->effect_after < c->effect_before ? ROLE_LOSS
		      : ROLE_NORMAL;
		snprintf(buf, size, "  %s:%s%s fired %lld %s %lld", rs->rules[c->rule].name, pr, en,
		         (long long)c->effect_before, t->disp->g->arrow, (long long)c->effect_after);
		break;
	}
	case DR_FUSION: {
		const fd_fusion_change *c = &df->changes[d->i];
		const fd_graph *g = &session_model(&t->s)->graphs[c->graph];
		const char *node = c->node >= 0 && c->node < g->n_nodes ? g->nodes[c->node].name : "?";
		char was[1024];
		if (c->kind == CHANGE_GAINED) {
			*role = ROLE_GAIN;
			snprintf(buf, size, "  + gained %s @ %s: %s", fusion_nodes(t, c, true, nodes, sizeof nodes), node, nodes);
		} else if (c->kind == CHANGE_LOST) {
			*role = ROLE_LOSS;
			snprintf(buf, size, "  - lost   %s @ %s: %s", fusion_nodes(t, c, false, nodes, sizeof nodes), node, nodes);
		} else {
			*role = ROLE_WARN;
			const char *before = fusion_nodes(t, c, false, was, sizeof was);
			snprintf(buf, size, "  ~ changed %s %s %s @ %s: %s", before, t->disp->g->arrow,
			         fusion_nodes(t, c, true, nodes, sizeof nodes), node, nodes);
		}
		break;
	}
	case DR_NONE:
		*role = ROLE_DIM;
		snprintf(buf, size, d->i == 0 ? "  none: +/- priority, t enable, e edit a value" : "  none");
		break;
	}
	return buf;
}

static unsigned action(tui *t, enum tui_action a)
{
	diff_view *dv = ensure(t);
	size_t row = t->views[VIEW_DIFF].list.cursor;
	if (a != ACT_ENTER || row >= dv->rows.n)
		return RES_UNHANDLED;
	const struct diff_row *d = &dv->rows.items[row];
	if (d->kind == DR_FUSION) {
		const fd_fusion_change *c = &dv->diff.changes[d->i];
		return tui_show_node(t, c->graph, c->node);
	}
	if (d->kind == DR_EDIT || d->kind == DR_RULE) {
		int32_t rule = d->kind == DR_EDIT ? t->s.edits[d->i].rule : dv->diff.rules[d->i].rule;
		tui_set_detail_rule(t, rule);
		return tui_show_view(t, VIEW_DETAIL);
	}
	return RES_REDRAW;
}

static const enum tui_action hints[] = {
	ACT_ENTER, ACT_UNDO, ACT_REDO, ACT_SAVE, ACT_EXPORT, ACT_BACK, ACT_VIEW_HELP, ACT_NONE
};

const view_ops view_diff_ops = {
	.rows = rows, .text = row_text, .action = action, .hints = hints,
	.open = open_view, .close = close_view,
};
