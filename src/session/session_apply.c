/* session_apply.c — one value into a rule: the path checked against the
 * format's fields (rules/rule_format.h), the text parsed and checked against
 * the field's type, put into the YAML tree, and the typed rule derived again
 * (rule_schema.c); anything the schema refuses is taken back. The enabled
 * rule: an edit of `enabled` overrides the environment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules/optable.h"
#include "rules/rule_format.h"
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

const char *session_path_type(const fd_session *s, int32_t rule, const char *path, const char **why)
{
	static char msg[256];
	char *norm = ypath_normalize(path);
	const fd_field *f = edit_field(norm);
	const char *res = NULL;
	if (!f) {
		snprintf(msg, sizeof msg, "'%s' is not a field a what-if can change (see fusiondbg(1), WHAT-IF)", path);
	} else if (f->type == FT_PARAM && rule >= 0 && rule < s->rules.n_rules) {
		const fd_rule_op *op = path_op(&s->rules.rules[rule], norm);
		const char *name = strrchr(norm, '.') + 1;
		if (op && op->op >= 0 && !optable_param(op->op, name))
			snprintf(msg, sizeof msg, "op %s has no param '%s'", op->type, name);
		else
			res = field_type_words(f->type);
	} else {
		res = field_type_words(f->type);
	}
	free(norm);
	if (why)
		*why = res ? NULL : msg;
	return res;
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

static bool ints_ok(const fd_yval *v)
{
	int64_t i;
	return yval_int(v, &i) && i >= 0;
}

static bool numbers_ok(const fd_yval *v)
{
	double f;
	return yval_float(v, &f);
}

/* A scalar, or a non-empty list of scalars; each fits `item` when given. */
static bool scalars(const fd_yval *v, bool (*item)(const fd_yval *))
{
	if (v->kind == YV_SCALAR)
		return !item || item(v);
	if (v->kind != YV_SEQ || v->n == 0)
		return false;
	for (size_t k = 0; k < v->n; k++)
		if (v->items[k]->kind != YV_SCALAR || (item && !item(v->items[k])))
			return false;
	return true;
}

static bool check_type(const fd_yval *v, fd_field_type ft, char *why, size_t size)
{
	int64_t i;
	double f;
	bool b, ok = true;
	switch (ft) {
	case FT_INT: ok = yval_int(v, &i); break;
	case FT_UINT: ok = yval_int(v, &i) && i >= 0; break;
	case FT_POSINT: ok = yval_int(v, &i) && i >= 1; break;
	case FT_BOOL: ok = yval_bool(v, &b); break;
	case FT_BYTES: ok = yval_bytes(v, &i) && i >= 0; break;
	case FT_STR: ok = v->kind == YV_SCALAR; break;
	case FT_LIST: ok = v->kind == YV_SEQ; break;
	case FT_RANGE: ok = v->kind == YV_SEQ && v->n == 2; break;
	case FT_SOURCE: ok = v->kind == YV_SCALAR && source_type_from_name(v->text) != SRC_UNSET; break;
	case FT_OPTYPE:
		for (size_t k = 0; k < (v->kind == YV_SEQ ? v->n : 1); k++) {
			const fd_yval *t = v->kind == YV_SEQ ? v->items[k] : v;
			if (t->kind == YV_SCALAR && optable_lookup(t->text) < 0) {
				snprintf(why, size, "unknown op type '%s'", t->text);
				return false;
			}
			ok = ok && t->kind == YV_SCALAR;
		}
		ok = ok && (v->kind == YV_SCALAR || (v->kind == YV_SEQ && v->n > 0));
		break;
	case FT_NUMBER: ok = yval_float(v, &f) && f >= 0; break;
	case FT_EXPR: case FT_DTYPES: ok = scalars(v, NULL); break;
	case FT_INTS: ok = scalars(v, ints_ok); break;
	case FT_NUMBERS: ok = scalars(v, numbers_ok); break;
	case FT_SHAPE: ok = v->kind == YV_SEQ || (v->kind == YV_SCALAR && !strcmp(v->text, "scalar")); break;
	case FT_POSITION: ok = v->kind == YV_SCALAR && (!strcmp(v->text, "fixed") || !strcmp(v->text, "any")); break;
	case FT_SAMEAS: ok = v->kind == YV_MAP; break;
	case FT_PARAM:
	case FT_ANY:
	case FT_COUNT:
		break;
	}
	if (!ok)
		snprintf(why, size, "expected %s, got %s%s%s", field_type_words(ft), yval_kind_name(v),
		         v->kind == YV_SCALAR ? " " : "", v->kind == YV_SCALAR ? v->text : "");
	return ok;
}

/* ---- the tree ---------------------------------------------------------------- */

/* Puts v at ref (replace, or add key ref->key to the map); returns what was there. */
static fd_yval *tree_put(fd_session *s, ypath_ref *ref, fd_yval *v)
{
	fd_yval *p = ref->parent;
	if (ref->value) {
		fd_yval *old = p->items[ref->index];
		p->items[ref->index] = v;
		return old;
	}
	fd_yval **items = arena_array(&s->arena, p->n + 1, sizeof *items);
	fd_yval **keys = arena_array(&s->arena, p->n + 1, sizeof *keys);
	if (p->n) {
		memcpy(items, p->items, p->n * sizeof *items);
		memcpy(keys, p->keys, p->n * sizeof *keys);
	}
	fd_yval *k = arena_alloc(&s->arena, sizeof *k);
	k->kind = YV_SCALAR;
	k->text = arena_strdup(&s->arena, ref->key);
	k->text_len = strlen(ref->key);
	k->pos = p->pos;
	k->start = k->end = p->end;
	keys[p->n] = k;
	items[p->n] = v;
	p->items = items;
	p->keys = keys;
	p->n++;
	ref->index = p->n - 1;
	return NULL;
}

static void tree_remove(fd_yval *p, size_t index)
{
	for (size_t i = index + 1; i < p->n; i++) {
		p->items[i - 1] = p->items[i];
		p->keys[i - 1] = p->keys[i];
	}
	p->n--;
}

/* Puts back the pair tree_remove took out of p (its arrays still have the room). */
static void tree_restore(fd_yval *p, size_t index, fd_yval *key, fd_yval *value)
{
	p->n++;
	for (size_t i = p->n - 1; i > index; i--) {
		p->items[i] = p->items[i - 1];
		p->keys[i] = p->keys[i - 1];
	}
	p->items[index] = value;
	p->keys[index] = key;
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

/* Puts v (NULL: removes the key) at ref in the rule's document and derives
 * the rule again; takes it back when the schema has an error or a new
 * warning (an unknown key), or the rule would be renamed. */
static int take_value(fd_session *s, int32_t rule, const fd_ydoc *doc, ypath_ref *ref, fd_yval *v,
                      const char *label, bool enabled_edit, fd_diags *d)
{
	/* schema warnings before, to tell new ones (unknown keys) apart */
	fd_diags dd;
	diags_init(&dd);
	fd_rule before;
	rule_from_yaml(&s->rules, &before, doc, &dd);
	size_t warn0 = dd.warnings;
	diags_clear(&dd);
	session_ensure_baseline(s);
	fd_yval *old = NULL, *old_key = NULL;
	if (v) {
		old = tree_put(s, ref, v);
	} else {
		old = ref->value;
		old_key = ref->parent->keys[ref->index];
		tree_remove(ref->parent, ref->index);
	}
	fd_rule tmp;
	int rc = rule_from_yaml(&s->rules, &tmp, doc, &dd);
	bool renamed = rc == 0 && !dd.errors && dd.warnings <= warn0 && strcmp(tmp.name, s->rules.rules[rule].name);
	if (rc < 0 || dd.errors || dd.warnings > warn0 || renamed) {
		if (renamed)
			refuse(d, label, "renaming a rule is not a what-if");
		else
			copy_diags(d, &dd);
		/* put back what was there */
		if (!v)
			tree_restore(ref->parent, ref->index, old_key, old);
		else if (old)
			ref->parent->items[ref->index] = old;
		else
			tree_remove(ref->parent, ref->index);
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
	if (!session_path_type(s, rule, path, &why))
		return refuse(d, label, why);
	if (text && strchr(text, '\n'))
		return refuse(d, label, "a value must be one line");
	const fd_ydoc *doc = session_rule_doc(s, rule, NULL);
	if (!doc)
		return refuse(d, label, "the rule's document is not loaded");
	ypath_ref ref;
	if (ypath_resolve(doc->root, path, &ref) < 0)
		return refuse(d, label, ref.err);
	if (!ref.value && ref.parent->kind != YV_MAP)
		return refuse(d, label, "no such list item");
	fd_yval *v = NULL;
	if (text) {
		fd_field_type type = edit_field(path)->type;
		if (!(v = parse_value(s, label, text, type, d)))
			return -1;
		char why2[256];
		if (!check_type(v, type, why2, sizeof why2))
			return refuse(d, label, why2);
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
	char *norm = ypath_normalize(path);
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
