/* theme.c — colour themes as data: what each role (roles.h) looks like on a
 * terminal with no colour (NO_COLOR, or none available), 8, 16 or 256
 * colours. display.c picks the richest the terminal supports and keeps the
 * theme in force in the tui's display; no state here. */
#include <assert.h>
#include <curses.h>
#include <stdlib.h>
#include "theme.h"

/* fg/bg: curses colour numbers, -1 the terminal's default. 16-colour
 * terminals get the 8-colour entry with a bright foreground (fg + 8) where
 * bright8 says so; 256-colour terminals get their own column. */
static const struct theme_row {
	int role;
	attr_t mono;
	short fg8, bg8;
	attr_t attr8;
	bool bright16;
	short fg256, bg256;
	attr_t attr256;
} rows[] = {
	/* role               mono                      fg8            bg8          attr8     br  fg256 bg256 attr256 */
	{ ROLE_NORMAL,        A_NORMAL,                 -1,            -1,          A_NORMAL, 0,  -1,   -1,  A_NORMAL },
	{ ROLE_TITLE,         A_REVERSE | A_BOLD,       COLOR_WHITE,   COLOR_BLUE,  A_BOLD,   1,  231,  24,  A_BOLD },
	{ ROLE_STATUS,        A_NORMAL,                 -1,            -1,          A_NORMAL, 0,  250,  -1,  A_NORMAL },
	{ ROLE_CURSOR,        A_REVERSE,                COLOR_BLACK,   COLOR_CYAN,  A_NORMAL, 0,  16,   117, A_NORMAL },
	{ ROLE_BORDER,        A_NORMAL,                 COLOR_BLUE,    -1,          A_NORMAL, 0,  240,  -1,  A_NORMAL },
	{ ROLE_BORDER_FOCUS,  A_BOLD,                   COLOR_CYAN,    -1,          A_BOLD,   1,  45,   -1,  A_BOLD },
	{ ROLE_HEADER,        A_BOLD,                   COLOR_YELLOW,  -1,          A_BOLD,   1,  221,  -1,  A_BOLD },
	{ ROLE_PASS,          A_NORMAL,                 COLOR_GREEN,   -1,          A_NORMAL, 0,  71,   -1,  A_NORMAL },
	{ ROLE_FAIL,          A_BOLD,                   COLOR_RED,     -1,          A_BOLD,   1,  203,  -1,  A_BOLD },
	{ ROLE_WARN,          A_UNDERLINE,              COLOR_YELLOW,  -1,          A_NORMAL, 0,  214,  -1,  A_NORMAL },
	{ ROLE_INFO,          A_DIM,                    COLOR_CYAN,    -1,          A_NORMAL, 0,  110,  -1,  A_NORMAL },
	{ ROLE_FIRED,         A_BOLD,                   COLOR_GREEN,   -1,          A_BOLD,   1,  120,  -1,  A_BOLD },
	{ ROLE_DIM,           A_DIM,                    COLOR_WHITE,   -1,          A_DIM,    0,  244,  -1,  A_NORMAL },
	{ ROLE_ERROR,         A_BOLD | A_REVERSE,       COLOR_WHITE,   COLOR_RED,   A_BOLD,   1,  231,  124, A_BOLD },
	{ ROLE_MATCH,         A_UNDERLINE,              COLOR_BLACK,   COLOR_YELLOW,A_NORMAL, 0,  16,   221, A_NORMAL },
	{ ROLE_BREAK,         A_BOLD,                   COLOR_RED,     -1,          A_BOLD,   1,  196,  -1,  A_BOLD },
	{ ROLE_GAIN,          A_BOLD,                   COLOR_GREEN,   -1,          A_BOLD,   1,  120,  -1,  A_BOLD },
	{ ROLE_LOSS,          A_UNDERLINE,              COLOR_RED,     -1,          A_BOLD,   1,  203,  -1,  A_NORMAL },
	{ ROLE_KEY,           A_BOLD,                   COLOR_CYAN,    -1,          A_BOLD,   1,  117,  -1,  A_BOLD },
	{ ROLE_EDITED,        A_BOLD,                   COLOR_MAGENTA, -1,          A_BOLD,   1,  213,  -1,  A_BOLD },
	{ ROLE_RULE0,         A_BOLD,                   COLOR_GREEN,   -1,          A_BOLD,   1,  78,   -1,  A_BOLD },
	{ ROLE_RULE1,         A_UNDERLINE,              COLOR_MAGENTA, -1,          A_BOLD,   1,  177,  -1,  A_BOLD },
	{ ROLE_RULE2,         A_BOLD | A_UNDERLINE,     COLOR_YELLOW,  -1,          A_BOLD,   1,  220,  -1,  A_BOLD },
	{ ROLE_RULE3,         A_BOLD,                   COLOR_CYAN,    -1,          A_BOLD,   1,  81,   -1,  A_BOLD },
	{ ROLE_RULE4,         A_UNDERLINE,              COLOR_BLUE,    -1,          A_BOLD,   1,  111,  -1,  A_BOLD },
	{ ROLE_RULE5,         A_BOLD | A_UNDERLINE,     COLOR_RED,     -1,          A_BOLD,   1,  209,  -1,  A_BOLD },
};
static_assert(sizeof rows / sizeof *rows == ROLE_COUNT, "one row per role");

static const char *const mode_names[] = { "no colour", "8 colours", "16 colours", "256 colours" };

const char *theme_mode_name(enum theme_mode m)
{
	return m >= THEME_MONO && m <= THEME_256 ? mode_names[m] : "?";
}

enum theme_mode theme_pick(void)
{
	const char *nc = getenv("NO_COLOR");
	if ((nc && *nc) || !has_colors())
		return THEME_MONO;
	if (COLORS >= 256)
		return THEME_256;
	if (COLORS >= 16)
		return THEME_16;
	return THEME_8;
}

void theme_init(theme *th, enum theme_mode mode)
{
	th->mode = mode;
	if (mode != THEME_MONO) {
		start_color();
		use_default_colors();
	}
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		const struct theme_row *r = &rows[i];
		short pair = (short)(i + 1);
		switch (mode) {
		case THEME_MONO:
			th->attrs[r->role] = r->mono;
			break;
		case THEME_8:
		case THEME_16: {
			short fg = r->fg8;
			if (mode == THEME_16 && r->bright16 && fg >= 0 && fg < 8)
				fg = (short)(fg + 8);
			init_pair(pair, fg, r->bg8);
			th->attrs[r->role] = COLOR_PAIR(pair) | r->attr8;
			break;
		}
		case THEME_256:
			init_pair(pair, r->fg256, r->bg256);
			th->attrs[r->role] = COLOR_PAIR(pair) | r->attr256;
			break;
		}
	}
}

attr_t theme_attr(const theme *th, int role)
{
	return role >= 0 && role < ROLE_COUNT ? th->attrs[role] : A_NORMAL;
}

enum theme_mode theme_mode(const theme *th)
{
	return th->mode;
}
