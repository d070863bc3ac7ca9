/* match.c — the run: rules in priority order, anchors from the index, the
 * op-chain search with backtracking over candidate consumers and commutative
 * input orders, optional ops, the deepest failure per attempt, and the
 * result's lifetime. An op's outputs and where conditions and the
 * position: fixed diagnosis are match_checks.c's.
 * What follows a complete op chain is match_subgraph.c's (match_internal.h
 * says who owns what). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "match/conditions.h"
#include "match/match_internal.h"
#include "rules/optable.h"
#include "match/param_value.h"
#include "base/arena.h"

static int match_link_of(const fd_rule_op *op, int i, bool *explicit_link);

/* ---- units ---------------------------------------------------------------- */

static bool match_unit_is(const fd_graph_index *ix, int32_t u, int op)
{
	if (u < 0 || u >= ix->n_units || op < 0 || op >= ix->n_ops)
		return false;
	return unit_is(ix, u, op);
}

int32_t match_fusion_stand_in(const fd_match_result *r, const fd_fusion *f, int op)
{
	const fd_rule *rule = &r->rules->rules[f->rule];
	const fd_rule_pattern *pat = f->branch >= 0 && f->branch < rule->n_branches ? &rule->branches[f->branch] : &rule->match;
	bool explicit_link;
	while (op >= 0 && op < f->n_ops && op < pat->n_ops && match_fusion_unit(r, f, op) == FD_NONE)
		op = match_link_of(&pat->ops[op], op, &explicit_link);
	return match_fusion_unit(r, f, op);
}

int match_type_alt(const fd_graph_index *ix, int32_t u, const fd_rule_op *op)
{
	for (int k = 0; k < op->n_types; k++)
		if (match_unit_is(ix, u, op->ops[k]))
			return k;
	return -1;
}

/* ---- the op-chain search --------------------------------------------------- */

static inline bool search(match_run_state *s, int i);

static int match_link_of(const fd_rule_op *op, int i, bool *explicit_link)
{
	int j = -1;
	if (op->feeds_op >= 0 && op->feeds_op < i) {   /* a producer: found from op feeds_op's input */
		*explicit_link = true;
		return op->feeds_op;
	}
	for (int k = 0; k < op->n_sources; k++)
		if (op->sources[k].from_op >= 0 && op->sources[k].from_op < i && op->sources[k].from_op > j)
			j = op->sources[k].from_op;
	*explicit_link = j >= 0;
	return j >= 0 ? j : i - 1;
}

int match_present_slow(const match_run_state *s, int j)
{
	bool explicit_link;
	while (j >= 0 && s->units[j] == FD_NONE)
		j = match_link_of(&s->pat->ops[j], j, &explicit_link);
	return j;
}

/* Units in topological order, ties (a node and the composites ending at it)
 * by id: the order anchors are tried in and candidates are listed in. */
static bool unit_before(const int32_t *topo, int32_t a, int32_t b)
{
	return topo[a] != topo[b] ? topo[a] < topo[b] : a < b;
}

static const int32_t *cmp_topo;

static int cmp_units(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	return unit_before(cmp_topo, a, b) ? -1 : unit_before(cmp_topo, b, a);
}

/* Candidate lists are a few units: insertion sort, qsort beyond that. */
static void sort_units(int32_t *u, size_t n, const int32_t *topo)
{
	if (n > 16) {
		cmp_topo = topo;
		qsort(u, n, sizeof *u, cmp_units);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		int32_t x = u[i];
		size_t j = i;
		for (; j > 0 && unit_before(topo, x, u[j - 1]); j--)
			u[j] = u[j - 1];
		u[j] = x;
	}
}

static bool assigned_overlap(const match_run_state *s, int i, int32_t u, int32_t link_unit)
{
	const int32_t *mem;
	int32_t nm = match_unit_nodes(s->ctx, s->gi, u, &mem);
	const fd_composite_rec *c = unit_comp(s, u);
	for (int k = 0; k < i; k++) {
		if (s->units[k] == FD_NONE)
			continue;
		if (s->units[k] == u)
			return true;
		/* the Conv's own bias add shares the Conv node with the op it follows */
		if (c && c->host >= 0 && s->units[k] == link_unit && c->host == link_unit)
			continue;
		const int32_t *km;
		int32_t nk = match_unit_nodes(s->ctx, s->gi, s->units[k], &km);
		for (int a = 0; a < nm; a++)
			for (int b = 0; b < nk; b++)
				if (mem[a] == km[b])
					return true;
	}
	return false;
}

/* The units reading tensor t: its consumers, and the composites of the
 * wanted kinds that read it. */
static void push_readers(match_run_state *s, i32_vec *cand, int32_t t, unsigned want)
{
	const fd_tensor *x = &s->g->tensors[t];
	for (int c = 0; c < x->n_consumers; c++)
		vec_push(cand, x->consumers[c]);
	if (want)
		for (int32_t c = s->ix->tcomp_off[t]; c < s->ix->tcomp_off[t + 1]; c++)
			if (s->ix->tcomp[c] >= 0 && (want >> unit_comp(s, s->ix->tcomp[c])->kind & 1))
				vec_push(cand, s->ix->tcomp[c]);
}

/* Entry k says where its input comes from, outside the chain: a same_as
 * naming an earlier op, or a graph input or constant. */
static bool names_outside(const fd_input_source *src, int i)
{
	return (src->same_op >= 0 && src->same_op < i) || src->source_type == SRC_PARAM || src->source_type == SRC_CONST
	       || src->source_type == SRC_CONST_OR_PARAM;
}

/* Op i's link outside the chain: without a from_op, the entry of input 0
 * when it has a same_as (or else a source_type param): the op is looked for
 * among the readers of that tensor (of the graph inputs). -1: it reads op
 * i-1 (or its from_op), as the chain goes. */
static int outside_link(const fd_rule_op *op, int i)
{
	int k0 = -1;
	for (int k = 0; k < op->n_sources; k++) {
		if (op->sources[k].from_op >= 0)
			return -1;
		if (op->sources[k].input == 0)
			k0 = k;
	}
	if (k0 < 0)
		return -1;
	const fd_input_source *src = &op->sources[k0];
	return (src->same_op >= 0 && src->same_op < i) || src->source_type == SRC_PARAM ? k0 : -1;
}

/* Unit u, found through its outside link, need not read op i-1 when the
 * entries say where each of its inputs comes from. */
static bool inputs_all_placed(const match_run_state *s, const fd_rule_op *op, int i, int32_t u)
{
	for (int q = 0; q < unit_n_inputs(s, u); q++) {
		bool placed = unit_input(s, u, q) == FD_NONE;
		for (int k = 0; k < op->n_sources && !placed; k++)
			placed = op->sources[k].input == q && names_outside(&op->sources[k], i);
		if (!placed)
			return false;
	}
	return true;
}

static void gather_finish(match_run_state *s, int i, int32_t lu);

static void gather(match_run_state *s, int i, int link)
{
	const fd_rule_op *op = &s->pat->ops[i];
	unsigned want = op->composite_mask;   /* the composite kinds of the op's types, a bit each */
	i32_vec *cand = &s->cand[i];
	int32_t lu = s->units[link];
	cand->n = 0;
	if (op->feeds_op >= 0) {   /* the one producer of the input it feeds (link is op feeds_op) */
		int slot = op->feeds_input;
		if (s->swapped[op->feeds_op] && slot < 2)
			slot ^= 1;
		int32_t t = s->units[op->feeds_op] == lu ? unit_input(s, lu, slot) : FD_NONE;
		if (t != FD_NONE && s->g->tensors[t].producer >= 0 && !assigned_overlap(s, i, s->g->tensors[t].producer, lu))
			vec_push(cand, s->g->tensors[t].producer);
		return;
	}
	for (int k = 0; k < unit_n_outputs(s, lu); k++) {
		int32_t t = unit_output(s, lu, k);
		if (t >= 0)
			push_readers(s, cand, t, want);
	}
	if ((want >> COMPOSITE_BIASADD & 1) && unit_is_node(s->g, lu))
		for (int32_t c = s->ix->hosted_off[lu]; c < s->ix->hosted_off[lu + 1]; c++)
			vec_push(cand, s->ix->hosted[c]);
	gather_finish(s, i, lu);
}

/* Op i linked by entry k (outside_link): the readers of the tensor its
 * same_as names, or of every graph input for a param. */
__attribute__((noinline)) static void gather_outside(match_run_state *s, int i, int k, int link)
{
	const fd_rule_op *op = &s->pat->ops[i];
	const fd_input_source *src = &op->sources[k];
	i32_vec *cand = &s->cand[i];
	cand->n = 0;
	if (src->same_op >= 0) {
		int j = src->same_op, slot = src->same_input;
		if (s->swapped[j] && slot < 2)
			slot ^= 1;   /* op j's input k as op j was matched */
		int32_t t = s->units[j] != FD_NONE ? unit_input(s, s->units[j], slot) : FD_NONE;
		if (t >= 0)
			push_readers(s, cand, t, op->composite_mask);
	} else {
		for (int32_t t = 0; t < s->g->n_tensors; t++)
			if (s->ix->tflags[t] & TF_INPUT)
				push_readers(s, cand, t, op->composite_mask);
	}
	gather_finish(s, i, s->units[link]);
}

static void gather_finish(match_run_state *s, int i, int32_t lu)
{
	i32_vec *cand = &s->cand[i];
	sort_units(cand->items, cand->n, s->ix->unit_topo);
	size_t w = 0;
	for (size_t k = 0; k < cand->n; k++) {
		int32_t u = cand->items[k];
		if (w && cand->items[w - 1] == u)
			continue;
		if (assigned_overlap(s, i, u, lu))
			continue;
		cand->items[w++] = u;
	}
	cand->n = w;
}

/* The operand conditions of entry k on tensor t (at slot); out of line,
 * so that the search of a rule without them stays as it was. */
__attribute__((noinline)) static bool check_operand(match_run_state *s, int i, int32_t u, int k, int slot, int32_t t, uint32_t *passed,
                          bool quiet)
{
	fd_cond_check c = {
		.ctx = s->ctx, .graph = s->gi, .g = s->g, .ix = s->ix, .rule = s->r, .op = &s->pat->ops[i], .op_index = i,
		.input = &s->pat->ops[i].sources[k], .source_index = k, .unit = u, .tensor = t, .slot = slot, .run = s,
	};
	fd_reason r = cond_operand_check(&c, NULL);
	if (quiet)
		return r == REASON_NONE;   /* the caller takes its names back */
	uint32_t ev = match_emit(s, EV_OPERAND, r ? ST_FAIL : ST_PASS, r, i, k, u, slot, t, c.bound);
	if (r) {
		match_fail(s, ev, r, i, *passed);
		return false;
	}
	++*passed;
	return true;
}

/* One input_sources entry under an input order (swap: commutative, swapped).
 * Counts its passing events in *passed. quiet: only whether it holds — no
 * events, no failure recorded, no names left bound. */
static bool check_source(match_run_state *s, int i, int32_t u, int k, bool swap, uint32_t *passed, bool quiet)
{
	const fd_input_source *src = &s->pat->ops[i].sources[k];
	int slot = src->input;
	if (swap && slot < 2)
		slot ^= 1;
	int32_t t = unit_input(s, u, slot);
	if (t == FD_NONE && src->optional) {
		if (!quiet)
			match_emit(s, EV_SOURCE, ST_PASS, REASON_NONE, i, k, u, FD_NONE, FD_NONE, slot);
		++*passed;
		return true;
	}
	/* an entry of operand conditions only (rank, shape, …): its operand event says it all */
	if (!src->has_source && t != FD_NONE)
		return !src->has_operand || check_operand(s, i, u, k, slot, t, passed, quiet);
	fd_cond_check c = {
		.ctx = s->ctx, .graph = s->gi, .g = s->g, .ix = s->ix, .rule = s->r, .op = &s->pat->ops[i], .op_index = i,
		.input = src, .source_index = k, .unit = u, .tensor = t, .slot = slot, .run = s,
	};
	fd_reason why = cond_source_check(&c, NULL);
	bool ok = why == REASON_NONE;
	if (!quiet) {
		uint32_t ev = match_emit(s, EV_SOURCE, ok ? ST_PASS : ST_FAIL, why, i, k, u, c.other, t, slot);
		if (!ok)
			match_fail(s, ev, why, i, *passed);
	}
	if (!ok)
		return false;
	++*passed;
	return !src->has_operand || check_operand(s, i, u, k, slot, t, passed, quiet);
}

bool match_check_source(match_run_state *s, int i, int32_t u, int k, bool swap, uint32_t *passed, bool quiet)
{
	return check_source(s, i, u, k, swap, passed, quiet);
}

/* Without a from_op, op i must read an output of the op it links to. */
static bool check_chain_link(match_run_state *s, int i, int link, int32_t u, uint32_t passed)
{
	int32_t prev = s->units[link], t = FD_NONE;
	int slot = -1;
	for (int k = 0; k < unit_n_inputs(s, u) && slot < 0; k++)
		if (unit_produces(s, prev, unit_input(s, u, k))) {
			slot = k;
			t = unit_input(s, u, k);
		}
	/* the Conv's own bias: the BiasAdd unit is the Conv */
	const fd_composite_rec *c = unit_comp(s, u);
	if (slot < 0 && c && c->host == prev) {
		slot = 0;
		t = c->output;
	}
	bool ok = slot >= 0;
	uint32_t ev = match_emit(s, EV_SOURCE, ok ? ST_PASS : ST_FAIL, ok ? REASON_NONE : REASON_NM04_SOURCE,
	                         i, link == i - 1 ? -1 : -3 - link, u, prev, t, slot);
	if (!ok)
		match_fail(s, ev, REASON_NM04_SOURCE, i, passed);
	return ok;
}

/* Every source in one input order, then the chain link. */
static bool check_order(match_run_state *s, int i, int link, int32_t u, bool swap, bool has_from, uint32_t *passed)
{
	const fd_rule_op *op = &s->pat->ops[i];
	for (int k = 0; k < op->n_sources; k++)
		if (!check_source(s, i, u, k, swap, passed, false))
			return false;
	if (i > 0 && !has_from) {
		if (!check_chain_link(s, i, link, u, *passed))
			return false;
		++*passed;
	}
	return true;
}

/* position: fixed, and the sources failed as they stand: when they would
 * hold swapped, that is the reason (FD-NM14). */
__attribute__((noinline)) static void diagnose_fixed(match_run_state *s, int i, int32_t u, uint32_t passed)
{
	fd_cond_check c = {
		.ctx = s->ctx, .graph = s->gi, .g = s->g, .ix = s->ix, .rule = s->r, .op = &s->pat->ops[i], .op_index = i,
		.unit = u, .run = s,
	};
	if (!cond_position_check(&c, NULL))
		return;
	uint32_t ev = match_emit(s, EV_ORDER, ST_FAIL, REASON_NM14_POSITION, i, -1, u, FD_NONE, 1, 0);
	match_fail(s, ev, REASON_NM14_POSITION, i, passed + c.passed);
}

/* ---- the search budget (match.h) ------------------------------------------ */

enum { MEMO_AFTER = 64 };   /* steps of an alternative before its states are kept */

uint64_t match_steps_per_attempt(void)
{
	const char *env = getenv("FUSIONDBG_SEARCH_STEPS");
	if (!env || !*env)
		return MATCH_STEPS_ATTEMPT;
	uint64_t n = 0;
	for (const char *p = env; *p; p++) {
		if (*p < '0' || *p > '9' || n > INT32_MAX)
			return MATCH_STEPS_ATTEMPT;   /* not a number from 1 to 2^31 - 1: the default */
		n = n * 10 + (uint64_t)(*p - '0');
	}
	return n >= 1 && n <= INT32_MAX ? n : MATCH_STEPS_ATTEMPT;
}

/* The attempt has no step left: it ends here, at position i, with FD-NM19
 * whatever failed deeper before (the search did not finish, so no failure
 * it saw is the answer). */
__attribute__((noinline)) static void out_of_steps(match_run_state *s, int i)
{
	s->exhausted = true;
	uint32_t ev = match_emit(s, EV_SEARCH_CAP, ST_FAIL, REASON_NM19_SEARCH_BUDGET, i, -1, FD_NONE, FD_NONE,
	                         (int64_t)s->steps, (int64_t)s->steps_attempt);
	uint32_t ops = s->best.decisive != UINT32_MAX ? s->best.ops_matched : 0;
	s->best = (match_best){ .score = (uint32_t)RUNG_NO_MATCH << 24 | ops << 16 | 0xffff, .decisive = ev,
	                        .rung = RUNG_NO_MATCH, .reason = REASON_NM19_SEARCH_BUDGET,
	                        .ops_matched = (uint8_t)ops, .branch = s->branch };
}

/* One step of the attempt's budget, for a candidate at position i or an
 * optional op i left out; false when none is left. */
static inline bool take_step(match_run_state *s, int i)
{
	if (s->steps < s->step_limit) {
		if (++s->steps == s->memo_at)
			match_memo_start(s);
		return true;
	}
	if (!s->exhausted)
		out_of_steps(s, i);
	return false;
}

static bool try_op(match_run_state *s, int i, int32_t u, int link, int32_t via)
{
	const fd_rule_op *op = &s->pat->ops[i];
	uint32_t passed = 0, ev;
	if (!take_step(s, i))
		return false;
	s->units[i] = u;
	s->swapped[i] = false;
	/* the op's own conditions, each decided by its entry (conditions.h): the
	 * type, then the input count before the params (the order the trace has) */
	fd_cond_check *cc = &s->op_checks[i];
	cc->op = op;
	cc->unit = u;
	int alt = unit_type_alt(s->ix, u, op);   /* cond_type_check, inline: every candidate asks it */
	cc->sub = alt;
	cc->op_id = alt >= 0 ? op->ops[alt] : op->op;
	fd_reason why = cond_type_verdict(op, alt);
	int32_t from = i ? s->units[link] : FD_NONE;   /* the unit it reads via */
	if (i && outside_link(op, i) >= 0)
		from = via >= 0 ? s->g->tensors[via].producer : FD_NONE;
	ev = match_emit(s, EV_TYPE, why ? ST_FAIL : ST_PASS, why, i, -1, u, from, via, 0);
	if (why) {
		/* another type where an optional op could be is its absence, not a failure */
		if (!op->optional)
			match_fail(s, ev, why, i, passed);
		return false;
	}
	s->type_alt[i] = (int8_t)cc->sub;
	int op_id = cc->op_id;
	passed++;
	if (op->min_inputs >= 0 || op->max_inputs >= 0) {
		why = cond_inputs_check(cc, NULL);
		ev = match_emit(s, EV_ARITY, why ? ST_FAIL : ST_PASS, why, i, -1, u, FD_NONE, cc->a, 0);
		if (why) {
			match_fail(s, ev, why, i, passed);
			return false;
		}
		passed++;
	}
	if (op->n_params) {
		why = cond_params_check(cc, NULL);
		for (int p = 0; p < cc->sub; p++, passed++)
			match_emit(s, EV_PARAM, ST_PASS, REASON_NONE, i, p, u, FD_NONE, 0, 0);
		if (why) {
			ev = match_emit(s, EV_PARAM, ST_FAIL, why, i, cc->sub, u, FD_NONE, 0, 0);
			match_fail(s, ev, why, i, passed);
			return false;
		}
	}
	if (op->has_op_conditions && !match_check_op_conditions(s, i, cc, &passed))
		return false;
	/* a producer is linked by its feeds, an op placed by where its inputs
	 * come from by them: no chain link to check */
	bool has_from = op->feeds_op >= 0 || (i > 0 && outside_link(op, i) >= 0 && inputs_all_placed(s, op, i, u));
	for (int k = 0; k < op->n_sources; k++)
		if (op->sources[k].from_op >= 0)
			has_from = true;
	const fd_op_def *def = optable_get(op_id);
	bool binary = def && (def->commutative || op->has_either) && op->n_sources > 0 && unit_n_inputs(s, u) == 2
	              && unit_nonempty_inputs(s, u) == 2;
	bool can_swap = binary && cond_position_swaps(op, def->commutative);
	size_t mark = s->binds.n;
	for (int order = 0; order < (can_swap ? 2 : 1); order++) {
		uint32_t p2 = passed;
		s->binds.n = mark;
		if (order) {
			s->swapped[i] = true;
			match_emit(s, EV_ORDER, ST_INFO, REASON_NONE, i, -1, u, FD_NONE, 1, 0);
		}
		if (!check_order(s, i, link, u, order == 1, has_from, &p2)) {
			if (binary && op->has_fixed)
				diagnose_fixed(s, i, u, passed);
			continue;
		}
		/* the other order is tried only when this one's sources fail */
		if (search(s, i + 1))
			return true;
		break;
	}
	s->binds.n = mark;
	return false;
}

/* Optional op i is absent: the chain goes on from the op it would have read. */
__attribute__((noinline)) static bool skip_optional(match_run_state *s, int i, int link)
{
	if (!take_step(s, i))
		return false;
	match_emit(s, EV_OPTIONAL, ST_INFO, REASON_IN01_ABSENT, i, -1, s->units[link], FD_NONE, 0, 0);
	s->units[i] = FD_NONE;
	s->swapped[i] = false;
	s->n_absent++;
	bool fired = search(s, i + 1);
	s->n_absent--;
	return fired;
}

/* No node produces the input op i feeds (an initializer, a graph input):
 * its feeds condition fails on the op it would feed. */
__attribute__((noinline)) static uint32_t feeds_none(match_run_state *s, int i, int link)
{
	const fd_rule_op *op = &s->pat->ops[i];
	int32_t lu = s->units[link];
	int slot = op->feeds_input;
	if (s->swapped[op->feeds_op] && slot < 2)
		slot ^= 1;
	int32_t t = s->units[op->feeds_op] == lu ? unit_input(s, lu, slot) : FD_NONE;
	return match_emit(s, EV_FEEDS, ST_FAIL, REASON_NM04_SOURCE, i, -1, lu, lu, t, 0);
}

static bool search_from(match_run_state *s, int i);

/* Position i on: through the memo once it is on (match_memo.c). */
__attribute__((noinline)) static bool search_memo(match_run_state *s, int i)
{
	uint64_t key;
	if (match_memo_failed(s, i, &key)) {
		take_step(s, i);   /* the subtree failed from this very state: one step */
		return false;
	}
	int completes = s->complete_count;
	if (search_from(s, i))
		return true;
	if (!s->exhausted && s->complete_count == completes)
		match_memo_put(s, i, key);
	return false;
}

static inline __attribute__((always_inline)) bool search(match_run_state *s, int i)
{
	if (__builtin_expect(s->memo.on, 0) && i > 0 && i < s->pat->n_ops)
		return search_memo(s, i);
	return search_from(s, i);
}

static bool search_from(match_run_state *s, int i)
{
	const fd_rule_pattern *p = s->pat;
	int max = s->opt->max_complete > 0 ? s->opt->max_complete : 16;
	if (i == p->n_ops) {
		s->complete_count++;
		return match_complete(s, p->n_ops);
	}
	if (i == 0)
		return try_op(s, 0, s->anchor, -1, FD_NONE);
	const fd_rule_op *op = &p->ops[i];
	bool explicit_link;
	int link = match_present(s, match_link_of(op, i, &explicit_link));
	int outside = outside_link(op, i);
	if (outside >= 0)
		gather_outside(s, i, outside, link);
	else
		gather(s, i, link);
	i32_vec *cand = &s->cand[i];
	if (cand->n == 0) {
		if (op->optional)
			return skip_optional(s, i, link);
		uint32_t ev = op->feeds_op >= 0 ? feeds_none(s, i, link)
		            : match_emit(s, EV_SOURCE, ST_FAIL, REASON_NM04_SOURCE, i, -2, s->units[link], FD_NONE, link, 0);
		match_fail(s, ev, REASON_NM04_SOURCE, i, 0);
		return false;
	}
	for (size_t k = 0; k < cand->n; k++) {
		int32_t u = cand->items[k];
		/* the tensor through which u reads op `link` */
		int32_t via = FD_NONE;
		if (outside >= 0)
			via = unit_input(s, u, op->sources[outside].input);   /* what links it, as written */
		for (int q = 0; q < unit_n_inputs(s, u) && via == FD_NONE && outside < 0; q++)
			if (unit_produces(s, s->units[link], unit_input(s, u, q)))
				via = unit_input(s, u, q);
		if (try_op(s, i, u, link, via))
			return true;
		if (s->exhausted)
			return false;
		if (s->complete_count >= max) {
			if (!s->capped && (k + 1 < cand->n || op->optional)) {
				s->capped = true;
				match_emit(s, EV_SEARCH_CAP, ST_WARN, REASON_WN04_SEARCH_CAP, i, -1, FD_NONE, FD_NONE,
				           s->complete_count, 0);
			}
			return false;
		}
	}
	if (op->optional && s->complete_count < max)
		return skip_optional(s, i, link);
	return false;
}

/* ---- attempts, rules, the run ---------------------------------------------- */

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
	s->matched_once = s->fired = s->capped = s->exhausted = false;
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
	for (int a = 0; a < n_alts && !s->fired && !s->exhausted; a++) {
		if (unit_type_alt(s->ix, anchor, &alts[a].pat->ops[0]) < 0)
			continue;
		s->memo.on = false;
		s->memo_at = s->steps + MEMO_AFTER;
		s->branch = alts[a].branch;
		s->pat = alts[a].pat;
		s->complete_count = 0;
		s->binds.n = 0;
		if (n_alts > 1)
			match_emit(s, EV_BRANCH, ST_INFO, REASON_NONE, -1, -1, anchor, FD_NONE, 0, 0);
		if (search(s, 0)) {
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
	if (s->fired)
		st->effect_times++;
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
			if (c[2 * a] < c[2 * a + 1] && (best == SIZE_MAX || unit_before(topo, s->ix->anchor_units[c[2 * a]],
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
