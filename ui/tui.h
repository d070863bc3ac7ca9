/* tui.h — the TUI's state, what a view is, and the services the views call;
 * no curses (display.h and the drawing code include it).
 *
 * Who owns what. run.c owns the one tui: it opens the session (the one
 * mutation API: every edit, run, undo, save goes through it), wires the
 * views' table, and frees everything at the end. The rest is kept by one
 * file each:
 *   list[v]        view v's cursor and scroll: moved by view v and by loop.c
 *   rule_rows      the rules in run order, derived from the session (tui.c)
 *   detail         the detail's subject (set by a view's select) and its rows
 *                  (detail.c, rebuilt by the loop on RES_DETAIL)
 *   diff           the diff view's, dropped by tui.c after every re-run
 *   bps, grows     breakpoints (toggled by the views), the graph view's rows
 *   focus, stack   navigation (tui.c); main_view and the panes: display
 *   msg            the status line: anyone, through tui_message; the loop
 *                  clears it before each key
 *   km, in         the keymap (loaded by run.c), the keys (input.c)
 *
 * The files depend one way. The views (view_*.c) read this state and call
 * only the services below, the prompts (prompt.h) and the drawing
 * (display.h); none includes another view. The services reach a view only
 * through its view_ops in t->views; the main loop (loop.c, handlers.c) does
 * what a handler's result asks, in htop's manner. */
#ifndef FD_UI_TUI_H
#define FD_UI_TUI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "actions.h"
#include "input.h"
#include "keymap.h"
#include "roles.h"
#include "session/session.h"
#include "view_state.h"
#include "views.h"

/* What a handler asks of the main loop, combined (loop.c does it, in this
 * order: re-run, layout, select, detail, draw). */
enum {
	RES_OK = 0,
	RES_REDRAW = 1 << 0,    /* draw the screen again */
	RES_RERUN = 1 << 1,     /* the session changed: rebuild what derives from it, and the detail */
	RES_LAYOUT = 1 << 2,    /* the focus changed: lay the panes out again */
	RES_SELECT = 1 << 3,    /* the focused view's cursor moved: its row becomes the detail's subject */
	RES_DETAIL = 1 << 4,    /* the detail's subject changed: rebuild its rows */
	RES_CLEAR = 1 << 5,     /* repaint every cell (the terminal may show garbage) */
	RES_QUIT = 1 << 6,
	RES_UNHANDLED = 1 << 7, /* the view did not take the action */
};

/* One row of the detail view. path: the rule's edit path ("priority") when
 * the row shows an editable value, else empty. */
typedef struct detail_row {
	char text[256];
	int role;
	int32_t rule;
	char path[128];
} detail_row;

enum detail_kind { DETAIL_NONE, DETAIL_RULE, DETAIL_NODE };

/* A view: a table of functions, as tig has (struct view_ops). */
typedef struct tui tui;
typedef struct view_ops {
	size_t (*rows)(tui *t);
	/* draws row at screen line y, columns [x, x + w); cursor marks the selected row */
	void (*draw_row)(tui *t, size_t row, int y, int x, int w, bool cursor);
	vs_row_text_fn row_text;   /* plain text of a row, for search */
	/* view-specific actions (enter, edit, …); RES_UNHANDLED when not taken */
	unsigned (*action)(tui *t, enum tui_action a);
	/* the selection moved: set the detail's subject */
	void (*select)(tui *t);
	/* lines kept at the bottom of the pane (the trace's event box), and their drawing */
	int (*footer_lines)(tui *t, int pane_h);
	void (*draw_footer)(tui *t, int y, int x, int w, int h);
	/* the key hints of the status line: actions, in order, ACT_NONE-terminated */
	const enum tui_action *hints;
} view_ops;

#define VIEW_OPS_DECL(X, id, ops, name, title, tab, help) extern const view_ops view_##ops##_ops;
TUI_VIEWS(VIEW_OPS_DECL, )
#undef VIEW_OPS_DECL

struct tui {
	fd_session s;
	const view_ops *const *views;   /* [VIEW_COUNT], wired by run.c */
	const char *model_path;
	char rules_label[256];      /* "rules/ (7)" */
	vs_list list[VIEW_COUNT];
	enum tui_view focus;        /* the view keys go to */
	enum tui_view main_view;    /* what the wide layout's right pane shows */
	enum tui_view stack[32];    /* for q: the views we came from */
	int depth;
	char search[VIEW_COUNT][128];
	vs_breakpoints bps;
	vs_graph_rows grows;
	/* rules view rows: rule indices in run order (priority) */
	int32_t *rule_rows;
	size_t n_rule_rows;
	/* where the trace cursor was, by (rule, graph, anchor), to find it again after a re-run */
	struct { int32_t rule, graph, anchor; uint32_t offset; bool valid; } spot;
	/* detail */
	enum detail_kind dkind;
	int32_t drule, dgraph, dnode;
	detail_row *drows;
	size_t n_drows, cap_drows;
	/* diff against the rules as loaded */
	fd_session_diff diff;
	bool diff_valid;
	/* messages */
	char msg[512];
	int msg_role;
	char recovery[4096];
	keymap km;
	tui_input in;
	int lines, cols;
	bool wide;                  /* two-pane layout */
	bool use_mouse;
	bool export_after;
	/* FUSIONDBG_TIMING: the first screen; the last +/-/t edit (session call and
	 * re-run), then the TUI's refresh after it */
	double first_screen_ms, edit_ms, refresh_ms;
	bool time_refresh;
};

/* ---- services for the views (tui.c) ---------------------------------------- */
void tui_message(tui *t, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Focus view v, remembering where we came from (q goes back). */
unsigned tui_show_view(tui *t, enum tui_view v);
/* The trace cursor moves to event ev (stepper, why-not, breakpoints). */
unsigned tui_goto_event(tui *t, uint32_t ev);
/* The focused view's row becomes the detail's subject. */
void tui_select_focus(tui *t);
int32_t tui_rule_under_cursor(tui *t);   /* the rule the focused view points at, or -1 */
/* Moves l by a move action (move-up … move-last-line); false for any other action. */
bool tui_list_move(vs_list *l, enum tui_action a);
/* Before a session call that re-runs: where the trace cursor is, to find it again. */
void tui_remember_spot(tui *t);

/* detail.c: the detail's subject, and its rows from the session. */
void tui_set_detail_rule(tui *t, int32_t rule);
void tui_set_detail_node(tui *t, int32_t graph, int32_t node);
void tui_detail_build(tui *t);

/* edit.c: what-if edits. The result of a session call: the message from d on
 * error (RES_REDRAW), else what was done (RES_RERUN). */
unsigned tui_after_edit(tui *t, int rc, fd_diags *d, const char *what);
/* Prompt-driven edit of rule's path (path may be NULL: ask for PATH=VALUE). */
unsigned tui_edit_value(tui *t, int32_t rule, const char *path);

/* whynot.c: the why-not menu for a node, then the landing in the trace. */
unsigned tui_why_not_node(tui *t, int32_t graph, int32_t node);

/* ---- for the main loop and start-up (tui.c) ------------------------------- */
void tui_rebuild_rule_rows(tui *t);
/* After a re-run: rows, the trace cursor, the diff, the recovery file. */
void tui_refresh(tui *t);

#endif
