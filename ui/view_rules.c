/* view_rules.c — the rules view: one row per rule in the order they run
 * (priority, then name), with priority, enabled, fusions fired / attempts,
 * the rule's colour in the graph view, and marks for breakpoints and
 * unsaved edits.
 * State: rules_view (tui.h, t->views[VIEW_RULES].data): the rules in run
 * order and their marks, which tui.c rebuilds after every run. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "view.h"
#include "explain/explain.h"

static size_t rows(tui *t)
{
	return tui_rules(t)->n_rows;
}

static bool rule_edited(const tui *t, int32_t rule)
{
	for (size_t i = 0; i < t->s.n_applied; i++)
		if (t->s.edits[i].rule == rule)
			return true;
	return false;
}

static bool rule_has_bp(const tui *t, int32_t rule)
{
	for (size_t i = 0; i < t->bps.n; i++)
		if (t->bps.items[i].kind == BP_RULE && t->bps.items[i].rule == rule)
			return true;
	return false;
}

static const char *row_text(void *ctx, size_t row, char *buf, size_t size)
{
	tui *t = ctx;
	if (row >= tui_rules(t)->n_rows)
		return "";
	const fd_rule *r = &session_rules(&t->s)->rules[tui_rules(t)->rows[row]];
	snprintf(buf, size, "%lld %s", (long long)r->priority, r->name);
	return buf;
}

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	int32_t ri = tui_rules(t)->rows[row];
	const fd_rule *r = &session_rules(&t->s)->rules[ri];
	fd_rule_stats sum = tui_rule_stats(t, ri);   /* over every round */
	const fd_rule_stats *st = &sum;
	attr_t cur = cursor && t->focus == VIEW_RULES ? A_REVERSE : 0;
	int end = x + w;
	if (cur)
		display_fill(t->disp, y, x, w, ROLE_CURSOR, 0);
	int base = cur ? ROLE_CURSOR : r->enabled ? ROLE_NORMAL : ROLE_DIM;
	x = display_text(t->disp, y, x, end - x, rule_has_bp(t, ri) ? ROLE_BREAK : base, 0,
	                 rule_has_bp(t, ri) ? t->disp->g->breakpoint : cursor ? t->disp->g->cursor : " ");
	char buf[64];
	snprintf(buf, sizeof buf, "%4lld ", (long long)r->priority);
	x = display_text(t->disp, y, x, end - x, rule_edited(t, ri) ? ROLE_EDITED : base, 0, buf);
	/* enabled ✓, disabled ✗, enabled with lint warnings ! (the detail lists them) */
	const struct rule_mark *mk = &tui_rules(t)->marks[ri];
	x = display_text(t->disp, y, x, end - x, !r->enabled ? ROLE_FAIL : mk->lint ? ROLE_WARN : cur ? ROLE_CURSOR : ROLE_PASS, 0,
	                 !r->enabled ? t->disp->g->fail : mk->lint ? t->disp->g->warn : t->disp->g->pass);
	x = display_text(t->disp, y, x + 1, end - x - 1, ROLE_RULE0 + ri % ROLE_RULE_COLOURS, 0,
	                 st->effect_times ? t->disp->g->fused : " ");
	/* fired / anchors tried, ! when it tried and never fired; a rule that did not run says why */
	char counts[48];
	if (mk->not_run)
		snprintf(counts, sizeof counts, " %s  ", mk->not_run == REASON_NR01_DISABLED ? "off"
		         : mk->not_run == REASON_NR02_SCOPE ? "scope" : "invalid");
	else
		snprintf(counts, sizeof counts, " %lld/%lld%s", (long long)st->effect_times, (long long)st->attempts,
		         st->attempts && !st->effect_times ? " !" : "  ");
	int cw = display_width(counts);
	int name_w = end - x - 1 - cw;
	char name[160];
	snprintf(name, sizeof name, "%s%s", r->name, rule_edited(t, ri) ? "*" : "");
	display_text(t->disp, y, x + 1, name_w, base, 0, name);
	display_text(t->disp, y, end - cw, cw, st->effect_times ? (cur ? ROLE_CURSOR : ROLE_FIRED) : base, 0, counts);
}

static void select_row(tui *t)
{
	if (t->views[VIEW_RULES].list.cursor < tui_rules(t)->n_rows)
		tui_set_detail_rule(t, tui_rules(t)->rows[t->views[VIEW_RULES].list.cursor]);
}

/* The attempt best read first: a firing, else the closest near-miss. */
static uint32_t first_attempt(tui *t, int32_t rule)
{
	uint32_t idx[1];
	if (explain_rank_attempts(session_result(&t->s), rule, idx, 1) == 0)
		return UINT32_MAX;
	return idx[0];
}

/* "made no attempt": a rule without an anchor says what came nearest. */
static unsigned no_anchor(tui *t, int32_t rule)
{
	char lines[2][320];
	size_t n = explain_anchor_candidates(session_result(&t->s), rule, lines, 2);
	tui_message(t, ROLE_WARN, "%s had no anchor%s%s", session_rules(&t->s)->rules[rule].name, n ? ": " : "",
	            n ? lines[0] : "");
	return RES_REDRAW;
}

static unsigned action(tui *t, enum tui_action a)
{
	if (t->views[VIEW_RULES].list.cursor >= tui_rules(t)->n_rows)
		return RES_UNHANDLED;
	int32_t ri = tui_rules(t)->rows[t->views[VIEW_RULES].list.cursor];
	const fd_rule *rule = &session_rules(&t->s)->rules[ri];
	const fd_match_result *r = session_result(&t->s);
	int32_t round = 1;
	switch (a) {
	case ACT_ENTER: {
		/* over rounds: the best attempt of any round, and that round */
		uint32_t at = tui_n_rounds(t) > 1 ? tui_best_attempt(t, ri, false, &round) : first_attempt(t, ri);
		if (at == UINT32_MAX)
			return no_anchor(t, ri);
		r = rounds_get(session_rounds(&t->s), round)->result;
		tui_show_view(t, VIEW_TRACE);
		return tui_goto_round_event(t, round, vs_attempt_focus(&r->trace, at)) | RES_REDRAW;
	}
	case ACT_WHY_NOT: {
		uint32_t at = tui_n_rounds(t) > 1 ? tui_best_attempt(t, ri, true, &round) : explain_closest_miss(r, ri);
		if (at == UINT32_MAX && tui_rules(t)->marks[ri].not_run)
			at = first_attempt(t, ri);   /* the not-run record says why */
		if (at == UINT32_MAX && !tui_rule_stats(t, ri).attempts)
			return no_anchor(t, ri);
		if (at == UINT32_MAX) {
			tui_message(t, ROLE_WARN, "%s fired on every anchor it tried", rule->name);
			return RES_REDRAW;
		}
		if (at != UINT32_MAX && round > 1)
			r = rounds_get(session_rounds(&t->s), round)->result;
		else
			round = 1;
		tui_show_view(t, VIEW_TRACE);
		unsigned res = tui_goto_round_event(t, round, vs_attempt_focus(&r->trace, at));
		char line[1024];
		tui_message(t, ROLE_FAIL, "%s", explain_why_line(r, at, line, sizeof line));
		return res | RES_REDRAW;
	}
	case ACT_BREAKPOINT: {
		vs_breakpoint bp = { .kind = BP_RULE, .rule = ri };
		return tui_toggle_breakpoint(t, &bp);
	}
	default:
		return RES_UNHANDLED;
	}
}

static const enum tui_action hints[] = {
	ACT_ENTER, ACT_WHY_NOT, ACT_PRIORITY_UP, ACT_PRIORITY_DOWN, ACT_TOGGLE_ENABLED, ACT_EDIT, ACT_UNDO,
	ACT_SAVE, ACT_VIEW_DIFF, ACT_VIEW_NEXT, ACT_VIEW_HELP, ACT_NONE
};

/* The view's state (rules_view, tui.h): its rows come with the first run. */
static void *open_view(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(rules_view));
}

static void close_view(void *data)
{
	rules_view *rv = data;
	free(rv->rows);
	free(rv->marks);
	free(rv);
}

const view_ops view_rules_ops = {
	.rows = rows, .draw_row = draw_row, .row_text = row_text, .action = action,
	.select = select_row, .hints = hints,
	.open = open_view, .close = close_view,
};
