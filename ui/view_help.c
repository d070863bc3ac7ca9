/* view_help.c — the help view, generated from the action table (actions.h)
 * and the keymap in force, so it always shows the user's own keys. A short
 * walk-through comes first: enough to answer "why did this rule not fire?"
 * and try a fix with nothing else to read.
 * State: its own help_view (t->views[VIEW_HELP].data): the rows, laid out
 * again when the pane's width or the keymap changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view.h"

static const char *const intro[] = {
	"fusiondbg: step through what the fusion rules did, ask why one did not fire, try a fix.",
	"",
	"  1  the rules view lists each rule: priority, enabled, fusions fired / attempts.",
	"     Enter opens its trace; w jumps to its closest near-miss.",
	"  2  the graph view lists the nodes; w on a node asks which rule did not fire there",
	"     and lands on the deciding check: expected vs actual, and the rule's file:line.",
	"  3  the trace view is a stepper: n/p event, ]/[ attempt, f fire, x failure,",
	"     b breakpoint, c run to it.  The box below shows the event in full.",
	"  4  what-if: +/- priority, t enable/disable, e edit a value (validated); the rules",
	"     re-run at once; D shows the diff against the rules as loaded; u undoes.",
	"  5  s saves the edits into the rule files (only the values change; FILE.orig is",
	"     kept); E exports the graph to DOT/PNG/SVG; q goes back, and quits from the top.",
	"  6  M shows the memory timeline; @ binds a symbolic dim (batch=32) and re-runs:",
	"     the fusions gained and lost, and the peak before -> after, as for an edit.",
	"",
	"Keys can be changed in $XDG_CONFIG_HOME/fusiondbg/keys (or ~/.config/fusiondbg/keys):",
	"  bind SCOPE KEY ACTION     e.g.  bind generic <C-x> save    bind trace s step-next",
	"",
};
#define N_INTRO (sizeof intro / sizeof *intro)

/* The rows, laid out for a width: intro lines, then per section a title and
 * its actions. An action whose keys (or help) do not fit its column goes on
 * over the next rows, the keys split at their commas, the help at spaces. */
typedef struct help_row {
	char keys[64];
	char text[512];
	int role;
	bool action;     /* an action's row (the first) or its continuation */
} help_row;

/* The view's own state (t->views[VIEW_HELP].data): the rows, built again
 * when the pane's width or the keymap changes. */
typedef struct help_view {
	VEC(help_row) rows;
	int width;
	const keymap *km;
	size_t km_n;
} help_view;

static void *open_view(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(help_view));
}

static void close_view(void *data)
{
	help_view *hv = data;
	vec_release(&hv->rows);
	free(hv);
}

#define KEYS_W 26    /* the key column */
#define NAME_W 19    /* the action name, before its help */

static help_row *push_row(help_view *hv, int role, bool action)
{
	vec_grow(&hv->rows, hv->rows.n + 1);
	help_row *r = &hv->rows.items[hv->rows.n++];
	memset(r, 0, sizeof *r);
	r->role = role;
	r->action = action;
	return r;
}

/* Every key bound to action a, generic first, then the views' own: "j, <Down>, x (trace)". */
static void keys_of(tui *t, enum tui_action a, char *keys, size_t ksize)
{
	keymap_keys_for(&t->km, SCOPE_GENERIC, a, keys, ksize);
	size_t used = strlen(keys);
	for (int s = SCOPE_RULES; s < SCOPE_COUNT; s++)
		for (size_t i = 0; i < t->km.n; i++) {
			const keymap_binding *b = &t->km.items[i];
			if (b->scope != s || b->action != a || keymap_lookup(&t->km, s, b->key) != a)
				continue;
			char kn[32];
			key_label(b->key, kn, sizeof kn);
			int w = snprintf(keys + used, ksize - used, "%s%s (%s)", used ? ", " : "", kn, scope_name(s));
			if (w > 0 && (size_t)w < ksize - used)
				used += (size_t)w;
		}
}

/* The longest head of *s (from *s on) that fits w columns, ending before a
 * break character (after a ", " for keys, at a space for words); moves *s
 * past it and copies it into out. A single piece longer than w is cut. */
static void take(const char **s, int w, bool keys, char *out, size_t size)
{
	const char *p = *s, *cut = NULL;
	while (*p) {
		const char *next = keys ? strstr(p, ", ") : strchr(p, ' ');
		const char *end = next ? next + (keys ? 1 : 0) : p + strlen(p);
		char piece[512];
		snprintf(piece, sizeof piece, "%.*s", (int)(end - *s), *s);
		if (display_width(piece) > w)
			break;
		cut = end;
		if (!next)
			break;
		p = next + (keys ? 2 : 1);
	}
	if (!cut)   /* one piece wider than w: as much of it as fits */
		cut = *s + (strlen(*s) < (size_t)w ? strlen(*s) : (size_t)w);
	snprintf(out, size, "%.*s", (int)(cut - *s), *s);
	*s = cut;
	while (**s == ',' || **s == ' ')
		(*s)++;
}

static void build(tui *t, help_view *hv, int width)
{
	hv->rows.n = 0;
	hv->width = width;
	hv->km = &t->km;
	hv->km_n = t->km.n;
	for (size_t i = 0; i < N_INTRO; i++)
		snprintf(push_row(hv, i == 0 ? ROLE_HEADER : ROLE_NORMAL, false)->text, sizeof hv->rows.items[0].text, "%s",
		         intro[i]);
	int help_w = width - 2 - KEYS_W - NAME_W;
	if (help_w < 20)
		help_w = 20;
	for (int sec = 0; sec < SEC_COUNT; sec++) {
		snprintf(push_row(hv, ROLE_HEADER, false)->text, sizeof hv->rows.items[0].text, "%s",
		         section_title((enum tui_section)sec));
		for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
			const tui_action_def *d = action_get((enum tui_action)a);
			if (d->section != (enum tui_section)sec)
				continue;
			char keys[512];
			keys_of(t, d->action, keys, sizeof keys);
			const char *k = keys[0] ? keys : "(no key)", *h = d->help;
			for (bool first = true; first || *k || *h; first = false) {
				help_row *r = push_row(hv, ROLE_NORMAL, true);
				take(&k, KEYS_W - 1, true, r->keys, sizeof r->keys);
				char words[400];
				take(&h, help_w, false, words, sizeof words);
				snprintf(r->text, sizeof r->text, "%-*s %s", NAME_W - 1, first ? d->name : "", words);
			}
		}
	}
}

static const help_row *row_at(tui *t, size_t row)
{
	help_view *hv = t->views[VIEW_HELP].data;
	int width = display_pane_width(t, VIEW_HELP);
	if (width <= 0)
		width = t->cols - 2;
	if (width != hv->width || hv->km != &t->km || hv->km_n != t->km.n || !hv->rows.n)
		build(t, hv, width);
	return row < hv->rows.n ? &hv->rows.items[row] : NULL;
}

static size_t rows(tui *t)
{
	row_at(t, 0);
	return ((help_view *)t->views[VIEW_HELP].data)->rows.n;
}

/* For search: the keys and the text. */
static const char *row_text(tui *t, size_t row, char *buf, size_t size, int *role)
{
	const help_row *r = row_at(t, row);
	*role = r ? r->role : ROLE_NORMAL;
	snprintf(buf, size, "%s %s", r ? r->keys : "", r ? r->text : "");
	return buf;
}

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	const help_row *r = row_at(t, row);
	if (!r)
		return;
	bool cur = cursor && t->focus == VIEW_HELP;
	if (cur)
		display_fill(t->disp, y, x, w, ROLE_CURSOR, 0);
	display_text(t->disp, y, x, 1, ROLE_CURSOR, 0, cur ? t->disp->g->cursor : "");
	if (!r->action) {
		display_text(t->disp, y, x + 1, w - 1, cur ? ROLE_CURSOR : r->role, 0, r->text);
		return;
	}
	display_text(t->disp, y, x + 2, KEYS_W - 1, cur ? ROLE_CURSOR : ROLE_KEY, 0, r->keys);
	display_text(t->disp, y, x + 2 + KEYS_W, w - KEYS_W - 2, cur ? ROLE_CURSOR : r->role, 0, r->text);
}

static const enum tui_action hints[] = { ACT_MOVE_DOWN, ACT_MOVE_PAGE_DOWN, ACT_SEARCH, ACT_BACK, ACT_NONE };

const view_ops view_help_ops = {
	.rows = rows, .text = row_text, .draw_row = draw_row, .hints = hints,
	.open = open_view, .close = close_view,
};
