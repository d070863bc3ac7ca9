/* rule_check_seed.c — `check --seed-only`: every key and value form of a
 * rule beyond the article's format, the one CANN's graph-autofusion
 * documents (the keys of its sections 2, 3, 5 and 9): fusiondbg reads the
 * rest (where, outputs, optional, dtype, shape, pass, op alternatives, sizes
 * with units, …), a CANN reader may not. One finding per key or value, at
 * its file:line:col. Reads the rules' YAML trees, owns nothing. */
#include <stdio.h>
#include <string.h>
#include "ruleset/ruleset.h"
#include "base/strbuf.h"

/* The article's keys as path patterns: '#' a list index, '*' any key, and
 * a last "**" anything below (free-form maps: params, attributes, build
 * config). The ops of a branch are match.ops' (the walk rewrites the path). */
static const char *const seed_keys[] = {
	"version", "name", "priority", "scope", "scope.#", "description",
	"match", "match.ops", "match.ops.#", "match.ops.#.type",
	"match.ops.#.params", "match.ops.#.params.*", "match.ops.#.params.*.**",
	"match.ops.#.output_names", "match.ops.#.output_names.#",
	"match.ops.#.inputs", "match.ops.#.inputs.min_inputs", "match.ops.#.inputs.max_inputs",
	"match.ops.#.input_sources", "match.ops.#.input_sources.*",
	"match.ops.#.input_sources.*.from_op", "match.ops.#.input_sources.*.source_type",
	"match.subgraph", "match.subgraph.input_count_range", "match.subgraph.input_count_range.#",
	"match.subgraph.output_count", "match.subgraph.allow_intermediate_outputs",
	"match.branches", "match.branches.#", "match.branches.#.ops",
	"rewrite", "rewrite.target_op", "rewrite.inputs", "rewrite.inputs.#", "rewrite.inputs.#.from_op",
	"rewrite.inputs.#.output_idx", "rewrite.inputs.#.input_port", "rewrite.inputs.#.description",
	"rewrite.attributes", "rewrite.attributes.**", "rewrite.tensor_layout",
	"rewrite.kernel_config", "rewrite.kernel_config.**",
	"constraints", "constraints.#", "constraints.#.type", "constraints.#.description",
	"constraints.#.allowed_dtypes", "constraints.#.allowed_dtypes.#",
	"constraints.#.max_intermediate_size", "constraints.#.max_output_size",
	"constraints.#.max_workspace", "constraints.#.spill_to_l2",
	"constraints.#.channel_dim", "constraints.#.divisor",
	"output", "output.kernel_name", "output.file_path", "output.compiler",
	"output.build_config", "output.build_config.**", "output.debug_symbols",
	"output.gen_dot_graph", "output.dot_graph_path",
};
static const char *const seed_constraints[] = {
	"dtype_match", "shape_constraint", "memory_limit", "workspace_size", "channel_divisibility",
};
static const char *const size_keys[] = { "max_intermediate_size", "max_output_size", "max_workspace" };

#define countof(a) (sizeof(a) / sizeof((a)[0]))

static bool segment_is_index(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

static bool pattern_matches(const char *pat, const char *path)
{
	for (;;) {
		if (!strcmp(pat, "**"))
			return true;
		const char *pe = strchr(pat, '.'), *se = strchr(path, '.');
		size_t pl = pe ? (size_t)(pe - pat) : strlen(pat), sl = se ? (size_t)(se - path) : strlen(path);
		bool ok = (pl == 1 && pat[0] == '*') ? sl > 0
		        : (pl == 1 && pat[0] == '#') ? segment_is_index(path, sl)
		        : pl == sl && !memcmp(pat, path, pl);
		if (!ok)
			return false;
		if (!pe || !se)
			return !pe && !se;
		pat = pe + 1;
		path = se + 1;
	}
}

static bool in_seed(const char *path)
{
	for (size_t i = 0; i < countof(seed_keys); i++)
		if (pattern_matches(seed_keys[i], path))
			return true;
	return false;
}

static bool listed(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

/* The last segment of a path. */
static const char *last_key(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot ? dot + 1 : path;
}

/* path "match.ops.1.where" in the lint's words: "match.ops[1].where" */
static const char *display(const char *path, char *buf, size_t size)
{
	strbuf b = { 0 };
	for (const char *p = path; *p;) {
		const char *e = strchr(p, '.');
		int n = e ? (int)(e - p) : (int)strlen(p);
		if (segment_is_index(p, (size_t)n))
			sb_printf(&b, "[%.*s]", n, p);
		else
			sb_printf(&b, "%s%.*s", p == path ? "" : ".", n, p);
		p += n + (e ? 1 : 0);
	}
	snprintf(buf, size, "%s", sb_str(&b));
	sb_release(&b);
	return buf;
}

/* A value whose form the article never writes, else NULL. */
static const char *value_beyond(const char *path, const fd_yval *v, char *why, size_t size)
{
	if (pattern_matches("match.ops.#.type", path) && v->kind == YV_SEQ)
		return "op alternatives (type: [A, B]); the article writes one type";
	if (pattern_matches("match.ops.#.input_sources.*.source_type", path) && v->kind == YV_SCALAR &&
	    strcmp(v->text, "const_or_param")) {
		snprintf(why, size, "source_type '%s'; the article writes const_or_param", v->text);
		return why;
	}
	if (pattern_matches("constraints.#.type", path) && v->kind == YV_SCALAR &&
	    !listed(v->text, seed_constraints, countof(seed_constraints))) {
		snprintf(why, size, "constraint type '%s'; the article's are dtype_match, shape_constraint, "
		         "memory_limit, workspace_size, channel_divisibility", v->text);
		return why;
	}
	int64_t n;
	if (pattern_matches("constraints.#.*", path) && listed(last_key(path), size_keys, countof(size_keys)) &&
	    v->kind == YV_SCALAR && !yval_int(v, &n) && yval_bytes(v, &n)) {
		snprintf(why, size, "a size with a unit ('%s'); the article writes bytes (%lld)", v->text, (long long)n);
		return why;
	}
	return NULL;
}

/* The path the article's keys are written for: a branch's ops are match.ops'. */
static const char *as_seed_path(const char *path, char *buf, size_t size)
{
	if (!pattern_matches("match.branches.#.ops.**", path) || pattern_matches("match.branches.#.ops", path))
		return path;
	snprintf(buf, size, "match.ops.%s", strstr(path, ".ops.") + 5);
	return buf;
}

static void walk(const fd_yval *v, strbuf *path, fd_diags *d)
{
	char shown[256], why[200], sp[512];
	const char *beyond = value_beyond(as_seed_path(sb_str(path), sp, sizeof sp), v, why, sizeof why);
	if (beyond)
		diag_error(d, yval_pos(v), "%s: %s", display(sb_str(path), shown, sizeof shown), beyond);
	if (v->kind != YV_MAP && v->kind != YV_SEQ)
		return;
	size_t len = path->n;
	for (size_t i = 0; i < v->n; i++) {
		if (v->kind == YV_MAP)
			sb_printf(path, "%s%s", len ? "." : "", v->keys[i]->text ? v->keys[i]->text : "");
		else
			sb_printf(path, "%s%zu", len ? "." : "", i);
		if (v->kind == YV_MAP && !in_seed(as_seed_path(sb_str(path), sp, sizeof sp)))
			diag_error(d, yval_pos(v->keys[i]), "%s: key beyond the article's format: fusiondbg reads it, "
			           "CANN's graph-autofusion may not", display(sb_str(path), shown, sizeof shown));
		else
			walk(v->items[i], path, d);
		path->n = len;
		path->s[len] = '\0';
	}
}

void ruleset_check_seed(const fd_ruleset *rs, fd_diags *d)
{
	for (int32_t i = 0; i < rs->n_rules; i++) {
		strbuf path = { 0 };
		sb_puts(&path, "");   /* path.s is never NULL */
		walk(rs->rules[i].root, &path, d);
		sb_release(&path);
	}
}
