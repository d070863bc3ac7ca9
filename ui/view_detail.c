/* view_detail.c — the detail view: the rows detail.c builds for the node or
 * rule last selected; e edits the value under the cursor, w asks why-not of
 * the node, b sets a breakpoint on the subject.
 * State: its own detail_view (t->views[VIEW_DETAIL].data): its subject
 * (the other views set it, tui_set_detail_rule and _node) and its rows
 * (detail.c makes them, on RES_DETAIL). */
#include <stdlib.h>
#include "detail.h"
#include "view.h"

/* The view's own state (t->views[VIEW_DETAIL].data). */
typedef struct detail_view {
	detail_subject subject;
	detail_rows rows;
} detail_view;

static detail_view *state(const tui *t)
{
	return t->views[VIEW_DETAIL].data;
}

/* A new subject starts at its first row; the same one keeps the cursor. */
static void set_subject(tui *t, const detail_subject *s)
{
	detail_subject *cur = &state(t)->subject;
	bool same = cur->kind == s->kind && (s->kind == DETAIL_RULE ? cur->rule == s->rule
	                                     : s->kind == DETAIL_NODE ? cur->graph == s->graph && cur->node == s->node
	                                     : true);
	if (!same)
		t->views[VIEW_DETAIL].list.cursor = t->views[VIEW_DETAIL].list.top = 0;
	cur->kind = s->kind;
	if (s->kind == DETAIL_RULE)
		cur->rule = s->rule;
	else if (s->kind == DETAIL_NODE) {
		cur->graph = s->graph;
		cur->node = s->node;
	}
}

static detail_subject subject(tui *t)
{
	return state(t)->subject;
}

static void rebuild(tui *t)
{
	detail_view *dv = state(t);
	tui_detail_rows(t, &dv->subject, &dv->rows);
	vs_list_set_rows(&t->views[VIEW_DETAIL].list, dv->rows.n);
}

static size_t rows(tui *t)
{
	return state(t)->rows.n;
}

/* A row as built, drawn by the framework (its names cut to fit). */
static const char *row_text(tui *t, size_t row, char *buf, size_t size, int *role)
{
	(void)buf, (void)size;
	const detail_view *dv = state(t);
	*role = row < dv->rows.n ? dv->rows.items[row].role : ROLE_NORMAL;
	return row < dv->rows.n ? dv->rows.items[row].text : "";
}

static unsigned action(tui *t, enum tui_action a)
{
	size_t row = t->views[VIEW_DETAIL].list.cursor;
	const detail_row *d = row < state(t)->rows.n ? &state(t)->rows.items[row] : NULL;
	const detail_subject *s = &state(t)->subject;
	switch (a) {
	case ACT_EDIT:
		if (d && d->path[0])
			return tui_edit_value(t, d->rule, d->path);
		return RES_UNHANDLED;
	case ACT_WHY_NOT:
		if (s->kind == DETAIL_NODE)
			return tui_why_not_node(t, s->graph, s->node);
		return RES_UNHANDLED;
	case ACT_BREAKPOINT: {
		vs_breakpoint bp;
		char text[256];
		if (s->kind == DETAIL_NODE)
			bp = (vs_breakpoint){ .kind = BP_NODE, .graph = s->graph, .node = s->node };
		else if (s->kind == DETAIL_RULE)
			bp = (vs_breakpoint){ .kind = BP_RULE, .rule = s->rule };
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
	if (row < state(t)->rows.n && state(t)->rows.items[row].rule >= 0)
		return state(t)->rows.items[row].rule;
	return state(t)->subject.kind == DETAIL_RULE ? state(t)->subject.rule : -1;
}

static const enum tui_action hints[] = {
	ACT_EDIT, ACT_PRIORITY_UP, ACT_PRIORITY_DOWN, ACT_TOGGLE_ENABLED, ACT_UNDO, ACT_SAVE, ACT_WHY_NOT,
	ACT_BACK, ACT_VIEW_HELP, ACT_NONE
};

/* No subject yet. */
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
	.rows = rows, .text = row_text, .action = action,
	.hints = hints, .cursor_rule = cursor_rule, .set_subject = set_subject, .subject = subject, .rebuild = rebuild,
	.open = open_view, .close = close_view,
};
