/* view_breaks.c — the breakpoints: on a rule, a node or a reason code. b, d
 * or Del removes the one under the cursor; a adds one by name; Enter runs the
 * trace to its next hit (from the start when none is left after the current
 * event).
 * State: none of its own; it lists the tui's breakpoints (t->bps). */
#include <stdio.h>
#include <string.h>
#include "view.h"

static size_t rows(tui *t)
{
	return t->bps.n ? t->bps.n : 1;
}

/* For search: the breakpoint in words (none: nothing to find). */
static const char *row_text(tui *t, size_t row, char *buf, size_t size, int *role)
{
	*role = ROLE_NORMAL;
	if (!t->bps.n)
		return "";
	return vs_bp_describe(&t->bps.items[row], session_result(&t->s), buf, size);
}

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	if (!t->bps.n) {
		display_text(t->disp, y, x + 1, w - 1, ROLE_DIM, 0,
		             "no breakpoints: b on a rule, a node or a trace event sets one; c runs to the next");
		return;
	}
	char buf[512];
	bool cur = cursor && t->focus == VIEW_BREAKS;
	if (cur)
		display_fill(t->disp, y, x, w, ROLE_CURSOR, 0);
	display_text(t->disp, y, x, 1, ROLE_CURSOR, 0, cur ? t->disp->g->cursor : "");
	int nx = display_text(t->disp, y, x + 1, w - 1, cur ? ROLE_CURSOR : ROLE_BREAK, 0, t->disp->g->breakpoint);
	char fit[1024];   /* a long node name keeps its head and its tail */
	display_text(t->disp, y, nx + 1, x + w - nx - 1, cur ? ROLE_CURSOR : ROLE_NORMAL, 0,
	             tui_fit_names(t, vs_bp_describe(&t->bps.items[row], session_result(&t->s), buf, sizeof buf),
	                           x + w - nx - 1, fit, sizeof fit));
}

/* a: a breakpoint by name (rule NAME, node NAME, reason CODE), did you mean on a slip */
static unsigned add_by_name(tui *t)
{
	char text[512], err[1024];
	if (!prompt_line(t, "break on (rule NAME | node NAME | reason CODE): ", "", text, sizeof text) || !text[0])
		return RES_REDRAW;
	vs_breakpoint bp;
	if (!vs_bp_parse(text, session_result(&t->s), &bp, err, sizeof err)) {
		tui_message(t, ROLE_ERROR, "%s", err);
		return RES_REDRAW;
	}
	for (size_t i = 0; i < t->bps.n; i++)   /* a is add, never remove: b toggles */
		if (!memcmp(&t->bps.items[i], &bp, sizeof bp)) {
			tui_message(t, ROLE_BREAK, "already set: %s", vs_bp_describe(&bp, session_result(&t->s), text, sizeof text));
			return RES_REDRAW;
		}
	unsigned res = tui_toggle_breakpoint(t, &bp);
	t->views[VIEW_BREAKS].list.cursor = t->bps.n - 1;
	return res;
}

static unsigned action(tui *t, enum tui_action a)
{
	if (a == ACT_ADD_BREAKPOINT)
		return add_by_name(t);
	size_t row = t->views[VIEW_BREAKS].list.cursor;
	if (!t->bps.n || row >= t->bps.n)
		return a == ACT_BREAKPOINT || a == ACT_ENTER ? RES_REDRAW : RES_UNHANDLED;
	if (a == ACT_BREAKPOINT) {
		char buf[256];
		tui_message(t, ROLE_BREAK, "breakpoint removed: %s",
		            vs_bp_describe(&t->bps.items[row], session_result(&t->s), buf, sizeof buf));
		vs_bp_remove(&t->bps, row);
		return RES_REDRAW;
	}
	if (a == ACT_ENTER) {
		const fd_match_result *r = tui_result(t);   /* the round being stepped */
		vs_breakpoints one = { &t->bps.items[row], 1, 1 };
		bool moved;
		uint32_t cur = (uint32_t)t->views[VIEW_TRACE].list.cursor;
		uint32_t to = vs_stepper_move(r, &one, cur, STEP_CONTINUE, &moved);
		if (!moved && r->trace.n_events && vs_bp_hit(&one, r, 0))
			to = 0, moved = true;
		else if (!moved)
			to = vs_stepper_move(r, &one, 0, STEP_CONTINUE, &moved);
		if (!moved) {
			tui_message(t, ROLE_WARN, "this breakpoint is never hit in the trace");
			return RES_REDRAW;
		}
		char what[256];
		tui_message(t, ROLE_BREAK, "breakpoint %s hit at event #%u", vs_bp_describe(one.items, r, what, sizeof what),
		            to);
		return tui_goto_event(t, to);
	}
	return RES_UNHANDLED;
}


static const enum tui_action hints[] = { ACT_ENTER, ACT_ADD_BREAKPOINT, ACT_BREAKPOINT, ACT_CONTINUE, ACT_BACK,
                                         ACT_VIEW_HELP, ACT_NONE };

const view_ops view_breaks_ops = {
	.rows = rows, .text = row_text, .draw_row = draw_row, .action = action,
	.hints = hints,
};
