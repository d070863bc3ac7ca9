/* edit.c — what-if edits from the TUI: a value edited in a prompt (typed
 * with its type shown, validated by the session), and what the result of any
 * session call says on the status line. The re-run's consequences (rows,
 * recovery file, detail) are the main loop's, on RES_RERUN. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loop.h"
#include "base/strbuf.h"

unsigned tui_after_edit(tui *t, int rc, fd_diags *d, const char *what)
{
	char line[1024];
	if (rc < 0) {
		if (d->n)
			tui_message(t, ROLE_ERROR, "%s (not applied)", diag_format(&d->items[0], line, sizeof line));
		else
			tui_message(t, ROLE_ERROR, "%s: not applied", what);
		return RES_REDRAW;
	}
	const fd_match_result *r = session_result(&t->s), *b = session_baseline(&t->s);
	char ms[48] = "";
	if (!t->in.scripted)   /* scripted screens must not depend on timing */
		snprintf(ms, sizeof ms, " in %.1f ms", t->s.last_run_ms);
	tui_message(t, ROLE_EDITED, "%s; re-ran%s: %zu fusions (as loaded %zu), %zu unsaved; D shows the diff",
	            what, ms, r->n_fusions, b->n_fusions, session_unsaved(&t->s));
	return RES_RERUN | RES_REDRAW;
}

static unsigned edit_cancelled(tui *t)
{
	tui_message(t, ROLE_NORMAL, "edit cancelled");
	return RES_REDRAW;
}

unsigned tui_edit_value(tui *t, int32_t rule, const char *path)
{
	const fd_ruleset *rs = session_rules(&t->s);
	if (rule < 0 || rule >= rs->n_rules) {
		tui_message(t, ROLE_WARN, "no rule here: move to a rule (rules view) or an event first");
		return RES_REDRAW;
	}
	const char *name = rs->rules[rule].name;
	/* the whole value, however long: the prompt starts from it and takes
	 * what is typed without a limit of its own */
	strbuf label = { 0 };
	char *text = NULL;
	const char *value = NULL;
	if (path && *path) {
		const char *why = NULL;
		const char *type = session_path_type(&t->s, rule, path, &why);
		char *cur = session_get_text(&t->s, rule, path);
		sb_printf(&label, "%s.%s (%s) = ", name, path, type ? type : "?");
		text = prompt_text(t, sb_str(&label), cur ? cur : "");
		free(cur);
		value = text;
	} else {
		char *cur = session_get_text(&t->s, rule, "priority");
		strbuf init = { 0 };
		sb_printf(&init, "priority=%s", cur ? cur : "");
		free(cur);
		sb_printf(&label, "set %s.", name);
		text = prompt_text(t, sb_str(&label), sb_str(&init));
		sb_release(&init);
		char *eq = text ? strchr(text, '=') : NULL;
		if (text && !eq) {
			tui_message(t, ROLE_ERROR, "%s: write PATH=VALUE, e.g. priority=250 (not applied)", text);
			free(text);
			sb_release(&label);
			return RES_REDRAW;
		}
		if (eq) {
			*eq = 0;
			path = text;
			value = eq + 1;
		}
	}
	sb_release(&label);
	if (!text)
		return edit_cancelled(t);
	fd_diags d;
	diags_init(&d);
	tui_remember_spot(t);
	int rc = session_set(&t->s, rule, path, value, &d);
	strbuf what = { 0 };
	sb_printf(&what, "%s.%s = %s", name, path, value);
	unsigned res = tui_after_edit(t, rc, &d, sb_str(&what));
	sb_release(&what);
	diags_release(&d);
	free(text);
	return res;
}
