/* first_run.h — the first screen while the session's first run goes on
 * behind it (first_run.c). */
#ifndef FD_UI_FIRST_RUN_H
#define FD_UI_FIRST_RUN_H
#include <stdbool.h>
#include "base/diag.h"

typedef struct tui tui;

typedef enum first_run_end {
	FIRST_RUN_READY,    /* the run is done: the TUI goes on */
	FIRST_RUN_QUIT,     /* q, a signal or the script's end came first (the run was waited for) */
	FIRST_RUN_FAILED,   /* the run failed: d says why */
} first_run_end;

/* Before session_open: a script whose first line is ":hold-run" holds the
 * first run until its ":release-run" (the line is consumed); true then. */
bool first_run_hold(tui *t);
/* Shows the model and the rules, handles keys until the run is done (a
 * script: at once, unless held) and waits for it. t0: the program's start
 * (clock_ms); *first_ms: when the first screen was drawn, since t0. */
first_run_end first_run_wait(tui *t, bool held, fd_diags *d, double t0, double *first_ms);

#endif
