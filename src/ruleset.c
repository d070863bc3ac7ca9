/* ruleset.c — a rule set: loading files and directories, the environment,
 * lookups, and the name tables for source types and constraint kinds.
 *
 * Ownership: the set owns its YAML files (heap array of heap fd_yfile, each
 * with its own arena) and the typed rules (heap array; their parts live in
 * rs->arena). Only rules without schema errors are added. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "rules.h"
#include "vec.h"

/* ---- name tables ------------------------------------------------------------ */

static const char *const source_type_names[] = {
	[SRC_UNSET] = "unset",
	[SRC_CONST_OR_PARAM] = "const_or_param",
	[SRC_CONST] = "const",
	[SRC_PARAM] = "param",
	[SRC_ACTIVATION] = "activation",
	[SRC_ANY] = "any",
};

static const char *const constraint_kind_names[CONSTRAINT_KIND_COUNT] = {
	[CONSTRAINT_UNKNOWN] = "unknown",
	[CONSTRAINT_DTYPE_MATCH] = "dtype_match",
	[CONSTRAINT_SHAPE] = "shape_constraint",
	[CONSTRAINT_MEMORY_LIMIT] = "memory_limit",
	[CONSTRAINT_WORKSPACE_SIZE] = "workspace_size",
	[CONSTRAINT_CHANNEL_DIVISIBILITY] = "channel_divisibility",
};

const char *source_type_name(fd_source_type t)
{
	return t >= 0 && t <= SRC_ANY ? source_type_names[t] : "unset";
}

fd_source_type source_type_from_name(const char *s)
{
	for (int t = SRC_CONST_OR_PARAM; s && t <= SRC_ANY; t++)
		if (!strcmp(s, source_type_names[t]))
			return (fd_source_type)t;
	return SRC_UNSET;
}

const char *constraint_kind_name(fd_constraint_kind k)
{
	return k >= 0 && k < CONSTRAINT_KIND_COUNT ? constraint_kind_names[k] : "unknown";
}

fd_constraint_kind constraint_kind_from_name(const char *s)
{
	for (int k = 1; s && k < CONSTRAINT_KIND_COUNT; k++)
		if (!strcmp(s, constraint_kind_names[k]))
			return (fd_constraint_kind)k;
	return CONSTRAINT_UNKNOWN;
}

fd_srcpos yval_pos(const fd_yval *v)
{
	return v ? v->pos : (fd_srcpos){ 0 };
}

/* ---- the set ---------------------------------------------------------------- */

void ruleset_init(fd_ruleset *rs)
{
	memset(rs, 0, sizeof *rs);
	arena_init(&rs->arena);
}

void ruleset_release(fd_ruleset *rs)
{
	for (int i = 0; i < rs->n_files; i++) {
		yfile_release(rs->files[i]);
		free(rs->files[i]);
	}
	free(rs->files);
	free(rs->rules);
	arena_release(&rs->arena);
	memset(rs, 0, sizeof *rs);
}

int32_t ruleset_find(const fd_ruleset *rs, const char *name)
{
	for (int i = 0; name && i < rs->n_rules; i++)
		if (!strcmp(rs->rules[i].name, name))
			return i;
	return -1;
}

static int load_file(fd_ruleset *rs, const char *path, fd_diags *d)
{
	fd_yfile *f = xmalloc(sizeof *f);
	if (yfile_load(f, path, d) < 0) {
		free(f);
		rs->n_unparsed++;
		return -1;
	}
	rs->files = xrealloc(rs->files, (size_t)(rs->n_files + 1) * sizeof *rs->files);
	rs->files[rs->n_files++] = f;
	int docs = 0, rc = 0;
	for (int i = 0; i < f->n_docs; i++)
		if (!yval_is_null(f->docs[i].root))
			docs++;
	if (docs == 0) {
		/* an empty file, or one of comments and empty documents */
		diag_error(d, (fd_srcpos){ f->path, 1, 1 }, "no rule in this file (empty, or only comments)");
		return -1;
	}
	rs->rules = xrealloc(rs->rules, (size_t)(rs->n_rules + docs) * sizeof *rs->rules);
	for (int i = 0; i < f->n_docs; i++) {
		if (yval_is_null(f->docs[i].root))
			continue;   /* "---" with nothing after it */
		if (rule_from_yaml(rs, &rs->rules[rs->n_rules], &f->docs[i], d) < 0)
			rc = -1;
		else
			rs->n_rules++;
	}
	return rc;
}

static bool rule_file_name(const char *name)
{
	size_t n = strlen(name);
	if (name[0] == '.')
		return false;   /* hidden files, editor swap files */
	return (n > 5 && !strcmp(name + n - 5, ".yaml")) || (n > 4 && !strcmp(name + n - 4, ".yml"));
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(fd_ruleset *rs, const char *path, fd_diags *d)
{
	DIR *dir = opendir(path);
	if (!dir) {
		diag_error(d, srcpos_file(path), "cannot open directory: %s", strerror(errno));
		rs->n_unparsed++;
		return -1;
	}
	VEC(char *) names = { 0 };
	struct dirent *e;
	while ((e = readdir(dir)))
		if (rule_file_name(e->d_name))
			vec_push(&names, xstrdup(e->d_name));
	closedir(dir);
	/* sorted by name, never readdir order */
	if (names.n)
		qsort(names.items, names.n, sizeof *names.items, cmp_names);
	int rc = 0;
	if (names.n == 0)
		diag_warning(d, srcpos_file(path), "no rule files (*.yaml, *.yml) in this directory");
	size_t plen = strlen(path);
	bool slash = plen > 0 && path[plen - 1] == '/';
	for (size_t i = 0; i < names.n; i++) {
		size_t len = plen + strlen(names.items[i]) + 2;
		char *full = xmalloc(len);
		snprintf(full, len, "%s%s%s", path, slash ? "" : "/", names.items[i]);
		struct stat st;
		if (stat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
			free(full);
			continue;   /* a directory named like a rule file */
		}
		if (stat(full, &st) == 0 && !S_ISREG(st.st_mode)) {
			/* a FIFO would block the open forever, a device never ends */
			diag_error(d, srcpos_file(full), "cannot read: not a regular file (FIFO, socket or device)");
			rs->n_unparsed++;
			rc = -1;
			free(full);
			continue;
		}
		if (load_file(rs, full, d) < 0)
			rc = -1;
		free(full);
	}
	for (size_t i = 0; i < names.n; i++)
		free(names.items[i]);
	vec_release(&names);
	return rc;
}

int ruleset_load(fd_ruleset *rs, const char *path, fd_diags *d)
{
	struct stat st;
	if (!path || stat(path, &st) < 0) {
		diag_error(d, srcpos_file(path ? path : "(null)"), "cannot open: %s", path ? strerror(errno) : "no path");
		rs->n_unparsed++;
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return load_dir(rs, path, d);
	return load_file(rs, path, d);
}

/* ---- environment ---------------------------------------------------------------- */

static bool env_false(const char *v)
{
	return !strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "off") || !strcasecmp(v, "no");
}

void ruleset_apply_env_diags(fd_ruleset *rs, fd_diags *d)
{
	const char *enable = getenv("GRAPH_AUTOFUSION_ENABLE");
	if (enable && env_false(enable)) {
		for (int i = 0; i < rs->n_rules; i++)
			rs->rules[i].enabled = false;
		return;
	}
	const char *only = getenv("GRAPH_AUTOFUSION_RULES");
	if (!only || !*only)
		return;
	bool *named = xcalloc((size_t)rs->n_rules + 1, sizeof *named);
	for (const char *p = only; *p;) {
		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		const char *start = p;
		while (*p && *p != ',')
			p++;
		const char *end = p;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (end == start)
			continue;
		bool found = false;
		for (int i = 0; i < rs->n_rules; i++)
			if (strlen(rs->rules[i].name) == (size_t)(end - start) &&
			    !strncmp(rs->rules[i].name, start, (size_t)(end - start)))
				named[i] = found = true;
		if (!found && d)
			diag_warning(d, (fd_srcpos){ 0 }, "GRAPH_AUTOFUSION_RULES names '%.*s', which no loaded rule is",
			             (int)(end - start), start);
	}
	for (int i = 0; i < rs->n_rules; i++)
		if (!named[i])
			rs->rules[i].enabled = false;
	free(named);
}

void ruleset_apply_env(fd_ruleset *rs)
{
	ruleset_apply_env_diags(rs, NULL);
}

const char *ruleset_default_path(void)
{
	const char *p = getenv("GRAPH_AUTOFUSION_RULES_DIR");
	return p && *p ? p : NULL;
}
