/* view_rules.c — the rules view: one row per rule in the order they run
 * (priority, then name), with priority, enabled, fusions fired / attempts,
 * the rule's colour in the graph view, and marks for breakpoints and
 * unsaved edits.
 * State: its own rules_view (t->views[VIEW_RULES].data): the rules in run
 * order and their marks, made again after every run. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "view.h"
#include "explain/explain.h"
#include "loop.h"

/* Per rule (by index): the lint's warnings as the rule is now
 * (session_rule_lint), and why it did not run (an fd_reason, or 0). */
struct rule_mark { uint16_t lint; uint8_t not_run; };

/* The view's own state (t->views[VIEW_RULES].data): the rules in run order
 * (priority) as rule indices, their marks, and the warnings' sum (the
 * title bar shows it). */
typedef struct rules_view {
	int32_t *rows;
	size_t n_rows;
	struct rule_mark *marks;
	size_t lint_total;
} rules_view;

static rules_view *state(const tui *t)
{
	return t->views[VIEW_RULES].data;
}

/* The rule under the cursor, or -1. */
static int32_t rule_at_cursor(const tui *t, const rules_view *rv)
{
	size_t row = t->views[VIEW_RULES].list.cursor;
	return row < rv->n_rows ? rv->rows[row] : -1;
}

/* The rows and marks of the last run; the cursor stays on its rule. */
static void rebuild(tui *t, rules_view *rv)
{
	const fd_match_result *r = session_result(&t->s);
	int32_t keep = rule_at_cursor(t, rv);
	free(rv->rows);
	rv->n_rows = (size_t)r->n_rules;
	rv->rows = xcalloc(rv->n_rows + 1, sizeof *rv->rows);
	for (size_t i = 0; i < rv->n_rows; i++)
		rv->rows[i] = tui_run_order(t, i);
	free(rv->marks);
	rv->marks = xcalloc(rv->n_rows + 1, sizeof *rv->marks);
	rv->lint_total = 0;
	for (size_t i = 0; i < rv->n_rows; i++) {
		size_t n = session_rule_lint(&t->s, (int32_t)i, NULL);
		rv->marks[i].lint = n > UINT16_MAX ? UINT16_MAX : (uint16_t)n;
		rv->lint_total += n;
	}
	for (size_t a = 0; a < r->trace.n_attempts; a++)   /* a rule that did not run has one such attempt */
		if (r->trace.attempts[a].anchor < 0 && (size_t)r->trace.attempts[a].rule < rv->n_rows)
			rv->marks[r->trace.attempts[a].rule].not_run = r->trace.attempts[a].reason;
	vs_list_set_rows(&t->views[VIEW_RULES].list, rv->n_rows);
	for (size_t i = 0; i < rv->n_rows; i++)
		if (rv->rows[i] == keep) {
			vs_list_goto(&t->views[VIEW_RULES].list, i);
			break;
		}
}

static void after_run(tui *t)
{
	rebuild(t, state(t));
}

static int32_t cursor_rule(tui *t)
{
	return rule_at_cursor(t, state(t));
}

/* The rules view marks the rules; the title says how many warnings (the
 * detail says what). */
static void title_note(tui *t, char *buf, size_t size)
{
	const rules_view *rv = state(t);
	if (rv->lint_total)
		snprintf(buf, size, "  %s %zu warning%s", t->disp->g->warn, rv->lint_total, rv->lint_total == 1 ? "" : "s");
}

static size_t rows(tui *t)
{
	return state(t)->n_rows;
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

/* For search: the priority and the name. */
static const char *row_text(tui *t, size_t row, char *buf, size_t size, int *role)
{
	*role = ROLE_NORMAL;
	if (row >= state(t)->n_rows)
		return "";
	const fd_rule *r = &session_rules(&t->s)->rules[state(t)->rows[row]];
	*role = r->enabled ? ROLE_NORMAL : ROLE_DIM;
	snprintf(buf, size, "%lld %s", (long long)r->priority, r->name);
	return buf;
}

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	int32_t ri = state(t)->rows[row];
	/* the ▶ marks the rule + and - edit: from another view (an event of
	 * the trace, a fused node), that view's rule, not this list's cursor */
	int32_t edited_rule = t->focus == VIEW_RULES ? -1 : tui_rule_under_cursor(t);
	bool mark = edited_rule >= 0 ? ri == edited_rule : cursor;
	const fd_rule *r = &session_rules(&t->s)->rules[ri];
	fd_rule_stats sum = tui_rule_stats(t, ri);   /* over every round */
	const fd_rule_stats *st = &sum;
	attr_t cur = cursor && t->focus == VIEW_RULES ? A_REVERSE : 0;
	int end = x + w;
	if (cur)
		display_fill(t->disp, y, x, w, ROLE_CURSOR, 0);
	int base = cur ? ROLE_CURSOR : r->enabled ? ROLE_NORMAL : ROLE_DIM;
	x = display_text(t->disp, y, x, end - x, rule_has_bp(t, ri) ? ROLE_BREAK : base, 0,
	                 rule_has_bp(t, ri) ? t->disp->g->breakpoint : mark ? t->disp->g->cursor : " ");
	char buf[64];
	snprintf(buf, sizeof buf, "%4lld ", (long long)r->priority);
	x = display_text(t->disp, y, x, end - x, rule_edited(t, ri) ? ROLE_EDITED : base, 0, buf);
	/* enabled ✓, disabled ✗, enabled with lint warnings ! (the detail lists them) */
	const struct rule_mark *mk = &state(t)->marks[ri];
	x = display_text(t->disp, y, x, end - x, !r->enabled ? ROLE_FAIL : mk->lint ? ROLE_WARN : cur ? ROLE_CURSOR : ROLE_PASS, 0,
	                 !r->enabled ? t->disp->g->fail : mk->lint ? t->disp->g->warn : t->disp->g->pass);
	x = display_text(t->disp, y, x + 1, end - x - 1, ROLE_RULE0 + ri % ROLE_RULE_COLOURS, 0,
	                 st->effect_times ? t->disp->g->fused : " ");
	/* fired / anchors tried, ! when it tried and never fired; a rule that did not run says why */
	char counts[48];
	if (mk->not_run)
		snprintf(counts, sizeof counts, " %s  ", mk->not_run == REASON_NR01_DISABLED ? "off"
		         : mk->not_run == REASON_NR02_SCOPE ? "scope" : "invalid");
	else if (st->declined || st->unchanged)   /* effect / match / anchors: it matched and declined */
		snprintf(counts, sizeof counts, " %lld/%lld/%lld%s", (long long)st->effect_times, (long long)st->match_times,
		         (long long)st->attempts, st->attempts && !st->effect_times ? " !" : "  ");
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
	if (t->views[VIEW_RULES].list.cursor < state(t)->n_rows)
		tui_set_detail_rule(t, state(t)->rows[t->views[VIEW_RULES].list.cursor]);
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
	if (t->views[VIEW_RULES].list.cursor >= state(t)->n_rows)
		return RES_UNHANDLED;
	int32_t ri = state(t)->rows[t->views[VIEW_RULES].list.cursor];
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
		if (at == UINT32_MAX && state(t)->marks[ri].not_run)
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

/* Opened after the first run: its rows come with it. */
static void *open_view(tui *t)
{
	rules_view *rv = xcalloc(1, sizeof *rv);
	rebuild(t, rv);
	return rv;
}

static void close_view(void *data)
{
	rules_view *rv = data;
	free(rv->rows);
	free(rv->marks);
	free(rv);
}

const view_ops view_rules_ops = {
	.rows = rows, .text = row_text, .draw_row = draw_row, .action = action,
	.select = select_row, .hints = hints,
	.open = open_view, .close = close_view, .after_run = after_run, .cursor_rule = cursor_rule,
	.title_note = title_note,
};
