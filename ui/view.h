/* view.h — what a view is and what it may use. A view (view_NAME.c)
 * defines view_NAME_ops; the framework reaches it only through that table
 * (run.c wires it into t->views): layout.c draws it, the loop hands it the
 * actions first. A view's data is a struct private to its file (its open
 * makes it, t->views[v].data); nothing outside reads it but through the
 * view's hooks below. A view reads the tui state (tui.h) and changes only
 * its own data and list, the breakpoints and, when its selection moves, the
 * detail's subject; anything else it asks for with the services below, the
 * prompts and its result (RES_*). It includes no other view, and nothing
 * here calls back into one but through its view_ops. */
#ifndef FD_UI_VIEW_H
#define FD_UI_VIEW_H
#include "display.h"
#include "prompt.h"
#include "tui.h"
#include "suggest/suggest.h"

/* A view: a table of functions, as tig has (struct view_ops). Every view
 * has rows and text; the rest may be NULL. */
struct view_ops {
	size_t (*rows)(tui *t);
	/* a row as plain text (into buf, or a string the view keeps) and the
	 * role to draw it in: what search and horizontal scrolling read, and
	 * what the framework draws for a view without draw_row */
	const char *(*text)(tui *t, size_t row, char *buf, size_t size, int *role);
	/* draws row at screen line y, columns [x, x + w); cursor marks the
	 * selected row. NULL: the framework draws text as a list's row (the
	 * cursor row filled and marked when the view has the focus, the
	 * model's names cut to fit, layout.c) */
	void (*draw_row)(tui *t, size_t row, int y, int x, int w, bool cursor);
	/* view-specific actions (enter, edit, …); RES_UNHANDLED when not taken */
	unsigned (*action)(tui *t, enum tui_action a);
	/* the selection moved: set the detail's subject */
	void (*select)(tui *t);
	/* lines kept at the bottom of the pane (the trace's event box), and their drawing */
	int (*footer_lines)(tui *t, int pane_h);
	void (*draw_footer)(tui *t, int y, int x, int w, int h);
	/* the key hints of the status line: actions, in order, ACT_NONE-terminated */
	const enum tui_action *hints;
	/* how the view numbers its rows, for its box's corner and search: "event
	 * #111" (the trace: events from #0, as every trace output numbers them);
	 * NULL: "line N", counted from 1 (tui_row_label) */
	char *(*row_label)(tui *t, size_t row, char *buf, size_t size);
	/* columns the visible rows need in full, for the right end of horizontal
	 * scrolling; NULL: the widest text of the visible rows */
	int (*content_width)(tui *t);
	/* the view's own state (t->views[v].data): made once the session is
	 * open, freed with the tui; NULL: the view keeps none */
	void *(*open)(tui *t);
	void (*close)(void *data);
	/* the session is about to run again (tui_before_run): remember what to
	 * find again after it; then it ran (RES_RERUN): rebuild what the view
	 * derives from it. Both called in view order, after_run once run_gen
	 * has moved on. */
	void (*before_run)(tui *t);
	void (*after_run)(tui *t);
	/* the rule the view's cursor points at, or -1; NULL: the rules view's
	 * (tui_rule_under_cursor) */
	int32_t (*cursor_rule)(tui *t);
	/* what the view adds to the title bar, after the unsaved count */
	void (*title_note)(tui *t, char *buf, size_t size);
	/* the row that shows node (graph, node), VS_NONE when none does (the
	 * graph view's, for tui_show_node) */
	size_t (*node_row)(tui *t, int32_t graph, int32_t node);
	/* the view's subject (the detail's), set and read (tui_set_detail_rule,
	 * tui_detail_subject), and its rows made again from it (RES_DETAIL) */
	void (*set_subject)(tui *t, const detail_subject *s);
	detail_subject (*subject)(tui *t);
	void (*rebuild)(tui *t);
};

#define VIEW_OPS_DECL(X, id, ops, name, title, tab, help) extern const view_ops view_##ops##_ops;
TUI_VIEWS(VIEW_OPS_DECL, )
#undef VIEW_OPS_DECL

/* ---- the services a view calls --------------------------------------------- */
/* tui.c. Toggles bp and says so on the status line, with a warning when no
 * event of this run reaches it (it stays set: an edit may make it reachable). */
unsigned tui_toggle_breakpoint(tui *t, const vs_breakpoint *bp);
/* Focus view v, remembering where we came from (q goes back). */
unsigned tui_show_view(tui *t, enum tui_view v);
/* The graph view focused on node (graph, node), which the detail shows. */
unsigned tui_show_node(tui *t, int32_t graph, int32_t node);
/* The trace cursor moves to event ev (stepper, why-not, breakpoints) of
 * the stepped round; tui_goto_round_event first steps round `round`. */
unsigned tui_goto_event(tui *t, uint32_t ev);
unsigned tui_goto_round_event(tui *t, int32_t round, uint32_t ev);
/* The trace view steps round `round` (1 … tui_n_rounds), cursor at its first
 * event; node breakpoints follow their node into it. */
unsigned tui_set_round(tui *t, int32_t round);
/* The same, round clamped to 1 … tui_n_rounds, the trace's cursor left
 * where it is. */
void tui_use_round(tui *t, int32_t round);
/* Row's name in view v as its row_label says ("event #111", "line 12"). */
char *tui_row_label(tui *t, enum tui_view v, size_t row, char *buf, size_t size);
/* The rule view v's cursor points at (its cursor_rule), or -1. */
int32_t tui_view_rule(tui *t, enum tui_view v);
/* The rule that runs i-th (priority, then name) in the last run. */
int32_t tui_run_order(const tui *t, size_t i);
/* Moves l by a move action (move-up … move-last-line); false for any other action. */
bool tui_list_move(vs_list *l, enum tui_action a);

/* tui.c: the detail's subject (its rows are rebuilt on RES_DETAIL). */
void tui_set_detail_rule(tui *t, int32_t rule);
void tui_set_detail_node(tui *t, int32_t graph, int32_t node);
detail_subject tui_detail_subject(tui *t);

/* edit.c: prompt-driven edit of rule's path (path may be NULL: ask for
 * PATH=VALUE), validated and applied by the session. */
unsigned tui_edit_value(tui *t, int32_t rule, const char *path);
/* edit.c: the dims what-if: a prompt for NAME=VALUE (name, when given, fills
 * it), the session rebinds and re-runs, the status line says what changed
 * (the memory view shows it whole). */
unsigned tui_bind_dim(tui *t, const char *name);

/* suggest_write.c: a rule made by suggest (a suggested pattern's, or the
 * graph view's marked chain's), added to the session as a new rule file (a
 * what-if: undo removes it, save writes the file). */
unsigned tui_write_pattern_rule(tui *t, const fd_suggest_pattern *p);

/* whynot.c: the why-not menu for a node, then the landing in the trace. */
unsigned tui_why_not_node(tui *t, int32_t graph, int32_t node);

#endif
