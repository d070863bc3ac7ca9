/* view_detail.c — the detail view: the rows detail.c builds for the node or
 * rule last selected; e edits the value under the cursor, w asks why-not of
 * the node, b sets a breakpoint on the subject.
 * State: detail_view (tui.h, t->views[VIEW_DETAIL].data): its subject and
 * its rows (detail.c builds them). */
#include <stdlib.h>
#include "view.h"

static size_t rows(tui *t)
{
	return tui_detail(t)->rows.n;
}

static const char *row_text(void *ctx, size_t row, char *buf, size_t size)
{
	tui *t = ctx;
	return row < tui_detail(t)->rows.n ? tui_detail(t)->rows.items[row].text : "";
}

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	const detail_row *d = &tui_detail(t)->rows.items[row];
	bool cur = cursor && t->focus == VIEW_DETAIL;
	if (cur)
		display_fill(t->disp, y, x, w, ROLE_CURSOR, 0);
	display_text(t->disp, y, x, 1, ROLE_CURSOR, 0, cur ? t->disp->g->cursor : "");
	char fit[1024];   /* a long name keeps its head and its tail */
	display_text(t->disp, y, x + 1, w - 1, cur ? ROLE_CURSOR : d->role, 0,
	             tui_fit_names(t, d->text, w - 1, fit, sizeof fit));
}

static unsigned action(tui *t, enum tui_action a)
{
	size_t row = t->views[VIEW_DETAIL].list.cursor;
	const detail_row *d = row < tui_detail(t)->rows.n ? &tui_detail(t)->rows.items[row] : NULL;
	switch (a) {
	case ACT_EDIT:
		if (d && d->path[0])
			return tui_edit_value(t, d->rule, d->path);
		return RES_UNHANDLED;
	case ACT_WHY_NOT:
		if (tui_detail(t)->kind == DETAIL_NODE)
			return tui_why_not_node(t, tui_detail(t)->graph, tui_detail(t)->node);
		return RES_UNHANDLED;
	case ACT_BREAKPOINT: {
		vs_breakpoint bp;
		char text[256];
		if (tui_detail(t)->kind == DETAIL_NODE)
			bp = (vs_breakpoint){ .kind = BP_NODE, .graph = tui_detail(t)->graph, .node = tui_detail(t)->node };
		else if (tui_detail(t)->kind == DETAIL_RULE)
			bp = (vs_breakpoint){ .kind = BP_RULE, .rule = tui_detail(t)->rule };
		else
			return RES_UNHANDLED;
		bool on = vs_bp_toggle(&t->bps, &bp);
		tui_message(t, ROLE_BREAK, "breakpoint %s: %s", on ? "set" : "removed",
		            vs_bp_describe(&bp, session_result(&t->s), text, sizeof text));
		return RES_REDRAW;
	}
	default:
		/* moving inside the detail must not rebuild it from another view's selection */
		return tui_list_move(&t->views[VIEW_DETAIL].list, a) ? RES_REDRAW : RES_UNHANDLED;
	}
}

/* The rule of the row under the cursor, else the subject's. */
static int32_t cursor_rule(tui *t)
{
	size_t row = t->views[VIEW_DETAIL].list.cursor;
	if (row < tui_detail(t)->rows.n && tui_detail(t)->rows.items[row].rule >= 0)
		return tui_detail(t)->rows.items[row].rule;
	return tui_detail(t)->kind == DETAIL_RULE ? tui_detail(t)->rule : -1;
}

static const enum tui_action hints[] = {
	ACT_EDIT, ACT_PRIORITY_UP, ACT_PRIORITY_DOWN, ACT_TOGGLE_ENABLED, ACT_UNDO, ACT_SAVE, ACT_WHY_NOT,
	ACT_BACK, ACT_VIEW_HELP, ACT_NONE
};

/* The view's state (detail_view, tui.h): no subject yet. */
static void *open_view(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(detail_view));
}

static void close_view(void *data)
{
	detail_view *dv = data;
	vec_release(&dv->rows);
	free(dv);
}

const view_ops view_detail_ops = {
	.rows = rows, .draw_row = draw_row, .row_text = row_text, .action = action,
	.hints = hints, .cursor_rule = cursor_rule,
	.open = open_view, .close = close_view,
};
