/* ruleset_settings.c — the rule set's settings: a document of its own whose
 * one top-level key is `ruleset`, beside the rules in any file of the set
 * (fusiondbg-rules(5), RULE-SET SETTINGS):
 *
 *   ruleset:
 *     initializers: constant      # or onnx, the default
 *     shapes: onnx                # or full, the default
 *     transpose_optimizer: onnxruntime   # or none, the default
 *
 * A setting holds for the whole set, whichever file it is written in; a
 * second document that sets it differently is a warning naming both places,
 * and the first holds. */
#include <stdarg.h>
#include <string.h>
#include "ruleset/ruleset.h"

static const char *const policy_names[] = { [INIT_POLICY_ONNX] = "onnx", [INIT_POLICY_CONSTANT] = "constant" };

static const char *ruleset_init_policy_name(fd_init_policy p)
{
	return p == INIT_POLICY_ONNX || p == INIT_POLICY_CONSTANT ? policy_names[p] : "unset";
}

fd_init_policy ruleset_init_policy_from_name(const char *name)
{
	for (int p = INIT_POLICY_ONNX; p <= INIT_POLICY_CONSTANT; p++)
		if (name && !strcmp(name, policy_names[p]))
			return (fd_init_policy)p;
	return INIT_POLICY_UNSET;
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

static int read_initializers(fd_ruleset *rs, const fd_yval *v, fd_diags *d)
{
	const char *name = NULL;
	fd_init_policy p = v && v->kind == YV_SCALAR && yval_str(v, &name) ? ruleset_init_policy_from_name(name) : INIT_POLICY_UNSET;
	if (p == INIT_POLICY_UNSET) {
		if (name)
			say(d, DIAG_ERROR, v, "ruleset.initializers: expected onnx or constant, got '%s'", name);
		else
			say(d, DIAG_ERROR, v, "ruleset.initializers: expected onnx or constant, got %s", not_scalar(v));
		return -1;
	}
	if (rs->initializers != INIT_POLICY_UNSET && rs->initializers != p) {
		/* rule sets of two toolchains loaded together: the first holds */
		fd_srcpos was = yval_pos(rs->initializers_where);
		say(d, DIAG_WARNING, v, "ruleset.initializers: %s here, but %s at %s:%d:%d, which holds "
		    "(--initializers decides)", name, ruleset_init_policy_name(rs->initializers),
		    was.file ? was.file : "?", was.line, was.col);
		return 0;
	}
	rs->initializers = p;
	rs->initializers_where = v;
	return 0;
}

fd_shapes_mode ruleset_shapes_from_name(const char *name)
{
	return !name ? SHAPES_UNSET : !strcmp(name, "full") ? SHAPES_FULL : !strcmp(name, "onnx") ? SHAPES_ONNX
	                                                                                         : SHAPES_UNSET;
}

static int read_shapes(fd_ruleset *rs, const fd_yval *v, fd_diags *d)
{
	const char *name = NULL;
	fd_shapes_mode m = v && v->kind == YV_SCALAR && yval_str(v, &name) ? ruleset_shapes_from_name(name) : SHAPES_UNSET;
	if (m == SHAPES_UNSET) {
		if (name)
			say(d, DIAG_ERROR, v, "ruleset.shapes: expected full or onnx, got '%s'", name);
		else
			say(d, DIAG_ERROR, v, "ruleset.shapes: expected full or onnx, got %s", not_scalar(v));
		return -1;
	}
	if (rs->shapes != SHAPES_UNSET && rs->shapes != m) {
		fd_srcpos was = yval_pos(rs->shapes_where);
		say(d, DIAG_WARNING, v, "ruleset.shapes: %s here, but %s at %s:%d:%d, which holds (--shapes decides)", name,
		    rs->shapes == SHAPES_ONNX ? "onnx" : "full", was.file ? was.file : "?", was.line, was.col);
		return 0;
	}
	rs->shapes = m;
	rs->shapes_where = v;
	return 0;
}

static int read_transposes(fd_ruleset *rs, const fd_yval *v, fd_diags *d)
{
	const char *name = NULL;
	fd_transposes_mode m = TRANSPOSES_UNSET;
	if (v && v->kind == YV_SCALAR && yval_str(v, &name))
		m = !strcmp(name, "onnxruntime") ? TRANSPOSES_ONNXRUNTIME : !strcmp(name, "none") ? TRANSPOSES_NONE
		                                                                                  : TRANSPOSES_UNSET;
	if (m == TRANSPOSES_UNSET) {
		if (name)
			say(d, DIAG_ERROR, v, "ruleset.transpose_optimizer: expected onnxruntime or none, got '%s'", name);
		else
			say(d, DIAG_ERROR, v, "ruleset.transpose_optimizer: expected onnxruntime or none, got %s", not_scalar(v));
		return -1;
	}
	if (rs->transposes != TRANSPOSES_UNSET && rs->transposes != m) {
		fd_srcpos was = yval_pos(rs->transposes_where);
		say(d, DIAG_WARNING, v, "ruleset.transpose_optimizer: %s here, but %s at %s:%d:%d, which holds", name,
		    rs->transposes == TRANSPOSES_ONNXRUNTIME ? "onnxruntime" : "none", was.file ? was.file : "?", was.line,
		    was.col);
		return 0;
	}
	rs->transposes = m;
	rs->transposes_where = v;
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
	for (size_t i = 0; i < set->n; i++) {
		const char *key = set->keys[i]->text;
		if (!strcmp(key, "initializers")) {
			if (read_initializers(rs, set->items[i], d) < 0)
				rc = -1;
		} else if (!strcmp(key, "shapes")) {
			if (read_shapes(rs, set->items[i], d) < 0)
				rc = -1;
		} else if (!strcmp(key, "transpose_optimizer")) {
			if (read_transposes(rs, set->items[i], d) < 0)
				rc = -1;
		} else {
			say(d, DIAG_WARNING, set->keys[i], "unknown key '%s' in ruleset (known: initializers, shapes, "
			    "transpose_optimizer)", key);
		}
	}
	return rc;
}
