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
	const fd_rounds *rd = session_rounds(&t->s), *rb = session_baseline_rounds(&t->s);
	if (rd->n > 1 || rb->n > 1)   /* every round's, as the title counts them */
		tui_message(t, ROLE_EDITED, "%s; re-ran%s: %zu fusion%s in %d round%s (as loaded %zu in %d), %zu unsaved; "
		            "D shows the diff", what, ms, rounds_n_fusions(rd), rounds_n_fusions(rd) == 1 ? "" : "s",
		            (int)rd->n, rd->n == 1 ? "" : "s",
		            rounds_n_fusions(rb), (int)rb->n, session_unsaved(&t->s));
	else
		tui_message(t, ROLE_EDITED, "%s; re-ran%s: %zu fusions (as loaded %zu), %zu unsaved; D shows the diff",
		            what, ms, r->n_fusions, b->n_fusions, session_unsaved(&t->s));
	return RES_RERUN | RES_REDRAW;
}

/* "1 lost (FD-CF03)" and the like, for the status line. */
static void binding_summary(const fd_binding_diff *bd, char *buf, size_t size)
{
	size_t at = (size_t)snprintf(buf, size, "%zu gained, %zu lost", bd->n_gained, bd->n_lost);
	for (size_t i = 0; i < bd->n_changes && at < size; i++)
		if (bd->changes[i].kind == CHANGE_LOST && reason_code(bd->changes[i].why)[0]) {
			at += (size_t)snprintf(buf + at, size - at, " (first: %s)", reason_code(bd->changes[i].why));
			break;
		}
}

unsigned tui_bind_dim(tui *t, const char *name)
{
	const fd_model *m = session_model(&t->s);
	strbuf label = { 0 }, init = { 0 };
	sb_puts(&label, "bind NAME=VALUE (NAME= unbinds;");
	const char *first = name;
	int listed = 0;
	char first_alias[16];
	for (int32_t i = 0; i < m->n_symdims; i++) {
		if (!m->symdims[i].used)
			continue;
		/* a long name is shown as its alias in the shapes: say which is which */
		char alias[16], shown[300];
		bool aliased = dimtab_symbol_alias(m->dimtab, dimtab_find_symbol(m->dimtab, m->symdims[i].name), alias,
		                                   sizeof alias);
		if (aliased)
			snprintf(shown, sizeof shown, "%s (%s)", alias, m->symdims[i].name);
		else
			snprintf(shown, sizeof shown, "%s", m->symdims[i].name);
		if (!first && !m->symdims[i].bound) {
			first = m->symdims[i].name;
			if (aliased)
				first = strcpy(first_alias, alias);
		}
		if (m->symdims[i].bound)
			sb_printf(&label, " %s=%lld", shown, (long long)m->symdims[i].value);
		else
			sb_printf(&label, " %s unbound", shown);
		listed++;
	}
	sb_puts(&label, "): ");
	if (!listed) {
		sb_release(&label);
		tui_message(t, ROLE_WARN, "no symbolic dims: every dim of this model is a number");
		return RES_REDRAW;
	}
	if (first)   /* a suggestion to take (Tab) or type over, never text typing appends to */
		sb_printf(&init, "%s=", first);
	char *text = prompt_suggest(t, sb_str(&label), sb_str(&init));
	sb_release(&label);
	sb_release(&init);
	if (!text) {
		tui_message(t, ROLE_NORMAL, "binding unchanged");
		return RES_REDRAW;
	}
	char *eq = strchr(text, '=');
	char *end = NULL;
	long long v = -1;
	if (eq && eq[1])
		v = strtoll(eq + 1, &end, 10);
	if (!eq || eq == text || (eq[1] && (*end || v < 0))) {
		tui_message(t, ROLE_ERROR, "%s: write NAME=VALUE with VALUE >= 0, or NAME= to unbind (not applied)", text);
		free(text);
		return RES_REDRAW;
	}
	*eq = 0;
	fd_diags d;
	diags_init(&d);
	int rc = session_rebind(&t->s, text, v, &d);
	char line[1024];
	unsigned res = RES_REDRAW;
	if (rc < 0) {
		tui_message(t, ROLE_ERROR, "%s (not applied)", d.n ? diag_format(&d.items[0], line, sizeof line) : text);
	} else {
		const fd_binding_diff *bd = session_binding_diff(&t->s);
		char sum[128];
		binding_summary(bd, sum, sizeof sum);
		size_t nf = rounds_n_fusions(session_rounds(&t->s));   /* every round's, as the title */
		tui_message(t, ROLE_EDITED, "%s; re-ran: %zu fusion%s, %s; peak after fusion %s %s %s; M shows the memory",
		            bd->what, nf, nf == 1 ? "" : "s", sum, bd->peak_old[1], t->disp->g->arrow, bd->peak_new[1]);
		res = RES_RERUN | RES_REDRAW;
	}
	diags_release(&d);
	free(text);
	return res;
}

static unsigned edit_cancelled(tui *t)
{
	tui_message(t, ROLE_NORMAL, "edit cancelled");
	return RES_REDRAW;
}

/* text as [RULE.]PATH=VALUE with a PATH the rule can set: cuts text at the
 * '=' and points *path and *value into it. A value that merely holds a '='
 * (a where expression) has no settable path before it and stays whole. */
static bool split_path_value(tui *t, int32_t rule, const char *name, char *text, const char **path,
                             const char **value)
{
	char *eq = strchr(text, '=');
	if (!eq || eq == text)
		return false;
	*eq = 0;
	const char *p = text;
	size_t nl = strlen(name);
	if (!strncmp(p, name, nl) && p[nl] == '.')
		p += nl + 1;
	if (!session_path_type(&t->s, rule, p)) {
		*eq = '=';
		return false;
	}
	*path = p;
	*value = eq + 1;
	return true;
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
		const char *type = session_path_type(&t->s, rule, path);
		char *cur = session_get_text(&t->s, rule, path);
		sb_printf(&label, "%s.%s (%s) = ", name, path, type ? type : "?");
		text = prompt_text(t, sb_str(&label), cur ? cur : "");
		free(cur);
		value = text;
		/* PATH=VALUE (or RULE.PATH=VALUE) is taken here as everywhere else */
		const char *typed_path = NULL;
		if (text && split_path_value(t, rule, name, text, &typed_path, &value))
			path = typed_path;
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
	tui_before_run(t);
	int rc = session_set(&t->s, rule, path, value, &d);
	strbuf what = { 0 };
	sb_printf(&what, "%s.%s = %s", name, path, value);
	unsigned res = tui_after_edit(t, rc, &d, sb_str(&what));
	sb_release(&what);
	diags_release(&d);
	free(text);
	return res;
}
