/* prompt.c — input on the status line (an edit, a search, a file name), a
 * yes / no / cancel question, and a centred menu. Each runs its own small key
 * loop on input_key, so scripts drive them like any key, and each first drops
 * the keys typed before it showed (input_flush): a key the user typed without
 * seeing the question never answers it, nor runs as a command after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view.h"
#include "base/strbuf.h"

static int next_key(tui *t)
{
	for (;;) {
		const char *cmd = NULL;
		int key = input_key(t, &cmd);
		if (key == KEY_SCRIPT_CMD) {
			input_command(t, cmd);
			continue;
		}
		if (key == KEY_RESIZE) {
			display_layout(t);
			continue;
		}
		return key;
	}
}

/* The line editor; suggested: initial is a suggestion, shown selected,
 * that the first key typed replaces (Tab, Right or End takes it). */
static char *prompt_edit(tui *t, const char *label, const char *initial, bool suggested)
{
	input_flush(t);
	strbuf b = { 0 };
	sb_puts(&b, initial ? initial : "");
	size_t pos = b.n;
	bool full = false;
	for (;;) {
		display_draw(t);
		int y = t->lines - 1;
		display_fill(t->disp, y, 0, t->cols, ROLE_NORMAL, 0);
		int x = display_text(t->disp, y, 0, t->cols, ROLE_KEY, 0, label);
		/* show the tail when the text is longer than the line */
		int room = t->cols - x - 1;
		if (full) {
			static const char note[] = " [full] ";
			room -= (int)sizeof note - 1;
			display_text(t->disp, y, t->cols - (int)sizeof note, (int)sizeof note - 1, ROLE_ERROR, 0, note);
		}
		size_t from = 0;
		if (room > 0 && (int)pos > room)
			from = pos - (size_t)room;
		display_text(t->disp, y, x, room, suggested ? ROLE_CURSOR : ROLE_NORMAL, 0, b.s + from);
		move(y, x + (int)(pos - from));
		curs_set(1);
		refresh();
		int key = next_key(t);
		curs_set(0);
		full = false;
		if (suggested) {   /* the suggestion taken, or replaced by what is typed */
			suggested = false;
			if (key == '\t' || key == KEY_RIGHT || key == KEY_END)
				continue;
			if ((key >= 0x20 && key < 0x100 && key != 0x7f) || key == KEY_BACKSPACE || key == KEY_DC) {
				b.s[0] = 0;
				b.n = pos = 0;
				if (key == KEY_BACKSPACE || key == KEY_DC)
					continue;
			}
		}
		size_t len = b.n;
		if (key == KEY_SCRIPT_END || key == 27 || key == 7 /* ^G */) {
			sb_release(&b);
			return NULL;
		} else if (key == '\n') {
			return sb_take(&b);
		} else if (key == KEY_BACKSPACE) {
			if (pos > 0) {
				memmove(b.s + pos - 1, b.s + pos, len - pos + 1);
				pos--;
				b.n--;
			} else if (len == 0) {
				sb_release(&b);
				return NULL;   /* backspace on an empty line leaves, as in tig */
			}
		} else if (key == KEY_DC) {
			if (pos < len) {
				memmove(b.s + pos, b.s + pos + 1, len - pos);
				b.n--;
			}
		} else if (key == KEY_LEFT) {
			if (pos > 0)
				pos--;
		} else if (key == KEY_RIGHT) {
			if (pos < len)
				pos++;
		} else if (key == KEY_HOME || key == 1 /* ^A */) {
			pos = 0;
		} else if (key == KEY_END || key == 5 /* ^E */) {
			pos = len;
		} else if (key == 21 /* ^U */) {
			memmove(b.s, b.s + pos, len - pos + 1);
			b.n -= pos;
			pos = 0;
		} else if (key == 11 /* ^K */) {
			b.s[pos] = 0;
			b.n = pos;
		} else if (key >= 0x20 && key < 0x100 && key != 0x7f) {
			if (len + 1 > PROMPT_MAX) {
				full = true;   /* said on the line, the key not taken */
				continue;
			}
			sb_add(&b, " ", 1);   /* room (the NUL moves along), then shift the tail */
			memmove(b.s + pos + 1, b.s + pos, len - pos);
			b.s[pos++] = (char)key;
		}
	}
}

char *prompt_text(tui *t, const char *label, const char *initial)
{
	return prompt_edit(t, label, initial, false);
}

char *prompt_suggest(tui *t, const char *label, const char *suggestion)
{
	return prompt_edit(t, label, suggestion, suggestion && *suggestion);
}

char *prompt_line(tui *t, const char *label, const char *initial, char *buf, size_t size)
{
	char *text = prompt_text(t, label, initial);
	if (!text)
		return NULL;
	size_t n = strlen(text);
	if (n >= size) {
		tui_message(t, ROLE_ERROR, "%zu bytes is too long here (at most %zu); nothing done", n, size - 1);
		free(text);
		return NULL;
	}
	memcpy(buf, text, n + 1);
	free(text);
	return buf;
}

int prompt_yes_no(tui *t, const char *question, bool with_cancel)
{
	input_flush(t);
	int chosen = 0;   /* y or n, waiting for Enter */
	for (;;) {
		display_draw(t);
		int y = t->lines - 1;
		display_fill(t->disp, y, 0, t->cols, ROLE_NORMAL, 0);
		char buf[512];
		snprintf(buf, sizeof buf, "%s %s %s", question, with_cancel ? "(y/n/c)" : "(y/n)",
		         chosen == 'y' ? "y: Enter to confirm " : chosen == 'n' ? "n: Enter to confirm " : "");
		display_text(t->disp, y, 0, t->cols, ROLE_HEADER, 0, buf);
		refresh();
		int key = next_key(t);
		if (key == 'y' || key == 'Y')
			chosen = 'y';
		else if (key == 'n' || key == 'N')
			chosen = 'n';
		else if (key == '\n' && chosen)
			return chosen;
		else if (key == KEY_SCRIPT_END || key == 'c' || key == 27 || key == 7 || key == 'q')
			return with_cancel ? 'c' : 'n';
	}
}

int prompt_list_yes_no(tui *t, const char *title, const char *const *lines, int n, const char *question)
{
	input_flush(t);
	for (;;) {
		int w = display_width(title) + 6, qw = display_width(question) + 12;
		if (qw > w)
			w = qw;
		for (int i = 0; i < n; i++) {
			int iw = display_width(lines[i]) + 4;
			if (iw > w)
				w = iw;
		}
		if (w > t->cols - 2)
			w = t->cols - 2;
		int h = n + 4;
		if (h > t->lines - 2)
			h = t->lines - 2;
		int room = h - 4;   /* rows for lines: box, blank, question */
		display_draw(t);
		int y0 = (t->lines - h) / 2, x0 = (t->cols - w) / 2;
		for (int y = y0; y < y0 + h; y++)
			display_fill(t->disp, y, x0, w, ROLE_NORMAL, 0);
		display_box(t->disp, y0, x0, h, w, ROLE_BORDER_FOCUS);
		char buf[256];
		snprintf(buf, sizeof buf, " %s ", title);
		display_text(t->disp, y0, x0 + 2, w - 4, ROLE_BORDER_FOCUS, A_REVERSE, buf);
		int shown = n <= room ? n : room - 1;
		for (int i = 0; i < shown; i++)
			display_text(t->disp, y0 + 1 + i, x0 + 2, w - 4, ROLE_NORMAL, 0, lines[i]);
		if (shown < n) {
			snprintf(buf, sizeof buf, "%s %d more", t->disp->g->ellipsis, n - shown);
			display_text(t->disp, y0 + 1 + shown, x0 + 2, w - 4, ROLE_DIM, 0, buf);
		}
		snprintf(buf, sizeof buf, "%s (y/n)", question);
		display_text(t->disp, y0 + h - 2, x0 + 2, w - 4, ROLE_HEADER, 0, buf);
		refresh();
		int key = next_key(t);
		if (key == 'y' || key == 'Y')
			return 'y';
		if (key == 'n' || key == 'N' || key == KEY_SCRIPT_END || key == 27 || key == 7 || key == 'q')
			return 'n';
	}
}

int prompt_menu(tui *t, const char *title, const char *const *items, int n, int initial)
{
	input_flush(t);
	vs_list l = { 0 };
	vs_list_set_rows(&l, (size_t)n);
	for (;;) {
		int w = display_width(title) + 6;
		for (int i = 0; i < n; i++) {
			int iw = display_width(items[i]) + 6;
			if (iw > w)
				w = iw;
		}
		if (w > t->cols - 4)
			w = t->cols - 4;
		int h = n + 2;
		if (h > t->lines - 4)
			h = t->lines - 4;
		if (h < 3)
			h = 3;
		vs_list_set_height(&l, h - 2);
		if (initial >= 0) {
			vs_list_goto(&l, (size_t)initial);
			initial = -1;
		}
		display_draw(t);
		int y0 = (t->lines - h) / 2, x0 = (t->cols - w) / 2;
		for (int y = y0; y < y0 + h; y++)
			display_fill(t->disp, y, x0, w, ROLE_BORDER_FOCUS, 0);
		display_box(t->disp, y0, x0, h, w, ROLE_BORDER_FOCUS);
		char buf[256];
		snprintf(buf, sizeof buf, " %s ", title);
		display_text(t->disp, y0, x0 + 2, w - 4, ROLE_BORDER_FOCUS, A_REVERSE, buf);
		for (int i = 0; i < l.height; i++) {
			size_t row = l.top + (size_t)i;
			if (row >= (size_t)n)
				break;
			bool cur = row == l.cursor;
			display_fill(t->disp, y0 + 1 + i, x0 + 1, w - 2, cur ? ROLE_CURSOR : ROLE_NORMAL, 0);
			snprintf(buf, sizeof buf, " %s", items[row]);
			display_text(t->disp, y0 + 1 + i, x0 + 1, w - 2, cur ? ROLE_CURSOR : ROLE_NORMAL, 0, buf);
		}
		refresh();
		int key = next_key(t);
		enum tui_action a = keymap_lookup(&t->km, SCOPE_GENERIC, key);
		if (key == '\n')
			return (int)l.cursor;
		if (key == KEY_SCRIPT_END || key == 27 || key == 7 || a == ACT_BACK || a == ACT_QUIT)
			return -1;
		tui_list_move(&l, a);
	}
}
