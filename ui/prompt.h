/* prompt.h — questions on the status line and menus (prompt.c). Each runs
 * its own small key loop over the screen as it is, after dropping the keys
 * typed before it showed; the caller owns buf. */
#ifndef FD_UI_PROMPT_H
#define FD_UI_PROMPT_H
#include <stdbool.h>
#include <stddef.h>

typedef struct tui tui;

/* Line input after label, starting from initial: the text (heap, the
 * caller frees it), or NULL when cancelled. At most PROMPT_MAX bytes: a key
 * beyond that is refused with a word on the line, never dropped silently. */
#define PROMPT_MAX 65536
char *prompt_text(tui *t, const char *label, const char *initial);
/* The same starting from a suggestion shown selected: the first key typed
 * replaces it, Tab (or Right, End) takes it to edit on. */
char *prompt_suggest(tui *t, const char *label, const char *suggestion);
/* The same into buf: a text that does not fit in size is refused (NULL, with
 * a message on the status line) rather than cut. */
char *prompt_line(tui *t, const char *label, const char *initial, char *buf, size_t size);
/* y / n / c(ancel, Esc): returns 'y', 'n' or 'c'. y and n are confirmed
 * with Enter (the callers' answers write or discard edits); c, Esc, q
 * cancel at once. */
int  prompt_yes_no(tui *t, const char *question, bool with_cancel);
/* A centred box listing lines (cut to the screen; "… N more" when they do
 * not fit) with question under them: 'y' or 'n' (Esc, q: 'n'). */
int  prompt_list_yes_no(tui *t, const char *title, const char *const *lines, int n, const char *question);
/* A centred menu; returns the chosen index or -1. */
int  prompt_menu(tui *t, const char *title, const char *const *items, int n, int initial);

#endif
