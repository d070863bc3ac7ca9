/* ruleset_settings.c — the rule set's settings: a document of its own whose
 * one top-level key is `ruleset`, beside the rules in any file of the set
 * (fusiondbg-rules(5), RULE-SET SETTINGS):
 *
 *   ruleset:
 *     initializers: constant      # or onnx, the default
 *     shapes: onnx                # or full, the default
 *     transpose_optimizer: onnxruntime   # or none, the default
 *     common_subexpression_elimination: onnxruntime   # or none, the default
 *
 * A setting holds for the whole set, whichever file it is written in; a
 * second document that sets it differently is a warning naming both places,
 * and the first holds. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ruleset/ruleset.h"

/* Each setting takes one of two names, stored as 1 and 2 of its enum (0 is
 * unset: INIT_POLICY_*, SHAPES_*, TRANSPOSES_*, CSE_* in rules/rules.h). */
typedef struct setting {
	const char *key;
	const char *names[3];    /* by value; [0] unused */
	const char *decides;     /* the option that overrides the setting, or NULL */
} setting;

enum { SET_INITIALIZERS, SET_SHAPES, SET_TRANSPOSES, SET_CSE, SET_COUNT };
static const setting SETTINGS[SET_COUNT] = {
	[SET_INITIALIZERS] = { "initializers", { NULL, "onnx", "constant" }, "--initializers" },
	[SET_SHAPES] = { "shapes", { NULL, "full", "onnx" }, "--shapes" },
	[SET_TRANSPOSES] = { "transpose_optimizer", { NULL, "none", "onnxruntime" }, NULL },
	[SET_CSE] = { "common_subexpression_elimination", { NULL, "none", "onnxruntime" }, NULL },
};

/* 1 or 2, the value name spells; 0 for neither. */
static int setting_value(const setting *st, const char *name)
{
	for (int k = 1; k <= 2; k++)
		if (name && !strcmp(name, st->names[k]))
			return k;
	return 0;
}

fd_init_policy ruleset_init_policy_from_name(const char *name)
{
	return (fd_init_policy)setting_value(&SETTINGS[SET_INITIALIZERS], name);
}

fd_shapes_mode ruleset_shapes_from_name(const char *name)
{
	return (fd_shapes_mode)setting_value(&SETTINGS[SET_SHAPES], name);
}

/* "a list", "a map", "nothing (null)": a value that is not a scalar. */
static const char *not_scalar(const fd_yval *v)
{
	return !v || v->kind == YV_NULL ? "nothing (null)" : v->kind == YV_SEQ ? "a list" : "a map";
}

bool ruleset_settings_doc(const fd_ydoc *doc)
{
	return doc->root && doc->root->kind == YV_MAP && yval_get(doc->root, "ruleset");
}

static void say(fd_diags *d, fd_severity sev, const fd_yval *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void say(fd_diags *d, fd_severity sev, const fd_yval *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	yval_vdiag(d, sev, at, fmt, ap);
	va_end(ap);
}

/* One setting's value into *have (where it is written into *where): an
 * error when it is neither name; a second document that sets it otherwise
 * is a warning naming both places, and the first holds (rule sets of two
 * toolchains loaded together). */
static int read_setting(const setting *st, const fd_yval *v, int *have, const fd_yval **where, fd_diags *d)
{
	const char *name = NULL;
	int k = v && v->kind == YV_SCALAR && yval_str(v, &name) ? setting_value(st, name) : 0;
	if (!k) {
		if (name)
			say(d, DIAG_ERROR, v, "ruleset.%s: expected %s or %s, got '%s'", st->key, st->names[1], st->names[2], name);
		else
			say(d, DIAG_ERROR, v, "ruleset.%s: expected %s or %s, got %s", st->key, st->names[1], st->names[2],
			    not_scalar(v));
		return -1;
	}
	if (*have && *have != k) {
		fd_srcpos was = yval_pos(*where);
		char decides[64] = "";
		if (st->decides)
			snprintf(decides, sizeof decides, " (%s decides)", st->decides);
		say(d, DIAG_WARNING, v, "ruleset.%s: %s here, but %s at %s:%d:%d, which holds%s", st->key, name,
		    st->names[*have], was.file ? was.file : "?", was.line, was.col, decides);
		return 0;
	}
	*have = k;
	*where = v;
	return 0;
}

int ruleset_settings_from_yaml(fd_ruleset *rs, const fd_ydoc *doc, fd_diags *d)
{
	const fd_yval *root = doc->root;
	int rc = 0;
	for (size_t i = 0; i < root->n; i++)
		if (strcmp(root->keys[i]->text, "ruleset")) {
			say(d, DIAG_ERROR, root->keys[i], "'%s' in the ruleset document: the rule set's settings go in a "
			         "document of their own, rules in theirs (separate them with ---)", root->keys[i]->text);
			rc = -1;
		}
	const fd_yval *set = yval_get(root, "ruleset");
	if (!set || set->kind != YV_MAP) {
		say(d, DIAG_ERROR, set ? set : root, "ruleset: expected a map of settings (initializers: onnx | constant), "
		    "got %s", set && set->kind == YV_SCALAR ? "a scalar" : not_scalar(set));
		return -1;
	}
	/* the enums as ints while the documents are read (0 unset, 1 or 2) */
	int have[SET_COUNT] = { rs->initializers, rs->shapes, rs->transposes, rs->cse };
	const fd_yval **where[SET_COUNT] = { &rs->initializers_where, &rs->shapes_where, &rs->transposes_where,
	                                     &rs->cse_where };
	for (size_t i = 0; i < set->n; i++) {
		const char *key = set->keys[i]->text;
		int k = 0;
		while (k < SET_COUNT && strcmp(key, SETTINGS[k].key))
			k++;
		if (k == SET_COUNT)
			say(d, DIAG_WARNING, set->keys[i], "unknown key '%s' in ruleset (known: initializers, shapes, "
			    "transpose_optimizer, common_subexpression_elimination)", key);
		else if (read_setting(&SETTINGS[k], set->items[i], &have[k], where[k], d) < 0)
			rc = -1;
	}
	rs->initializers = (fd_init_policy)have[SET_INITIALIZERS];
	rs->shapes = (fd_shapes_mode)have[SET_SHAPES];
	rs->transposes = (fd_transposes_mode)have[SET_TRANSPOSES];
	rs->cse = (fd_cse_mode)have[SET_CSE];
	return rc;
}
