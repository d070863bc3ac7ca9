/* passes.c — the pass list (rounds.h): from the rules' `pass:` keys, or
 * from a pass list file; and which rules can see a node of a given type.
 *
 * The file (fusiondbg-rules(5), ROUNDS AND PASSES): one pass a line, in
 * the order they run; a line is rule names separated by commas or blanks,
 * optionally after a label "NAME:"; `#` starts a comment; blank lines are
 * skipped. A name no rule has, a rule named twice, or a label without rules
 * is an error at its line and column. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ruleset/ruleset.h"
#include "base/input_file.h"
#include "rules/optable.h"
#include "rounds/rounds.h"

static fd_pass *add_pass(fd_rounds *rd, const char *name, int64_t key)
{
	rd->passes = xrealloc(rd->passes, (size_t)(rd->n_passes + 1) * sizeof *rd->passes);
	fd_pass *p = &rd->passes[rd->n_passes++];
	*p = (fd_pass){ .name = name, .key = key };
	return p;
}

static void add_rule(fd_rounds *rd, int32_t pass, int32_t rule)
{
	fd_pass *p = &rd->passes[pass];
	p->rules = xrealloc(p->rules, (size_t)(p->n_rules + 1) * sizeof *p->rules);
	p->rules[p->n_rules++] = rule;
	rd->rule_pass[rule] = pass;
}

/* ---- from the pass keys ----------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void from_keys(fd_rounds *rd, const fd_ruleset *rs)
{
	if (rs->n_rules == 0) {
		add_pass(rd, "", 0);
		return;
	}
	int64_t *keys = xmalloc((size_t)rs->n_rules * sizeof *keys);
	for (int32_t i = 0; i < rs->n_rules; i++)
		keys[i] = rs->rules[i].pass;
	qsort(keys, (size_t)rs->n_rules, sizeof *keys, cmp_i64);
	bool one = keys[0] == keys[rs->n_rules - 1];
	for (int32_t i = 0; i < rs->n_rules; i++) {
		if (i > 0 && keys[i] == keys[i - 1])
			continue;
		int32_t p = rd->n_passes;
		add_pass(rd, one ? "" : arena_printf(&rd->arena, "pass %lld", (long long)keys[i]), keys[i]);
		for (int32_t r = 0; r < rs->n_rules; r++)
			if (rs->rules[r].pass == keys[i])
				add_rule(rd, p, r);
	}
	free(keys);
}

/* ---- from a file ------------------------------------------------------------------ */

typedef struct reader {
	fd_rounds *rd;
	const fd_ruleset *rs;
	const char *path;
	fd_diags *d;
	int line;
	int32_t *line_of;        /* per rule: the line that named it, 0 */
	int errors;
} reader;

static void bad(reader *r, const char *at, const char *bol, const char *msg)
{
	diag_error(r->d, (fd_srcpos){ r->path, r->line, (int)(at - bol) + 1 }, "pass list: %s", msg);
	r->errors++;
}

static void parse_line(reader *r, const char *bol, const char *eol)
{
	const char *p = bol;
	while (p < eol && isspace((unsigned char)*p))
		p++;
	if (p == eol || *p == '#')
		return;
	const char *hash = memchr(p, '#', (size_t)(eol - p));
	if (hash)
		eol = hash;
	const char *colon = memchr(p, ':', (size_t)(eol - p));
	const char *label = NULL, *label_at = p;
	if (colon) {
		const char *q = colon;
		while (q > p && isspace((unsigned char)q[-1]))
			q--;
		label = arena_strndup(&r->rd->arena, p, (size_t)(q - p));
		p = colon + 1;
	}
	int32_t pass = r->rd->n_passes;
	add_pass(r->rd, label && *label ? label : arena_printf(&r->rd->arena, "pass %d", (int)pass + 1), r->line);
	while (p < eol) {
		while (p < eol && (isspace((unsigned char)*p) || *p == ','))
			p++;
		const char *w = p;
		while (p < eol && !isspace((unsigned char)*p) && *p != ',')
			p++;
		if (w == p)
			continue;
		char *name = arena_strndup(&r->rd->arena, w, (size_t)(p - w));
		int32_t rule = ruleset_find(r->rs, name);
		char msg[512];
		if (rule < 0) {
			snprintf(msg, sizeof msg, "no rule is named '%.200s'", name);
			bad(r, w, bol, msg);
			continue;
		}
		if (r->line_of[rule]) {
			snprintf(msg, sizeof msg, "rule '%.200s' is already in the pass of line %d", name, r->line_of[rule]);
			bad(r, w, bol, msg);
			continue;
		}
		r->line_of[rule] = r->line;
		add_rule(r->rd, pass, rule);
	}
	if (r->rd->passes[pass].n_rules == 0 && !r->errors) {
		char msg[512];
		snprintf(msg, sizeof msg, "the pass '%.200s' names no rule", r->rd->passes[pass].name);
		bad(r, label_at, bol, msg);
	}
}

static int from_file(fd_rounds *rd, const fd_ruleset *rs, const char *path, fd_diags *d)
{
	size_t size;
	char *text = input_read(path, &INPUT_LIMIT_PASSES, &size, d);
	if (!text)
		return -1;
	reader r = { rd, rs, path, d, 0, xcalloc((size_t)rs->n_rules + 1, sizeof *r.line_of), 0 };
	for (const char *bol = text; bol < text + size;) {
		const char *eol = memchr(bol, '\n', (size_t)(text + size - bol));
		if (!eol)
			eol = text + size;
		r.line++;
		if (memchr(bol, '\0', (size_t)(eol - bol))) {
			bad(&r, bol, bol, "a NUL byte: not a text file");
			break;
		}
		parse_line(&r, bol, eol);
		bol = eol + 1;
	}
	if (!r.errors && rd->n_passes == 0) {
		diag_error(d, srcpos_file(path), "pass list: no pass in the file (one line of rule names per pass)");
		r.errors++;
	}
	free(r.line_of);
	free(text);
	return r.errors ? -1 : 0;
}

int rounds_make_passes(fd_rounds *rd, const fd_ruleset *rs, const char *pass_file, fd_diags *d)
{
	rd->rule_pass = xmalloc(((size_t)rs->n_rules + 1) * sizeof *rd->rule_pass);
	for (int32_t i = 0; i < rs->n_rules; i++)
		rd->rule_pass[i] = -1;
	if (!pass_file) {
		from_keys(rd, rs);
		return 0;
	}
	return from_file(rd, rs, pass_file, d);
}

/* ---- what a rule can see ------------------------------------------------------------ */

static bool op_sees(const fd_ruleset *rs, int op, const char *type)
{
	int n_table = optable_count();
	if (op >= n_table)
		return op - n_table < rs->n_fused_types && !strcmp(rs->fused_types[op - n_table], type);
	const fd_op_def *def = optable_get(op);
	for (int t = 0; def && t < (int)(sizeof def->onnx_types / sizeof *def->onnx_types) && def->onnx_types[t]; t++)
		if (!strcmp(def->onnx_types[t], type))
			return true;
	return false;
}

static bool pattern_sees(const fd_ruleset *rs, const fd_rule_pattern *p, const char *type)
{
	for (int i = 0; i < p->n_ops; i++)
		for (int k = 0; k < (p->ops[i].n_types > 0 ? p->ops[i].n_types : 1); k++)   /* each type of a list */
			if (op_sees(rs, p->ops[i].n_types > 0 ? p->ops[i].ops[k] : p->ops[i].op, type))
				return true;
	return false;
}

bool rounds_rule_sees(const fd_ruleset *rs, int32_t rule, const char *type)
{
	const fd_rule *r = &rs->rules[rule];
	if (pattern_sees(rs, &r->match, type))
		return true;
	for (int b = 0; b < r->n_branches; b++)
		if (pattern_sees(rs, &r->branches[b], type))
			return true;
	return false;
}
