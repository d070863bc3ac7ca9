/* tui.h — the TUI's state and what a handler's result asks; no curses
 * (display.h and the drawing code include it).
 *
 * Who owns what. run.c owns the one tui: it opens the session (the one
 * mutation API: every edit, run, undo, save goes through it), wires the
 * views' table, opens the views and frees everything at the end. Each
 * view's state has one home, t->views[v]: its cursor and scroll (moved by
 * the view and by the loop), its horizontal scroll (handlers.c), its last
 * search, and its own data, made by its view_ops' open. The data a view
 * keeps to itself is private to view_NAME.c (memory, diff, help); the data
 * the services fill or read too is typed below and reached as tui_NAME(t):
 *   rules          the rules in run order and their marks (tui.c rebuilds)
 *   graph          the graph view's rows
 *   trace          the round stepped and the cursor across a re-run (tui.c)
 *   detail         its subject (set by a view's select) and its rows
 *                  (detail.c, rebuilt by the loop on RES_DETAIL)
 *   compare        the compiler's result and the comparison (compare.c)
 *   suggest        the suggested patterns and the chain marked in the
 *                  graph (suggest_write.c)
 * The rest of the tui:
 *   bps            breakpoints (toggled by the views, listed by one)
 *   focus, stack   navigation (tui.c, handlers.c); main_view: layout.c
 *   msg            the status line: anyone, through tui_message; the loop
 *                  clears it before each key
 *   km, in         the keymap (loaded by run.c), the keys (input.c)
 *   disp           the screen (display.h): curses, theme, glyphs, clip, panes
 *
 * The files depend one way, from the top: start-up, the main loop and the
 * generic handlers (loop.h); the views (view.h says what a view may use);
 * the services (tui.c, detail.c, edit.c, whynot.c), the prompts, the input
 * and the drawing; this state, the keymap, the actions and the list of
 * views. Below the views, a view is reached only through its view_ops in
 * t->views. */
#ifndef FD_UI_TUI_H
#define FD_UI_TUI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "actions.h"
#include "base/vec.h"
#include "input.h"
#include "keymap.h"
#include "roles.h"
#include "explain/compare.h"
#include "session/session.h"
#include "suggest/suggest.h"
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

typedef struct tui tui;
typedef struct view_ops view_ops;   /* view.h */

/* ---- the views' own state that the services share ----------------------
 * Each is the data of its view (t->views[v].data, made by the view's open,
 * freed by its close), reached through tui_NAME(t). */

/* The rules view's: the rules in run order (priority) as rule indices, and
 * per rule (by index) the lint's warnings as the rule is now
 * (session_rule_lint) and why it did not run (an fd_reason, or 0); the sum.
 * Rebuilt by tui.c after every run. */
struct rule_mark { uint16_t lint; uint8_t not_run; };
typedef struct rules_view {
	int32_t *rows;
	size_t n_rows;
	struct rule_mark *marks;
	size_t lint_total;
} rules_view;

/* The graph view's rows (view_state.h). */
typedef struct graph_view {
	vs_graph_rows rows;
} graph_view;

/* The trace view's: the round it steps (rounds/rounds.h), 1-based, and where
 * its cursor was, by (round, rule, graph, anchor), to find it again after a
 * re-run (tui.c). */
typedef struct trace_view {
	int32_t round;
	struct { int32_t round, rule, graph, anchor; uint32_t offset; bool valid; } spot;
} trace_view;

/* The detail view's: its subject (set by a view's select) and its rows
 * (detail.c, rebuilt by the loop on RES_DETAIL). */
typedef struct detail_view {
	enum detail_kind kind;
	int32_t rule, graph, node;
	VEC(detail_row) rows;
} detail_view;

/* The compare view's: the compiler's file (--with), its model or record, the
 * comparison made again after every run (error: why there is none);
 * compare.c keeps it. */
typedef struct compare_view {
	const char *with;
	int source;             /* 0 none, 1 an optimized model, 2 a fusion_result.json */
	fd_model model;
	fd_cann_records recs;
	fd_comparison result;
	bool valid;
	char error[512];
	char warning[512];      /* what reading the file warned of (an initializer listed twice), shown as a row */
} compare_view;

/* The suggest view's: the patterns after the last run (suggest.h), made
 * when the view is first drawn after it (error: why there are none), and
 * the chain marked in the graph view for write-rule (suggest_write.c):
 * graph -1 none, last -1 only its start. */
typedef struct suggest_view {
	fd_suggest sg;
	bool valid;
	unsigned built_gen;
	char error[512];
	struct { int32_t graph, first, last; } mark;
} suggest_view;

typedef struct display display;     /* display.h: curses */

/* One view's state, in one place: what the framework keeps for every view,
 * and data, the view's own (a struct its view_ops' open makes when the tui
 * starts and its close frees; NULL for a view with none). */
typedef struct tui_view_state {
	const view_ops *ops;
	vs_list list;       /* cursor and scroll: moved by the view and by the loop */
	int hoff;           /* scrolled right by this many columns (Left / Right, handlers.c) */
	char search[128];   /* the last search (/), for n and N */
	void *data;
} tui_view_state;

struct tui {
	fd_session s;
	tui_view_state views[VIEW_COUNT];   /* each view's state, its ops wired by run.c */
	const char *model_path;
	char rules_label[256];      /* "rules/ (7)" */
	enum tui_view focus;        /* the view keys go to */
	enum tui_view main_view;    /* what the wide layout's right pane shows */
	enum tui_view stack[32];    /* for q: the views we came from */
	int depth;
	vs_breakpoints bps;
	unsigned run_gen;           /* counts the re-runs (tui_refresh): views rebuild what they derived */
	/* messages */
	char msg[1024];
	int msg_role;
	char recovery[4096];
	keymap km;
	tui_input in;
	int lines, cols;
	bool wide;                  /* two-pane layout */
	display *disp;              /* the screen: curses, theme, glyphs, clip, panes (display.c, layout.c) */
	bool use_mouse;
	int export_kind;            /* export_menu.c: the kind of picture chosen last, and its depth */
	int export_depth;
	/* FUSIONDBG_TIMING: the first screen; the last +/-/t edit (session call and
	 * re-run), then the TUI's refresh after it */
	double first_screen_ms, edit_ms, refresh_ms;
	bool time_refresh;
};

/* The views' shared state (above), once the views are open. */
static inline rules_view *tui_rules(const tui *t) { return t->views[VIEW_RULES].data; }
static inline graph_view *tui_graph(const tui *t) { return t->views[VIEW_GRAPH].data; }
static inline trace_view *tui_trace(const tui *t) { return t->views[VIEW_TRACE].data; }
static inline detail_view *tui_detail(const tui *t) { return t->views[VIEW_DETAIL].data; }
static inline compare_view *tui_compare(const tui *t) { return t->views[VIEW_COMPARE].data; }
static inline suggest_view *tui_suggest(const tui *t) { return t->views[VIEW_SUGGEST].data; }

/* tui.c: the round the trace view steps, its result (round 1's is
 * session_result), and how many rounds the run took. */
const fd_match_result *tui_result(const tui *t);
int32_t tui_n_rounds(const tui *t);
/* s with the model's node and tensor names in it cut head…tail until it
 * fits w columns (display_fit_names), for every row that can cut a name. */
char *tui_fit_names(tui *t, const char *s, int w, char *out, size_t size);
/* An original node for a node of the stepped round (the first it stands for). */
int32_t tui_original_node(const tui *t, int32_t graph, int32_t node);
/* A rule's counts summed over the rounds. */
fd_rule_stats tui_rule_stats(const tui *t, int32_t rule);
/* The rule's attempt best read first over every round — a firing, else
 * (and with miss, only) the closest near-miss — and its round; UINT32_MAX
 * when it made none. */
uint32_t tui_best_attempt(const tui *t, int32_t rule, bool miss, int32_t *round);
/* The last fusion (round *round, index in its result) that took original
 * node (graph, node) in; -1 when none did. */
int32_t tui_node_fusion(const tui *t, int32_t graph, int32_t node, int32_t *round);

/* tui.c: the status line's message (printf-like), until the next key. */
void tui_message(tui *t, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
