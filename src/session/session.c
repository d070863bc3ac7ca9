/* session.c — the session's life (open, run, close) and its edits: path
 * checking against the format's fields, applying a value to the YAML tree and
 * re-deriving the typed rule, undo / redo, the slots that remember what each
 * edited value is on disk. Save and recovery: session_save.c; the diff:
 * session_diff.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rules/optable.h"
#include "session/session_internal.h"
#include "base/clock.h"

/* ---- the fields a path may name -------------------------------------------- */

typedef enum field_type {
	FT_INT, FT_UINT, FT_POSINT, FT_BOOL, FT_STR, FT_LIST, FT_BYTES, FT_ANY, FT_OPTYPE, FT_PARAM,
	FT_SOURCE, FT_RANGE,
} field_type;

static const char *const field_type_words[] = {
	[FT_INT] = "integer", [FT_UINT] = "integer >= 0", [FT_POSINT] = "integer >= 1",
	[FT_BOOL] = "true or false", [FT_STR] = "string", [FT_LIST] = "list, e.g. [a, b]",
	[FT_BYTES] = "size (64MiB, 1.5GiB, 33554432)", [FT_ANY] = "YAML value",
	[FT_OPTYPE] = "op type (Conv2d, Relu, …)", [FT_PARAM] = "param value",
	[FT_SOURCE] = "const_or_param | const | param | activation | any",
	[FT_RANGE] = "[min, max]",
};

/* Patterns over the normalised path: "#" is a list index (or, in
 * constraints, a type name), "*" any key. Branch paths are checked as
 * their match.ops counterparts. */
static const struct field_def {
	const char *pattern;
	field_type type;
} fields[] = {
	{ "priority", FT_INT },
	{ "enabled", FT_BOOL },
	{ "version", FT_STR },
	{ "description", FT_STR },
	{ "scope", FT_LIST },
	{ "match.ops.#.type", FT_OPTYPE },
	{ "match.ops.#.params.*", FT_PARAM },
	{ "match.ops.#.inputs.min_inputs", FT_UINT },
	{ "match.ops.#.inputs.max_inputs", FT_UINT },
	{ "match.ops.#.input_sources.*.from_op", FT_UINT },
	{ "match.ops.#.input_sources.*.source_type", FT_SOURCE },
	{ "match.ops.#.output_names", FT_LIST },
	{ "match.subgraph.input_count_range", FT_RANGE },
	{ "match.subgraph.output_count", FT_UINT },
	{ "match.subgraph.allow_intermediate_outputs", FT_BOOL },
	{ "rewrite.target_op", FT_STR },
	{ "rewrite.attributes.*", FT_ANY },
	{ "rewrite.tensor_layout", FT_STR },
	{ "rewrite.kernel_config.*", FT_ANY },
	{ "rewrite.inputs.#.from_op", FT_UINT },
	{ "rewrite.inputs.#.output_idx", FT_UINT },
	{ "rewrite.inputs.#.input_port", FT_UINT },
	{ "rewrite.inputs.#.description", FT_STR },
	{ "constraints.#.description", FT_STR },
	{ "constraints.#.allowed_dtypes", FT_LIST },
	{ "constraints.#.max_intermediate_size", FT_BYTES },
	{ "constraints.#.max_output_size", FT_BYTES },
	{ "constraints.#.max_workspace", FT_BYTES },
	{ "constraints.#.spill_to_l2", FT_BOOL },
	{ "constraints.#.channel_dim", FT_INT },
	{ "constraints.#.divisor", FT_POSINT },
	{ "output.kernel_name", FT_STR },
	{ "output.file_path", FT_STR },
	{ "output.compiler", FT_STR },
	{ "output.build_config.*", FT_ANY },
	{ "output.debug_symbols", FT_BOOL },
	{ "output.gen_dot_graph", FT_BOOL },
	{ "output.dot_graph_path", FT_STR },
};

static bool segment_matches(const char *pat, size_t plen, const char *seg, size_t slen, bool in_constraints)
{
	if (plen == 1 && pat[0] == '*')
		return slen > 0;
	if (plen == 1 && pat[0] == '#') {
		if (in_constraints)
			return slen > 0;
		for (size_t i = 0; i < slen; i++)
			if (seg[i] < '0' || seg[i] > '9')
				return false;
		return slen > 0;
	}
	return plen == slen && !memcmp(pat, seg, plen);
}

static bool path_matches(const char *pat, const char *path)
{
	bool in_constraints = !strncmp(path, "constraints.", 12);
	for (;;) {
		const char *pe = strchr(pat, '.'), *se = strchr(path, '.');
		size_t pl = pe ? (size_t)(pe - pat) : strlen(pat), sl = se ? (size_t)(se - path) : strlen(path);
		if (!segment_matches(pat, pl, path, sl, in_constraints))
			return false;
		if (!pe || !se)
			return !pe && !se;
		pat = pe + 1;
		path = se + 1;
	}
}

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

/* The field definition of a normalised path; "match.branches.B." reads as "match.". */
static const struct field_def *field_of(const char *path)
{
	char buf[512];
	int b, off = 0;
	if (sscanf(path, "match.branches.%d.%n", &b, &off) == 1 && off > 0 && !strncmp(path + off, "ops.", 4)) {
		snprintf(buf, sizeof buf, "match.%s", path + off);
		path = buf;
	}
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		if (path_matches(fields[i].pattern, path))
			return &fields[i];
	return NULL;
}

const char *session_path_type(const fd_session *s, int32_t rule, const char *path, const char **why)
{
	static char msg[256];
	char *norm = ypath_normalize(path);
	const struct field_def *f = field_of(norm);
	const char *res = NULL;
	if (!f) {
		snprintf(msg, sizeof msg, "'%s' is not a field a what-if can change (see fusiondbg(1), WHAT-IF)", path);
	} else if (f->type == FT_PARAM && rule >= 0 && rule < s->rules.n_rules) {
		const fd_rule_op *op = path_op(&s->rules.rules[rule], norm);
		const char *name = strrchr(norm, '.') + 1;
		if (op && op->op >= 0 && !optable_param(op->op, name))
			snprintf(msg, sizeof msg, "op %s has no param '%s'", op->type, name);
		else
			res = field_type_words[f->type];
	} else {
		res = field_type_words[f->type];
	}
	free(norm);
	if (why)
		*why = res ? NULL : msg;
	return res;
}

/* ---- slots -------------------------------------------------------------------- */

const fd_ydoc *session_rule_doc(const fd_session *s, int32_t rule, int *file_index)
{
	const fd_rule *r = &s->rules.rules[rule];
	/* the same file given twice is loaded twice: the pointer tells them apart */
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < s->rules.n_files; k++) {
			const fd_yfile *f = s->rules.files[k];
			if (pass == 0 ? f->path != r->file : (!f->path || !r->file || strcmp(f->path, r->file)))
				continue;
			if (r->doc_index >= 0 && r->doc_index < f->n_docs) {
				if (file_index)
					*file_index = k;
				return &f->docs[r->doc_index];
			}
		}
	return NULL;
}

char *session_current_text(const fd_session *s, int32_t rule, const char *path)
{
	const fd_ydoc *doc = session_rule_doc(s, rule, NULL);
	ypath_ref ref;
	if (!doc || ypath_resolve(doc->root, path, &ref) < 0 || !ref.value)
		return NULL;
	return yval_canon_dup(ref.value);
}

struct fd_session_slot *session_slot(fd_session *s, int32_t rule, const char *path, bool create)
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

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool slot_dirty(const fd_session *s, const struct fd_session_slot *sl)
{
	char *cur = session_current_text(s, sl->rule, sl->path);
	bool dirty = !same_text(cur, sl->disk);
	free(cur);
	return dirty;
}

size_t session_unsaved(const fd_session *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_slots; i++)
		n += slot_dirty(s, &s->slots[i]);
	return n;
}

/* ---- applying a value ---------------------------------------------------------- */

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

/* Applies the enabled rule: an edit of `enabled` overrides the environment. */
static void settle_enabled(fd_session *s, int32_t rule, fd_rule *r, bool edited)
{
	for (size_t i = 0; i < s->n_applied; i++)
		if (s->edits[i].rule == rule && !strcmp(s->edits[i].path, "enabled"))
			edited = true;
	if (!edited && !s->env_allowed[rule])
		r->enabled = false;
}

static void copy_diags(fd_diags *to, const fd_diags *from, size_t from_index, fd_severity min,
                       const char *prefix)
{
	for (size_t i = from_index; i < from->n; i++) {
		const fd_diag *dg = &from->items[i];
		if (dg->severity > min)
			continue;
		diag_add(to, DIAG_ERROR, dg->pos, "%s%s", prefix, dg->message);
	}
}

static fd_yval *parse_value(fd_session *s, const char *label, const char *text, field_type ft, fd_diags *d)
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
			copy_diags(d, &pd, 0, DIAG_WARNING, "");
		else
			diag_error(d, srcpos_file(label), "the value is empty");
	}
	diags_release(&pd);
	/* keep the tree: the rule will point into it */
	s->retired = xrealloc(s->retired, (s->n_retired + 1) * sizeof *s->retired);
	s->retired[s->n_retired++] = yf;
	return v;
}

static bool check_type(const fd_yval *v, field_type ft, char *why, size_t size)
{
	int64_t i;
	bool b;
	switch (ft) {
	case FT_INT:
		if (yval_int(v, &i))
			return true;
		break;
	case FT_UINT:
		if (yval_int(v, &i) && i >= 0)
			return true;
		break;
	case FT_POSINT:
		if (yval_int(v, &i) && i >= 1)
			return true;
		break;
	case FT_BOOL:
		if (yval_bool(v, &b))
			return true;
		break;
	case FT_BYTES:
		if (yval_bytes(v, &i) && i >= 0)
			return true;
		break;
	case FT_STR:
		if (v->kind == YV_SCALAR)
			return true;
		break;
	case FT_LIST:
		if (v->kind == YV_SEQ)
			return true;
		break;
	case FT_RANGE:
		if (v->kind == YV_SEQ && v->n == 2)
			return true;
		break;
	case FT_OPTYPE:
		if (v->kind == YV_SCALAR && optable_lookup(v->text) >= 0)
			return true;
		if (v->kind == YV_SCALAR) {
			snprintf(why, size, "unknown op type '%s'", v->text);
			return false;
		}
		break;
	case FT_SOURCE:
		if (v->kind == YV_SCALAR && source_type_from_name(v->text) != SRC_UNSET)
			return true;
		break;
	case FT_PARAM:
	case FT_ANY:
		return true;
	}
	snprintf(why, size, "expected %s, got %s%s%s", field_type_words[ft], yval_kind_name(v),
	         v->kind == YV_SCALAR ? " " : "", v->kind == YV_SCALAR ? v->text : "");
	return false;
}

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

/* The rules as loaded, run before the first change to them. */
static void ensure_baseline(fd_session *s)
{
	if (s->has_baseline)
		return;
	match_run(&s->ctx, &s->rules, &s->mopt, &s->baseline);
	estimate_compute(&s->baseline_est, &s->baseline, &s->opt.est);
	s->has_baseline = true;
}

static int apply_value(fd_session *s, int32_t rule, const char *path, const char *text, bool enabled_edit,
                       fd_diags *d)
{
	const fd_rule *r = &s->rules.rules[rule];
	char label[512];
	snprintf(label, sizeof label, "%s.%s", r->name, path);
	const char *why = NULL;
	char *norm = ypath_normalize(path);
	const struct field_def *f = field_of(norm);
	if (!session_path_type(s, rule, norm, &why)) {
		diag_error(d, srcpos_file(label), "%s", why);
		free(norm);
		return -1;
	}
	if (text && strchr(text, '\n')) {
		diag_error(d, srcpos_file(label), "a value must be one line");
		free(norm);
		return -1;
	}
	const fd_ydoc *doc = session_rule_doc(s, rule, NULL);
	ypath_ref ref;
	if (!doc) {
		diag_error(d, srcpos_file(label), "the rule's document is not loaded");
		free(norm);
		return -1;
	}
	if (ypath_resolve(doc->root, norm, &ref) < 0) {
		diag_error(d, srcpos_file(label), "%s", ref.err);
		free(norm);
		return -1;
	}
	if (!ref.value && ref.parent->kind != YV_MAP) {
		diag_error(d, srcpos_file(label), "no such list item");
		free(norm);
		return -1;
	}
	fd_yval *v = NULL;
	if (text) {
		if (!(v = parse_value(s, label, text, f->type, d))) {
			free(norm);
			return -1;
		}
		char why2[256];
		if (!check_type(v, f->type, why2, sizeof why2)) {
			diag_error(d, srcpos_file(label), "%s", why2);
			free(norm);
			return -1;
		}
		if (ref.value)
			set_pos(v, ref.value->pos, ref.value->start, ref.value->end);
		else
			set_pos(v, ref.parent->pos, ref.parent->end, ref.parent->end);
	} else if (!ref.value) {
		free(norm);
		return 0;   /* already absent */
	}
	/* schema warnings before, to tell new ones (unknown keys) apart */
	fd_diags dd;
	diags_init(&dd);
	fd_rule before;
	rule_from_yaml(&s->rules, &before, doc, &dd);
	size_t warn0 = dd.warnings;
	diags_clear(&dd);
	ensure_baseline(s);
	fd_yval *old = NULL, *old_key = NULL;
	size_t removed_at = 0;
	bool removed = false;
	if (v) {
		old = tree_put(s, &ref, v);
	} else {
		old = ref.value;
		old_key = ref.parent->keys[ref.index];
		removed_at = ref.index;
		tree_remove(ref.parent, ref.index);
		removed = true;
	}
	fd_rule tmp;
	int rc = rule_from_yaml(&s->rules, &tmp, doc, &dd);
	const char *err = NULL;
	if (rc < 0 || dd.errors)
		err = "";
	else if (dd.warnings > warn0)
		err = "";
	else if (strcmp(tmp.name, r->name))
		err = "renaming a rule is not a what-if";
	if (err) {
		if (*err)
			diag_error(d, srcpos_file(label), "%s", err);
		else
			copy_diags(d, &dd, 0, DIAG_WARNING, "");
		/* put back what was there */
		if (removed) {
			ref.parent->n++;
			for (size_t i = ref.parent->n - 1; i > removed_at; i--) {
				ref.parent->items[i] = ref.parent->items[i - 1];
				ref.parent->keys[i] = ref.parent->keys[i - 1];
			}
			ref.parent->items[removed_at] = old;
			ref.parent->keys[removed_at] = old_key;
		} else if (old) {
			ref.parent->items[ref.index] = old;
		} else {
			tree_remove(ref.parent, ref.index);
		}
		diags_release(&dd);
		free(norm);
		return -1;
	}
	diags_release(&dd);
	s->rules.rules[rule] = tmp;
	settle_enabled(s, rule, &s->rules.rules[rule], enabled_edit);
	s->stale = true;
	free(norm);
	return 0;
}

int session_apply_value(fd_session *s, int32_t rule, const char *path, const char *text, fd_diags *d)
{
	return apply_value(s, rule, path, text, false, d);
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

/* ---- edits ------------------------------------------------------------------------ */

static void push_edit(fd_session *s, int32_t rule, const char *path, char *old_text, const char *new_text)
{
	/* a new edit drops the redo tail */
	s->n_edits = s->n_applied;
	if (s->n_edits == s->cap_edits) {
		s->cap_edits = s->cap_edits ? 2 * s->cap_edits : 16;
		s->edits = xrealloc(s->edits, s->cap_edits * sizeof *s->edits);
	}
	fd_edit *e = &s->edits[s->n_edits++];
	e->rule = rule;
	e->path = arena_strdup(&s->arena, path);
	e->old_text = old_text ? arena_strdup(&s->arena, old_text) : NULL;
	e->new_text = new_text ? arena_strdup(&s->arena, new_text) : NULL;
	s->n_applied = s->n_edits;
}

static int maybe_run(fd_session *s)
{
	return s->opt.defer_run ? 0 : session_run(s);
}

static int set_text(fd_session *s, int32_t rule, const char *path, const char *value, fd_diags *d)
{
	if (rule < 0 || rule >= s->rules.n_rules) {
		diag_error(d, (fd_srcpos){ 0 }, "no rule with index %d", rule);
		return -1;
	}
	const fd_ydoc *doc = session_rule_doc(s, rule, NULL);
	char *norm = doc ? ypath_canonical(doc->root, path) : ypath_normalize(path);
	session_slot(s, rule, norm, true);
	char *old = session_current_text(s, rule, norm);
	if (apply_value(s, rule, norm, value, !strcmp(norm, "enabled"), d) < 0) {
		free(old);
		free(norm);
		return -1;
	}
	/* recorded as the value now reads (canonical), so undo / recovery replay it */
	char *now = session_current_text(s, rule, norm);
	push_edit(s, rule, norm, old, now ? now : value);
	free(now);
	free(old);
	free(norm);
	return maybe_run(s);
}

int session_set(fd_session *s, int32_t rule, const char *path, const char *value, fd_diags *d)
{
	if (!value) {
		diag_error(d, (fd_srcpos){ 0 }, "no value");
		return -1;
	}
	return set_text(s, rule, path, value, d);
}

int session_set_spec(fd_session *s, const char *spec, fd_diags *d)
{
	const char *eq = strchr(spec, '=');
	if (!eq) {
		diag_error(d, (fd_srcpos){ 0 }, "--set wants RULE.PATH=VALUE, not '%s'", spec);
		return -1;
	}
	/* the longest rule name followed by '.' */
	int32_t best = -1;
	size_t best_len = 0;
	for (int32_t i = 0; i < s->rules.n_rules; i++) {
		size_t n = strlen(s->rules.rules[i].name);
		if (n > best_len && spec + n < eq && !strncmp(spec, s->rules.rules[i].name, n) && spec[n] == '.') {
			best = i;
			best_len = n;
		}
	}
	if (best < 0) {
		const char *dot = strchr(spec, '.');
		int n = (int)((dot && dot < eq ? dot : eq) - spec);
		diag_error(d, (fd_srcpos){ 0 }, "no rule named '%.*s'", n, spec);
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
	char v[32];
	snprintf(v, sizeof v, "%lld", (long long)(s->rules.rules[rule].priority + delta));
	return session_set(s, rule, "priority", v, d);
}

int session_toggle_enabled(fd_session *s, int32_t rule, fd_diags *d)
{
	if (rule < 0 || rule >= s->rules.n_rules)
		return -1;
	return session_set(s, rule, "enabled", s->rules.rules[rule].enabled ? "false" : "true", d);
}

bool session_get(const fd_session *s, int32_t rule, const char *path, char *buf, size_t size)
{
	if (rule < 0 || rule >= s->rules.n_rules)
		return false;
	char *norm = ypath_normalize(path);
	char *t = session_current_text(s, rule, norm);
	bool ok = t != NULL;
	if (t)
		snprintf(buf, size, "%s", t);
	else if (!strcmp(norm, "enabled")) {
		snprintf(buf, size, "%s", s->rules.rules[rule].enabled ? "true" : "false");
		ok = true;
	}
	free(t);
	free(norm);
	return ok;
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
	s->n_applied--;   /* before applying: settle_enabled must not see this edit */
	if (apply_value(s, e->rule, e->path, e->old_text, false, d) < 0) {
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
	if (apply_value(s, e->rule, e->path, e->new_text, !strcmp(e->path, "enabled"), d) < 0) {
		s->n_applied--;
		return -1;
	}
	return maybe_run(s);
}

/* ---- life ------------------------------------------------------------------------- */

int session_run(fd_session *s)
{
	double t0 = clock_ms();
	match_run(&s->ctx, &s->rules, &s->mopt, &s->current);
	estimate_compute(&s->current_est, &s->current, &s->opt.est);
	s->last_run_ms = clock_ms() - t0;
	s->stale = false;
	return 0;
}

int session_open(fd_session *s, const fd_session_options *opt, fd_diags *d)
{
	memset(s, 0, sizeof *s);
	s->opt = *opt;
	arena_init(&s->arena);
	ruleset_init(&s->rules);
	match_result_init(&s->baseline);
	match_result_init(&s->current);
	estimate_init(&s->baseline_est);
	estimate_init(&s->current_est);
	if (!opt->model_path) {
		diag_error(d, (fd_srcpos){ 0 }, "no model");
		ruleset_release(&s->rules);
		arena_release(&s->arena);
		return -1;
	}
	if (model_load_onnx(&s->model, opt->model_path, &opt->load, d) < 0) {
		ruleset_release(&s->rules);
		arena_release(&s->arena);
		return -1;
	}
	s->open = true;
	int rc = 0;
	if (opt->n_rule_paths == 0) {
		const char *dir = ruleset_default_path(NULL);
		if (!dir) {
			diag_error(d, (fd_srcpos){ 0 }, RULESET_NONE_MESSAGE);
			rc = -1;
		} else if (ruleset_load(&s->rules, dir, d) < 0) {
			rc = -1;
		}
	}
	for (int i = 0; i < opt->n_rule_paths; i++)
		if (ruleset_load(&s->rules, opt->rule_paths[i], d) < 0)
			rc = -1;
	if (rc < 0) {
		session_close(s);
		return -1;
	}
	int32_t n = s->rules.n_rules;
	s->env_allowed = xcalloc(n ? (size_t)n : 1, sizeof *s->env_allowed);
	s->prio0 = xcalloc(n ? (size_t)n : 1, sizeof *s->prio0);
	s->enabled0 = xcalloc(n ? (size_t)n : 1, sizeof *s->enabled0);
	bool *yaml_enabled = xcalloc(n ? (size_t)n : 1, sizeof *yaml_enabled);
	for (int32_t i = 0; i < n; i++)
		yaml_enabled[i] = s->rules.rules[i].enabled;
	if (!opt->no_env)
		ruleset_apply_env_diags(&s->rules, d);
	for (int32_t i = 0; i < n; i++) {
		/* a rule disabled in its file: the environment's verdict is unknown, assume it allows */
		s->env_allowed[i] = s->rules.rules[i].enabled || !yaml_enabled[i];
		s->prio0[i] = s->rules.rules[i].priority;
		s->enabled0[i] = s->rules.rules[i].enabled;
	}
	free(yaml_enabled);
	if (match_ctx_init(&s->ctx, &s->model, !opt->no_canonicalize, d) < 0) {
		session_close(s);
		return -1;
	}
	s->mopt.target = opt->target;
	s->mopt.no_events = opt->no_events;
	session_run(s);
	return 0;
}

void session_close(fd_session *s)
{
	if (!s->open)
		return;
	estimate_release(&s->baseline_est);
	estimate_release(&s->current_est);
	match_result_release(&s->baseline);
	match_result_release(&s->current);
	if (s->ctx.model)
		match_ctx_release(&s->ctx);
	ruleset_release(&s->rules);
	for (size_t i = 0; i < s->n_retired; i++) {
		yfile_release(s->retired[i]);
		free(s->retired[i]);
	}
	free(s->retired);
	for (size_t i = 0; i < s->n_slots; i++) {
		free(s->slots[i].path);
		free(s->slots[i].disk);
	}
	free(s->slots);
	free(s->edits);
	free(s->env_allowed);
	free(s->prio0);
	free(s->enabled0);
	arena_release(&s->arena);
	model_release(&s->model);
	memset(s, 0, sizeof *s);
}

void session_test_fail_writes(int n, int err)
{
	extern void atomic_fail_next(int n, int err);
	atomic_fail_next(n, err);
}
