/* session_path.c — a what-if path read once (session_path, session_internal.h):
 * its spelling (normalised; from session_set also one spelling per value:
 * a constraint by its type, a param as the document spells it), the field
 * of the format it names (ruleset/rule_format.h), the typed op it is about,
 * and the words a refusal of it says. Everything after it (the edit, its
 * checks, its record) reads these instead of reading the text again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules/optable.h"
#include "session/session_internal.h"

const fd_field *session_edit_field(const char *path)
{
	const fd_field *f = rule_field(path);
	return f && f->edit ? f : NULL;
}

/* The typed pattern op a match.ops / match.branches path is about, or NULL;
 * where check's messages put it ("match.branches[0].ops[1]") into at. */
static const fd_rule_op *path_op(const fd_rule *r, const char *path, char *at, size_t size)
{
	int b = -1, i = -1;
	if (sscanf(path, "match.branches.%d.ops.%d.", &b, &i) == 2) {
		snprintf(at, size, "match.branches[%d].ops[%d]", b, i);
		if (b >= 0 && b < r->n_branches && i >= 0 && i < r->branches[b].n_ops)
			return &r->branches[b].ops[i];
	} else if (sscanf(path, "match.ops.%d.", &i) == 1) {
		snprintf(at, size, "match.ops[%d]", i);
		if (i >= 0 && i < r->match.n_ops)
			return &r->match.ops[i];
	}
	return NULL;
}

/* A param path (match.ops.0.params.group) spelt as the document spells that
 * param (groups: group is its alias), so that an edit changes the key the
 * file has instead of adding a second one; other paths as they are. Heap. */
static char *param_spelling(const session_path *p)
{
	const fd_rule_op *op = p->field && p->field->type == FT_PARAM ? p->op : NULL;
	const char *dot = strrchr(p->text, '.'), *name = dot ? dot + 1 : p->text;
	const fd_param_def *pd = op && op->op >= 0 ? optable_param(op->op, name) : NULL;
	const fd_yval *params = pd ? yval_get(op->where, "params") : NULL;
	for (size_t i = 0; params && params->kind == YV_MAP && i < params->n; i++) {
		const char *k = params->keys[i]->text;
		if (k && strcmp(k, name) && optable_param(op->op, k) == pd) {
			strbuf b = { 0 };
			sb_add(&b, p->text, (size_t)(name - p->text));
			sb_puts(&b, k);
			return sb_take(&b);
		}
	}
	return NULL;
}

/* The field, the op and the label of p->text. */
static void read_text(const fd_session *s, session_path *p)
{
	p->field = session_edit_field(p->text);
	p->at[0] = '\0';
	p->op = path_op(&s->rules.rules[p->rule], p->text, p->at, sizeof p->at);
	snprintf(p->label, sizeof p->label, "%s.%s", s->rules.rules[p->rule].name, p->text);
}

void session_path_init(session_path *p, fd_session *s, int32_t rule, const char *text, bool as_typed)
{
	s->work.paths++;
	p->rule = rule;
	const fd_ydoc *doc = as_typed ? session_rule_doc(s, rule, NULL) : NULL;
	p->text = doc ? session_ypath_canonical(doc->root, text) : session_ypath_normalize(text);
	read_text(s, p);
	char *spelt = as_typed ? param_spelling(p) : NULL;
	if (spelt) {
		free(p->text);
		p->text = spelt;
		read_text(s, p);
	}
	if (!as_typed)   /* messages name a recorded path as it was given */
		snprintf(p->label, sizeof p->label, "%s.%s", s->rules.rules[rule].name, text);
}

void session_path_cut(session_path *p, const fd_session *s, char *dot)
{
	*dot = '\0';
	read_text(s, p);
}

void session_path_release(session_path *p)
{
	free(p->text);
	p->text = NULL;
}

char *session_path_refusal(const session_path *p, char *buf, size_t size)
{
	char hint[600], near[sizeof hint + 32] = "";
	if (*rule_field_nearest(p->text, hint, sizeof hint))
		snprintf(near, sizeof near, "; did you mean %s?", hint);
	snprintf(buf, size, "'%.200s' is not a field a what-if can change%s (see fusiondbg(1), WHAT-IF)", p->text, near);
	return buf;
}

/* Whether a param is one the op has is the lint's to say (check's message). */
const char *session_path_type(const fd_session *s, int32_t rule, const char *path)
{
	char *norm = session_ypath_normalize(path);
	const fd_field *f = session_edit_field(norm);
	free(norm);
	return f ? rule_field_type_words(f->type) : NULL;
}
