/* tui.h — the TUI's state and what a handler's result asks; no curses
 * (display.h and the drawing code include it).
 *
 * Who owns what. run.c owns the one tui: it opens the session (the one
 * mutation API: every edit, run, undo, save goes through it), wires the
 * views' table, opens the views and frees everything at the end. Each
 * view's state has one home, t->views[v]: what the framework keeps for
 * every view (its cursor and scroll, moved by the view and by the loop;
 * its horizontal scroll, handlers.c; its last search) and its own data,
 * private to view_NAME.c: a struct typed there, made by its view_ops'
 * open, freed by its close, and reached from outside only through its
 * view_ops (view.h), as tmux keeps a mode's data. The rest of the tui:
 *   round          the round stepped: the trace view's rows, every view's
 *                  title, where node breakpoints stop (tui.c)
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

/* What the detail view shows: a rule, or a node (graph, node); set by the
 * other views as their cursor moves (tui_set_detail_rule, _node). */
enum detail_kind { DETAIL_NONE, DETAIL_RULE, DETAIL_NODE };
typedef struct detail_subject {
	enum detail_kind kind;
	int32_t rule, graph, node;
} detail_subject;

typedef struct tui tui;
typedef struct view_ops view_ops;   /* view.h */

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
	const char *compare_with;   /* --with: the compiler's result the compare view reads, or NULL */
	char rules_label[256];      /* "rules/ (7)" */
	enum tui_view focus;        /* the view keys go to */
	enum tui_view main_view;    /* what the wide layout's right pane shows */
	enum tui_view stack[32];    /* for q: the views we came from */
	int depth;
	int32_t round;              /* the round stepped (rounds/rounds.h), 1-based */
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

/* tui.c: the round the trace view steps, its result (round 1's is
 * session_result), and how many rounds the run took. */
const fd_match_result *tui_result(const tui *t);
int32_t tui_n_rounds(const tui *t);
/* s with the model's node and tensor names in it cut (a scoped name to its
 * tail, display_cut_name) until it fits w columns (display_fit_names), for
 * every row that can cut a name. */
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
