/* session_edit.c — the edit list: set (by RULE.PATH=VALUE or by parts), the
 * TUI's priority bump and enabled toggle, undo / redo, and the slots that
 * remember what each edited value is on disk (what is unsaved). Each edit is
 * applied by session_apply.c and recorded as the value then reads. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain/explain.h"
#include "session/session_internal.h"

/* ---- slots ------------------------------------------------------------------ */

static struct fd_session_slot *session_slot(fd_session *s, int32_t rule, const char *path, bool create)
{
	for (size_t i = 0; i < s->n_slots; i++)
		if (s->slots[i].rule == rule && !strcmp(s->slots[i].path, path))
			return &s->slots[i];
	if (!create)
		return NULL;
	if (s->n_slots == s->cap_slots) {
		s->cap_slots = s->cap_slots ? 2 * s->cap_slots : 8;
		s->slots = xrealloc(s->slots, s->cap_slots * sizeof *s->slots);
	}
	struct fd_session_slot *sl = &s->slots[s->n_slots++];
	sl->rule = rule;
	sl->path = xstrdup(path);
	sl->disk = session_current_text(s, rule, path);
	return sl;
}

void session_slot_before(fd_session *s, int32_t rule, const char *path, const char *before)
{
	if (session_slot(s, rule, path, false))
		return;
	struct fd_session_slot *sl = session_slot(s, rule, path, true);
	free(sl->disk);
	sl->disk = before ? xstrdup(before) : NULL;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool session_slot_dirty(const fd_session *s, const struct fd_session_slot *sl)
{
	if (sl->rule >= s->rules.n_rules)
		return false;   /* a rule of an added file that undo took out */
	char *cur = session_current_text(s, sl->rule, sl->path);
	bool dirty = !same_text(cur, sl->disk);
	free(cur);
	return dirty;
}

size_t session_unsaved(const fd_session *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_slots; i++)
		n += session_slot_dirty(s, &s->slots[i]);
	return n + session_added_unsaved(s);
}

/* ---- edits ------------------------------------------------------------------ */

void session_record_edit(fd_session *s, int32_t rule, const char *path, const char *old_text, const char *new_text)
{
	/* a new edit drops the redo tail */
	s->n_edits = s->n_applied;
	session_added_drop_tail(s);
	if (s->n_edits == s->cap_edits) {
		s->cap_edits = s->cap_edits ? 2 * s->cap_edits : 16;
		s->edits = xrealloc(s->edits, s->cap_edits * sizeof *s->edits);
	}
	fd_edit *e = &s->edits[s->n_edits++];
	e->rule = rule;
	e->path = arena_strdup(&s->arena, path);
	e->old_text = old_text ? arena_strdup(&s->arena, old_text) : NULL;
	e->new_text = new_text ? arena_strdup(&s->arena, new_text) : NULL;
	e->added = 0;
	s->n_applied = s->n_edits;
}

static int maybe_run(fd_session *s)
{
	return s->opt.defer_run ? 0 : session_run(s);
}

/* An edit of M.K where the document has no map M (outputs.count on an op
 * without outputs:) becomes an edit of M: the map {K: value}, one new line
 * when saved, removed whole on undo; p becomes M. Otherwise NULL. Heap. */
static char *missing_map_value(const fd_session *s, const fd_yval *root, session_path *p, const char *value)
{
	ypath_ref ref;
	char *dot = root && p->field ? strrchr(p->text, '.') : NULL;
	if (!dot || session_ypath_resolve((fd_yval *)root, p->text, &ref) == 0)
		return NULL;
	*dot = '\0';
	bool absent = session_ypath_resolve((fd_yval *)root, p->text, &ref) == 0 && !ref.value &&
	              ref.parent->kind == YV_MAP;
	*dot = '.';
	if (!absent)
		return NULL;
	strbuf b = { 0 };
	sb_add(&b, "{", 1);
	sb_puts(&b, dot + 1);
	sb_add(&b, ": ", 2);
	sb_puts(&b, value);
	sb_add(&b, "}", 1);
	session_path_cut(p, s, dot);
	return sb_take(&b);
}

int session_set(fd_session *s, int32_t rule, const char *path, const char *value, fd_diags *d)
{
	if (!value) {
		diag_error(d, (fd_srcpos){ 0 }, "no value");
		return -1;
	}
	if (rule < 0 || rule >= s->rules.n_rules) {
		diag_error(d, (fd_srcpos){ 0 }, "no rule with index %d", rule);
		return -1;
	}
	/* read once: the edit, its checks and its record all take p */
	session_path p;
	session_path_init(&p, s, rule, path, true);
	const fd_ydoc *doc = session_rule_doc(s, rule, NULL);
	char *map = missing_map_value(s, doc ? doc->root : NULL, &p, value);
	if (map)
		value = map;
	char *old = session_current_text(s, rule, p.text);
	int rc = session_apply_path(s, &p, value, !strcmp(p.text, "enabled"), d);
	if (rc == 0) {
		session_slot_before(s, rule, p.text, old);   /* a refused edit leaves no slot */
		/* recorded as the value now reads (canonical), so undo / recovery replay it */
		char *now = session_current_text(s, rule, p.text);
		session_record_edit(s, rule, p.text, old, now ? now : value);
		free(now);
	}
	free(old);
	session_path_release(&p);
	free(map);
	return rc < 0 ? -1 : maybe_run(s);
}

int session_set_spec(fd_session *s, const char *spec, fd_diags *d)
{
	/* the longest rule name followed by '.': a name may hold '.' and '=' */
	int32_t best = -1;
	size_t best_len = 0;
	for (int32_t i = 0; i < s->rules.n_rules; i++) {
		size_t n = strlen(s->rules.rules[i].name);
		if (n > best_len && !strncmp(spec, s->rules.rules[i].name, n) && spec[n] == '.' && strchr(spec + n, '=')) {
			best = i;
			best_len = n;
		}
	}
	const char *eq = strchr(best >= 0 ? spec + best_len : spec, '=');
	if (!eq) {
		diag_error(d, (fd_srcpos){ 0 }, "--set wants RULE.PATH=VALUE, not '%s'", spec);
		return -1;
	}
	if (best < 0) {
		const char *dot = strchr(spec, '.');
		int n = (int)((dot && dot < eq ? dot : eq) - spec);
		char name[256], hint[600];
		snprintf(name, sizeof name, "%.*s", n, spec);
		diag_error(d, (fd_srcpos){ 0 }, "no rule named '%s'%s", name,
		           explain_rule_hint(&s->rules, name, hint, sizeof hint));
		return -1;
	}
	char *path = xstrdup(spec + best_len + 1);
	path[eq - (spec + best_len + 1)] = '\0';
	int rc = session_set(s, best, path, eq + 1, d);
	free(path);
	return rc;
}

int session_bump_priority(fd_session *s, int32_t rule, int64_t delta, fd_diags *d)
{
	if (rule < 0 || rule >= s->rules.n_rules)
		return -1;
	/* saturates at the int64 limits: a priority never wraps around */
	int64_t p = s->rules.rules[rule].priority, np;
	if (__builtin_add_overflow(p, delta, &np))
		np = delta > 0 ? INT64_MAX : INT64_MIN;
	if (np == p) {
		diag_error(d, (fd_srcpos){ 0 }, "priority %lld is already the %s a priority can be", (long long)p,
		           delta > 0 ? "highest" : "lowest");
		return -1;
	}
	char v[32];
	snprintf(v, sizeof v, "%lld", (long long)np);
	return session_set(s, rule, "priority", v, d);
}

int session_toggle_enabled(fd_session *s, int32_t rule, fd_diags *d)
{
	if (rule < 0 || rule >= s->rules.n_rules)
		return -1;
	return session_set(s, rule, "enabled", s->rules.rules[rule].enabled ? "false" : "true", d);
}

char *session_get_text(const fd_session *s, int32_t rule, const char *path)
{
	if (rule < 0 || rule >= s->rules.n_rules)
		return NULL;
	char *norm = session_ypath_normalize(path);
	char *t = session_current_text(s, rule, norm);
	if (!t && !strcmp(norm, "enabled"))
		t = xstrdup(s->rules.rules[rule].enabled ? "true" : "false");
	free(norm);
	return t;
}

bool session_get(const fd_session *s, int32_t rule, const char *path, char *buf, size_t size)
{
	char *t = session_get_text(s, rule, path);
	if (t)
		snprintf(buf, size, "%s", t);
	free(t);
	return t != NULL;
}

bool session_can_undo(const fd_session *s)
{
	return s->n_applied > 0;
}

bool session_can_redo(const fd_session *s)
{
	return s->n_applied < s->n_edits;
}

int session_undo(fd_session *s, fd_diags *d)
{
	if (!s->n_applied)
		return -1;
	fd_edit *e = &s->edits[s->n_applied - 1];
	s->n_applied--;   /* before applying: the enabled rule must not see this edit */
	if (e->added) {
		session_added_undo(s, e);
		return maybe_run(s);
	}
	if (session_apply_value(s, e->rule, e->path, e->old_text, false, d) < 0) {
		s->n_applied++;
		return -1;
	}
	return maybe_run(s);
}

int session_redo(fd_session *s, fd_diags *d)
{
	if (s->n_applied == s->n_edits)
		return -1;
	fd_edit *e = &s->edits[s->n_applied];
	s->n_applied++;
	if (e->added) {
		session_added_redo(s, e);
		return maybe_run(s);
	}
	if (session_apply_value(s, e->rule, e->path, e->new_text, !strcmp(e->path, "enabled"), d) < 0) {
		s->n_applied--;
		return -1;
	}
	return maybe_run(s);
}
