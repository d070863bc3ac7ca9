/* match_run.c — the run: rules in priority order and scope, the anchors
 * each tries from the index, one attempt per anchor over the rule's
 * alternatives (match.c's search), its record, and the result's lifetime. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "match/conditions.h"
#include "match/match_internal.h"
#include "rules/optable.h"

typedef struct alt {
	int8_t branch;
	const fd_rule_pattern *pat;
} alt;
typedef VEC(alt) alt_vec;

/* The schema refuses patterns longer than MATCH_MAX_OPS (FD_RULE_MAX_OPS)
 * and more branches than an event's branch holds; a pattern with an op
 * type the context does not know cannot run (check says so). n_ops: the
 * context's op ids (the op table's and its fused types). */
static bool pattern_runnable(const fd_rule_pattern *p, int n_ops)
{
	if (p->n_ops <= 0 || p->n_ops > MATCH_MAX_OPS)
		return false;
	for (int i = 0; i < p->n_ops; i++) {
		if (p->ops[i].n_types <= 0)
			return false;
		for (int k = 0; k < p->ops[i].n_types; k++)
			if (p->ops[i].ops[k] < 0 || p->ops[i].ops[k] >= n_ops)
				return false;
	}
	return true;
}

/* The rule's alternatives, all of them: match.ops, then the branches. */
static int rule_alts(const fd_rule *r, alt_vec *out, int n_ops)
{
	out->n = 0;
	if (pattern_runnable(&r->match, n_ops))
		vec_push(out, ((alt){ -1, &r->match }));
	for (int b = 0; b < r->n_branches && b <= FD_RULE_MAX_BRANCHES; b++)
		if (pattern_runnable(&r->branches[b], n_ops))
			vec_push(out, ((alt){ (int8_t)b, &r->branches[b] }));
	return (int)out->n;
}

static void run_attempt(match_run_state *s, int32_t anchor, const alt *alts, int n_alts)
{
	fd_rule_stats *st = &s->res->stats[s->rule];
	uint32_t first = s->n_emitted;
	s->anchor = anchor;
	s->best = (match_best){ .score = 0, .decisive = UINT32_MAX, .rung = RUNG_NO_MATCH,
	                        .reason = REASON_NM01_TYPE, .branch = -1 };
	s->matched_once = s->fired = s->capped = s->exhausted = s->settled = s->unchanged = false;
	s->n_absent = 0;
	/* its own share, and of the run's shared steps what one attempt may take */
	uint64_t extra = s->steps_attempt - s->steps_own;
	s->steps = 0;
	s->step_limit = s->steps_own + (extra < s->step_pool ? extra : s->step_pool);
	s->branch = -1;
	match_emit(s, EV_ANCHOR, ST_INFO, REASON_NONE, -1, -1, anchor, FD_NONE, 0, 0);
	int32_t fusion = -1;
	uint32_t fire_ev = UINT32_MAX;
	int8_t fired_branch = -1;
	for (int a = 0; a < n_alts && !s->fired && !s->exhausted && !s->settled; a++) {
		if (unit_type_alt(s->ix, anchor, &alts[a].pat->ops[0]) < 0)
			continue;
		s->branch = alts[a].branch;
		s->pat = alts[a].pat;
		if (n_alts > 1)
			match_emit(s, EV_BRANCH, ST_INFO, REASON_NONE, -1, -1, anchor, FD_NONE, 0, 0);
		if (match_search_pattern(s)) {
			fusion = (int32_t)s->res->n_fusions - 1;
			fire_ev = s->n_emitted - 2;
			fired_branch = s->branch;
		}
	}
	s->step_pool -= s->steps > s->steps_own ? s->steps - s->steps_own : 0;
	fd_attempt at = {
		.rule = s->rule, .graph = s->gi, .anchor = anchor,
		.branch = s->fired ? fired_branch : s->best.branch,
		.rung = s->fired ? RUNG_FIRED : s->best.rung,
		.reason = s->fired ? REASON_OK_FIRED : s->best.reason,
		.ops_matched = s->fired ? (uint8_t)s->res->fusions[fusion].n_ops : s->best.ops_matched,
		.first_event = first, .n_events = s->n_emitted - first,
		.decisive = s->fired ? fire_ev : s->best.decisive,
		.fusion = fusion,
		.score = s->fired ? UINT32_MAX : s->best.score,
	};
	if (s->fired)
		s->res->fusions[fusion].attempt = (int32_t)s->res->trace.n_attempts;
	s->sink.attempt(s->sink.ctx, &at);
	st->attempts++;
	st->by_rung[at.rung]++;
	if (s->matched_once)
		st->match_times++;
	if (s->fired || s->unchanged)
		st->effect_times++;
	if (s->settled && !s->unchanged)
		st->declined++;
	if (s->unchanged)
		st->unchanged++;
}

static void rule_not_run(match_run_state *s, fd_reason why, uint32_t first)
{
	uint32_t ev = match_emit(s, EV_RULE, ST_FAIL, why, -1, -1, FD_NONE, FD_NONE, s->r->priority, 0);
	fd_attempt at = {
		.rule = s->rule, .graph = 0, .anchor = FD_NONE, .branch = -1, .rung = RUNG_NOT_RUN,
		.reason = (uint8_t)why, .first_event = first, .n_events = s->n_emitted - first,
		.decisive = ev, .fusion = -1, .score = 0,
	};
	s->sink.attempt(s->sink.ctx, &at);
	s->res->stats[s->rule].by_rung[RUNG_NOT_RUN]++;
}

static bool in_scope(const fd_rule *r, const char *target)
{
	if (r->n_scope == 0)
		return true;   /* no scope written: every target */
	for (int i = 0; i < r->n_scope; i++)
		if (r->scope[i] && !strcmp(r->scope[i], target))
			return true;
	return false;
}

static const fd_ruleset *sort_rs;
static int cmp_rules(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	const fd_rule *ra = &sort_rs->rules[a], *rb = &sort_rs->rules[b];
	if (ra->priority != rb->priority)
		return ra->priority > rb->priority ? -1 : 1;
	int c = strcmp(ra->name ? ra->name : "", rb->name ? rb->name : "");
	if (c)
		return c;
	return (a > b) - (a < b);
}

/* Anchors of several alternatives and op type lists, merged in topo order
 * without repeats. Each op's anchor list is in that order already: a k-way
 * merge over cursors (at, end pairs). */
static void merge_anchors(match_run_state *s, const alt *alts, int n_alts, i32_vec *cursors, i32_vec *out)
{
	const int32_t *topo = s->ix->unit_topo;
	size_t total = 0;
	cursors->n = 0;
	for (int a = 0; a < n_alts; a++) {
		const fd_rule_op *op0 = &alts[a].pat->ops[0];
		for (int k = 0; k < op0->n_types; k++) {
			int op = op0->ops[k];
			vec_push(cursors, s->ix->anchor_off[op]);
			vec_push(cursors, s->ix->anchor_off[op + 1]);
			total += (size_t)(s->ix->anchor_off[op + 1] - s->ix->anchor_off[op]);
		}
	}
	int32_t *c = cursors->items;
	size_t n = cursors->n / 2;
	out->n = 0;
	vec_grow(out, total + 1);
	for (;;) {
		size_t best = SIZE_MAX;
		for (size_t a = 0; a < n; a++)
			if (c[2 * a] < c[2 * a + 1] && (best == SIZE_MAX || match_unit_before(topo, s->ix->anchor_units[c[2 * a]],
			                                                              s->ix->anchor_units[c[2 * best]])))
				best = a;
		if (best == SIZE_MAX)
			break;
		int32_t u = s->ix->anchor_units[c[2 * best]++];
		if (!out->n || out->items[out->n - 1] != u)
			out->items[out->n++] = u;
	}
}

/* The check records of a rule on a graph (match_run_state.checks). */
static void checks_for(match_run_state *s)
{
	for (int i = 0; i < MATCH_MAX_OPS; i++)
		s->op_checks[i] = (fd_cond_check){ .ctx = s->ctx, .graph = s->gi, .g = s->g, .ix = s->ix, .rule = s->r,
		                                 .op_index = i, .tensor = FD_NONE, .run = s };
}

static void scratch_for(match_run_state *s, const fd_graph *g)
{
	if ((size_t)g->n_nodes > s->scratch_nodes) {
		free(s->node_stamp);
		free(s->visit);
		free(s->parent);
		s->scratch_nodes = (size_t)g->n_nodes;
		s->node_stamp = xcalloc(s->scratch_nodes, sizeof *s->node_stamp);
		s->visit = xcalloc(s->scratch_nodes, sizeof *s->visit);
		s->parent = xcalloc(s->scratch_nodes, sizeof *s->parent);
	}
	if ((size_t)g->n_tensors > s->scratch_tensors) {
		free(s->tensor_stamp);
		s->scratch_tensors = (size_t)g->n_tensors;
		s->tensor_stamp = xcalloc(s->scratch_tensors, sizeof *s->tensor_stamp);
	}
	/* no clearing: the stamp only grows during a run, so an old mark (of
	 * another attempt or graph) never equals the current one */
}

void match_result_init(fd_match_result *r)
{
	memset(r, 0, sizeof *r);
	trace_init(&r->trace);
}

static void free_claims(fd_match_result *r)
{
	for (int32_t g = 0; r->claim && g < r->n_claim; g++)
		free(r->claim[g]);
	free(r->claim);
	r->claim = NULL;
	r->n_claim = 0;
}

void match_result_release(fd_match_result *r)
{
	free_claims(r);
	free(r->order);
	free(r->stats);
	free(r->fusions);
	free(r->pool);
	trace_release(&r->trace);
	memset(r, 0, sizeof *r);
}

int match_run(const fd_match_ctx *ctx, const fd_ruleset *rs, const fd_match_options *opt,
              fd_match_result *r)
{
	fd_doing("running the rules");
	static const fd_match_options defaults = { 0 };
	if (!opt)
		opt = &defaults;
	free_claims(r);
	free(r->order);
	free(r->stats);
	r->ctx = ctx;
	r->rules = rs;
	r->target = opt->target ? opt->target : "ai_core";
	r->n_rules = rs->n_rules;
	r->n_fusions = r->n_pool = 0;
	trace_clear(&r->trace);
	r->order = xcalloc(rs->n_rules ? (size_t)rs->n_rules : 1, sizeof *r->order);
	r->stats = xcalloc(rs->n_rules ? (size_t)rs->n_rules : 1, sizeof *r->stats);
	r->claim = xcalloc(ctx->n_graphs ? (size_t)ctx->n_graphs : 1, sizeof *r->claim);
	r->n_claim = ctx->n_graphs;
	for (int32_t g = 0; g < ctx->n_graphs; g++) {
		int32_t n = ctx->graphs[g].g->n_nodes;
		r->claim[g] = xmalloc((n ? (size_t)n : 1) * sizeof **r->claim);
		memset(r->claim[g], 0xff, (n ? (size_t)n : 1) * sizeof **r->claim);
	}
	for (int32_t i = 0; i < rs->n_rules; i++)
		r->order[i] = i;
	sort_rs = rs;
	qsort(r->order, (size_t)rs->n_rules, sizeof *r->order, cmp_rules);

	/* size the trace once: about ten events per anchor of every rule */
	/* a context that does not know the rule set's fused types: those ops never match */
	int n_ops = optable_count() + (match_ctx_has_types(ctx, rs) ? ctx->n_types : 0);
	size_t est = (size_t)rs->n_rules;
	alt_vec alts = { 0 };
	for (int32_t i = 0; i < rs->n_rules; i++) {
		int na = opt->run_rule && !opt->run_rule[i] ? 0 : rule_alts(&rs->rules[i], &alts, n_ops);
		for (int32_t gi = 0; gi < ctx->n_graphs; gi++)
			for (int k = 0; k < na; k++)
				for (int t = 0; t < alts.items[k].pat->ops[0].n_types; t++) {
					int op = alts.items[k].pat->ops[0].ops[t];
					est += (size_t)(ctx->graphs[gi].anchor_off[op + 1] - ctx->graphs[gi].anchor_off[op]);
				}
	}
	/* a re-run keeps the last run's arrays (already faulted in; trace_fit
	 * left them at that run's size) and grows them only if it needs more */
	if (!opt->no_events && r->trace.cap_bytes == 0)
		trace_reserve(&r->trace, est * 10, est);

	match_run_state s;
	memset(&s, 0, sizeof s);
	s.ctx = ctx;
	s.rs = rs;
	s.opt = opt;
	s.res = r;
	/* events are encoded on a second thread once the run is large (trace.h) */
	s.sink = opt->no_events ? trace_sink(&r->trace) : trace_async_sink(&r->trace);
	s.rule = -1;
	s.branch = -1;
	s.steps_attempt = match_steps_per_attempt();
	s.steps_own = s.steps_attempt < MATCH_STEPS_OWN ? s.steps_attempt : MATCH_STEPS_OWN;
	s.step_pool = 16 * s.steps_attempt;
	match_rows_init(&s.rows);

	/* canonical forms found, once, before any rule */
	for (int32_t gi = 0; gi < ctx->n_graphs; gi++) {
		s.gi = gi;
		s.g = ctx->graphs[gi].g;
		for (int32_t c = 0; c < ctx->graphs[gi].canon.n; c++)
			match_emit(&s, EV_COMPOSITE, ST_INFO, REASON_NONE, -1, -1, s.g->n_nodes + c, FD_NONE,
			           ctx->graphs[gi].canon.items[c].recogniser, 0);
	}

	i32_vec anchors = { 0 }, cursors = { 0 };
	for (int32_t oi = 0; oi < rs->n_rules; oi++) {
		s.rule = r->order[oi];
		if (opt->run_rule && !opt->run_rule[s.rule])
			continue;
		s.r = &rs->rules[s.rule];
		s.branch = -1;
		s.gi = 0;
		s.g = ctx->n_graphs ? ctx->graphs[0].g : NULL;
		uint32_t first = s.n_emitted;
		match_emit(&s, EV_RULE, ST_INFO, REASON_NONE, -1, -1, FD_NONE, FD_NONE, s.r->priority, 0);
		int n_alts = rule_alts(s.r, &alts, n_ops);
		if (!s.r->enabled) {
			rule_not_run(&s, REASON_NR01_DISABLED, first);
			continue;
		}
		if (!in_scope(s.r, r->target)) {
			rule_not_run(&s, REASON_NR02_SCOPE, first);
			continue;
		}
		if (n_alts == 0) {
			rule_not_run(&s, REASON_NR03_NO_PATTERN, first);
			continue;
		}
		for (int32_t gi = 0; gi < ctx->n_graphs; gi++) {
			s.gi = gi;
			s.ix = &ctx->graphs[gi];
			s.g = s.ix->g;
			scratch_for(&s, s.g);
			checks_for(&s);
			const int32_t *list;
			size_t n_list;
			if (n_alts == 1 && alts.items[0].pat->ops[0].n_types == 1) {
				int op = alts.items[0].pat->ops[0].op;
				list = s.ix->anchor_units + s.ix->anchor_off[op];
				n_list = (size_t)(s.ix->anchor_off[op + 1] - s.ix->anchor_off[op]);
			} else {
				merge_anchors(&s, alts.items, n_alts, &cursors, &anchors);
				list = anchors.items;
				n_list = anchors.n;
			}
			for (size_t k = 0; k < n_list; k++)
				run_attempt(&s, list[k], alts.items, n_alts);
		}
	}
	vec_release(&anchors);
	vec_release(&cursors);
	vec_release(&alts);
	vec_release(&s.binds);
	if (!opt->no_events)
		trace_async_finish(&r->trace);   /* every event encoded: readable from here */
	trace_fit(&r->trace);   /* the reserve was an estimate */
	for (int i = 0; i < MATCH_MAX_OPS; i++)
		vec_release(&s.cand[i]);
	vec_release(&s.group);
	vec_release(&s.group_units);
	vec_release(&s.queue);
	match_memo_release(&s.memo);
	vec_release(&s.cover.nodes);
	vec_release(&s.cover.inputs);
	vec_release(&s.cover.outputs);
	vec_release(&s.cover.intermediates);
	vec_release(&s.cover.escapes);
	free(s.node_stamp);
	free(s.visit);
	free(s.parent);
	free(s.tensor_stamp);
	return 0;
}
