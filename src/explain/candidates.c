/* candidates.c — a rule that had no anchor: which nodes came nearest to
 * being one, so that "no node of op0's type" names what the model has
 * instead. For each op0 (match.ops and every branch), every graph's nodes
 * (subgraph bodies too) are sorted into: the same ONNX op that the op table
 * maps to another entry (a Conv with one spatial dim is Conv1d, not Conv2d),
 * the same op in another domain, a type that differs only in case, and the
 * model's op types nearest to the one written (base/nearest.h); failing all
 * of these, the model's commonest op types. Canonical forms switched off
 * are said too: a Swish rule then cannot see Sigmoid -> Mul. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base/nearest.h"
#include "explain/explain.h"
#include "ir/onnx_ops.h"
#include "rules/optable.h"

/* Nodes of one op type (and domain) sorted into one kind of near miss. */
typedef struct group {
	const char *op_type, *domain;
	const char *maps_to;       /* the op table entry they are (Conv1d), or NULL */
	int kind;
	int64_t count, in_bodies;
} group;

enum { NEAR_RANK, NEAR_DOMAIN, NEAR_CASE, NEAR_SPELLING, NEAR_ANY };

typedef struct groups {
	group *items;
	size_t n, cap;
} groups;

static void count(groups *gs, const fd_node *n, const char *maps_to, int kind, bool body)
{
	for (size_t i = 0; i < gs->n; i++) {
		group *g = &gs->items[i];
		if (g->kind == kind && !strcmp(g->op_type, n->op_type) && !strcmp(g->domain, n->domain) &&
		    (g->maps_to == maps_to || (g->maps_to && maps_to && !strcmp(g->maps_to, maps_to)))) {
			g->count++;
			g->in_bodies += body;
			return;
		}
	}
	if (gs->n == gs->cap) {
		gs->cap = gs->cap ? gs->cap * 2 : 16;
		gs->items = xrealloc(gs->items, gs->cap * sizeof *gs->items);
	}
	gs->items[gs->n++] = (group){ n->op_type, n->domain, maps_to, kind, 1, body };
}

static bool is_onnx_type(const fd_op_def *d, const char *op_type)
{
	for (int t = 0; t < 6 && d->onnx_types[t]; t++)
		if (!strcmp(d->onnx_types[t], op_type))
			return true;
	return false;
}

/* The rank-specific op table entry node n is (Conv1d for a 1-D Conv), or NULL. */
static const char *ranked_entry(const fd_graph *g, const fd_node *n, int not_id)
{
	int ids[16];
	int k = optable_ids_for_onnx_type(n->op_type, ids, 16);
	for (int i = 0; i < k; i++) {
		const fd_op_def *e = optable_get(ids[i]);
		if (ids[i] != not_id && e->spatial_rank >= 0 && optable_node_matches(ids[i], g, n))
			return e->name;
	}
	return NULL;
}

/* Sorts every node of the model against op0 type `type` (def: its entry, or NULL). */
static void sort_nodes(const fd_model *m, const char *type, int id, groups *gs)
{
	const fd_op_def *def = optable_get(id);
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		for (int32_t ni = 0; ni < g->n_nodes; ni++) {
			const fd_node *n = &g->nodes[ni];
			if (!n->op_type)
				continue;
			bool body = gi > 0;
			if (def && is_onnx_type(def, n->op_type)) {
				if (optable_node_matches(id, g, n))
					continue;   /* an anchor after all (another rule's claim does not matter here) */
				const char *e = def->spatial_rank >= 0 ? ranked_entry(g, n, id) : NULL;
				count(gs, n, e, e ? NEAR_RANK : NEAR_DOMAIN, body);
			} else if (!strcasecmp(n->op_type, type) || (def && !strcasecmp(n->op_type, def->name))) {
				count(gs, n, NULL, NEAR_CASE, body);
			} else {
				count(gs, n, NULL, NEAR_ANY, body);
			}
		}
	}
	/* the model's op types nearest to the one written */
	fd_nearest nn;
	nearest_init(&nn, type);
	for (size_t i = 0; i < gs->n; i++)
		if (gs->items[i].kind == NEAR_ANY)
			nearest_add(&nn, gs->items[i].op_type);
	for (size_t i = 0; i < gs->n; i++)
		for (int k = 0; k < nn.n; k++)
			if (gs->items[i].kind == NEAR_ANY && !strcmp(gs->items[i].op_type, nn.names[k]))
				gs->items[i].kind = NEAR_SPELLING;
}

static const char *bodies(const group *g, char *buf, size_t size)
{
	if (!g->in_bodies)
		buf[0] = '\0';
	else if (g->in_bodies == g->count)
		snprintf(buf, size, ", all inside subgraph bodies");
	else
		snprintf(buf, size, ", %lld of them inside subgraph bodies", (long long)g->in_bodies);
	return buf;
}

static int by_count(const void *a, const void *b)
{
	const group *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->op_type, y->op_type);
}

size_t explain_anchor_candidates(const fd_match_result *r, int32_t rule, char (*lines)[320], size_t max)
{
	const fd_rule *ru = &r->rules->rules[rule];
	const fd_model *m = r->ctx->model;
	size_t out = 0;
	int n_pats = (ru->match.n_ops ? 1 : 0) + ru->n_branches;   /* match.ops, then the branches */
	for (int p = 0; p < n_pats && out < max; p++) {
		const fd_rule_pattern *pat = ru->match.n_ops ? (p == 0 ? &ru->match : &ru->branches[p - 1]) : &ru->branches[p];
		if (!pat->n_ops)
			continue;
		const fd_rule_op *op0 = &pat->ops[0];
		const fd_op_def *def = optable_get(op0->op);
		bool again = false;   /* branches often share op0: say each type once */
		for (int q = 0; q < p; q++) {
			const fd_rule_pattern *o = ru->match.n_ops ? (q == 0 ? &ru->match : &ru->branches[q - 1]) : &ru->branches[q];
			again |= o->n_ops && o->ops[0].op == op0->op && !strcmp(o->ops[0].type, op0->type);
		}
		if (again)
			continue;
		const char *which = "op0";
		groups gs = { 0 };
		sort_nodes(m, op0->type, op0->op, &gs);
		qsort(gs.items, gs.n, sizeof *gs.items, by_count);
		bool said = false;
		char b[96];
		for (size_t i = 0; i < gs.n && out < max; i++) {
			const group *g = &gs.items[i];
			char *line = lines[out];
			switch (g->kind) {
			case NEAR_RANK: {
				int rank = optable_get(optable_lookup(g->maps_to))->spatial_rank;
				snprintf(line, 320, "%lld %s node%s %s %d spatial dim%s (%s%s); %s asks %s", (long long)g->count,
				         g->op_type, g->count == 1 ? "" : "s", g->count == 1 ? "has" : "have", rank, rank == 1 ? "" : "s",
				         g->maps_to, bodies(g, b, sizeof b), which, def->name);
				break;
			}
			case NEAR_DOMAIN:
				snprintf(line, 320, "%lld %s node%s in domain %s%s; %s %s matches %s", (long long)g->count, g->op_type,
				         g->count == 1 ? "" : "s", onnx_domain_name(g->domain), bodies(g, b, sizeof b), which,
				         def->name, def->domain && *def->domain ? def->domain : "the default ONNX domain only");
				break;
			case NEAR_CASE:
				snprintf(line, 320, "%lld '%s' node%s%s%s: op types compare exactly, %s is '%s'", (long long)g->count,
				         g->op_type, g->count == 1 ? "" : "s", *g->domain ? " in domain " : "", g->domain, which,
				         op0->type);
				break;
			case NEAR_SPELLING:
				snprintf(line, 320, "%lld %s node%s%s: did you mean %s instead of %s?", (long long)g->count, g->op_type,
				         g->count == 1 ? "" : "s", bodies(g, b, sizeof b), g->op_type, op0->type);
				break;
			default:
				continue;
			}
			out++;
			said = true;
		}
		if (def && def->composite && !r->ctx->canonicalize && out < max) {
			snprintf(lines[out++], 320, "canonical forms are off (--no-canonicalize): %s's decomposed form is not "
			         "recognised", def->name);
			said = true;
		}
		if (!said && out < max) {
			/* nothing near: what the model is made of, commonest first */
			size_t at = (size_t)snprintf(lines[out], 320, "nothing near %s %s; the model's op types: ", which,
			                             op0->type);
			size_t shown = 0;
			for (size_t i = 0; i < gs.n && at < 300; i++) {
				const group *g = &gs.items[i];
				bool seen = false;
				for (size_t j = 0; j < i; j++)
					seen |= !strcmp(gs.items[j].op_type, g->op_type);
				if (seen)
					continue;
				if (shown == 8) {
					at += (size_t)snprintf(lines[out] + at, 320 - at, ", …");
					break;
				}
				at += (size_t)snprintf(lines[out] + at, 320 - at, "%s%s ×%lld", shown ? ", " : "", g->op_type,
				                       (long long)g->count);
				shown++;
			}
			if (!shown)
				snprintf(lines[out] + at, 320 - at, "none (the model has no nodes)");
			out++;
		}
		free(gs.items);
	}
	return out;
}
