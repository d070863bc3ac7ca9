/* session_apply.c — one value into a rule: the path checked against the
 * format's fields (rules/rule_format.h), the text parsed and put into the
 * YAML tree (shared structure on the way copied first: an edit changes its
 * own path only), the typed rule derived again (rule_schema.c) and linted
 * (rule_check.c); anything the schema or the lint refuses that the rule did
 * not already have is taken back, with their own messages — a what-if value
 * is judged exactly as `verify` and `check` judge the same text in a file.
 * The enabled rule: an edit of `enabled` overrides the environment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules/optable.h"
#include "ruleset/rule_format.h"
#include "session/session_internal.h"

/* ---- the path ------------------------------------------------------------- */

/* The typed pattern op a match.ops / match.branches path is about, or NULL. */
static const fd_rule_op *path_op(const fd_rule *r, const char *path)
{
	int b = -1, i = -1;
	if (sscanf(path, "match.branches.%d.ops.%d.", &b, &i) == 2) {
		if (b >= 0 && b < r->n_branches && i >= 0 && i < r->branches[b].n_ops)
			return &r->branches[b].ops[i];
	} else if (sscanf(path, "match.ops.%d.", &i) == 1) {
		if (i >= 0 && i < r->match.n_ops)
			return &r->match.ops[i];
	}
	return NULL;
}

/* The field a what-if may set at a normalised path, or NULL. */
static const fd_field *edit_field(const char *path)
{
	const fd_field *f = rule_field(path);
	return f && f->edit ? f : NULL;
}

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
	const fd_field *f = edit_field(full);
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

/* Whether a param is one the op has is the lint's to say (check's message). */
const char *session_path_type(const fd_session *s, int32_t rule, const char *path, const char **why)
{
	static char msg[1024];
	char *norm = session_ypath_normalize(path);
	const fd_field *f = edit_field(norm);
	const char *res = NULL;
	if (!f) {
		char hint[600], near[sizeof hint + 32] = "";
		if (*rule_field_nearest(norm, hint, sizeof hint))
			snprintf(near, sizeof near, "; did you mean %s?", hint);
		snprintf(msg, sizeof msg, "'%.200s' is not a field a what-if can change%s (see fusiondbg(1), WHAT-IF)", path,
		         near);
	} else
		res = rule_field_type_words(f->type);
	free(norm);
	if (why)
		*why = res ? NULL : msg;
	return res;
}

char *session_param_spelling(const fd_session *s, int32_t rule, const char *path)
{
	const fd_field *f = rule >= 0 && rule < s->rules.n_rules ? edit_field(path) : NULL;
	const fd_rule_op *op = f && f->type == FT_PARAM ? path_op(&s->rules.rules[rule], path) : NULL;
	const char *dot = strrchr(path, '.'), *name = dot ? dot + 1 : path;
	const fd_param_def *pd = op && op->op >= 0 ? optable_param(op->op, name) : NULL;
	const fd_yval *params = pd ? yval_get(op->where, "params") : NULL;
	for (size_t i = 0; params && params->kind == YV_MAP && i < params->n; i++) {
		const char *k = params->keys[i]->text;
		if (k && strcmp(k, name) && optable_param(op->op, k) == pd) {
			strbuf b = { 0 };
			sb_add(&b, path, (size_t)(name - path));
			sb_puts(&b, k);
			return sb_take(&b);
		}
	}
	return xstrdup(path);
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

/* Applies the enabled rule: an edit of `enabled` overrides the environment. */
static void settle_enabled(fd_session *s, int32_t rule, fd_rule *r, bool edited)
{
	for (size_t i = 0; i < s->n_applied; i++)
		if (s->edits[i].rule == rule && !strcmp(s->edits[i].path, "enabled"))
			edited = true;
	if (!edited && s->rules.env_off && s->rules.env_off[rule])
		r->enabled = false;
}

static int refuse(fd_diags *d, const char *label, const char *why)
{
	diag_error(d, srcpos_file(label), "%s", why);
	return -1;
}

/* The lint's errors on rule r that are not among before's messages: what an
 * edit added. */
static void new_lint_errors(const fd_ruleset *rs, const fd_rule *r, const fd_diags *before, fd_diags *out)
{
	fd_diags now;
	diags_init(&now);
	ruleset_check_rule(rs, r, NULL, &now);
	for (size_t i = 0; i < now.n; i++) {
		if (now.items[i].severity != DIAG_ERROR)
			continue;
		bool old = false;
		for (size_t j = 0; j < before->n && !old; j++)
			old = before->items[j].severity == DIAG_ERROR && !strcmp(before->items[j].message, now.items[i].message);
		if (!old)
			diag_add(out, DIAG_ERROR, now.items[i].pos, "%s", now.items[i].message);
	}
	diags_release(&now);
}

/* Puts v (NULL: removes the key) at ref in the rule's document and derives
 * the rule again; takes it back when the schema has an error or a new
 * warning (an unknown key), the lint a new error, or the rule would be
 * renamed. */
static int take_value(fd_session *s, int32_t rule, const fd_ydoc *doc, ypath_ref *ref, fd_yval *v,
                      const char *label, bool enabled_edit, fd_diags *d)
{
	/* schema warnings and lint errors before, to tell new ones apart */
	fd_diags dd, lint0;
	diags_init(&dd);
	diags_init(&lint0);
	fd_rule before;
	rule_from_yaml(&s->rules, &before, doc, &dd);
	size_t warn0 = dd.warnings;
	diags_clear(&dd);
	ruleset_check_rule(&s->rules, &s->rules.rules[rule], NULL, &lint0);
	session_ensure_baseline(s);
	fd_yval *old = NULL, *old_key = NULL;
	fd_yplace old_place = { YP_HERE, 0, 0 };
	if (v) {
		old = session_ytree_put(&s->arena, ref, v);
	} else {
		old = ref->value;
		old_key = ref->parent->keys[ref->index];
		old_place = yval_place(ref->parent, ref->index);
		session_ytree_remove(ref->parent, ref->index);
	}
	fd_rule tmp;
	int rc = rule_from_yaml(&s->rules, &tmp, doc, &dd);
	bool renamed = rc == 0 && !dd.errors && dd.warnings <= warn0 && strcmp(tmp.name, s->rules.rules[rule].name);
	if (rc == 0 && !dd.errors && dd.warnings <= warn0 && !renamed) {
		diags_clear(&dd);
		new_lint_errors(&s->rules, &tmp, &lint0, &dd);
	}
	diags_release(&lint0);
	if (rc < 0 || dd.errors || dd.warnings > warn0 || renamed) {
		if (renamed)
			refuse(d, label, "renaming a rule is not a what-if");
		else
			copy_diags(d, &dd);
		/* put back what was there */
		if (!v)
			session_ytree_restore(ref->parent, ref->index, old_key, old, old_place);
		else if (old)
			ref->parent->items[ref->index] = old;
		else
			session_ytree_remove(ref->parent, ref->index);
		diags_release(&dd);
		return -1;
	}
	diags_release(&dd);
	s->rules.rules[rule] = tmp;
	settle_enabled(s, rule, &s->rules.rules[rule], enabled_edit);
	s->stale = true;
	return 0;
}

/* session_apply_value at a normalised path; label names it in messages. */
static int apply_at(fd_session *s, int32_t rule, const char *path, const char *label, const char *text,
                    bool enabled_edit, fd_diags *d)
{
	const char *why = NULL;
	/* a whole map of fields: added by an edit of one of them, or (undo) removed */
	char *cur = text || edit_field(path) ? NULL : session_current_text(s, rule, path);
	bool new_map = !edit_field(path) && (text || cur) && map_of_fields(path, text ? text : cur);
	free(cur);
	if (!new_map && !session_path_type(s, rule, path, &why))
		return refuse(d, label, why);
	if (text && strchr(text, '\n'))
		return refuse(d, label, "a value must be one line");
	const fd_ydoc *doc = session_rule_doc(s, rule, NULL);
	if (!doc)
		return refuse(d, label, "the rule's document is not loaded");
	ypath_ref ref;
	if (session_ypath_resolve(doc->root, path, &ref) < 0) {
		/* a param the op does not have: check's word, before "no params map" */
		const fd_rule_op *op = !new_map && edit_field(path)->type == FT_PARAM ? path_op(&s->rules.rules[rule], path) : NULL;
		char at[64], msg[1024];
		int b = -1, i = -1;
		if (sscanf(path, "match.branches.%d.ops.%d.", &b, &i) == 2)
			snprintf(at, sizeof at, "match.branches[%d].ops[%d]", b, i);
		else if (sscanf(path, "match.ops.%d.", &i) == 1)
			snprintf(at, sizeof at, "match.ops[%d]", i);
		if (op && op->op >= 0 && rule_check_unknown_param(op->op, strrchr(path, '.') + 1, at, msg, sizeof msg))
			return refuse(d, label, msg);
		return refuse(d, label, ref.err);
	}
	if (!ref.value && ref.parent->kind != YV_MAP)
		return refuse(d, label, "no such list item");
	fd_yval *v = NULL;
	if (text) {
		fd_field_type type = new_map ? FT_ANY : edit_field(path)->type;
		if (!(v = parse_value(s, label, text, type, d)))
			return -1;
		if (new_map)
			quote_string_fields(path, v);
	}
	if (text || ref.value)
		session_ypath_unshare(&s->arena, doc->root, path, &ref);   /* resolved above: cannot fail */
	if (text) {
		if (ref.value)
			set_pos(v, ref.value->pos, ref.value->start, ref.value->end);
		else
			set_pos(v, ref.parent->pos, ref.parent->end, ref.parent->end);
	} else if (!ref.value) {
		return 0;   /* already absent */
	}
	return take_value(s, rule, doc, &ref, v, label, enabled_edit, d);
}

int session_apply_value(fd_session *s, int32_t rule, const char *path, const char *text, bool enabled_edit,
                        fd_diags *d)
{
	char label[512];
	snprintf(label, sizeof label, "%s.%s", s->rules.rules[rule].name, path);
	char *norm = session_ypath_normalize(path);
	int rc = apply_at(s, rule, norm, label, text, enabled_edit, d);
	free(norm);
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
