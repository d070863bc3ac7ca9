/* display.h — the screen. display.c: curses set-up and tear-down, clipped
 * UTF-8 text in a role's colours, the glyphs, and save-display (the screen
 * as text, for the scripted tests). layout.c: the panes, the whole screen
 * drawn from the views (through their view_ops), the title and status bars.
 * The only header besides theme.h that includes curses; views include it to
 * draw. */
#ifndef FD_UI_DISPLAY_H
#define FD_UI_DISPLAY_H
#include <curses.h>
#include "theme.h"
#include "tui.h"

/* Glyphs chosen by the locale: UTF-8 marks, or ASCII ones. */
typedef struct glyphs {
	const char *pass, *fail, *warn, *info, *arrow, *cursor, *bar, *breakpoint, *fused, *ellipsis, *times;
} glyphs;

typedef struct pane {
	int y, x, h, w;      /* the box, borders included */
	bool shown;
} pane;

/* The screen's state, owned by the tui (t->disp): display.c's curses
 * screen, theme, glyphs and horizontal clip, and layout.c's panes. */
struct display {
	SCREEN *screen;                /* scripted: the in-memory screen, on /dev/null */
	FILE *null_out, *null_in;
	bool active;                   /* curses is on: display_restore ends it */
	/* the horizontal window (display_clip): columns are the callers', the
	 * screen shows [left, right) of them moved left by shift; off: all, as is */
	struct { bool on; int left, right, shift; } clip;
	theme theme;
	const glyphs *g;
	pane panes[VIEW_COUNT];        /* where each view is, for drawing and the mouse */
};

/* ---- display.c ------------------------------------------------------------ */
/* Makes t->disp and starts curses. scripted: curses writes to /dev/null and
 * keys come from the script. */
int  display_init(tui *t, bool scripted);
/* The terminal restored (curses ended; again: nothing). Safe on the fatal
 * path: it frees nothing. */
void display_restore(display *d);
/* The terminal restored and t->disp freed (NULL: nothing to do). */
void display_done(tui *t);
void display_splash(display *d, const char *model);  /* while the session opens */

/* Text at (y, x), at most w columns, in role's attribute (extra: more
 * attributes, e.g. A_REVERSE for the cursor row). Returns the column after it. */
int  display_text(const display *d, int y, int x, int w, int role, attr_t extra, const char *s);
/* The same, a text wider than w cut in the middle, head…tail (the tail a
 * little longer), as a shape is cut; a name: display_text_name. */
int  display_text_mid(const display *d, int y, int x, int w, int role, attr_t extra, const char *s);
void display_fill(const display *d, int y, int x, int w, int role, attr_t extra);
/* A list's row of one text: the cursor row filled and marked, the others in role. */
void display_list_row(const display *d, int y, int x, int w, bool cursor, int role, const char *text);
/* Horizontal scrolling: until display_unclip, display_text and display_fill
 * draw only screen columns [left, right), everything moved left by shift
 * columns (layout.c sets it around a scrolled view's rows). */
void display_clip(display *d, int left, int right, int shift);
void display_unclip(display *d);
/* A box's border in role's attribute (its inside is left as it is). */
void display_box(const display *d, int y, int x, int h, int w, int role);
/* Screen columns a UTF-8 string takes. */
int  display_width(const char *s);
/* A node's or a tensor's name, escaped, cut to w columns the one way every
 * view cuts names: a scoped exporter name to its tail of whole scopes
 * (…/layer1/conv/Conv, vs_cut_name_tail), any other head…tail (the tail a
 * little longer: it tells siblings apart); into out. */
char *display_cut_name(const display *d, const char *name, int w, char *out, size_t size);
/* display_text of a name cut as display_cut_name cuts it. */
int  display_text_name(const display *d, int y, int x, int w, int role, attr_t extra, const char *name);
/* s with the words is_name takes for names (a node's, a tensor's) cut as
 * display_cut_name cuts them, the widest first and none below 16 columns,
 * until s fits w columns; into out. */
char *display_fit_names(const display *d, const char *s, int w, bool (*is_name)(void *ctx, const char *word),
                        void *ctx, char *out, size_t size);
int  display_save(const char *path);     /* save-display */

/* ---- layout.c ------------------------------------------------------------- */
void display_layout(tui *t);            /* after a resize or a view switch */
void display_draw(tui *t);              /* the whole screen */
/* Columns inside view v's box, 0 when it is not shown. */
int  display_pane_width(const tui *t, enum tui_view v);
/* The view under screen cell (y, x) and the list line inside it, for the mouse. */
int  display_hit(tui *t, int y, int x, int *line);

#endif
