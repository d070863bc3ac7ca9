/* loop.h — the main loop (loop.c) and the generic actions' handlers
 * (handlers.c), for start-up (run.c). */
#ifndef FD_UI_LOOP_H
#define FD_UI_LOOP_H
#include "tui.h"

/* Action a: the focused view's handler first, then the generic one. Returns
 * what the loop must do next (RES_*). */
unsigned handle_action(tui *t, enum tui_action a);
/* Reads keys and does what each handler asks until the user quits or the
 * script ends; first: what to do before the first key. Returns the exit
 * status: 0, or 128 + N after signal N. */
int  tui_loop(tui *t, unsigned first);

#endif
