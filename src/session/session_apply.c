/* session_apply.c — one value into a rule at a path read once
 * (session_path.c): the text parsed and put into the YAML tree (shared
 * structure on the way copied first: an edit changes its own path only),
 * the typed rule derived again (ruleset/rule_schema.c) and linted
 * (ruleset/rule_check.c); anything the schema or the lint refuses that the
 * rule did not already have is taken back, with their own messages — a
 * what-if value is judged exactly as `verify` and `check` judge the same
 * text in a file. What the rule had is asked only when the edited rule has
 * findings, so an edit of a rule without any derives and lints it once.
 * The enabled rule: an edit of `enabled` overrides the environment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/text.h"
#include "session/session_internal.h"

/* ---- a whole map of fields ------------------------------------------------ */

/* The field a what-if may set at path.KEY, or NULL. */
static const fd_field *child_field(const char *path, const fd_yval *key)
{
	if (!key || !key->text)
		return NULL;
	strbuf b = { 0 };
	sb_puts(&b, path);
	sb_add(&b, ".", 1);
	sb_puts(&b, key->text);
	char *full = sb_take(&b);
	const fd_field *f = session_edit_field(full);
	free(full);
	return f;
}

/* Whether text is a map ({count: 1}) whose every key names a
 * field a what-if may set below path: how a map the document lacks is
 * added (session_set turns outputs.count=1 into outputs={count: 1}). */
static bool map_of_fields(const char *path, const char *text)
{
	fd_diags pd;
	diags_init(&pd);
	fd_yfile yf = { 0 };
	bool ok = yfile_load_buffer(&yf, "value", text, strlen(text), &pd) == 0 && yf.n_docs == 1 && yf.docs[0].root &&
	          yf.docs[0].root->kind == YV_MAP && yf.docs[0].root->n > 0;
	for (size_t i = 0; ok && i < yf.docs[0].root->n; i++)
		ok = child_field(path, yf.docs[0].root->keys[i]) != NULL;
	yfile_release(&yf);
	diags_release(&pd);
	return ok;
}

/* A string field of a map an edit adds takes its text as a string, as an
 * edit of the field itself does: {compiler: 0x10} is "0x10", and is saved
 * and read back so. */
static void quote_string_fields(const char *path, fd_yval *map)
{
	for (size_t i = 0; i < map->n; i++) {
		const fd_field *f = child_field(path, map->keys[i]);
		if (f && f->type == FT_STR && map->items[i]->kind == YV_SCALAR)
			map->items[i]->quoted = true;
	}
}

/* ---- the value ------------------------------------------------------------- */

/* Every value of a parsed --set text takes the position of the value it
 * replaces, so messages and the trace keep pointing into the rule file. */
static void set_pos(fd_yval *v, fd_srcpos pos, size_t start, size_t end)
{
	v->pos = pos;
	v->start = start;
	v->end = end;
	for (size_t i = 0; i < v->n; i++) {
		if (v->items && v->items[i])
			set_pos(v->items[i], pos, start, end);
		if (v->kind == YV_MAP && v->keys && v->keys[i])
			set_pos(v->keys[i], pos, start, end);
	}
}

/* The errors and warnings of from, as errors of to. */
static void copy_diags(fd_diags *to, const fd_diags *from)
{
	for (size_t i = 0; i < from->n; i++) {
		const fd_diag *dg = &from->items[i];
		if (dg->severity <= DIAG_WARNING)
			diag_add(to, DIAG_ERROR, dg->pos, "%s", dg->message);
	}
}

static fd_yval *parse_value(fd_session *s, const char *label, const char *text, fd_field_type ft, fd_diags *d)
{
	/* YAML cannot spell such a value; taken as a plain string it would keep
	 * its quotes and gain a layer at every replay of the recovery file */
	if (!text_utf8_valid(text, strlen(text))) {
		diag_error(d, srcpos_file(label), "the value is not valid UTF-8");
		return NULL;
	}
	fd_diags pd;
	diags_init(&pd);
	fd_yfile *yf = xcalloc(1, sizeof *yf);
	fd_yval *v = NULL;
	if (yfile_load_buffer(yf, label, text, strlen(text), &pd) == 0 && yf->n_docs == 1 && yf->docs[0].root)
		v = yf->docs[0].root;
	/* a string field takes any text, even one YAML would read as a map */
	if (ft == FT_STR && (!v || v->kind != YV_SCALAR)) {
		v = arena_alloc(&s->arena, sizeof *v);
		v->kind = YV_SCALAR;
		v->text = arena_strdup(&s->arena, text);
		v->text_len = strlen(text);
		v->quoted = true;
	} else if (!v) {
		if (pd.n)
			copy_diags(d, &pd);
		else
			diag_error(d, srcpos_file(label), "the value is empty");
	}
	diags_release(&pd);
	/* keep the tree: the rule will point into it */
	s->retired = xrealloc(s->retired, (s->n_retired + 1) * sizeof *s->retired);
	s->retired[s->n_retired++] = yf;
	return v;
}

/* ---- the rule ------------------------------------------------------------------ */

/* Applies the enabled rule: an edit of `enabled` overrides the environment
 * and the switch file; without one, what they decided stays (an edit of
 * another field changes only that field). */
static void settle_enabled(fd_session *s, int32_t rule, fd_rule *r, bool edited)
{
	for (size_t i = 0; i < s->n_applied; i++)
		if (s->edits[i].rule == rule && !strcmp(s->edits[i].path, "enabled"))
			edited = true;
	if (!edited)
		ruleset_enabled_settle(&s->rules, rule, r);
}

static int refuse(fd_diags *d, const char *label, const char *why)
{
	diag_error(d, srcpos_file(label), "%s", why);
	return -1;
}

/* The schema and the lint as an edit runs them, counted in s->work. */
static int derive(fd_session *s, fd_rule *out, const fd_ydoc *doc, fd_diags *d)
{
	s->work.derives++;
	return rule_from_yaml(&s->rules, out, doc, d);
}

static void lint(fd_session *s, const fd_rule *r, fd_diags *d)
{
	s->work.lints++;
	ruleset_check_rule(&s->rules, r, NULL, d);
}

/* A value put at ref in the rule's document (v NULL: the key taken out)
 * and what was there, so that it can be taken back and put in again. */
typedef struct tree_change {
	ypath_ref *ref;
	fd_yval *v;
	fd_yval *old, *old_key;
	fd_yplace old_place;
} tree_change;

static void change_make(fd_session *s, tree_change *c)
{
	ypath_ref *ref = c->ref;
	if (c->v) {
		c->old = session_ytree_put(&s->arena, ref, c->v);
		return;
	}
	c->old = ref->value;
	c->old_key = ref->parent->keys[ref->index];
	c->old_place = yval_place(ref->parent, ref->index);
	session_ytree_remove(ref->parent, ref->index);
}

static void change_take_back(tree_change *c)
{
	ypath_ref *ref = c->ref;
	if (!c->v)
		session_ytree_restore(ref->parent, ref->index, c->old_key, c->old, c->old_place);
	else if (c->old)
		ref->parent->items[ref->index] = c->old;
	else
		session_ytree_remove(ref->parent, ref->index);
}

/* What the rule had before the change c: the schema's warnings on its
 * document, the lint's errors on it (the typed rule points into the tree,
 * so both are judged with c taken back). Only an edit whose rule has
 * findings asks: a rule without any is judged once. */
static size_t warnings_before(fd_session *s, const fd_ydoc *doc, tree_change *c)
{
	fd_diags dd;
	diags_init(&dd);
	fd_rule before;
	change_take_back(c);
	derive(s, &before, doc, &dd);
	change_make(s, c);
	size_t n = dd.warnings;
	diags_release(&dd);
	return n;
}

static void lint_before(fd_session *s, int32_t rule, tree_change *c, fd_diags *out)
{
	change_take_back(c);
	lint(s, &s->rules.rules[rule], out);
	change_make(s, c);
}

/* The lint's errors on the edited rule r that the rule did not have before
 * c: what the edit added. */
static void new_lint_errors(fd_session *s, int32_t rule, const fd_rule *r, tree_change *c, fd_diags *out)
{
	fd_diags now, before;
	diags_init(&now);
	diags_init(&before);
	lint(s, r, &now);
	if (now.errors)
		lint_before(s, rule, c, &before);
	for (size_t i = 0; i < now.n; i++) {
		if (now.items[i].severity != DIAG_ERROR)
			continue;
		bool old = false;
		for (size_t j = 0; j < before.n && !old; j++)
			old = before.items[j].severity == DIAG_ERROR && !strcmp(before.items[j].message, now.items[i].message);
		if (!old)
			diag_add(out, DIAG_ERROR, now.items[i].pos, "%s", now.items[i].message);
	}
	diags_release(&before);
	diags_release(&now);
}

/* Puts v (NULL: removes the key) at ref in the rule's document and derives
 * the rule again; takes it back when the schema has an error or a new
 * warning (an unknown key), the lint a new error, or the rule would be
 * renamed. */
static int take_value(fd_session *s, const session_path *p, const fd_ydoc *doc, ypath_ref *ref, fd_yval *v,
                      bool enabled_edit, fd_diags *d)
{
	session_ensure_baseline(s);   /* the rules as loaded run before the first change */
	tree_change c = { .ref = ref, .v = v };
	change_make(s, &c);
	fd_diags dd;
	diags_init(&dd);
	fd_rule tmp;
	int rc = derive(s, &tmp, doc, &dd);
	bool schema_ok = rc == 0 && !dd.errors && (!dd.warnings || dd.warnings <= warnings_before(s, doc, &c));
	bool renamed = schema_ok && strcmp(tmp.name, s->rules.rules[p->rule].name);
	if (schema_ok && !renamed) {
		diags_clear(&dd);
		new_lint_errors(s, p->rule, &tmp, &c, &dd);
	}
	if (!schema_ok || renamed || dd.errors) {
		if (renamed)
			refuse(d, p->label, "renaming a rule is not a what-if");
		else
			copy_diags(d, &dd);
		change_take_back(&c);
		diags_release(&dd);
		return -1;
	}
	diags_release(&dd);
	s->rules.rules[p->rule] = tmp;
	settle_enabled(s, p->rule, &s->rules.rules[p->rule], enabled_edit);
	s->stale = true;
	return 0;
}

int session_apply_path(fd_session *s, const session_path *p, const char *text, bool enabled_edit, fd_diags *d)
{
	/* a whole map of fields: added by an edit of one of them, or (undo) removed */
	char *cur = text || p->field ? NULL : session_current_text(s, p->rule, p->text);
	bool new_map = !p->field && (text || cur) && map_of_fields(p->text, text ? text : cur);
	free(cur);
	char msg[1024];
	if (!new_map && !p->field)
		return refuse(d, p->label, session_path_refusal(p, msg, sizeof msg));
	if (text && strchr(text, '\n'))
		return refuse(d, p->label, "a value must be one line");
	const fd_ydoc *doc = session_rule_doc(s, p->rule, NULL);
	if (!doc)
		return refuse(d, p->label, "the rule's document is not loaded");
	ypath_ref ref;
	if (session_ypath_resolve(doc->root, p->text, &ref) < 0) {
		/* a param the op does not have: check's word, before "no params map" */
		const fd_rule_op *op = !new_map && p->field->type == FT_PARAM ? p->op : NULL;
		if (op && op->op >= 0 && rule_check_unknown_param(op->op, strrchr(p->text, '.') + 1, p->at, msg, sizeof msg))
			return refuse(d, p->label, msg);
		return refuse(d, p->label, ref.err);
	}
	if (!ref.value && ref.parent->kind != YV_MAP)
		return refuse(d, p->label, "no such list item");
	fd_yval *v = NULL;
	if (text) {
		if (!(v = parse_value(s, p->label, text, new_map ? FT_ANY : p->field->type, d)))
			return -1;
		if (new_map)
			quote_string_fields(p->text, v);
	}
	if (text || ref.value)
		session_ypath_unshare(&s->arena, doc->root, p->text, &ref);   /* resolved above: cannot fail */
	if (text) {
		if (ref.value)
			set_pos(v, ref.value->pos, ref.value->start, ref.value->end);
		else
			set_pos(v, ref.parent->pos, ref.parent->end, ref.parent->end);
	} else if (!ref.value) {
		return 0;   /* already absent */
	}
	return take_value(s, p, doc, &ref, v, enabled_edit, d);
}

int session_apply_value(fd_session *s, int32_t rule, const char *path, const char *text, bool enabled_edit,
                        fd_diags *d)
{
	session_path p;
	session_path_init(&p, s, rule, path, false);
	int rc = session_apply_path(s, &p, text, enabled_edit, d);
	session_path_release(&p);
	return rc;
}

int session_rederive_file(fd_session *s, int k, const char *old_path, fd_diags *d)
{
	const fd_yfile *f = s->rules.files[k];
	int rc = 0;
	for (int32_t i = 0; i < s->rules.n_rules; i++) {
		fd_rule *r = &s->rules.rules[i];
		if (r->doc_index < 0 || r->doc_index >= f->n_docs || r->file != old_path)
			continue;
		fd_rule tmp;
		if (rule_from_yaml(&s->rules, &tmp, &f->docs[r->doc_index], d) < 0) {
			rc = -1;
			continue;
		}
		*r = tmp;
		settle_enabled(s, i, r, false);
	}
	return rc;
}
