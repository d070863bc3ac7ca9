/* prompt.h — questions on the status line and menus (prompt.c). Each runs
 * its own small key loop over the screen as it is; the caller owns buf. */
#ifndef FD_UI_PROMPT_H
#define FD_UI_PROMPT_H
#include <stdbool.h>
#include <stddef.h>

typedef struct tui tui;

/* Line input after label, starting from initial; buf, or NULL when cancelled. */
char *prompt_line(tui *t, const char *label, const char *initial, char *buf, size_t size);
/* y / n / c(ancel, Esc): returns 'y', 'n' or 'c'. */
int  prompt_yes_no(tui *t, const char *question, bool with_cancel);
/* A centred menu; returns the chosen index or -1. */
int  prompt_menu(tui *t, const char *title, const char *const *items, int n, int initial);

#endif
