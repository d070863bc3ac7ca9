/* layout.c — the screen as the views make it: the panes (two columns on a
 * wide terminal, one view at a time on a narrow one), each view's box and
 * rows drawn through its view_ops (its draw_row, else its text as a list's
 * row), the title bar and the status line. The panes are kept in the tui's
 * display (t->disp->panes); no state here. */
#include <stdio.h>
#include <string.h>
#include "view.h"
#include "estimate/estimate.h"

/* ---- layout -------------------------------------------------------------- */

static void set_pane(tui *t, enum tui_view v, int y, int x, int h, int w)
{
	t->disp->panes[v] = (pane){ y, x, h, w, true };
}

void display_layout(tui *t)
{
	t->lines = LINES;
	t->cols = COLS;
	int body_y = 1, body_h = t->lines - 2;
	if (body_h < 3)
		body_h = 3;
	pane *panes = t->disp->panes;
	memset(panes, 0, sizeof t->disp->panes);
	t->wide = t->cols >= 100 && t->lines >= 20;
	if (t->focus != VIEW_RULES && t->focus != VIEW_DETAIL)
		t->main_view = t->focus;
	if (t->wide) {
		int lw = t->cols * 2 / 5;
		if (lw < 34) lw = 34;
		if (lw > 56) lw = 56;
		int rules_h = (int)t->views[VIEW_RULES].ops->rows(t) + 2;
		if (rules_h > body_h / 2) rules_h = body_h / 2;
		if (rules_h < 5) rules_h = 5;
		if (t->focus == VIEW_HELP || t->focus == VIEW_DIFF) {
			/* long lines, read on their own: the whole width */
			set_pane(t, t->focus, body_y, 0, body_h, t->cols);
		} else if (t->focus == VIEW_DETAIL) {
			/* editing values wants width: the detail takes the big pane */
			set_pane(t, VIEW_RULES, body_y, 0, body_h, lw);
			set_pane(t, VIEW_DETAIL, body_y, lw, body_h, t->cols - lw);
		} else {
			set_pane(t, VIEW_RULES, body_y, 0, rules_h, lw);
			set_pane(t, VIEW_DETAIL, body_y + rules_h, 0, body_h - rules_h, lw);
			set_pane(t, t->main_view, body_y, lw, body_h, t->cols - lw);
		}
	} else {
		set_pane(t, t->focus, body_y, 0, body_h, t->cols);
	}
	for (int v = 0; v < VIEW_COUNT; v++) {
		if (!panes[v].shown)
			continue;
		const view_ops *ops = t->views[v].ops;
		int h = panes[v].h - 2;
		if (ops->footer_lines)
			h -= ops->footer_lines(t, panes[v].h - 2);
		vs_list_set_height(&t->views[v].list, h > 1 ? h : 1);
	}
}

int display_hit(tui *t, int y, int x, int *line)
{
	for (int v = 0; v < VIEW_COUNT; v++) {
		const pane *p = &t->disp->panes[v];
		if (p->shown && y > p->y && y < p->y + p->h - 1 && x >= p->x && x < p->x + p->w) {
			*line = y - p->y - 1;
			return v;
		}
	}
	return -1;
}

/* ---- drawing ------------------------------------------------------------- */

static void draw_box(tui *t, const pane *p, bool focus, const char *title, const char *right)
{
	display_box(t->disp, p->y, p->x, p->h, p->w, focus ? ROLE_BORDER_FOCUS : ROLE_BORDER);
	char buf[256];
	snprintf(buf, sizeof buf, " %s ", title);
	int x = display_text(t->disp, p->y, p->x + 2, p->w - 4, focus ? ROLE_BORDER_FOCUS : ROLE_BORDER, focus ? A_REVERSE : 0,
	                     buf);
	if (right && *right) {
		snprintf(buf, sizeof buf, " %s ", right);
		int rw = display_width(buf);
		if (p->x + p->w - 2 - rw > x + 1)
			display_text(t->disp, p->y, p->x + p->w - 2 - rw, rw, ROLE_BORDER, 0, buf);
	}
}

/* A row of a view without draw_row: its text as a list's row, the
 * model's names in it cut to fit (display_cut_name). */
static void draw_text_row(tui *t, enum tui_view v, size_t row, int y, int x, int w, bool cursor)
{
	char buf[2048], fit[1024];
	int role = ROLE_NORMAL;
	const char *text = t->views[v].ops->text(t, row, buf, sizeof buf, &role);
	display_list_row(t->disp, y, x, w, cursor && t->focus == v, role, tui_fit_names(t, text, w - 1, fit, sizeof fit));
}

static void draw_view(tui *t, enum tui_view v)
{
	const pane *p = &t->disp->panes[v];
	if (!p->shown || p->h < 3 || p->w < 4)
		return;
	const view_ops *ops = t->views[v].ops;
	vs_list *l = &t->views[v].list;
	size_t n = ops->rows(t);
	vs_list_set_rows(l, n);
	char right[96] = "";
	if (n && ops->row_label) {   /* "#111/#233": the view's own numbers, the last one after the slash */
		char a[40], b[40];
		ops->row_label(t, l->cursor, a, sizeof a);
		ops->row_label(t, n - 1, b, sizeof b);
		snprintf(right, sizeof right, "%s/%s", strrchr(a, ' ') ? strrchr(a, ' ') + 1 : a,
		         strrchr(b, ' ') ? strrchr(b, ' ') + 1 : b);
	} else if (n) {
		snprintf(right, sizeof right, "%zu/%zu", l->cursor + 1, n);
	}
	int x = p->x + 1, w = p->w - 2, off = t->views[v].hoff;
	if (off > 0)
		snprintf(right + strlen(right), sizeof right - strlen(right), "%scol %d", n ? "  " : "", off + 1);
	char title[160];
	if (tui_n_rounds(t) > 1 && v == VIEW_RULES)   /* its counts add up every round */
		snprintf(title, sizeof title, "%s, all %d rounds", view_title(v), (int)tui_n_rounds(t));
	else if (tui_n_rounds(t) > 1)   /* the round the trace steps, in every other view */
		snprintf(title, sizeof title, "%s, round %d/%d", view_title(v), (int)t->round, (int)tui_n_rounds(t));
	draw_box(t, p, t->focus == v, tui_n_rounds(t) > 1 ? title : view_title(v), right);
	/* scrolled right: rows are drawn off wider and seen through the pane (display_clip) */
	if (off > 0)
		display_clip(t->disp, x, x + w, off);
	for (int i = 0; i < l->height; i++) {
		int y = p->y + 1 + i;
		size_t row = l->top + (size_t)i;
		display_fill(t->disp, y, x, w + off, ROLE_NORMAL, 0);
		if (row < n && ops->draw_row)
			ops->draw_row(t, row, y, x, w + off, row == l->cursor);
		else if (row < n)
			draw_text_row(t, v, row, y, x, w + off, row == l->cursor);
	}
	display_unclip(t->disp);   /* the footer (the trace's event box) stays put */
	if (ops->footer_lines && ops->draw_footer) {
		int fh = ops->footer_lines(t, p->h - 2);
		if (fh > 0)
			ops->draw_footer(t, p->y + 1 + l->height, x, w, fh);
	}
}

int display_pane_width(const tui *t, enum tui_view v)
{
	const pane *p = &t->disp->panes[v];
	return p->shown ? p->w - 2 : 0;
}

static void draw_title(tui *t)
{
	const fd_session *s = &t->s;
	const fd_match_result *r = session_result(s);
	const fd_estimate *e = session_final_estimate(s);   /* the graph after every round */
	const char *model = strrchr(t->model_path, '/') ? strrchr(t->model_path, '/') + 1 : t->model_path;
	char before[160] = "?", after[160] = "?";
	if (e->n_graphs > 0) {
		estimate_format_peak(session_model(s), &e->graphs[0].before, before, sizeof before);
		estimate_format_peak(session_model(s), &e->graphs[0].after, after, sizeof after);
	}
	/* the symbols the figures depend on: bound ones with their values,
	 * unbound ones named, so a formula in the title is never a mystery */
	char syms[256] = "";
	const fd_model *m = session_model(s);
	size_t at = 0;
	for (int32_t i = 0; i < m->n_symdims && at + 1 < sizeof syms; i++) {
		if (!m->symdims[i].used)
			continue;
		char alias[16];   /* as the shapes name it */
		const char *name = dimtab_display_name(m->dimtab, m->symdims[i].name, alias, sizeof alias);
		if (m->symdims[i].bound)
			at += (size_t)snprintf(syms + at, sizeof syms - at, "  %s=%lld", name, (long long)m->symdims[i].value);
		else
			at += (size_t)snprintf(syms + at, sizeof syms - at, "  %s unbound", name);
	}
	size_t unsaved = session_unsaved(s);
	char buf[1024], mod[96] = "";
	if (unsaved)
		snprintf(mod, sizeof mod, "  [%zu unsaved]", unsaved);
	for (int v = 0; v < VIEW_COUNT; v++)
		if (t->views[v].ops->title_note)
			t->views[v].ops->title_note(t, mod + strlen(mod), sizeof mod - strlen(mod));
	/* a fusion after which the compiler refuses the model: said first */
	char refused[512];
	if (explain_rounds_refused_model(session_rounds(s), refused, sizeof refused))
		snprintf(mod + strlen(mod), sizeof mod - strlen(mod), "  [model refused]");
	const char *target = r->target ? r->target : "ai_core";
	/* with rounds: every round's fusions, and how many rounds */
	size_t fired = rounds_n_fusions(session_rounds(s));
	char rounds[64] = "";
	if (tui_n_rounds(t) > 1)
		snprintf(rounds, sizeof rounds, " in %d rounds%s", (int)tui_n_rounds(t),
		         session_rounds(s)->settled ? "" : " (not settled)");
	/* the fullest form that fits: model, unsaved, fired and peak matter most */
	snprintf(buf, sizeof buf, " fusiondbg  %s%s  %s  target %s  fired %zu%s  peak %s %s %s%s",
	         model, mod, t->rules_label, target, fired, rounds, before, t->disp->g->arrow, after, syms);
	if (display_width(buf) > t->cols)
		snprintf(buf, sizeof buf, " fusiondbg  %s%s  %d rules  %s  fired %zu%s  peak %s %s %s%s", model, mod,
		         (int)r->n_rules, target, fired, rounds, before, t->disp->g->arrow, after, syms);
	if (display_width(buf) > t->cols)
		snprintf(buf, sizeof buf, " %s%s  %s  fired %zu  peak %s %s %s%s", model, mod, target, fired, before,
		         t->disp->g->arrow, after, syms);
	display_fill(t->disp, 0, 0, t->cols, ROLE_TITLE, 0);
	display_text(t->disp, 0, 0, t->cols, ROLE_TITLE, 0, buf);
}

/* The width of s's first n bytes. */
static int width_of(const char *s, size_t n)
{
	char buf[sizeof ((tui *)0)->msg];
	snprintf(buf, sizeof buf, "%.*s", (int)n, s);
	return display_width(buf);
}

/* The message, wrapped at spaces into lines of at most w columns (a word
 * longer than a line is cut between characters): the bytes each line starts
 * at and holds. Returns the lines, at most max. */
static int wrap_message(const char *msg, int w, int max, size_t *start, size_t *len)
{
	size_t at = 0, total = strlen(msg);
	int n = 0;
	while (at < total && n < max) {
		size_t end = at, fit = 0;
		while (end < total) {
			size_t next = end + 1;
			while (next < total && msg[next] != ' ')
				next++;
			if (width_of(msg + at, next - at) > w)
				break;
			fit = next - at;
			end = next;
		}
		if (!fit) {   /* one word wider than the line: as many characters as fit */
			size_t k = 1;
			while (at + k < total && width_of(msg + at, k + 1) <= w)
				k++;
			while (at + k < total && ((unsigned char)msg[at + k] & 0xc0) == 0x80)
				k--;
			fit = k ? k : 1;
		}
		if (n == max - 1 && at + fit < total)
			fit = total - at;   /* the last line takes the rest (display_text cuts it) */
		start[n] = at;
		len[n++] = fit;
		at += fit;
		while (at < total && msg[at] == ' ')
			at++;
	}
	return n;
}

static void draw_status(tui *t)
{
	int y = t->lines - 1;
	display_fill(t->disp, y, 0, t->cols, ROLE_STATUS, 0);
	if (t->msg[0]) {
		/* a message wider than the screen is wrapped upwards over the panes'
		 * last lines, never cut: an error says all it has to say */
		enum { MAX_LINES = 4 };
		size_t start[MAX_LINES], len[MAX_LINES];
		int max = t->lines / 3 < MAX_LINES ? t->lines / 3 : MAX_LINES;
		int n = display_width(t->msg) <= t->cols ? 0 : wrap_message(t->msg, t->cols, max > 1 ? max : 1, start, len);
		if (n <= 1) {
			display_text(t->disp, y, 0, t->cols, t->msg_role, 0, t->msg);
			return;
		}
		for (int i = 0; i < n; i++) {
			char line[sizeof t->msg];
			snprintf(line, sizeof line, "%.*s", (int)len[i], t->msg + start[i]);
			display_fill(t->disp, y - n + 1 + i, 0, t->cols, ROLE_STATUS, 0);
			display_text(t->disp, y - n + 1 + i, 0, t->cols, t->msg_role, 0, line);
		}
		return;
	}
	const view_ops *ops = t->views[t->focus].ops;
	int x = 1;
	for (const enum tui_action *a = ops->hints; a && *a != ACT_NONE; a++) {
		char keys[64];
		if (!keymap_keys_for(&t->km, keymap_scope_of(t->focus), *a, keys, sizeof keys))
			continue;
		char *comma = strchr(keys, ',');
		if (comma)
			*comma = 0;
		const char *label = action_get(*a)->hint;
		int need = display_width(keys) + 1 + (int)strlen(label) + 2;
		if (x + need > t->cols)
			break;
		x = display_text(t->disp, y, x, t->cols - x, ROLE_KEY, 0, keys);
		x = display_text(t->disp, y, x + 1, t->cols - x - 1, ROLE_STATUS, 0, label);
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
		if (t->disp->panes[v].shown)
			draw_view(t, (enum tui_view)v);
	draw_status(t);
	refresh();
}
