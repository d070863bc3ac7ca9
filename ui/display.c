/* display.c — curses set-up, the pane layout, text drawing, the title and
 * status bars and save-display. */
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "display.h"
#include "estimate/estimate.h"

glyphs G;
static const glyphs glyphs_utf8 = { "✓", "✗", "!", "·", "→", "▶", "▌", "●", "█", "…", "×" };
static const glyphs glyphs_ascii = { "+", "x", "!", ".", "->", ">", "|", "*", "#", "~", "x" };

static pane panes[VIEW_COUNT];
static SCREEN *screen;
static FILE *null_out, *null_in;
static bool active;

bool display_active(void)
{
	return active;
}

int display_init(tui *t, bool scripted)
{
	setlocale(LC_ALL, "");
	const char *cs = nl_langinfo(CODESET);
	G = cs && !strcmp(cs, "UTF-8") ? glyphs_utf8 : glyphs_ascii;
	if (scripted) {
		/* tig's way: no terminal at all, the screen lives in memory */
		null_out = fopen("/dev/null", "w");
		null_in = fopen("/dev/null", "r");
		const char *term = getenv("TERM");
		screen = newterm(term && *term ? term : "xterm-256color", null_out, null_in);
		if (!screen)
			return -1;
		set_term(screen);
	} else if (!initscr()) {
		return -1;
	}
	active = true;
	cbreak();       /* ^C stays a signal: it writes the recovery file (signals.c) */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (!scripted)
		timeout(250);   /* wake up to notice signals */
	theme_init(theme_pick());
	if (!scripted && getenv("FUSIONDBG_NO_MOUSE") == NULL) {
		mmask_t got = mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
		t->use_mouse = got != 0;
		mouseinterval(0);
	}
	t->lines = LINES;
	t->cols = COLS;
	return 0;
}

void display_done(void)
{
	if (!active)
		return;
	active = false;
	curs_set(1);
	endwin();
	if (screen) {
		delscreen(screen);
		screen = NULL;
	}
	if (null_out)
		fclose(null_out);
	if (null_in)
		fclose(null_in);
	null_out = null_in = NULL;
}

/* ---- text ---------------------------------------------------------------- */

int display_width(const char *s)
{
	mbstate_t st;
	memset(&st, 0, sizeof st);
	int w = 0;
	size_t len = strlen(s);
	while (len) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, len, &st);
		if (k == (size_t)-1 || k == (size_t)-2) {
			memset(&st, 0, sizeof st);
			k = 1;
			wc = '?';
		} else if (k == 0) {
			break;
		}
		int cw = wcwidth(wc);
		w += cw > 0 ? cw : 0;
		s += k;
		len -= k;
	}
	return w;
}

int display_text(int y, int x, int w, int role, attr_t extra, const char *s)
{
	if (w <= 0 || !s)
		return x;
	attr_t a = theme_attr(role) | extra;
	attrset(a);
	mbstate_t st;
	memset(&st, 0, sizeof st);
	wchar_t buf[512];
	int n = 0, used = 0;
	size_t len = strlen(s);
	while (len && n < (int)(sizeof buf / sizeof *buf) - 1) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, len, &st);
		if (k == (size_t)-1 || k == (size_t)-2) {
			memset(&st, 0, sizeof st);
			k = 1;
			wc = '?';
		} else if (k == 0) {
			break;
		}
		if (wc == '\t' || wc == '\n' || wc == '\r')
			wc = ' ';
		int cw = wcwidth(wc);
		if (cw < 0) {
			wc = '?';
			cw = 1;
		}
		if (used + cw > w)
			break;
		buf[n++] = wc;
		used += cw;
		s += k;
		len -= k;
	}
	buf[n] = 0;
	if (n)
		mvaddnwstr(y, x, buf, n);
	attrset(A_NORMAL);
	return x + used;
}

void display_fill(int y, int x, int w, int role, attr_t extra)
{
	if (w <= 0)
		return;
	attrset(theme_attr(role) | extra);
	mvhline(y, x, ' ', w);
	attrset(A_NORMAL);
}

void display_splash(tui *t, const char *model)
{
	erase();
	char buf[1024];
	snprintf(buf, sizeof buf, " fusiondbg  %s", model);
	display_fill(0, 0, COLS, ROLE_TITLE, 0);
	display_text(0, 0, COLS, ROLE_TITLE, 0, buf);
	display_text(LINES / 2, 2, COLS - 4, ROLE_DIM, 0, "loading the model, running the rules as loaded, estimating memory ...");
	refresh();
}

/* ---- layout -------------------------------------------------------------- */

const pane *display_pane(enum tui_view v)
{
	return &panes[v];
}

static void set_pane(enum tui_view v, int y, int x, int h, int w)
{
	panes[v] = (pane){ y, x, h, w, true };
}

void display_layout(tui *t)
{
	t->lines = LINES;
	t->cols = COLS;
	int body_y = 1, body_h = t->lines - 2;
	if (body_h < 3)
		body_h = 3;
	memset(panes, 0, sizeof panes);
	t->wide = t->cols >= 100 && t->lines >= 20;
	if (t->focus != VIEW_RULES && t->focus != VIEW_DETAIL)
		t->main_view = t->focus;
	if (t->wide) {
		int lw = t->cols * 2 / 5;
		if (lw < 34) lw = 34;
		if (lw > 56) lw = 56;
		int rules_h = (int)t->n_rule_rows + 2;
		if (rules_h > body_h / 2) rules_h = body_h / 2;
		if (rules_h < 5) rules_h = 5;
		if (t->focus == VIEW_HELP || t->focus == VIEW_DIFF) {
			/* long lines, read on their own: the whole width */
			set_pane(t->focus, body_y, 0, body_h, t->cols);
		} else if (t->focus == VIEW_DETAIL) {
			/* editing values wants width: the detail takes the big pane */
			set_pane(VIEW_RULES, body_y, 0, body_h, lw);
			set_pane(VIEW_DETAIL, body_y, lw, body_h, t->cols - lw);
		} else {
			set_pane(VIEW_RULES, body_y, 0, rules_h, lw);
			set_pane(VIEW_DETAIL, body_y + rules_h, 0, body_h - rules_h, lw);
			set_pane(t->main_view, body_y, lw, body_h, t->cols - lw);
		}
	} else {
		set_pane(t->focus, body_y, 0, body_h, t->cols);
	}
	for (int v = 0; v < VIEW_COUNT; v++) {
		if (!panes[v].shown)
			continue;
		const view_ops *ops = tui_view_ops((enum tui_view)v);
		int h = panes[v].h - 2;
		if (ops->footer_lines)
			h -= ops->footer_lines(t, panes[v].h - 2);
		vs_list_set_height(&t->list[v], h > 1 ? h : 1);
	}
}

int display_hit(tui *t, int y, int x, int *line)
{
	for (int v = 0; v < VIEW_COUNT; v++) {
		const pane *p = &panes[v];
		if (p->shown && y > p->y && y < p->y + p->h - 1 && x >= p->x && x < p->x + p->w) {
			*line = y - p->y - 1;
			return v;
		}
	}
	return -1;
}

/* ---- drawing ------------------------------------------------------------- */

static void draw_box(const pane *p, bool focus, const char *title, const char *right)
{
	attr_t a = theme_attr(focus ? ROLE_BORDER_FOCUS : ROLE_BORDER);
	attrset(a);
	mvhline_set(p->y, p->x + 1, WACS_HLINE, p->w - 2);
	mvhline_set(p->y + p->h - 1, p->x + 1, WACS_HLINE, p->w - 2);
	mvvline_set(p->y + 1, p->x, WACS_VLINE, p->h - 2);
	mvvline_set(p->y + 1, p->x + p->w - 1, WACS_VLINE, p->h - 2);
	mvadd_wch(p->y, p->x, WACS_ULCORNER);
	mvadd_wch(p->y, p->x + p->w - 1, WACS_URCORNER);
	mvadd_wch(p->y + p->h - 1, p->x, WACS_LLCORNER);
	mvadd_wch(p->y + p->h - 1, p->x + p->w - 1, WACS_LRCORNER);
	attrset(A_NORMAL);
	char buf[256];
	snprintf(buf, sizeof buf, " %s ", title);
	int x = display_text(p->y, p->x + 2, p->w - 4, focus ? ROLE_BORDER_FOCUS : ROLE_BORDER, focus ? A_REVERSE : 0,
	                     buf);
	if (right && *right) {
		snprintf(buf, sizeof buf, " %s ", right);
		int rw = display_width(buf);
		if (p->x + p->w - 2 - rw > x + 1)
			display_text(p->y, p->x + p->w - 2 - rw, rw, ROLE_BORDER, 0, buf);
	}
}

static void draw_view(tui *t, enum tui_view v)
{
	const pane *p = &panes[v];
	if (!p->shown || p->h < 3 || p->w < 4)
		return;
	const view_ops *ops = tui_view_ops(v);
	vs_list *l = &t->list[v];
	size_t n = ops->rows(t);
	vs_list_set_rows(l, n);
	char right[64] = "";
	if (n)
		snprintf(right, sizeof right, "%zu/%zu", l->cursor + 1, n);
	draw_box(p, t->focus == v, tui_view_title(v), right);
	int x = p->x + 1, w = p->w - 2;
	for (int i = 0; i < l->height; i++) {
		int y = p->y + 1 + i;
		size_t row = l->top + (size_t)i;
		display_fill(y, x, w, ROLE_NORMAL, 0);
		if (row < n)
			ops->draw_row(t, row, y, x, w, row == l->cursor);
	}
	if (ops->footer_lines && ops->draw_footer) {
		int fh = ops->footer_lines(t, p->h - 2);
		if (fh > 0)
			ops->draw_footer(t, p->y + 1 + l->height, x, w, fh);
	}
}

static void draw_title(tui *t)
{
	const fd_session *s = &t->s;
	const fd_match_result *r = session_result(s);
	const fd_estimate *e = session_estimate(s);
	const char *model = strrchr(t->model_path, '/') ? strrchr(t->model_path, '/') + 1 : t->model_path;
	int fired = 0;
	for (int32_t i = 0; i < r->n_rules; i++)
		if (r->stats[i].effect_times > 0)
			fired++;
	char before[32] = "?", after[32] = "?";
	if (e->n_graphs > 0) {
		estimate_format_bytes(e->graphs[0].before.peak_bytes, before, sizeof before);
		estimate_format_bytes(e->graphs[0].after.peak_bytes, after, sizeof after);
	}
	size_t unsaved = session_unsaved(s);
	char buf[1024], mod[48] = "";
	if (unsaved)
		snprintf(mod, sizeof mod, "  [%zu unsaved]", unsaved);
	(void)fired;
	const char *target = r->target ? r->target : "ai_core";
	/* the fullest form that fits: model, unsaved, fired and peak matter most */
	snprintf(buf, sizeof buf, " fusiondbg  %s%s  %s  target %s  fired %zu  peak %s %s %s",
	         model, mod, t->rules_label, target, r->n_fusions, before, G.arrow, after);
	if (display_width(buf) > t->cols)
		snprintf(buf, sizeof buf, " fusiondbg  %s%s  %d rules  %s  fired %zu  peak %s %s %s", model, mod,
		         (int)r->n_rules, target, r->n_fusions, before, G.arrow, after);
	if (display_width(buf) > t->cols)
		snprintf(buf, sizeof buf, " %s%s  %s  fired %zu  peak %s %s %s", model, mod, target, r->n_fusions, before,
		         G.arrow, after);
	display_fill(0, 0, t->cols, ROLE_TITLE, 0);
	display_text(0, 0, t->cols, ROLE_TITLE, 0, buf);
}

static void draw_status(tui *t)
{
	int y = t->lines - 1;
	display_fill(y, 0, t->cols, ROLE_STATUS, 0);
	if (t->msg[0]) {
		display_text(y, 0, t->cols, t->msg_role, 0, t->msg);
		return;
	}
	const view_ops *ops = tui_view_ops(t->focus);
	int x = 1;
	for (const enum tui_action *a = ops->hints; a && *a != ACT_NONE; a++) {
		char keys[64];
		if (!keymap_keys_for(&t->km, t->focus + 1, *a, keys, sizeof keys))
			continue;
		char *comma = strchr(keys, ',');
		if (comma)
			*comma = 0;
		const char *label = action_get(*a)->hint;
		int need = display_width(keys) + 1 + (int)strlen(label) + 2;
		if (x + need > t->cols)
			break;
		x = display_text(y, x, t->cols - x, ROLE_KEY, 0, keys);
		x = display_text(y, x + 1, t->cols - x - 1, ROLE_STATUS, 0, label);
		x += 2;
	}
}

void display_draw(tui *t)
{
	if (LINES != t->lines || COLS != t->cols)
		display_layout(t);
	erase();
	draw_title(t);
	for (int v = 0; v < VIEW_COUNT; v++)
		if (panes[v].shown)
			draw_view(t, (enum tui_view)v);
	draw_status(t);
	refresh();
}

/* ---- save-display -------------------------------------------------------- */

/* ACS line characters as Unicode, for terminals where curses drew them as ACS. */
static wchar_t acs_unicode(wchar_t c)
{
	static const struct { char acs; wchar_t u; } map[] = {
		{ 'q', 0x2500 }, { 'x', 0x2502 }, { 'l', 0x250c }, { 'k', 0x2510 }, { 'm', 0x2514 },
		{ 'j', 0x2518 }, { 't', 0x251c }, { 'u', 0x2524 }, { 'w', 0x252c }, { 'v', 0x2534 }, { 'n', 0x253c },
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (map[i].acs == c)
			return map[i].u;
	return c;
}

int display_save(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	for (int y = 0; y < LINES; y++) {
		char line[4096];
		size_t used = 0;
		size_t keep = 0;   /* length without trailing spaces */
		for (int x = 0; x < COLS; x++) {
			cchar_t cc;
			wchar_t wch[16] = { 0 };
			attr_t attrs;
			short pair;
			if (mvin_wch(y, x, &cc) == ERR)
				break;
			getcchar(&cc, wch, &attrs, &pair, NULL);
			wchar_t c = wch[0] ? wch[0] : L' ';
			if (attrs & A_ALTCHARSET)
				c = acs_unicode(c);
			char mb[MB_LEN_MAX + 1];
			int k = wctomb(mb, c);
			if (k <= 0) {
				mb[0] = '?';
				k = 1;
			}
			if (used + (size_t)k >= sizeof line)
				break;
			memcpy(line + used, mb, (size_t)k);
			used += (size_t)k;
			if (c != L' ')
				keep = used;
			if (wcwidth(c) == 2)
				x++;
		}
		fprintf(f, "%.*s\n", (int)keep, line);
	}
	return fclose(f) == 0 ? 0 : -1;
}
