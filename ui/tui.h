/* tui.h — the TUI's state and the interfaces between its files, without
 * curses (only display.h and the drawing code include it). The tui owns its
 * session (the one mutation API: every edit, run, undo, save goes through
 * it), the view lists, breakpoints, the keymap and the detail rows. */
#ifndef FD_UI_TUI_H
#define FD_UI_TUI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "actions.h"
#include "keymap.h"
#include "session/session.h"
#include "view_state.h"

enum tui_view {
	VIEW_RULES, VIEW_GRAPH, VIEW_TRACE, VIEW_DETAIL, VIEW_DIFF, VIEW_BREAKS, VIEW_HELP, VIEW_COUNT
};

/* What a key handler asks of the main loop (htop's way). */
enum {
	RES_OK = 0,
	RES_REDRAW = 1 << 0,    /* draw the screen again */
	RES_RERUN = 1 << 1,     /* the session re-ran: refresh everything derived from it */
	RES_QUIT = 1 << 2,
	RES_DETAIL = 1 << 3,    /* the selection changed: rebuild the detail rows */
	RES_UNHANDLED = 1 << 4, /* the view did not take the action */
};

/* Colour roles; themes (theme.c) map them to curses attributes. */
enum tui_role {
	ROLE_NORMAL, ROLE_TITLE, ROLE_STATUS, ROLE_CURSOR, ROLE_BORDER, ROLE_BORDER_FOCUS,
	ROLE_HEADER, ROLE_PASS, ROLE_FAIL, ROLE_WARN, ROLE_INFO, ROLE_FIRED, ROLE_DIM,
	ROLE_ERROR, ROLE_MATCH, ROLE_BREAK, ROLE_GAIN, ROLE_LOSS, ROLE_KEY, ROLE_EDITED,
	ROLE_RULE0, ROLE_RULE1, ROLE_RULE2, ROLE_RULE3, ROLE_RULE4, ROLE_RULE5,
	ROLE_COUNT
};
#define ROLE_RULE_COLOURS 6

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
	const char *name;
	size_t (*rows)(tui *t);
	/* draws row at screen line y, columns [x, x + w); cursor marks the selected row */
	void (*draw_row)(tui *t, size_t row, int y, int x, int w, bool cursor);
	vs_row_text_fn row_text;   /* plain text of a row, for search */
	/* view-specific actions (enter, edit, …); RES_UNHANDLED when not taken */
	unsigned (*action)(tui *t, enum tui_action a);
	/* the selection moved: set the detail context */
	void (*select)(tui *t);
	/* lines kept at the bottom of the pane (the trace's event box), and their drawing */
	int (*footer_lines)(tui *t, int pane_h);
	void (*draw_footer)(tui *t, int y, int x, int w, int h);
	/* the key hints of the status line: actions, in order, ACT_NONE-terminated */
	const enum tui_action *hints;
} view_ops;

extern const view_ops view_rules_ops, view_graph_ops, view_trace_ops, view_detail_ops,
	view_diff_ops, view_breaks_ops, view_help_ops;

/* Where keys come from: the terminal, or a test script (FUSIONDBG_TEST_SCRIPT). */
typedef struct tui_input {
	int *keys;          /* script: key codes; KEY_SCRIPT_CMD marks a command */
	char **cmds;        /* the command text of each KEY_SCRIPT_CMD, in order */
	size_t n, pos, n_cmds, cmd_pos;
	bool scripted;
} tui_input;
#define KEY_SCRIPT_CMD (-100)
#define KEY_SCRIPT_END (-101)

struct tui {
	fd_session s;
	bool open;
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
	double first_screen_ms;
};

/* tui.c */
void tui_message(tui *t, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* After any session change: rebuild rows, clamp cursors, autosave recovery. */
void tui_refresh(tui *t);
void tui_set_detail_rule(tui *t, int32_t rule);
void tui_set_detail_node(tui *t, int32_t graph, int32_t node);
void tui_detail_build(tui *t);
unsigned tui_show_view(tui *t, enum tui_view v);
/* The trace cursor moved to event ev (stepper, why-not, breakpoints). */
unsigned tui_goto_event(tui *t, uint32_t ev);
/* Applies the result of a session call: message from d on error, refresh on success. */
unsigned tui_after_edit(tui *t, int rc, fd_diags *d, const char *what);
/* Prompt-driven edit of rule's path (path may be NULL: ask for PATH=VALUE). */
unsigned tui_edit_value(tui *t, int32_t rule, const char *path);
const view_ops *tui_view_ops(enum tui_view v);
/* view_graph.c: the why-not menu for a node, then the landing in the trace. */
unsigned tui_why_not_node(tui *t, int32_t graph, int32_t node);
const char *tui_view_title(enum tui_view v);
int32_t tui_rule_under_cursor(tui *t);   /* the rule the focused view points at, or -1 */

/* input.c */
int  input_open_script(tui_input *in, const char *path, fd_diags *d);
void input_release(tui_input *in);
/* Next key: from the script or the terminal (KEY_SCRIPT_CMD: *cmd is set). */
int  input_key(tui *t, const char **cmd);

/* prompt.c — line input on the status line; NULL when cancelled. */
char *prompt_line(tui *t, const char *label, const char *initial, char *buf, size_t size);
/* y / n / c(ancel, Esc): returns 'y', 'n' or 'c'. */
int  prompt_yes_no(tui *t, const char *question, bool with_cancel);
/* A centred menu; returns the chosen index or -1. */
int  prompt_menu(tui *t, const char *title, const char *const *items, int n, int initial);

/* signals.c */
void signals_install(void);
int  signals_pending(void);       /* the signal number that asks us to quit, or 0 */
extern const char *volatile signals_recovery_note;   /* named in the fatal message */
extern void (*signals_fatal_hook)(void);             /* restores the terminal */

/* tui.c: the script commands that also work inside a prompt (save-display,
 * resize); true when cmd was one of them. */
bool tui_script_command(tui *t, const char *cmd);

#endif
