/* rule_check_across.c — `check`'s findings across rules: duplicate names,
 * rules of one pattern ("rules shadowed" by a pattern another rule has),
 * and equal priorities on a shared anchor node type in one pass (anchors
 * of different spatial ranks never meet). Rules that share a
 * pattern, or a priority and an anchor type, are found by sorting keys, and
 * each group is one finding naming its first members and how many more:
 * ten thousand files of one pattern make one warning, in time n log n and
 * memory linear in n. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/strbuf.h"
#include "base/strmap.h"
#include "rules/optable.h"
#include "ruleset/rule_check_internal.h"

/* The op ids a rule anchors on: every type of ops[0] of match.ops and of
 * every branch, each once, all of them (the caller frees *ids). */
static int anchors(const fd_rule *r, int **ids)
{
	int n = 0, cap = 0;
	*ids = NULL;
	for (int b = r->match.n_ops ? -1 : 0; b < r->n_branches; b++) {
		const fd_rule_pattern *p = b < 0 ? &r->match : &r->branches[b];
		for (int t = 0; p->n_ops && t < p->ops[0].n_types; t++) {
			int id = p->ops[0].ops[t], k = 0;
			while (k < n && (*ids)[k] != id)
				k++;
			if (k < n)
				continue;
			if (n == cap)
				*ids = xrealloc(*ids, (size_t)(cap = cap ? 2 * cap : 8) * sizeof **ids);
			(*ids)[n++] = id;
		}
	}
	return n;
}

/* The scalar text of v with its kind, so that keys compare values. */
static void key_yval(strbuf *k, const fd_yval *v)
{
	if (!v) {
		sb_puts(k, "~");
		return;
	}
	switch (v->kind) {
	case YV_SCALAR: sb_printf(k, "s%zu:%s", strlen(v->text), v->text); break;
	case YV_NULL: sb_puts(k, "~"); break;
	default:
		sb_printf(k, "%c%zu[", v->kind == YV_SEQ ? 'l' : 'm', v->n);
		for (size_t i = 0; i < v->n; i++) {
			if (v->kind == YV_MAP)
				key_yval(k, v->keys[i]);
			key_yval(k, v->items[i]);
		}
		sb_puts(k, "]");
	}
}

/* What same_pattern compared, as text: equal keys, equal patterns. NULL
 * when the rule has branches or an unknown op (never the same pattern). */
static char *pattern_key(const fd_rule *r)
{
	const fd_rule_pattern *p = &r->match;
	if (r->n_branches || !p->n_ops)
		return NULL;
	strbuf k = { 0 };
	for (int i = 0; i < p->n_ops; i++) {
		const fd_rule_op *op = &p->ops[i];
		if (op->op < 0) {
			sb_release(&k);
			return NULL;
		}
		bool bounded = op->conds & COND_BIT(INPUTS);
		sb_printf(&k, "%d,%d,%d;", op->op, bounded ? op->min_inputs : -1, bounded ? op->max_inputs : -1);
		/* every condition of the op's map (a type list, params, optional,
		 * outputs, where, …; a single type is op's id above), and its inputs */
		for (int c = 0; c < COND_COUNT; c++) {
			const fd_cond_def *d = cond_def((fd_cond_kind)c);
			if (d->scope == SCOPE_OP && (c != COND_TYPE || op->n_types > 1))
				key_yval(&k, yval_get(op->where, d->key));
		}
		key_yval(&k, yval_get(op->where, "input_sources"));
		/* and what it checks after the match: another verdict there is another rule */
		key_yval(&k, yval_get(op->where, "effect"));
		key_yval(&k, yval_get(op->where, "change"));
		sb_puts(&k, "|");
	}
	return sb_take(&k);
}

/* Two rules compete only on a target both scopes name (no scope: every target). */
static bool scopes_meet(const fd_rule *a, const fd_rule *b)
{
	if (!a->scope || !b->scope)
		return true;
	for (int i = 0; i < a->n_scope; i++)
		for (int j = 0; j < b->n_scope; j++)
			if (!strcmp(a->scope[i], b->scope[j]))
				return true;
	return false;
}

typedef struct keyed {
	char *key;
	int rule;
} keyed;

static int cmp_keyed(const void *x, const void *y)
{
	const keyed *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	return c ? c : (a->rule > b->rule) - (a->rule < b->rule);
}

/* Sorts items and calls fn for every run of two or more equal keys. */
static void each_group(checker *c, keyed *items, size_t n, void (*fn)(checker *, const int *, size_t, const char *))
{
	qsort(items, n, sizeof *items, cmp_keyed);
	int *members = xmalloc((n ? n : 1) * sizeof *members);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && !strcmp(items[j].key, items[i].key))
			j++;
		for (size_t k = i; k < j; k++)
			members[k - i] = items[k].rule;
		if (j - i >= 2)
			fn(c, members, j - i, items[i].key);
		i = j;
	}
	free(members);
}

/* "'A', 'B' and 9998 more" (or "'A' and 'B'"), for a group's message. */
static void name_members(const fd_ruleset *rs, const int *m, size_t n, strbuf *b)
{
	size_t shown = n > 3 ? 2 : n;
	for (size_t i = 0; i < shown; i++)
		sb_printf(b, "%s'%s'", i == 0 ? "" : i + 1 == n ? " and " : ", ", rs->rules[m[i]].name);
	if (shown < n)
		sb_printf(b, " and %zu more", n - shown);
}

/* The rule of a group that runs first: the highest priority, then the name. */
static int runs_first(const fd_ruleset *rs, const int *m, size_t n)
{
	int best = m[0];
	for (size_t i = 1; i < n; i++) {
		const fd_rule *a = &rs->rules[m[i]], *b = &rs->rules[best];
		if (a->priority > b->priority || (a->priority == b->priority && strcmp(a->name, b->name) < 0))
			best = m[i];
	}
	return best;
}

/* One warning for rules m[0..n) of one pattern whose scopes meet. */
static void pattern_warning(checker *c, const int *m, size_t n)
{
	const fd_ruleset *rs = c->rs;
	const fd_rule *first = &rs->rules[m[0]], *r = &rs->rules[m[1]];
	fd_srcpos p = yval_pos(yval_get(first->root, "name"));
	if (n == 2) {
		const fd_rule *low = r->priority <= first->priority ? r : first;
		WARN(c, r->match.where, "rule '%s' has the same pattern as rule '%s' (%s:%d:%d): '%s' can never fire "
		     "where the other matched", r->name, first->name, p.file, p.line, p.col,
		     r->priority == first->priority ? (strcmp(r->name, first->name) > 0 ? r->name : first->name)
		                                    : low->name);
		return;
	}
	strbuf names = { 0 };
	name_members(rs, m, n, &names);
	WARN(c, r->match.where, "rules %s have the same pattern (the first at %s:%d:%d): only '%s' (the highest "
	     "priority, then the name) can fire where they match", names.s, p.file, p.line, p.col,
	     rs->rules[runs_first(rs, m, n)].name);
	sb_release(&names);
}

/* A scope as a key: its targets in order ("*": none written, every target). */
static char *scope_key(const fd_rule *r)
{
	strbuf k = { 0 };
	if (!r->scope)
		sb_puts(&k, "*");
	for (int i = 0; r->scope && i < r->n_scope; i++)
		sb_printf(&k, "%zu:%s,", strlen(r->scope[i]), r->scope[i]);
	return sb_take(&k);
}

/* Rules m[0..n) that share something (a pattern, a priority and an anchor)
 * compete only where their scopes meet: one warn() per scope they share,
 * and one per scope for its first rule with the first rule of each other
 * scope it meets. */
static void scope_groups(checker *c, const int *m, size_t n, void (*warn)(checker *, const int *, size_t))
{
	const fd_ruleset *rs = c->rs;
	keyed *by_scope = xmalloc(n * sizeof *by_scope);
	for (size_t i = 0; i < n; i++)
		by_scope[i] = (keyed){ scope_key(&rs->rules[m[i]]), m[i] };
	qsort(by_scope, n, sizeof *by_scope, cmp_keyed);
	size_t *start = xmalloc((n + 1) * sizeof *start), nb = 0;
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(by_scope[i].key, by_scope[i - 1].key))
			start[nb++] = i;
	start[nb] = n;
	int *members = xmalloc((n + 1) * sizeof *members);
	for (size_t b = 0; b < nb; b++) {
		size_t k = 0;
		for (size_t i = start[b]; i < start[b + 1]; i++)
			members[k++] = by_scope[i].rule;
		if (k >= 2)
			warn(c, members, k);
		k = 1;
		members[0] = by_scope[start[b]].rule;
		for (size_t o = b + 1; o < nb; o++)
			if (scopes_meet(&rs->rules[members[0]], &rs->rules[by_scope[start[o]].rule]))
				members[k++] = by_scope[start[o]].rule;
		if (k >= 2) {
			/* in file order, as a pair is told */
			for (size_t i = 1; i < k; i++)
				for (size_t j = i; j > 0 && members[j] < members[j - 1]; j--) {
					int t = members[j];
					members[j] = members[j - 1];
					members[j - 1] = t;
				}
			warn(c, members, k);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(by_scope[i].key);
	free(by_scope);
	free(start);
	free(members);
}

static void same_pattern_group(checker *c, const int *m, size_t n, const char *key)
{
	(void)key;
	scope_groups(c, m, n, pattern_warning);
}

/* One group of a priority and an anchor node type: rules whose order only
 * their names decide. An op matching several node types puts the same
 * group under each: it is said once (told holds the groups said). */
typedef struct told_groups {
	strmap seen;
	fd_arena arena;
} told_groups;

static void priority_warning(checker *c, const int *m, size_t n)
{
	const fd_ruleset *rs = c->rs;
	const fd_rule *first = &rs->rules[m[0]], *r = &rs->rules[m[1]];
	int *ids;
	const fd_op_def *anchor = anchors(r, &ids) ? optable_get(ids[0]) : NULL;
	free(ids);
	const char *type = anchor ? anchor->name : "?";
	fd_srcpos p = yval_pos(yval_get(first->root, "name"));
	const fd_yval *at = r->priority_where ? r->priority_where : yval_get(r->root, "name");
	if (n == 2) {
		WARN(c, at, "rules shadowed by priority: '%s' and '%s' (%s:%d:%d) both have priority %lld and anchor on %s; "
		     "only their names decide which runs first", r->name, first->name, p.file, p.line, p.col,
		     (long long)r->priority, type);
		return;
	}
	strbuf names = { 0 };
	name_members(rs, m, n, &names);
	WARN(c, at, "rules shadowed by priority: %s (the first at %s:%d:%d) all have priority %lld and anchor on %s; "
	     "only their names decide which runs first", names.s, p.file, p.line, p.col, (long long)r->priority, type);
	sb_release(&names);
}

/* The spatial rank the rule's anchor has on node type `type`: that rank
 * (Conv2d: 2), or -1 when it takes any (Conv) or several (Conv1d, Conv2d). */
static int anchor_rank(const fd_rule *r, const char *type)
{
	int *ids, rank = -3;
	int na = anchors(r, &ids);
	for (int a = 0; a < na; a++) {
		const fd_op_def *def = optable_get(ids[a]);
		for (int t = 0; def && t < 6 && def->onnx_types[t]; t++)
			if (!strcmp(def->onnx_types[t], type))
				rank = rank == -3 || rank == def->spatial_rank ? def->spatial_rank : -1;
	}
	free(ids);
	return rank < 0 ? -1 : rank;   /* several ranks: it meets every one of them */
}

static void priority_members(checker *c, const int *m, size_t n);

/* A priority, pass and node type shared: the rules whose anchors can be one
 * node — a rank-free anchor (Conv) with every rank, Conv1d and Conv2d never. */
static void priority_group(checker *c, const int *m, size_t n, const char *key)
{
	const char *type = strrchr(key, '|') + 1;
	int *rank = xmalloc(n * sizeof *rank), *sub = xmalloc(n * sizeof *sub);
	bool fixed = false;
	for (size_t i = 0; i < n; i++) {
		rank[i] = anchor_rank(&c->rs->rules[m[i]], type);
		fixed = fixed || rank[i] >= 0;
	}
	if (!fixed)
		priority_members(c, m, n);
	for (size_t i = 0; i < n && fixed; i++) {
		bool first = rank[i] >= 0;
		for (size_t j = 0; j < i && first; j++)
			first = rank[j] != rank[i];
		if (!first)
			continue;
		size_t k = 0;
		for (size_t j = 0; j < n; j++)
			if (rank[j] < 0 || rank[j] == rank[i])
				sub[k++] = m[j];
		if (k >= 2)
			priority_members(c, sub, k);
	}
	free(rank);
	free(sub);
}

static void priority_members(checker *c, const int *m, size_t n)
{
	const fd_ruleset *rs = c->rs;
	strbuf id = { 0 };
	for (size_t i = 0; i < n; i++)
		sb_printf(&id, "%d,", m[i]);
	told_groups *told = c->told;
	bool again = strmap_get(&told->seen, id.s) >= 0;
	if (!again)
		strmap_put(&told->seen, arena_strdup(&told->arena, id.s), 1);
	sb_release(&id);
	if (again)
		return;
	/* rules of one pattern were told already: a group that is all one pattern says nothing new */
	char *k0 = pattern_key(&rs->rules[m[0]]);
	bool one_pattern = k0 != NULL;
	for (size_t i = 1; i < n && one_pattern; i++) {
		char *ki = pattern_key(&rs->rules[m[i]]);
		one_pattern = ki && !strcmp(ki, k0) && scopes_meet(&rs->rules[m[0]], &rs->rules[m[i]]);
		free(ki);
	}
	free(k0);
	if (one_pattern)
		return;
	scope_groups(c, m, n, priority_warning);
}

void rule_check_across(checker *c)
{
	const fd_ruleset *rs = c->rs;
	/* duplicate names: the first definition of each */
	strmap names;
	strmap_init(&names);
	for (int i = 0; i < rs->n_rules; i++) {
		const fd_rule *r = &rs->rules[i];
		int32_t j = strmap_get(&names, r->name);
		if (j < 0) {
			strmap_put(&names, r->name, i);
			continue;
		}
		fd_srcpos p = yval_pos(yval_get(rs->rules[j].root, "name"));
		ERR(c, yval_get(r->root, "name"), "duplicate rule name '%s' (also defined at %s:%d:%d)", r->name, p.file,
		    p.line, p.col);
	}
	strmap_release(&names);
	/* the same pattern; then equal priorities on a shared anchor type */
	keyed *items = xmalloc(((size_t)rs->n_rules * 8 + 1) * sizeof *items);
	size_t n = 0;
	for (int i = 0; i < rs->n_rules; i++) {
		char *k = pattern_key(&rs->rules[i]);
		if (k)
			items[n++] = (keyed){ k, i };
	}
	each_group(c, items, n, same_pattern_group);
	for (size_t i = 0; i < n; i++)
		free(items[i].key);
	n = 0;
	size_t cap = (size_t)rs->n_rules * 8 + 1;
	for (int i = 0; i < rs->n_rules; i++) {
		int *ids;
		int na = anchors(&rs->rules[i], &ids);
		/* each node type an anchor op matches: rules meet on a type */
		for (int a = 0; a < na; a++) {
			const fd_op_def *def = optable_get(ids[a]);
			for (int t = 0; def && t < 6 && def->onnx_types[t]; t++) {
				bool seen = false;
				for (int b = 0; b < a && !seen; b++)
					for (int u = 0; optable_get(ids[b]) && u < 6 && optable_get(ids[b])->onnx_types[u]; u++)
						seen = seen || !strcmp(optable_get(ids[b])->onnx_types[u], def->onnx_types[t]);
				if (seen)
					continue;
				if (n == cap)
					items = xrealloc(items, (cap *= 2) * sizeof *items);
				strbuf k = { 0 };
				/* rules of different passes never compete: the pass is part of the key */
				sb_printf(&k, "%020lld|%020lld|%s", (long long)rs->rules[i].priority, (long long)rs->rules[i].pass,
				          def->onnx_types[t]);
				items[n++] = (keyed){ sb_take(&k), i };
			}
		}
		free(ids);
	}
	told_groups groups;
	strmap_init(&groups.seen);
	arena_init(&groups.arena);
	c->told = &groups;
	each_group(c, items, n, priority_group);
	c->told = NULL;
	strmap_release(&groups.seen);
	arena_release(&groups.arena);
	for (size_t i = 0; i < n; i++)
		free(items[i].key);
	free(items);
}
