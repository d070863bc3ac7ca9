/* why.c — which attempt answers "why did rule R not fire on node N?" and
 * that answer in one line: the one resolver of `fusiondbg why` and of the
 * TUI's why-not, the attempts of a rule ranked for near-misses, and the
 * one-line "why" every report quotes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain/explain.h"
#include "explain/explain_internal.h"
#include "base/text.h"
#include "ruleset/ruleset.h"

/* ---- ranking and finding attempts ----------------------------------------- */

static _Thread_local const fd_match_result *rank_r;   /* qsort's comparator; per thread, as the writers run on several */
static int cmp_rank(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const fd_attempt *x = &rank_r->trace.attempts[a], *y = &rank_r->trace.attempts[b];
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->graph != y->graph)
		return x->graph < y->graph ? -1 : 1;
	int32_t tx = x->anchor >= 0 ? rank_r->ctx->graphs[x->graph].unit_topo[x->anchor] : -1;
	int32_t ty = y->anchor >= 0 ? rank_r->ctx->graphs[y->graph].unit_topo[y->anchor] : -1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return (a > b) - (a < b);
}

size_t explain_rank_attempts(const fd_match_result *r, int32_t rule, uint32_t *idx, size_t max)
{
	size_t n = 0;
	uint32_t *all = xmalloc((r->trace.n_attempts + 1) * sizeof *all);
	for (size_t i = 0; i < r->trace.n_attempts; i++)
		if (r->trace.attempts[i].rule == rule)
			all[n++] = (uint32_t)i;
	rank_r = r;
	qsort(all, n, sizeof *all, cmp_rank);
	if (n > max)
		n = max;
	memcpy(idx, all, n * sizeof *idx);
	free(all);
	return n;
}

uint32_t *explain_misses(const fd_match_result *r, int32_t rule, size_t *n)
{
	*n = 0;
	uint32_t *all = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < r->trace.n_attempts; i++) {
		const fd_attempt *a = &r->trace.attempts[i];
		if (a->rule != rule || a->anchor < 0 || a->rung == RUNG_FIRED)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			all = xrealloc(all, cap * sizeof *all);
		}
		all[(*n)++] = (uint32_t)i;
	}
	rank_r = r;
	if (*n)
		qsort(all, *n, sizeof *all, cmp_rank);
	return all;
}

uint32_t explain_closest_miss(const fd_match_result *r, int32_t rule)
{
	uint32_t best = UINT32_MAX;
	rank_r = r;
	for (size_t i = 0; i < r->trace.n_attempts; i++) {
		const fd_attempt *a = &r->trace.attempts[i];
		if (a->rule != rule || a->anchor < 0 || a->rung == RUNG_FIRED)
			continue;
		uint32_t k = (uint32_t)i;
		if (best == UINT32_MAX || cmp_rank(&k, &best) < 0)
			best = k;
	}
	return best;
}

bool explain_unit_covers(const fd_match_ctx *ctx, int32_t graph, int32_t unit, int32_t node)
{
	if (unit < 0 || graph < 0 || graph >= ctx->n_graphs || unit >= ctx->graphs[graph].n_units)
		return false;
	const int32_t *nodes;
	int32_t n = match_unit_nodes(ctx, graph, unit, &nodes);
	for (int32_t i = 0; i < n; i++)
		if (nodes[i] == node)
			return true;
	return false;
}

uint32_t explain_find_attempt(const fd_match_result *r, int32_t rule, int32_t graph, int32_t node)
{
	uint32_t best = UINT32_MAX;
	/* anchored on the node (or on a composite that contains it) */
	for (size_t i = 0; i < r->trace.n_attempts; i++) {
		const fd_attempt *a = &r->trace.attempts[i];
		if (a->rule != rule || a->graph != graph || !explain_unit_covers(r->ctx, graph, a->anchor, node))
			continue;
		if (best == UINT32_MAX || a->score > r->trace.attempts[best].score)
			best = (uint32_t)i;
	}
	if (best != UINT32_MAX)
		return best;
	/* or the deepest attempt whose checks touched it */
	for (size_t i = 0; i < r->trace.n_attempts; i++) {
		const fd_attempt *a = &r->trace.attempts[i];
		if (a->rule != rule || a->graph != graph)
			continue;
		if (best != UINT32_MAX && a->score <= r->trace.attempts[best].score)
			continue;
		fd_trace_iter it;
		fd_event ev;
		trace_iter_init(&it, &r->trace, a->first_event);
		for (uint32_t k = 0; k < a->n_events && trace_iter_next(&it, &ev); k++) {
			if (ev.kind == EV_TYPE && ev.status == ST_PASS && explain_unit_covers(r->ctx, graph, ev.unit, node)) {
				best = (uint32_t)i;
				break;
			}
		}
	}
	return best;
}

/* ---- the one line ---------------------------------------------------------- */

/* " in round k", said after the verb and what it is on; "" for round 0 (a
 * run of one round, or a report that names no round). */
static const char *in_round_text(int32_t round, char buf[32])
{
	buf[0] = '\0';
	if (round > 0)
		snprintf(buf, 32, " in round %d", (int)round);
	return buf;
}

/* " (source: NOTE)" after a line whose deciding check is a part of the
 * rule with a note on where it comes from (the rule's sources). */
static void add_source(const fd_rule *rule, fd_srcpos pos, char *buf, size_t size)
{
	const char *note = rule_source_at(rule, pos);
	size_t n = strlen(buf);
	if (note && n < size)
		text_join(buf + n, size - n, 3, " (source: ", note, ")");
}

/* The one line of attempt ai, in round `round` (0: not said). */
/* Three %s after a fired line: a rule whose fusion the compiler makes and
 * then refuses the model for (rewrite.refuses_model) says so, with the
 * compiler's message. */
#define REFUSED_WORDS(rule) (rule)->refuses_model ? "; then the compiler refuses the model: \"" : "", \
	(rule)->refuses_model ? (rule)->refuses_model : "", (rule)->refuses_model ? "\"" : ""

static char *attempt_line(const fd_match_result *r, describe_cache *dc, uint32_t ai, int32_t round, char *buf,
                          size_t size)
{
	const fd_attempt *a = &r->trace.attempts[ai];
	const fd_rule *rule = &r->rules->rules[a->rule];
	char lab[192], where[256];
	fd_event_text t;
	if (a->decisive != UINT32_MAX)
		explain_event_cached(r, dc, a->decisive, &t);
	else
		memset(&t, 0, sizeof t);
	explain_where(&t.where, where, sizeof where);
	if (a->anchor >= 0)
		explain_cached_unit_label(dc, r, a->graph, a->anchor, lab, sizeof lab);
	char in_round[32];
	in_round_text(round, in_round);   /* after what the rule is on, before the answer's ": " */
	if (a->rung == RUNG_FIRED) {
		const fd_fusion *f = &r->fusions[a->fusion];
		text_cutf(buf, size, "%s fires on %s%s: %d nodes fused into %s [FD-OK]%s%s%s", rule->name, lab, in_round,
		         f->n_nodes, rule->target_op ? rule->target_op : "?", REFUSED_WORDS(rule));
		return buf;
	}
	/* joined (text_join: text_cutf's bytes without a format; a JSON match
	 * writes one line per rejection) */
	char detail[600];
	if (t.expected[0] && t.actual[0])
		text_join(detail, sizeof detail, 5, t.check, ": expected ", t.expected, ", actual ", t.actual);
	else if (t.expected[0])
		text_join(detail, sizeof detail, 5, t.check, ": expected ", t.expected, ", ", t.reason);
	else
		text_join(detail, sizeof detail, 3, t.check, ": ", t.actual[0] ? t.actual : t.reason);
	/* the verdict: unknown, and on which symbols; out of steps, and where it stopped */
	if ((a->reason == REASON_CF06_UNBOUND || a->reason == REASON_NM19_SEARCH_BUDGET) && t.expected[0] && t.actual[0]
	    && t.reason[0]) {
		char d2[sizeof detail];
		text_join(d2, sizeof d2, 3, detail, " — ", t.reason);
		memcpy(detail, d2, sizeof detail);
	}
	const char *code = reason_code((fd_reason)a->reason), *at = where[0] ? " at " : "";
	int stage = 0;
	if (a->decisive != UINT32_MAX) {
		fd_event dec = trace_event(&r->trace, a->decisive);
		if (dec.branch == FD_BRANCH_EFFECT || dec.branch == FD_BRANCH_CHANGE)
			stage = dec.branch;
	}
	if (a->anchor < 0)
		text_join(buf, size, 11, "why: ", rule->name, " did not run", in_round, ": ", detail, " [", code, "]", at,
		          where);
	else if (stage)   /* matched, and a condition checked after the match decided */
		text_join(buf, size, 13, "why: ", rule->name, " matched ", lab, in_round, stage == FD_BRANCH_EFFECT
		          ? ", then declined: " : ", took effect without change: ", detail, " [", code, "]", at, where);
	else
		text_join(buf, size, 12, "why: ", rule->name, " did not fire on ", lab, in_round, ": ", detail, " [", code,
		          "]", at, where);
	add_source(rule, t.where, buf, size);
	return buf;
}

char *explain_why_line_cached(const fd_match_result *r, describe_cache *dc, uint32_t ai, char *buf, size_t size)
{
	return attempt_line(r, dc, ai, 0, buf, size);
}

char *explain_why_line(const fd_match_result *r, uint32_t ai, char *buf, size_t size)
{
	return explain_why_line_cached(r, NULL, ai, buf, size);
}

/* ---- why not here? --------------------------------------------------------- */

static uint32_t not_run_attempt(const fd_trace *t, int32_t rule)
{
	for (size_t i = 0; i < t->n_attempts; i++)
		if (t->attempts[i].rule == rule && t->attempts[i].anchor < 0)
			return (uint32_t)i;
	return UINT32_MAX;
}

/* A node the rule never reached: the answer comes from op0's type. */
static void unreached_line(const fd_rule *rule, const fd_node *n, fd_why *w)
{
	const fd_rule_op *op0 = rule->match.n_ops ? &rule->match.ops[0]
	                      : rule->n_branches && rule->branches[0].n_ops ? &rule->branches[0].ops[0] : NULL;
	fd_srcpos p = op0 ? yval_pos(op0->type_where) : yval_pos(rule->root);
	char where[300], in_round[32];
	explain_where(&p, where, sizeof where);
	text_cutf(w->line, sizeof w->line, "why: %s did not fire on %s (%s)%s: op0 %s type: expected %s, actual %s; "
	         "no attempt of this rule reached the node [FD-NM01]%s%s", rule->name, n->name, n->op_type,
	         in_round_text(w->round, in_round), op0 ? op0->type : "?", op0 ? op0->type : "?", n->op_type,
	         where[0] ? " at " : "", where);
	add_source(rule, p, w->line, sizeof w->line);
}

/* Any rule: the deepest attempt that did not fire, else a fired one. */
static uint32_t any_rule_attempt(const fd_match_result *r, int32_t graph, int32_t node)
{
	const fd_trace *t = &r->trace;
	uint32_t best = UINT32_MAX, fired = UINT32_MAX;
	for (int32_t ri = 0; ri < r->rules->n_rules; ri++) {
		uint32_t a = explain_find_attempt(r, ri, graph, node);
		if (a == UINT32_MAX || a >= t->n_attempts)
			continue;
		const fd_attempt *at = &t->attempts[a];
		if (at->rung == RUNG_FIRED) {
			if (fired == UINT32_MAX)
				fired = a;
			continue;
		}
		if (best == UINT32_MAX || at->rung > t->attempts[best].rung ||
		    (at->rung == t->attempts[best].rung && at->score > t->attempts[best].score))
			best = a;
	}
	return best != UINT32_MAX ? best : fired;
}

void explain_why_in_round(const fd_match_result *r, int32_t round, int32_t rule, int32_t graph, int32_t node,
                          fd_why *w)
{
	const fd_node *n = &r->ctx->graphs[graph].g->nodes[node];
	*w = (fd_why){ .kind = WHY_ATTEMPT, .attempt = UINT32_MAX, .decisive = UINT32_MAX, .fusion = -1,
	               .round = round };
	if (rule < 0) {
		w->attempt = any_rule_attempt(r, graph, node);
	} else if ((w->attempt = not_run_attempt(&r->trace, rule)) != UINT32_MAX) {
		w->kind = WHY_NOT_RUN;
	} else if (r->claim[graph][node] >= 0 && r->fusions[r->claim[graph][node]].rule == rule) {
		const fd_rule *ru = &r->rules->rules[rule];
		const fd_fusion *fu = &r->fusions[r->claim[graph][node]];
		char lab[256], in_round[32];
		w->kind = WHY_FUSED;
		w->fusion = r->claim[graph][node];
		w->attempt = fu->attempt >= 0 ? (uint32_t)fu->attempt : UINT32_MAX;
		w->fired = true;
		text_cutf(w->line, sizeof w->line, "why: %s fires on %s (%s)%s: part of the fusion at %s, %d nodes into %s "
		         "[FD-OK]%s%s%s", ru->name, n->name, n->op_type, in_round_text(round, in_round),
		         explain_unit_label(r->ctx, fu->graph, fu->anchor, lab, sizeof lab), fu->n_nodes,
		         ru->target_op ? ru->target_op : "?", REFUSED_WORDS(ru));
	} else {
		w->attempt = explain_find_attempt(r, rule, graph, node);
	}
	if (w->kind == WHY_FUSED && w->attempt == UINT32_MAX)
		return;
	if (w->attempt == UINT32_MAX) {
		w->kind = WHY_UNREACHED;
		if (rule >= 0)
			unreached_line(&r->rules->rules[rule], n, w);
		else
			text_cutf(w->line, sizeof w->line, "no rule made an attempt that reached %s", n->name);
		return;
	}
	const fd_attempt *at = &r->trace.attempts[w->attempt];
	if (at->decisive < r->trace.n_events)
		w->decisive = at->decisive;
	if (w->kind == WHY_FUSED)
		return;
	w->fired = at->rung == RUNG_FIRED;
	attempt_line(r, NULL, w->attempt, round, w->line, sizeof w->line);
}

void explain_why(const fd_match_result *r, int32_t rule, int32_t graph, int32_t node, fd_why *w)
{
	explain_why_in_round(r, 0, rule, graph, node, w);
}
