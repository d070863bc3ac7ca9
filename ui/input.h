/* input.h — where keys come from (input.c): the terminal, or a test script
 * named by FUSIONDBG_TEST_SCRIPT. The tui_input owns the script's keys and
 * command texts. No curses. */
#ifndef FD_UI_INPUT_H
#define FD_UI_INPUT_H
#include <stdbool.h>
#include <stddef.h>
#include "base/diag.h"

typedef struct tui tui;

typedef struct tui_input {
	int *keys;          /* script: key codes; KEY_SCRIPT_CMD marks a command */
	char **cmds;        /* the command text of each KEY_SCRIPT_CMD, in order */
	size_t n, pos, n_cmds, cmd_pos;
	bool scripted;
	int ahead[64];      /* keys typed ahead (during the first run), read before the others */
	size_t n_ahead, ahead_pos;
} tui_input;
#define KEY_SCRIPT_CMD (-100)
#define KEY_SCRIPT_END (-101)   /* the script ran out, or a signal asks to quit */
#define KEY_NONE (-102)         /* input_key_poll: no key for a while */

int  input_open_script(tui_input *in, const char *path, fd_diags *d);
void input_release(tui_input *in);
/* Next key: from the script or the terminal (KEY_SCRIPT_CMD: *cmd is set). */
int  input_key(tui *t, const char **cmd);
/* The same, but KEY_NONE when the terminal had no key within its timeout
 * (a quarter of a second), so that the caller can look at something else;
 * keys typed ahead are left for input_key. */
int  input_key_poll(tui *t, const char **cmd);
/* Keeps key to be read before the terminal's or the script's next ones;
 * false when the type-ahead is full. */
bool input_type_ahead(tui_input *in, int key);
/* Drops every key typed but not yet read (the terminal's and the typed-
 * ahead ones): a prompt calls it before it shows, so that no key typed
 * before the question was on screen answers it or acts after it. A
 * script's own keys are typed after the prompt by construction and stay. */
void input_flush(tui *t);
/* The script commands that work anywhere, inside a prompt too (save-display,
 * resize, fail-writes): does cmd and returns true when it is one of them. */
bool input_command(tui *t, const char *cmd);

#endif
