/* view_help.c — the help view, generated from the action table (actions.h)
 * and the keymap in force, so it always shows the user's own keys. A short
 * walk-through comes first: enough to answer "why did this rule not fire?"
 * and try a fix with nothing else to read. */
#include <stdio.h>
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

/* rows: intro lines, then per section a title and its actions */
static size_t n_rows(void)
{
	return N_INTRO + SEC_COUNT + (ACT_COUNT - 1);
}

static int row_action(size_t row, int *section)
{
	row -= N_INTRO;
	for (int s = 0; s < SEC_COUNT; s++) {
		if (row == 0) {
			*section = s;
			return -1;
		}
		row--;
		for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
			if (action_get((enum tui_action)a)->section != (enum tui_section)s)
				continue;
			if (row == 0)
				return a;
			row--;
		}
	}
	*section = -1;
	return -1;
}

static size_t rows(tui *t)
{
	return n_rows();
}

static const char *text_of(tui *t, size_t row, char *buf, size_t size, int *role, char *keys, size_t ksize)
{
	keys[0] = 0;
	*role = ROLE_NORMAL;
	if (row < N_INTRO) {
		*role = row == 0 ? ROLE_HEADER : ROLE_NORMAL;
		snprintf(buf, size, "%s", intro[row]);
		return buf;
	}
	int sec;
	int a = row_action(row, &sec);
	if (a < 0) {
		*role = ROLE_HEADER;
		snprintf(buf, size, "%s", sec >= 0 ? section_title((enum tui_section)sec) : "");
		return buf;
	}
	const tui_action_def *d = action_get((enum tui_action)a);
	size_t used = 0;
	keymap_keys_for(&t->km, SCOPE_GENERIC, d->action, keys, ksize);
	used = strlen(keys);
	for (int s = SCOPE_RULES; s < SCOPE_COUNT; s++)
		for (size_t i = 0; i < t->km.n; i++) {
			const keymap_binding *b = &t->km.items[i];
			if (b->scope != s || b->action != d->action || keymap_lookup(&t->km, s, b->key) != d->action)
				continue;
			char kn[32];
			key_label(b->key, kn, sizeof kn);
			int w = snprintf(keys + used, ksize - used, "%s%s (%s)", used ? ", " : "", kn, scope_name(s));
			if (w > 0 && (size_t)w < ksize - used)
				used += (size_t)w;
		}
	snprintf(buf, size, "%-18s %s", d->name, d->help);
	return buf;
}

static const char *row_text(void *ctx, size_t row, char *buf, size_t size)
{
	char tmp[512], keys[256];
	int role;
	text_of(ctx, row, tmp, sizeof tmp, &role, keys, sizeof keys);
	snprintf(buf, size, "%s %s", keys, tmp);
	return buf;
}

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	char buf[512], keys[256];
	int role;
	text_of(t, row, buf, sizeof buf, &role, keys, sizeof keys);
	bool cur = cursor && t->focus == VIEW_HELP;
	if (cur)
		display_fill(y, x, w, ROLE_CURSOR, 0);
	display_text(y, x, 1, ROLE_CURSOR, 0, cur ? G.cursor : "");
	if (row < N_INTRO || (!keys[0] && role == ROLE_HEADER)) {
		display_text(y, x + 1, w - 1, cur ? ROLE_CURSOR : role, 0, buf);
		return;
	}
	int kw = 26;
	display_text(y, x + 2, kw - 1, cur ? ROLE_CURSOR : ROLE_KEY, 0, keys[0] ? keys : "(no key)");
	display_text(y, x + 2 + kw, w - kw - 2, cur ? ROLE_CURSOR : role, 0, buf);
}

static const enum tui_action hints[] = { ACT_MOVE_DOWN, ACT_MOVE_PAGE_DOWN, ACT_SEARCH, ACT_BACK, ACT_NONE };

const view_ops view_help_ops = {
	.rows = rows, .draw_row = draw_row, .row_text = row_text, .hints = hints,
};
