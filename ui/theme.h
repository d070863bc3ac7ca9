/* theme.h — colour themes (theme.c): a curses attribute per role
 * (roles.h), kept in a theme the caller owns. Included only by drawing
 * code. */
#ifndef FD_UI_THEME_H
#define FD_UI_THEME_H
#include <curses.h>
#include "roles.h"

enum theme_mode { THEME_MONO, THEME_8, THEME_16, THEME_256 };

/* The theme in force: each role's attribute (display.h keeps it). */
typedef struct theme {
	attr_t attrs[ROLE_COUNT];
	enum theme_mode mode;
} theme;

enum theme_mode theme_pick(void);                   /* NO_COLOR, has_colors, COLORS */
void theme_init(theme *th, enum theme_mode mode);   /* after initscr */
attr_t theme_attr(const theme *th, int role);
enum theme_mode theme_mode(const theme *th);
const char *theme_mode_name(enum theme_mode m);

#endif
