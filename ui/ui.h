/* ui.h — the TUI's entry points, for the command line (cli/cmd_tui.c): the
 * options it starts from, as plain values the caller owns, and the key
 * lists the man page is made from. */
#ifndef FD_UI_UI_H
#define FD_UI_UI_H
#include <stdbool.h>
#include <stdio.h>
#include "onnx/onnx.h"

typedef struct tui_options {
	const char *model;               /* MODEL */
	const char *const *rules;        /* -r files or directories, in order */
	int n_rules;                     /* 0: GRAPH_AUTOFUSION_RULES_DIR, else the installed rules */
	const fd_dim_binding *dims;      /* --dim NAME=V */
	int n_dims;
	const fd_dim_binding *values;    /* --value NAME=V */
	int n_values;
	const char *const *input_shapes; /* --input-shape SPEC */
	int n_input_shapes;
	int shapes;                      /* --shapes: fd_shapes_mode, 0 unset */
	const char *target;              /* --target; NULL: ai_core */
	bool no_canonicalize;
	int initializers;          /* --initializers: fd_init_policy, 0 unset */
	int max_rounds;                  /* --max-rounds; 0: the default */
	const char *passes;              /* --passes FILE, or NULL */
	const char *fusion_switch;       /* --fusion-switch FILE (CANN's switch file), or NULL */
	const char *compare_with;        /* --with: the compiler's result for the compare view, or NULL */
} tui_options;

enum { TUI_EXIT_CANNOT_START = 2 };

/* Runs the TUI until the user quits. Returns the exit status: 0;
 * TUI_EXIT_CANNOT_START when the model or the rules do not load, there is no
 * terminal or the test script is bad (the reason is on stderr); 128 + N when
 * signal N ended it (unsaved edits are in the recovery file). */
int  tui_run(const tui_options *o);
/* The default keys as ui/keys.default holds them. */
void tui_print_default_keys(FILE *out);
/* Every action with its default keys and help, in roff, for the man page
 * (man/keys.inc). */
void tui_print_keys_roff(FILE *out);

#endif
