/* display.c — curses set-up and tear-down, clipped UTF-8 text in a role's
 * colours (escaped as the CLI escapes it: the one place text reaches the
 * terminal), boxes, the glyphs, and save-display. Its state (the curses
 * screen, the theme, the glyphs, the clip) is the tui's display (t->disp,
 * display.h), made by display_init and freed by display_done. */
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "display.h"
#include "base/text.h"
#include "ir/dim.h"
#include "view_state.h"

static const glyphs glyphs_utf8 = { "✓", "✗", "!", "·", "→", "▶", "▌", "●", "█", "…", "×" };
static const glyphs glyphs_ascii = { "+", "x", "!", ".", "->", ">", "|", "*", "#", "~", "x" };

/* What common terminals send for Home, End, Insert, Delete (and the pages),
 * whatever their terminfo entry says: inside tmux or screen with TERM set to
 * xterm-256color, Home arrives as tmux's ESC [ 1 ~, which xterm's entry does
 * not list, and would read as Esc, [, 1, ~ (four keys). xterm (normal and
 * application mode), tmux and screen, rxvt (ESC [ 7 ~ and 8 ~, $ with Shift),
 * the linux console and PuTTY. A sequence the terminfo already defines keeps
 * its meaning. */
static void define_common_keys(void)
{
	static const struct { const char *seq; int key; } seqs[] = {
		{ "\033[1~", KEY_HOME }, { "\033[7~", KEY_HOME }, { "\033[H", KEY_HOME }, { "\033OH", KEY_HOME },
		{ "\033[7$", KEY_HOME }, { "\033[4~", KEY_END }, { "\033[8~", KEY_END }, { "\033[F", KEY_END },
		{ "\033OF", KEY_END }, { "\033[8$", KEY_END }, { "\033[2~", KEY_IC }, { "\033[3~", KEY_DC },
		{ "\033[5~", KEY_PPAGE }, { "\033[6~", KEY_NPAGE },
	};
	for (size_t i = 0; i < sizeof seqs / sizeof *seqs; i++)
		if (key_defined(seqs[i].seq) == 0)
			define_key(seqs[i].seq, seqs[i].key);
}

int display_init(tui *t, bool scripted)
{
	display *d = t->disp = xcalloc(1, sizeof *t->disp);
	setlocale(LC_ALL, "");
	const char *cs = nl_langinfo(CODESET);
	d->g = cs && !strcmp(cs, "UTF-8") ? &glyphs_utf8 : &glyphs_ascii;
	dim_display_set_ascii(d->g == &glyphs_ascii);   /* shapes in the same character set */
	if (scripted) {
		/* tig's way: no terminal at all, the screen lives in memory */
		d->null_out = fopen("/dev/null", "w");
		d->null_in = fopen("/dev/null", "r");
		const char *term = getenv("TERM");
		d->screen = newterm(term && *term ? term : "xterm-256color", d->null_out, d->null_in);
		if (!d->screen)
			return -1;
		set_term(d->screen);
	} else if (!initscr()) {
		return -1;
	}
	d->active = true;
	cbreak();       /* ^C stays a signal: it writes the recovery file (signals.c) */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	define_common_keys();
	curs_set(0);
	set_escdelay(25);
	if (!scripted)
		timeout(250);   /* wake up to notice signals */
	theme_init(&d->theme, theme_pick());
	if (!scripted && getenv("FUSIONDBG_NO_MOUSE") == NULL) {
		mmask_t got = mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
		t->use_mouse = got != 0;
		mouseinterval(0);
	}
	t->lines = LINES;
	t->cols = COLS;
	return 0;
}

void display_restore(display *d)
{
	if (!d->active)
		return;
	d->active = false;
	curs_set(1);
	endwin();
	if (d->screen) {
		delscreen(d->screen);
		d->screen = NULL;
	}
	if (d->null_out)
		fclose(d->null_out);
	if (d->null_in)
		fclose(d->null_in);
	d->null_out = d->null_in = NULL;
}

void display_done(tui *t)
{
	if (!t->disp)
		return;
	display_restore(t->disp);
	if (t->disp->null_out)   /* newterm failed: the files are still open */
		fclose(t->disp->null_out);
	if (t->disp->null_in)
		fclose(t->disp->null_in);
	free(t->disp);
	t->disp = NULL;
}

/* ---- text ---------------------------------------------------------------- */

/* The next character of the len bytes at *s into *wc, '?' for a byte that
 * starts no character; moves *s and *len past it. False at the end. */
static bool next_char(const char **s, size_t *len, mbstate_t *st, wchar_t *wc)
{
	if (!*len)
		return false;
	size_t k = mbrtowc(wc, *s, *len, st);
	if (k == (size_t)-1 || k == (size_t)-2) {
		memset(st, 0, sizeof *st);
		k = 1;
		*wc = '?';
	} else if (k == 0) {
		return false;
	}
	*s += k;
	*len -= k;
	return true;
}

/* s as the terminal may be given it: the CLI's escapes (text_escape) for
 * what would change how the terminal shows what follows (controls, the
 * bidirectional overrides, isolates and marks, invalid UTF-8), so that a
 * model's or a rule's name cannot reorder the screen; a tab or line break
 * is a space, as the views lay out multi-line text. Every text drawn and
 * measured passes here. Returns s itself when it is safe, else b's text. */
static const char *terminal_safe(const char *s, strbuf *b)
{
	if (text_is_safe(s))
		return s;
	char *flat = strdup(s);
	if (!flat)
		return "?";
	for (char *p = flat; *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	text_escape(b, flat);
	free(flat);
	return sb_str(b);
}

int display_width(const char *s)
{
	strbuf safe = { 0 };
	s = terminal_safe(s, &safe);
	mbstate_t st;
	memset(&st, 0, sizeof st);
	int w = 0;
	size_t len = strlen(s);
	wchar_t wc;
	while (next_char(&s, &len, &st, &wc)) {
		int cw = wcwidth(wc);
		w += cw > 0 ? cw : 0;
	}
	sb_release(&safe);
	return w;
}

void display_list_row(const display *d, int y, int x, int w, bool cursor, int role, const char *text)
{
	if (cursor)
		display_fill(d, y, x, w, ROLE_CURSOR, 0);
	display_text(d, y, x, 1, ROLE_CURSOR, 0, cursor ? d->g->cursor : "");
	display_text(d, y, x + 1, w - 1, cursor ? ROLE_CURSOR : role, 0, text);
}

void display_clip(display *d, int left, int right, int shift)
{
	d->clip.on = true;
	d->clip.left = left;
	d->clip.right = right;
	d->clip.shift = shift;
}

void display_unclip(display *d)
{
	d->clip.on = false;
}

int display_text(const display *d, int y, int x, int w, int role, attr_t extra, const char *s)
{
	if (w <= 0 || !s)
		return x;
	strbuf safe = { 0 };
	s = terminal_safe(s, &safe);
	attr_t a = theme_attr(&d->theme, role) | extra;
	attrset(a);
	mbstate_t st;
	memset(&st, 0, sizeof st);
	wchar_t buf[512];
	int n = 0, used = 0, start = -1;   /* start: the screen column of buf[0] */
	size_t len = strlen(s);
	wchar_t wc;
	while (n < (int)(sizeof buf / sizeof *buf) - 1 && next_char(&s, &len, &st, &wc)) {
		if (wc == '\t' || wc == '\n' || wc == '\r')
			wc = ' ';
		int cw = wcwidth(wc);
		if (cw < 0) {
			wc = '?';
			cw = 1;
		}
		if (used + cw > w)
			break;
		int col = x + used - (d->clip.on ? d->clip.shift : 0);
		used += cw;
		if (d->clip.on && (col < d->clip.left || col + cw > d->clip.right))
			continue;   /* scrolled out of the window */
		if (start < 0)
			start = col;
		buf[n++] = wc;
	}
	buf[n] = 0;
	if (n)
		mvaddnwstr(y, start, buf, n);
	attrset(A_NORMAL);
	sb_release(&safe);
	return x + used;
}

int display_text_mid(const display *d, int y, int x, int w, int role, attr_t extra, const char *s)
{
	if (w <= 0 || !s)
		return x;
	strbuf safe = { 0 };
	s = terminal_safe(s, &safe);   /* the cut is made in what is shown */
	int total = display_width(s), ew = display_width(d->g->ellipsis);
	if (total <= w || w <= ew + 1) {
		int end = display_text(d, y, x, w, role, extra, s);
		sb_release(&safe);
		return end;
	}
	/* the tail a little longer: it tells siblings apart (…/conv_3/Conv) */
	int head = (w - ew) * 2 / 5, tail = w - ew - head;
	int at = display_text(d, y, x, head, role, extra, s);
	at = display_text(d, y, at, ew, role, extra, d->g->ellipsis);
	/* the tail starts where the remaining width is at most tail */
	mbstate_t st;
	memset(&st, 0, sizeof st);
	const char *p = s;
	size_t len = strlen(s);
	int skipped = 0;
	wchar_t wc;
	while (total - skipped > tail && next_char(&p, &len, &st, &wc)) {
		int cw = wcwidth(wc);
		skipped += cw > 0 ? cw : (cw < 0 ? 1 : 0);
	}
	at = display_text(d, y, at, tail, role, extra, p);
	sb_release(&safe);
	return at;
}

void display_fill(const display *d, int y, int x, int w, int role, attr_t extra)
{
	if (d->clip.on) {   /* the part inside the window */
		int from = x - d->clip.shift, to = x + w - d->clip.shift;
		x = from < d->clip.left ? d->clip.left : from;
		w = (to > d->clip.right ? d->clip.right : to) - x;
	}
	if (w <= 0)
		return;
	attrset(theme_attr(&d->theme, role) | extra);
	mvhline(y, x, ' ', w);
	attrset(A_NORMAL);
}

void display_box(const display *d, int y, int x, int h, int w, int role)
{
	attrset(theme_attr(&d->theme, role));
	mvhline_set(y, x + 1, WACS_HLINE, w - 2);
	mvhline_set(y + h - 1, x + 1, WACS_HLINE, w - 2);
	mvvline_set(y + 1, x, WACS_VLINE, h - 2);
	mvvline_set(y + 1, x + w - 1, WACS_VLINE, h - 2);
	mvadd_wch(y, x, WACS_ULCORNER);
	mvadd_wch(y, x + w - 1, WACS_URCORNER);
	mvadd_wch(y + h - 1, x, WACS_LLCORNER);
	mvadd_wch(y + h - 1, x + w - 1, WACS_LRCORNER);
	attrset(A_NORMAL);
}

void display_splash(display *d, const char *model)
{
	erase();
	char buf[1024];
	snprintf(buf, sizeof buf, " fusiondbg  %s", model);
	display_fill(d, 0, 0, COLS, ROLE_TITLE, 0);
	display_text(d, 0, 0, COLS, ROLE_TITLE, 0, buf);
	display_text(d, LINES / 2, 2, COLS - 4, ROLE_DIM, 0, "loading the model and the rules ...");
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

/* ---- names in rows too wide --------------------------------------------------- */

/* The byte offset in s (len bytes) after the first w columns. */
static size_t bytes_for_width(const char *s, size_t len, int w)
{
	mbstate_t st;
	memset(&st, 0, sizeof st);
	const char *p = s;
	size_t left = len;
	int used = 0;
	wchar_t wc;
	for (;;) {
		const char *before = p;
		size_t left_before = left;
		if (!next_char(&p, &left, &st, &wc))
			break;
		int cw = wcwidth(wc);
		cw = cw > 0 ? cw : (cw < 0 ? 1 : 0);
		if (used + cw > w) {
			p = before;
			left = left_before;
			break;
		}
		used += cw;
	}
	return (size_t)(p - s);
}

/* name as drawn (escaped) cut head…tail to w columns, the tail a little
 * longer: it tells siblings apart (…/conv_3/Conv). */
static void cut_middle(const display *d, const char *name, int w, char *out, size_t size)
{
	int nw = display_width(name), ew = display_width(d->g->ellipsis);
	size_t len = strlen(name);
	int head = (w - ew) * 2 / 5, tail = w - ew - head;
	size_t hb = bytes_for_width(name, len, head), skip = bytes_for_width(name, len, nw - tail);
	while (skip < len && ((unsigned char)name[skip] & 0xc0) == 0x80)
		skip++;
	snprintf(out, size, "%.*s%s%s", (int)hb, name, d->g->ellipsis, name + skip);
}

char *display_cut_name(const display *d, const char *name, int w, char *out, size_t size)
{
	strbuf safe = { 0 };
	name = terminal_safe(name ? name : "", &safe);   /* the cut is made in what is shown */
	int ew = display_width(d->g->ellipsis);
	if (display_width(name) <= w || w <= ew + 1)
		snprintf(out, size, "%s", name);
	else if (!vs_cut_name_tail(name, w, d->g->ellipsis, display_width, out, size))
		cut_middle(d, name, w, out, size);
	sb_release(&safe);
	return out;
}

int display_text_name(const display *d, int y, int x, int w, int role, attr_t extra, const char *name)
{
	if (w <= 0 || !name)
		return x;
	char cut[1024];
	return display_text(d, y, x, w, role, extra, display_cut_name(d, name, w, cut, sizeof cut));
}

char *display_fit_names(const display *d, const char *s, int w, bool (*is_name)(void *ctx, const char *word),
                        void *ctx, char *out, size_t size)
{
	/* only the names is_name knows (a node's or a tensor's) are cut, each
	 * to no less than KEEP: rule names and field paths stay as they are */
	enum { KEEP = 16 };
	snprintf(out, size, "%s", s ? s : "");
	for (int round = 0; round < 16; round++) {
		int over = display_width(out) - w;
		if (over <= 0)
			break;
		/* the widest name among the words (runs without spaces, without the
		 * punctuation around them: "(conv1," is conv1) */
		size_t best = 0, best_len = 0;
		int best_w = KEEP;
		for (size_t i = 0; out[i];) {
			while (out[i] == ' ')
				i++;
			size_t j = i;
			while (out[j] && out[j] != ' ')
				j++;
			size_t a = i, b = j;
			while (a < b && strchr("([{'\"", out[a]))
				a++;
			while (b > a && strchr(")]}',:;\".", out[b - 1]))
				b--;
			char word[1024];
			snprintf(word, sizeof word, "%.*s", (int)(b - a), out + a);
			int tw = display_width(word);
			if (b > a && tw > best_w && is_name && is_name(ctx, word)) {
				best = a;
				best_len = b - a;
				best_w = tw;
			}
			i = j;
		}
		if (!best_len)
			break;
		int nw = best_w - over > KEEP ? best_w - over : KEEP;
		char word[1024], short_word[1024], whole[2048];
		snprintf(word, sizeof word, "%.*s", (int)best_len, out + best);
		display_cut_name(d, word, nw, short_word, sizeof short_word);
		snprintf(whole, sizeof whole, "%.*s%s%s", (int)best, out, short_word, out + best + best_len);
		if (!strcmp(whole, out))
			break;
		snprintf(out, size, "%s", whole);
	}
	return out;
}
