/* rule_sources.c — a rule's `source` and `sources`: notes on where the rule
 * and each of its parts come from (a compiler's source file and line, a
 * document), which `why` quotes beside the check that decided. A `sources`
 * key is a path in the rule, map keys and list indices joined by dots
 * (match.ops.0.where.1, match.subgraph); the note holds for every value
 * below it, and the narrowest entry wins. A key that names nothing is a
 * warning (check --strict: an error), not an error: a what-if that
 * shortens a list must still run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules/schema.h"
#include "ruleset/ruleset.h"

/* The value `path` names in the rule, or NULL. */
static const fd_yval *value_at(const fd_yval *root, const char *path)
{
	const fd_yval *v = root;
	const char *p = path;
	while (v && *p) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		char seg[128];
		if (!len || len >= sizeof seg)
			return NULL;
		memcpy(seg, p, len);
		seg[len] = '\0';
		if (v->kind == YV_MAP) {
			v = yval_get(v, seg);
		} else if (v->kind == YV_SEQ) {
			char *end;
			unsigned long i = strtoul(seg, &end, 10);
			v = *end || seg[0] < '0' || seg[0] > '9' || i >= v->n ? NULL : v->items[i];
		} else {
			return NULL;
		}
		p = dot ? dot + 1 : p + len;
	}
	return *p ? NULL : v;
}

void rule_schema_sources(fd_schema *s, fd_rule *r, const fd_yval *v)
{
	char b[128];
	if (v->kind != YV_MAP) {
		ERR(s, v, "sources: expected a map of a path in the rule (match.ops.0.where.1) to a note, got %s",
		    schema_describe(v, b, sizeof b));
		return;
	}
	r->sources = arena_array(&s->rs->arena, v->n ? v->n : 1, sizeof *r->sources);
	for (size_t i = 0; i < v->n; i++) {
		const char *path = v->keys[i]->text ? v->keys[i]->text : "";
		fd_rule_source e = { path, value_at(r->root, path), NULL };
		if (!e.at || !strcmp(path, "sources") || !strncmp(path, "sources.", 8)) {
			WARN(s, v->keys[i], "sources: '%s' names no value of the rule (a path such as match.ops.0.where.1: "
			     "keys and list indices joined by dots)", path);
			continue;
		}
		char p[160];
		snprintf(p, sizeof p, "sources.%.140s", path);
		if (schema_str(s, v->items[i], p, &e.text))
			r->sources[r->n_sources++] = e;
	}
}

/* Whether a value at pos is v or below it. */
static bool holds(const fd_yval *v, fd_srcpos pos)
{
	if (v->pos.line == pos.line && v->pos.col == pos.col)
		return true;
	if (v->kind == YV_MAP)
		for (size_t i = 0; i < v->n; i++)
			if (holds(v->keys[i], pos) || holds(v->items[i], pos))
				return true;
	if (v->kind == YV_SEQ)
		for (size_t i = 0; i < v->n; i++)
			if (holds(v->items[i], pos))
				return true;
	return false;
}

const char *rule_source_at(const fd_rule *r, fd_srcpos pos)
{
	const fd_rule_source *best = NULL;
	if (pos.line <= 0 || (pos.file && r->file && strcmp(pos.file, r->file)))
		return NULL;   /* decided by no part of this rule (a conflict, a cycle) */
	for (int i = 0; i < r->n_sources; i++) {
			const fd_rule_source *e = &r->sources[i];
			if (holds(e->at, pos) && (!best || e->at->end - e->at->start < best->at->end - best->at->start))
				best = e;
		}
	return best ? best->text : r->source;
}
