/* loop.h — for the main loop (loop.c), the generic actions' handlers
 * (handlers.c) and start-up (run.c): what they do with the state besides
 * the views' services (view.h). */
#ifndef FD_UI_LOOP_H
#define FD_UI_LOOP_H
#include "view.h"

/* ---- handlers.c, loop.c ------------------------------------------------- */
/* Action a: the focused view's handler first, then the generic one. Returns
 * what the loop must do next (RES_*). */
unsigned handle_action(tui *t, enum tui_action a);
/* Reads keys and does what each handler asks until the user quits or the
 * script ends; first: what to do before the first key. Returns the exit
 * status: 0, or 128 + N after signal N. */
int  tui_loop(tui *t, unsigned first);

/* ---- tui.c ----------------------------------------------------------------- */
/* The focused view's row becomes the detail's subject (its select). */
void tui_select_focus(tui *t);
int32_t tui_rule_under_cursor(tui *t);   /* the rule the focused view points at, or -1 */
/* Before a session call that re-runs: each view remembers what it must find
 * again (the trace view: its cursor's attempt). */
void tui_before_run(tui *t);
/* After a re-run (RES_RERUN): the views' after_run, the recovery file. */
void tui_refresh(tui *t);
/* The detail's rows from its subject and the session (RES_DETAIL). */
void tui_detail_build(tui *t);

/* export_menu.c: E — what to draw (before / after fusion, around the node
 * under the cursor, its fusion, its rule's fusions), the file, the picture. */
unsigned tui_export(tui *t);
/* The rules' on/off to path as CANN's fusion switch file; NULL or "": ask
 * for the file (write_switch.c). */
unsigned tui_write_switch(tui *t, const char *path);

/* edit.c: the result of a session call on the status line: the message from
 * d on error (RES_REDRAW), else what was done (RES_RERUN). */
unsigned tui_after_edit(tui *t, int rc, fd_diags *d, const char *what);

#endif
