/* view_rules.c — the rules view: one row per rule in the order they run
 * (priority, then name), with priority, enabled, fusions fired / attempts,
 * the rule's colour in the graph view, and marks for breakpoints and
 * unsaved edits. */
#include <stdio.h>
#include <string.h>
#include "view.h"
#include "explain/explain.h"

static size_t rows(tui *t)
{
	return t->n_rule_rows;
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
	if (row >= t->n_rule_rows)
		return "";
	const fd_rule *r = &session_rules(&t->s)->rules[t->rule_rows[row]];
	snprintf(buf, size, "%lld %s", (long long)r->priority, r->name);
	return buf;
}

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	int32_t ri = t->rule_rows[row];
	const fd_rule *r = &session_rules(&t->s)->rules[ri];
	fd_rule_stats sum = tui_rule_stats(t, ri);   /* over every round */
	const fd_rule_stats *st = &sum;
	attr_t cur = cursor && t->focus == VIEW_RULES ? A_REVERSE : 0;
	int end = x + w;
	if (cur)
		display_fill(y, x, w, ROLE_CURSOR, 0);
	int base = cur ? ROLE_CURSOR : r->enabled ? ROLE_NORMAL : ROLE_DIM;
	x = display_text(y, x, end - x, rule_has_bp(t, ri) ? ROLE_BREAK : base, 0,
	                 rule_has_bp(t, ri) ? G.breakpoint : cursor ? G.cursor : " ");
	char buf[64];
	snprintf(buf, sizeof buf, "%4lld ", (long long)r->priority);
	x = display_text(y, x, end - x, rule_edited(t, ri) ? ROLE_EDITED : base, 0, buf);
	x = display_text(y, x, end - x, r->enabled ? (cur ? ROLE_CURSOR : ROLE_PASS) : ROLE_FAIL, 0,
	                 r->enabled ? G.pass : G.fail);
	x = display_text(y, x + 1, end - x - 1, ROLE_RULE0 + ri % ROLE_RULE_COLOURS, 0,
	                 st->effect_times ? G.fused : " ");
	char counts[48];
	snprintf(counts, sizeof counts, " %lld/%lld%s", (long long)st->effect_times, (long long)st->attempts,
	         st->attempts && !st->effect_times ? " !" : "  ");
	int cw = display_width(counts);
	int name_w = end - x - 1 - cw;
	char name[160];
	snprintf(name, sizeof name, "%s%s", r->name, rule_edited(t, ri) ? "*" : "");
	display_text(y, x + 1, name_w, base, 0, name);
	display_text(y, end - cw, cw, st->effect_times ? (cur ? ROLE_CURSOR : ROLE_FIRED) : base, 0, counts);
}

static void select_row(tui *t)
{
	if (t->list[VIEW_RULES].cursor < t->n_rule_rows)
		tui_set_detail_rule(t, t->rule_rows[t->list[VIEW_RULES].cursor]);
}

static unsigned action(tui *t, enum tui_action a)
{
	if (t->list[VIEW_RULES].cursor >= t->n_rule_rows)
		return RES_UNHANDLED;
	int32_t ri = t->rule_rows[t->list[VIEW_RULES].cursor];
	const fd_rule *rule = &session_rules(&t->s)->rules[ri];
	int32_t round;
	switch (a) {
	case ACT_ENTER: {
		uint32_t at = tui_best_attempt(t, ri, false, &round);
		if (at == UINT32_MAX) {
			tui_message(t, ROLE_WARN, "%s made no attempt: no node of its op0 type in the model", rule->name);
			return RES_REDRAW;
		}
		tui_show_view(t, VIEW_TRACE);
		const fd_match_result *r = rounds_get(session_rounds(&t->s), round)->result;
		return tui_goto_round_event(t, round, vs_attempt_focus(&r->trace, at)) | RES_REDRAW;
	}
	case ACT_WHY_NOT: {
		uint32_t at = tui_best_attempt(t, ri, true, &round);
		if (at == UINT32_MAX) {
			tui_message(t, ROLE_WARN, tui_rule_stats(t, ri).attempts ? "%s fired on every anchor it tried"
			            : "%s made no attempt: no node of its op0 type in the model", rule->name);
			return RES_REDRAW;
		}
		tui_show_view(t, VIEW_TRACE);
		const fd_match_result *r = rounds_get(session_rounds(&t->s), round)->result;
		unsigned res = tui_goto_round_event(t, round, vs_attempt_focus(&r->trace, at));
		char line[1024];
		tui_message(t, ROLE_FAIL, "%s", explain_why_line(r, at, line, sizeof line));
		return res | RES_REDRAW;
	}
	case ACT_BREAKPOINT: {
		vs_breakpoint bp = { .kind = BP_RULE, .rule = ri };
		bool on = vs_bp_toggle(&t->bps, &bp);
		tui_message(t, ROLE_BREAK, "breakpoint %s: rule %s", on ? "set" : "removed", rule->name);
		return RES_REDRAW;
	}
	default:
		return RES_UNHANDLED;
	}
}

static const enum tui_action hints[] = {
	ACT_ENTER, ACT_WHY_NOT, ACT_PRIORITY_UP, ACT_PRIORITY_DOWN, ACT_TOGGLE_ENABLED, ACT_EDIT, ACT_UNDO,
	ACT_SAVE, ACT_VIEW_DIFF, ACT_VIEW_NEXT, ACT_VIEW_HELP, ACT_NONE
};

const view_ops view_rules_ops = {
	.rows = rows, .draw_row = draw_row, .row_text = row_text, .action = action,
	.select = select_row, .hints = hints,
};
