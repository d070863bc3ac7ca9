/* theme.h — colour themes (theme.c): a curses attribute per role
 * (roles.h). Included only by drawing code. */
#ifndef FD_UI_THEME_H
#define FD_UI_THEME_H
#include <curses.h>
#include "roles.h"

enum theme_mode { THEME_MONO, THEME_8, THEME_16, THEME_256 };

enum theme_mode theme_pick(void);         /* NO_COLOR, has_colors, COLORS */
void theme_init(enum theme_mode mode);    /* after initscr */
attr_t theme_attr(int role);
enum theme_mode theme_mode(void);
const char *theme_mode_name(enum theme_mode m);

#endif
