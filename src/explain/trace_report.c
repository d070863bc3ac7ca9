/* trace_report.c — reading a recording: each event in words (explain_event,
 * explain_describe_event for the writers of trace_write.c), with what a writer's
 * piece keeps between events (describe_cache). */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ruleset/ruleset.h"
#include "base/arena.h"
#include "match/match.h"
#include "rules/optable.h"
#include "match/param_value.h"
#include "explain/explain.h"
#include "explain/explain_internal.h"
#include "base/text.h"
#include "base/strbuf.h"

void explain_cache_init(describe_cache *dc)
{
	for (size_t i = 0; i < DESCRIBE_LABELS; i++)
		dc->labels[i].unit = -2;
	for (size_t i = 0; i < DESCRIBE_WHERES; i++)
		dc->wheres[i].file = NULL;
	for (size_t i = 0; i < DESCRIBE_OPS; i++)
		dc->ops[i].op = NULL;
	cond_size_cache_init(&dc->sizes);
}

const char *explain_cached_unit_label(describe_cache *dc, const fd_match_result *r, int32_t graph, int32_t u, char *buf,
                              size_t size)
{
	if (!dc)
		return explain_unit_label(r->ctx, graph, u, buf, size);
	describe_label *l = &dc->labels[((uint32_t)u + (uint32_t)graph * 7u) % DESCRIBE_LABELS];
	if (l->unit != u || l->graph != graph) {
		explain_unit_label_full(r->ctx, graph, u, l->text, sizeof l->text, &l->full);
		l->graph = graph;
		l->unit = u;
	}
	if (l->full < size && l->full < sizeof l->text) {   /* the whole label, as it would be made here */
		memcpy(buf, l->text, l->full + 1);
		return buf;
	}
	return explain_unit_label(r->ctx, graph, u, buf, size);
}

_Static_assert(sizeof ((describe_op *)0)->text == sizeof ((fd_event_text *)0)->check,
               "an op's label is cut as the check it is copied into");

/* explain_op_label into o->check, through the cache for an op of one type (its
 * label is the same at every event). */
static void check_label(describe_cache *dc, const fd_match_result *r, const fd_event *ev, const fd_rule_op *op,
                        fd_event_text *o)
{
	if (!dc || op->n_types != 1) {
		explain_op_label(r, ev, op, o->check, sizeof o->check);
		return;
	}
	describe_op *c = &dc->ops[((uintptr_t)op >> 4 ^ (uint32_t)ev->op) % DESCRIBE_OPS];
	if (c->op != op || c->index != ev->op) {
		explain_op_label(r, ev, op, c->text, sizeof c->text);
		c->len = strlen(c->text);
		c->op = op;
		c->index = ev->op;
	}
	memcpy(o->check, c->text, c->len + 1);
}


static const fd_rule_pattern *event_pattern(const fd_rule *r, int branch)
{
	return cond_event_pattern(r, branch);   /* match.ops, a branch, or the checks after the match */
}



/* What turned the rule off, named only when it is what really did: the
 * rule's own `enabled: false` (its file or an edit of it), else the
 * environment variable or the switch file that decided it. */
static void disabled_by(const fd_match_result *r, const fd_rule *rule, int32_t i, fd_event_text *o)
{
	const fd_yval *en = yval_get(rule->root, "enabled");
	bool on = true;
	bool yaml_off = en && yval_bool(en, &on) && !on;
	fd_enabled_by by = r->rules->enabled_by ? (fd_enabled_by)r->rules->enabled_by[i] : ENABLED_BY_FILE;
	if (yaml_off && by != ENABLED_BY_SWITCH_OFF) {
		text_cutf(o->reason, sizeof o->reason, "rule disabled: enabled: false in its rule (the file or an edit)");
		o->where = yval_pos(en);
	} else if (by == ENABLED_BY_ENV_ENABLE) {
		text_cutf(o->reason, sizeof o->reason, "rule disabled: GRAPH_AUTOFUSION_ENABLE turns every rule off");
	} else if (by == ENABLED_BY_ENV_RULES) {
		text_cutf(o->reason, sizeof o->reason, "rule disabled: GRAPH_AUTOFUSION_RULES does not name it");
	} else if (by == ENABLED_BY_SWITCH_OFF) {
		text_cutf(o->reason, sizeof o->reason, "rule disabled: the fusion switch file (--fusion-switch) turns it off");
	} else {
		text_cutf(o->reason, sizeof o->reason, "rule disabled");
	}
}

static void describe_rule(const fd_match_result *r, const fd_event *ev, fd_event_text *o)
{
	const fd_rule *rule = &r->rules->rules[ev->rule];
	text_cutf(o->check, sizeof o->check, "rule");
	text_cutf(o->subject, sizeof o->subject, "%s", rule->name);
	o->where = yval_pos(rule->root);
	switch (ev->reason) {
	case REASON_NR01_DISABLED:
		text_cutf(o->expected, sizeof o->expected, "enabled");
		text_cutf(o->actual, sizeof o->actual, "disabled");
		disabled_by(r, rule, ev->rule, o);
		break;
	case REASON_NR02_SCOPE: {
		size_t at = 0;
		o->actual[0] = '\0';
		for (int i = 0; i < rule->n_scope && at < sizeof o->actual; i++)
			at += (size_t)snprintf(o->actual + at, sizeof o->actual - at, "%s%s", i ? ", " : "[", rule->scope[i]);
		if (at < sizeof o->actual)
			snprintf(o->actual + at, sizeof o->actual - at, "]");
		text_cutf(o->expected, sizeof o->expected, "scope contains %s", r->target);
		text_cutf(o->reason, sizeof o->reason, "target %s is not in the rule's scope", r->target);
		const fd_yval *sc = yval_get(rule->root, "scope");
		if (sc)
			o->where = yval_pos(sc);
		break;
	}
	case REASON_NR03_NO_PATTERN:
		text_cutf(o->expected, sizeof o->expected, "a pattern of known op types");
		text_cutf(o->actual, sizeof o->actual, "%s", rule->match.n_ops || rule->n_branches ? "an unknown op type" : "no ops");
		text_cutf(o->reason, sizeof o->reason, "the pattern cannot run (see `fusiondbg check`)");
		for (int i = 0; i < rule->match.n_ops; i++)
			if (rule->match.ops[i].op < 0) {
				text_cutf(o->actual, sizeof o->actual, "op%d type %s unknown", i, rule->match.ops[i].type);
				o->where = yval_pos(rule->match.ops[i].type_where);
				break;
			}
		break;
	default:
		text_cutf(o->reason, sizeof o->reason, "priority %lld", (long long)ev->a);
		o->where = yval_pos(rule->priority_where ? rule->priority_where : rule->root);
		break;
	}
}

/* ---- an op's own conditions, worded by their entries ------------------------- */

bool explain_op_condition(const fd_match_result *r, const fd_event *ev, fd_cond_check *c, fd_cond_facts *f,
                          fd_cond_kind *kind)
{
	uint64_t stated;
	*kind = cond_of_event(SCOPE_OP, (fd_event_kind)ev->kind);
	if (*kind == COND_COUNT || !cond_event_decode(r->ctx, r->rules, &r->trace, ev, c, &stated))
		return false;
	cond_check_event((fd_event_kind)ev->kind, stated, c, f);
	return true;
}

/* An event of an op's own condition: the words of its facts; the chain
 * link the type check read through and the op an optional one would have
 * read are the search's, said here. */
static void describe_op_condition(const fd_match_result *r, describe_cache *dc, const fd_event *ev,
                                  const fd_rule_op *op, fd_event_text *o)
{
	fd_cond_check c;
	fd_cond_facts f;
	fd_cond_kind kind;
	if (!explain_op_condition(r, ev, &c, &f, &kind))
		return;
	const fd_graph *g = c.g;
	size_t len = strlen(o->check);
	if (kind == COND_PARAMS)
		text_join(o->check + len, sizeof o->check - len, 2, " param ",
		          ev->sub >= 0 && ev->sub < op->n_params ? op->params[ev->sub].name : "?");
	else
		text_join(o->check + len, sizeof o->check - len, 2, " ", cond_def(kind)->key);
	memcpy(o->expected, f.expected, sizeof o->expected);
	memcpy(o->actual, f.actual, sizeof o->actual);
	memcpy(o->reason, f.reason_text, sizeof o->reason);
	o->where = kind == COND_WHERE && f.decided_at >= 0 ? yval_text_pos(f.decided, (size_t)f.decided_at)
	                                                  : yval_pos(f.decided);
	char lab[160];
	if (kind == COND_TYPE && c.payload.type.follows >= 0) {
		explain_cached_unit_label(dc, r, ev->graph, c.payload.type.follows, lab, sizeof lab);
		size_t at = strlen(o->reason);
		const char *via = cond_tensor_name(g, c.payload.type.reached_by);
		if (op->n_types == 1)
			text_join(o->reason, sizeof o->reason, 4, "reads ", via, " of ", lab);
		else if (at + 1 < sizeof o->reason)
			text_appendf(o->reason, sizeof o->reason, at, "; reads %s of %s", via, lab);
	} else if (kind == COND_OPTIONAL_OP) {
		explain_cached_unit_label(dc, r, ev->graph, ev->unit, lab, sizeof lab);
		text_cutf(o->expected, sizeof o->expected, "%s reading %s, or none", f.expected, lab);
		o->subject[0] = '\0';
	}
}

static void describe_source(const fd_match_result *r, describe_cache *dc, const fd_event *ev,
                            const fd_rule_pattern *pat, fd_event_text *o)
{
	const fd_graph *g = r->ctx->graphs[ev->graph].g;
	const fd_rule_op *op = &pat->ops[ev->op];
	char lab[160];
	size_t len = strlen(o->check);
	cond_event_payload p = cond_event_read(ev);
	if (ev->sub == -2) {
		text_cutf(o->check + len, sizeof o->check - len, " candidates");
		explain_cached_unit_label(dc, r, ev->graph, ev->unit, lab, sizeof lab);
		text_cutf(o->expected, sizeof o->expected, "a node reading op%lld's output", (long long)p.source.linked_op);
		text_cutf(o->actual, sizeof o->actual, "none");
		text_cutf(o->reason, sizeof o->reason, "nothing reads the output of %s", lab);
		o->where = yval_pos(op->where);
		return;
	}
	if (ev->sub == -1 || ev->sub <= -3) {
		int link = ev->sub == -1 ? ev->op - 1 : -3 - ev->sub;
		text_cutf(o->check + len, sizeof o->check - len, " reads op%d", link);
		explain_cached_unit_label(dc, r, ev->graph, p.source.producer, lab, sizeof lab);
		text_join(o->expected, sizeof o->expected, 2, "an output of ", lab);
		if (p.source.slot >= 0)
			text_cutf(o->actual, sizeof o->actual, "input%lld %s", (long long)p.source.slot,
			          cond_tensor_name(g, p.source.tensor));
		else
			text_cutf(o->actual, sizeof o->actual, "none of its inputs");
		if (ev->status == ST_FAIL)
			text_cutf(o->reason, sizeof o->reason, "not chained to op%d", link);
		else if (link != ev->op - 1)
			text_cutf(o->reason, sizeof o->reason, "the ops between are absent (optional)");
		o->where = yval_pos(op->where);
		return;
	}
	explain_describe_input_source(r, ev, op, o);
}

/* The words of a constraint's check, from its facts (the check decided). */
static void describe_constraint(const fd_match_result *r, describe_cache *dc, const fd_event *ev, fd_event_text *o)
{
	fd_cond_check c;
	fd_cond_facts facts;
	if (!explain_constraint_facts(r, ev, dc ? &dc->sizes : NULL, &c, &facts))
		return;
	cond_constraint_label(&c, o->check, sizeof o->check);
	o->where = yval_pos(c.constraint->where);
	text_cut(o->expected, sizeof o->expected, facts.expected);
	text_cut(o->actual, sizeof o->actual, facts.actual);
	text_cut(o->reason, sizeof o->reason, facts.reason_text);
	if (!o->reason[0] && ev->status == ST_FAIL)
		text_cutf(o->reason, sizeof o->reason, "%s", reason_get(ev->reason)->summary);
}

/* The words of a subgraph condition's check, from its facts. */
static void describe_subgraph(const fd_match_result *r, const fd_event *ev, const fd_rule_pattern *pat,
                              fd_event_text *o)
{
	fd_cond_check c;
	fd_cond_facts f;
	uint64_t stated;
	if (!cond_event_decode(r->ctx, r->rules, &r->trace, ev, &c, &stated))
		return;
	cond_check_event((fd_event_kind)ev->kind, stated, &c, &f);
	text_cutf(o->check, sizeof o->check, "%s", ev->kind == EV_ESCAPE ? "subgraph intermediates"
	                                           : ev->kind == EV_INPUTS ? "subgraph input_count_range"
	                                           : "subgraph output_count");
	text_cut(o->expected, sizeof o->expected, f.expected);
	text_cut(o->actual, sizeof o->actual, f.actual);
	text_cut(o->reason, sizeof o->reason, f.reason_text);
	o->where = yval_pos(f.decided ? f.decided : pat->where);
}

/* ---- checks another candidate made good ------------------------------------ */

size_t explain_attempt_after(const fd_trace *t, uint32_t ev)
{
	size_t lo = 0, hi = t->n_attempts;   /* attempts are in event order: a binary search */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->attempts[mid].first_event <= ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const fd_attempt *attempt_holding(const fd_trace *t, uint32_t ev)
{
	size_t lo = explain_attempt_after(t, ev);
	if (lo == 0)
		return NULL;
	const fd_attempt *a = &t->attempts[lo - 1];
	return ev < a->first_event + a->n_events ? a : NULL;
}

/* next: NULL, or a cursor just past idx (the writer's, or explain_event's) to
 * look ahead from. */
static uint32_t superseded_by(const fd_match_result *r, const fd_trace_iter *next, uint32_t idx, const fd_event *ev)
{
	if (ev->kind != EV_TYPE || ev->status != ST_FAIL)
		return UINT32_MAX;
	const fd_attempt *a = attempt_holding(&r->trace, idx);
	if (!a)
		return UINT32_MAX;
	fd_trace_iter it;
	fd_event x;
	if (next && next->i == (size_t)idx + 1)
		it = *next;   /* no decoding again from a checkpoint */
	else
		trace_iter_init(&it, &r->trace, (size_t)idx + 1);
	for (uint32_t k = idx + 1; k < a->first_event + a->n_events && trace_iter_next(&it, &x); k++) {
		if (x.kind == EV_BRANCH || x.branch != ev->branch || (x.op >= 0 && x.op < ev->op))
			return UINT32_MAX;   /* another alternative, or back to an earlier op */
		if (x.kind == EV_TYPE && x.op == ev->op && x.status == ST_PASS)
			return k;
	}
	return UINT32_MAX;
}

uint32_t explain_superseded_by(const fd_match_result *r, uint32_t idx)
{
	if (idx >= r->trace.n_events)
		return UINT32_MAX;
	fd_event ev = trace_event(&r->trace, idx);
	return superseded_by(r, NULL, idx, &ev);
}

/* The words of a superseded type check: what was taken instead. */
static void say_superseded(const fd_match_result *r, describe_cache *dc, const fd_event *ev, uint32_t by,
                           fd_event_text *o)
{
	fd_event x = trace_event(&r->trace, by);
	char lab[160];
	explain_cached_unit_label(dc, r, x.graph, x.unit, lab, sizeof lab);
	if (match_composite(r->ctx, x.graph, x.unit) && !match_composite(r->ctx, ev->graph, ev->unit))
		text_cutf(o->reason, sizeof o->reason, "direct form absent, canonical form matched: %s", lab);
	else
		text_cutf(o->reason, sizeof o->reason, "not this candidate: %s matched", lab);
	o->status = ST_INFO;
	o->superseded = true;
}

/* FD-NM19: the attempt ran out of search steps (match.h: a the steps it
 * tried, b the steps one attempt may take; fewer when the run's shared
 * steps were spent), stopping at op `op`. */
static void describe_budget(const fd_event *ev, const fd_rule_op *op, fd_event_text *o)
{
	text_cutf(o->check, sizeof o->check, "search");
	text_cutf(o->expected, sizeof o->expected, "a verdict within the search budget");
	text_cutf(o->actual, sizeof o->actual, "search budget exhausted: the attempt tried %lld steps", (long long)ev->a);
	if (ev->a < ev->b)
		text_cutf(o->reason, sizeof o->reason, "the run's shared steps were spent by earlier attempts, and an attempt "
		    "then has only its own; stopped at op%d %s, the candidates after it were not tried", (int)ev->op,
		    op && op->type ? op->type : "?");
	else
		text_cutf(o->reason, sizeof o->reason, "an attempt may try %lld candidates and optional ops left out; "
		    "stopped at op%d %s, the candidates after it were not tried", (long long)ev->b, (int)ev->op,
		    op && op->type ? op->type : "?");
}

void explain_describe_event(const fd_match_result *r, describe_cache *dc, const fd_trace_iter *next, uint32_t idx,
                    const fd_event *ev, fd_event_text *o)
{
	/* every field starts empty (not the whole struct zeroed: 800 bytes an event) */
	o->check[0] = o->subject[0] = o->expected[0] = o->actual[0] = o->reason[0] = '\0';
	o->where = (fd_srcpos){ 0 };
	o->superseded = false;
	o->status = ev->status;
	const fd_graph *g = r->ctx->graphs[ev->graph].g;
	/* every event but a canonical form's is of a rule; an op's events name
	 * a position of the pattern they were checked in (match.c, trace.h) */
	const fd_rule *rule = NULL;
	const fd_rule_pattern *pat = NULL;
	const fd_rule_op *op = NULL;
	if (ev->kind != EV_COMPOSITE) {
		assert(ev->rule >= 0 && ev->rule < r->rules->n_rules);
		rule = &r->rules->rules[ev->rule];
		pat = event_pattern(rule, ev->branch);
	}
	if (ev->op >= 0 && ev->kind != EV_CONSTRAINT) {   /* a constraint's op says which of its limits */
		assert(pat && ev->op < pat->n_ops);
		op = &pat->ops[ev->op];
	}
	if (ev->unit >= 0)
		explain_cached_unit_label(dc, r, ev->graph, ev->unit, o->subject, sizeof o->subject);
	if (op)
		check_label(dc, r, ev, op, o);
	char num[24];
	switch ((fd_event_kind)ev->kind) {
	case EV_RULE:
		describe_rule(r, ev, o);
		break;
	case EV_COMPOSITE: {
		const fd_composite_rec *c = match_composite(r->ctx, ev->graph, ev->unit);
		text_cutf(o->check, sizeof o->check, "canonical form %s", canon_recogniser_name((fd_recogniser)ev->a));
		int n = c ? c->n_members : 0;
		if (n == 1)   /* one node taken as another op (a Conv with bias as Conv + BiasAdd) */
			text_cutf(o->reason, sizeof o->reason, "1 node read as its canonical form");
		else
			text_cutf(o->reason, sizeof o->reason, "%d nodes recognised as one", n);
		break;
	}
	case EV_ANCHOR:
		text_cutf(o->check, sizeof o->check, "anchor");
		if (ev->reason == REASON_NM25_RAN_ONCE) {   /* run_once: the match holds no node new to the pass */
			text_cutf(o->check, sizeof o->check, "run once");
			text_cutf(o->expected, sizeof o->expected, "a node made in the round before by a rule that runs before it");
			text_cutf(o->actual, sizeof o->actual, "every node of the match was there when the rule ran");
			text_cutf(o->reason, sizeof o->reason, "the pass runs once over its graph: it saw these nodes, made "
			          "them itself, or a pass after it made them");
			o->where = yval_pos(rule->run_once_where ? rule->run_once_where : rule->root);
		}
		break;
	case EV_BRANCH:
		if (ev->branch >= 0)
			text_join(o->check, sizeof o->check, 2, "branch ", text_decimal(ev->branch, num));
		else
			text_cutf(o->check, sizeof o->check, "match.ops");
		o->where = yval_pos(pat->where);
		break;
	case EV_ORDER:
		assert(op);
		text_cutf(o->check + strlen(o->check), sizeof o->check - strlen(o->check), " input order");
		explain_describe_order(r, ev, op, o);
		break;
	case EV_OPERAND:
		assert(op);
		explain_describe_operand(r, ev, op, o);
		break;
	case EV_TYPE: case EV_PARAM: case EV_ARITY: case EV_OPTIONAL: case EV_OUTPUT: case EV_WHERE: case EV_FEEDS:
	case EV_SIBLINGS:
		assert(op);
		describe_op_condition(r, dc, ev, op, o);
		break;
	case EV_SEARCH_CAP:
		if (ev->reason == REASON_NM19_SEARCH_BUDGET) {
			describe_budget(ev, op, o);
			o->where = yval_pos(pat->where);
			break;
		}
		text_cutf(o->check, sizeof o->check, "search");
		text_cutf(o->expected, sizeof o->expected, "every complete match tried");
		text_cutf(o->actual, sizeof o->actual, "stopped after %lld", (long long)ev->a);
		text_cutf(o->reason, sizeof o->reason, "the matcher tries at most %lld complete matches from one anchor; later "
		    "candidates were not tried", (long long)ev->a);
		o->where = yval_pos(pat->where);
		break;
	case EV_SOURCE:
		describe_source(r, dc, ev, pat, o);
		break;
	case EV_ESCAPE: case EV_INPUTS: case EV_OUTPUTS:
		describe_subgraph(r, ev, pat, o);
		break;
	case EV_CONSTRAINT:
		describe_constraint(r, dc, ev, o);
		break;
	case EV_CONFLICT: {
		const fd_rule *w = &r->rules->rules[ev->a];
		text_cutf(o->check, sizeof o->check, "conflict");
		text_cutf(o->expected, sizeof o->expected, "nodes unclaimed");
		text_cutf(o->actual, sizeof o->actual, "%s claimed by %s (priority %lld)", g->nodes[ev->unit].name,
		    w->name, (long long)w->priority);
		text_cutf(o->reason, sizeof o->reason, "lost %s to %s, which fired first", g->nodes[ev->unit].name, w->name);
		o->where = yval_pos(rule->priority_where ? rule->priority_where : rule->root);
		break;
	}
	case EV_CYCLE: {
		text_cutf(o->check, sizeof o->check, "cycle");
		text_cutf(o->expected, sizeof o->expected, "no path out of the match and back");
		size_t at = 0;
		for (int64_t k = 0; k < ev->b && at < sizeof o->actual; k++)
			at += (size_t)snprintf(o->actual + at, sizeof o->actual - at, "%s%s", k ? " -> " : "",
			                       g->nodes[r->trace.paths[ev->a + k]].name);
		text_cutf(o->reason, sizeof o->reason, "fusing would create a cycle");
		o->where = yval_pos(pat->where);
		break;
	}
	case EV_FIRE:
	case EV_REWRITE: {
		const fd_fusion *f = &r->fusions[ev->a];
		text_cutf(o->check, sizeof o->check, ev->kind == EV_FIRE ? "fire" : "rewrite");
		if (ev->kind == EV_FIRE) {
			text_cutf(o->reason, sizeof o->reason, "fused %d nodes", f->n_nodes);   /* short: never cut */
			size_t at = strlen(o->reason);
			explain_absent_ops_text(r, f, o->reason + at, sizeof o->reason - at);
		} else {
			size_t at = text_append(o->reason, sizeof o->reason, 0, rule->target_op ? rule->target_op : "?",
			                        rule->kernel_name ? " kernel " : "");
			at = text_append(o->reason, sizeof o->reason, at, rule->kernel_name ? rule->kernel_name : "", " [");
			for (int k = 0; k < f->n_nodes && at < sizeof o->reason; k++)
				at = text_append(o->reason, sizeof o->reason, at, k ? ", " : "", g->nodes[r->pool[f->nodes + k]].name);
			text_append(o->reason, sizeof o->reason, at, "]", "");
			const fd_yval *rw = yval_get(rule->root, "rewrite");
			o->where = yval_pos(rw ? rw : rule->root);
		}
		break;
	}
	default:
		break;
	}
	if (ev->status == ST_FAIL && !o->reason[0]) {
		const fd_reason_def *d = reason_get(ev->reason);
		if (d)
			text_cutf(o->reason, sizeof o->reason, "%s", d->summary);
	}
	/* a condition checked after the match (fd_rule.effect, .change): the pass
	 * matched and then declined, or took effect and changed nothing */
	if (ev->status == ST_FAIL && (ev->branch == FD_BRANCH_EFFECT || ev->branch == FD_BRANCH_CHANGE)) {
		char was[sizeof o->reason];
		memcpy(was, o->reason, sizeof was);
		text_cutf(o->reason, sizeof o->reason, "%s: %s", ev->branch == FD_BRANCH_EFFECT ? "matched, then declined"
		          : "matched, took effect without change", was);
	}
	uint32_t by = superseded_by(r, next, idx, ev);
	if (by != UINT32_MAX)
		say_superseded(r, dc, ev, by, o);
}

void explain_event_cached(const fd_match_result *r, describe_cache *dc, uint32_t idx, fd_event_text *o)
{
	fd_trace_iter it;
	fd_event ev;
	if (idx >= r->trace.n_events) {
		memset(o, 0, sizeof *o);
		return;
	}
	trace_iter_init(&it, &r->trace, idx);
	trace_iter_next(&it, &ev);
	explain_describe_event(r, dc, &it, idx, &ev, o);
}

void explain_event(const fd_match_result *r, uint32_t idx, fd_event_text *o)
{
	explain_event_cached(r, NULL, idx, o);
}
