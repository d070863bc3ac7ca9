/* tui.c — the services on the tui state that views and handlers share:
 * messages, going to a view or an event, the rule under the cursor, list
 * moves, and the state derived from the session (the rules' rows, the trace
 * cursor across a re-run, the recovery file). A view is reached only through
 * its view_ops. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "loop.h"
#include "signals.h"
#include "base/text.h"

void tui_message(tui *t, int role, const char *fmt, ...)
{
	/* a long message keeps its head and its tail (what happened, and the
	 * counts after it) */
	strbuf b = { 0 };
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	text_cut(t->msg, sizeof t->msg, sb_str(&b));
	sb_release(&b);
	t->msg_role = role;
}

unsigned tui_toggle_breakpoint(tui *t, const vs_breakpoint *bp)
{
	const fd_match_result *r = session_result(&t->s);
	char what[256], why[400];
	vs_bp_describe(bp, r, what, sizeof what);
	if (!vs_bp_toggle(&t->bps, bp))
		tui_message(t, ROLE_BREAK, "breakpoint removed: %s", what);
	else if (!vs_bp_reachable(bp, r, why, sizeof why)) {
		if (bp->kind == BP_REASON)   /* the code is enough here, not its summary */
			what[strcspn(what + 7, " ") + 7] = '\0';
		tui_message(t, ROLE_WARN, "breakpoint set: %s, but %s", what, why);
	}
	else
		tui_message(t, ROLE_BREAK, "breakpoint set: %s (c runs to it, B lists them)", what);
	return RES_REDRAW;
}

/* ---- views and selection ------------------------------------------------- */

void tui_select_focus(tui *t)
{
	const view_ops *ops = t->views[t->focus];
	if (ops->select)
		ops->select(t);
}

unsigned tui_show_view(tui *t, enum tui_view v)
{
	if (v == t->focus)
		return RES_REDRAW;
	if (t->depth < (int)(sizeof t->stack / sizeof *t->stack))
		t->stack[t->depth++] = t->focus;
	t->focus = v;
	display_layout(t);
	tui_select_focus(t);
	return RES_REDRAW | RES_DETAIL;
}

unsigned tui_goto_event(tui *t, uint32_t ev)
{
	if (t->focus != VIEW_TRACE)
		tui_show_view(t, VIEW_TRACE);
	vs_list_set_rows(&t->list[VIEW_TRACE], session_result(&t->s)->trace.n_events);
	vs_list_goto(&t->list[VIEW_TRACE], ev);
	tui_select_focus(t);
	return RES_REDRAW | RES_DETAIL;
}

static int32_t rules_view_rule(const tui *t)
{
	size_t row = t->list[VIEW_RULES].cursor;
	return row < t->n_rule_rows ? t->rule_rows[row] : -1;
}

int32_t tui_rule_under_cursor(tui *t)
{
	const fd_match_result *r = session_result(&t->s);
	switch (t->focus) {
	case VIEW_TRACE:
		if (r->trace.n_events)
			return trace_event(&r->trace, t->list[VIEW_TRACE].cursor).rule;
		return -1;
	case VIEW_DETAIL:
		if (t->list[VIEW_DETAIL].cursor < t->drows.n && t->drows.items[t->list[VIEW_DETAIL].cursor].rule >= 0)
			return t->drows.items[t->list[VIEW_DETAIL].cursor].rule;
		return t->dkind == DETAIL_RULE ? t->drule : -1;
	case VIEW_GRAPH: {
		int32_t g, n;
		vs_graph_row_node(&t->grows, session_model(&t->s), t->list[VIEW_GRAPH].cursor, &g, &n);
		if (g >= 0 && n >= 0 && r->claim[g][n] >= 0)
			return r->fusions[r->claim[g][n]].rule;
		return rules_view_rule(t);   /* else the rule of the rules view */
	}
	default:
		return rules_view_rule(t);
	}
}

char *tui_row_label(tui *t, enum tui_view v, size_t row, char *buf, size_t size)
{
	if (t->views[v]->row_label)
		return t->views[v]->row_label(t, row, buf, size);
	snprintf(buf, size, "line %zu", row + 1);
	return buf;
}

bool tui_list_move(vs_list *l, enum tui_action a)
{
	switch (a) {
	case ACT_MOVE_UP: vs_list_move(l, -1); return true;
	case ACT_MOVE_DOWN: vs_list_move(l, 1); return true;
	case ACT_MOVE_PAGE_UP: vs_list_page(l, -1); return true;
	case ACT_MOVE_PAGE_DOWN: vs_list_page(l, 1); return true;
	case ACT_MOVE_FIRST: vs_list_home(l); return true;
	case ACT_MOVE_LAST: vs_list_end(l); return true;
	default: return false;
	}
}

/* ---- state derived from the session -------------------------------------- */

void tui_rebuild_rule_rows(tui *t)
{
	const fd_match_result *r = session_result(&t->s);
	int32_t keep = rules_view_rule(t);
	free(t->rule_rows);
	t->n_rule_rows = (size_t)r->n_rules;
	t->rule_rows = xcalloc(t->n_rule_rows + 1, sizeof *t->rule_rows);
	for (size_t i = 0; i < t->n_rule_rows; i++)
		t->rule_rows[i] = r->order ? r->order[i] : (int32_t)i;
	free(t->rule_marks);
	t->rule_marks = xcalloc(t->n_rule_rows + 1, sizeof *t->rule_marks);
	t->lint_total = 0;
	for (size_t i = 0; i < t->n_rule_rows; i++) {
		size_t n = session_rule_lint(&t->s, (int32_t)i, NULL);
		t->rule_marks[i].lint = n > UINT16_MAX ? UINT16_MAX : (uint16_t)n;
		t->lint_total += n;
	}
	for (size_t a = 0; a < r->trace.n_attempts; a++)   /* a rule that did not run has one such attempt */
		if (r->trace.attempts[a].anchor < 0 && (size_t)r->trace.attempts[a].rule < t->n_rule_rows)
			t->rule_marks[r->trace.attempts[a].rule].not_run = r->trace.attempts[a].reason;
	vs_list_set_rows(&t->list[VIEW_RULES], t->n_rule_rows);
	for (size_t i = 0; i < t->n_rule_rows; i++)
		if (t->rule_rows[i] == keep) {
			vs_list_goto(&t->list[VIEW_RULES], i);
			break;
		}
}

/* The recovery file holds the unsaved edits, or is gone when there are none.
 * Its error does not replace what the action said. */
static void autosave_recovery(tui *t)
{
	if (!t->recovery[0])
		return;
	if (session_unsaved(&t->s)) {
		fd_diags d;
		diags_init(&d);
		if (session_write_recovery(&t->s, t->recovery, &d) < 0 && d.n && !t->msg[0]) {
			char line[512];
			tui_message(t, ROLE_ERROR, "recovery file: %s", diag_format(&d.items[0], line, sizeof line));
		}
		diags_release(&d);
		signals_recovery_note = t->recovery;
	} else {
		unlink(t->recovery);
		signals_recovery_note = NULL;
	}
}

void tui_remember_spot(tui *t)
{
	const fd_match_result *r = session_result(&t->s);
	uint32_t ev = (uint32_t)t->list[VIEW_TRACE].cursor;
	uint32_t a = vs_attempt_of(&r->trace, ev);
	t->spot.valid = a != UINT32_MAX;
	if (t->spot.valid) {
		t->spot.rule = r->trace.attempts[a].rule;
		t->spot.graph = r->trace.attempts[a].graph;
		t->spot.anchor = r->trace.attempts[a].anchor;
		t->spot.offset = ev - r->trace.attempts[a].first_event;
	}
}

static void restore_spot(tui *t)
{
	const fd_match_result *r = session_result(&t->s);
	vs_list_set_rows(&t->list[VIEW_TRACE], r->trace.n_events);
	if (!t->spot.valid)
		return;
	t->spot.valid = false;
	for (size_t i = 0; i < r->trace.n_attempts; i++) {
		const fd_attempt *a = &r->trace.attempts[i];
		if (a->rule == t->spot.rule && a->graph == t->spot.graph && a->anchor == t->spot.anchor) {
			uint32_t off = t->spot.offset < a->n_events ? t->spot.offset : (a->n_events ? a->n_events - 1 : 0);
			vs_list_goto(&t->list[VIEW_TRACE], a->first_event + off);
			return;
		}
	}
}

void tui_refresh(tui *t)
{
	tui_rebuild_rule_rows(t);
	restore_spot(t);
	if (t->diff_valid) {
		session_diff_release(&t->diff);
		t->diff_valid = false;
	}
	autosave_recovery(t);
}
