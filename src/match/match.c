/* match.c — the op-chain search of one attempt: backtracking over
 * candidate consumers and commutative input orders, optional ops, the
 * deepest failure, the step budget. The run around it (rules in priority
 * order, anchors, attempts, the result's lifetime) is match_run.c's; an
 * op's outputs and where conditions are match_checks.c's.
 * What follows a complete op chain is match_subgraph.c's (match_internal.h
 * says who owns what). */
#include <stdint.h>
#include <stdlib.h>
#include "match/conditions.h"
#include "match/match_internal.h"
#include "rules/optable.h"

static int match_link_of(const fd_rule_op *op, int i, bool *explicit_link);

/* What an input entry states of where its tensor comes from. */
static inline bool states_from(const fd_input_source *src)
{
	return src->conds & COND_BIT(FROM_OP);
}

static inline bool states_same(const fd_input_source *src)
{
	return src->conds & COND_BIT(SAME_AS);
}

static inline fd_source_type stated_type(const fd_input_source *src)
{
	return src->conds & COND_BIT(SOURCE_TYPE) ? src->source_type : SRC_UNSET;
}

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
	if ((op->conds & COND_BIT(FEEDS)) && op->feeds_op < i) {   /* a producer: found from op feeds_op's input */
		*explicit_link = true;
		return op->feeds_op;
	}
	for (int k = 0; k < op->n_sources; k++)
		if (states_from(&op->sources[k]) && op->sources[k].from_op < i && op->sources[k].from_op > j)
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

static const int32_t *cmp_topo;

static int cmp_units(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	return match_unit_before(cmp_topo, a, b) ? -1 : match_unit_before(cmp_topo, b, a);
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
		for (; j > 0 && match_unit_before(topo, x, u[j - 1]); j--)
			u[j] = u[j - 1];
		u[j] = x;
	}
}

/* The earlier op (of 0..i-1) whose unit shares a node with u, or -1. */
static int assigned_to(const match_run_state *s, int i, int32_t u, int32_t link_unit)
{
	const int32_t *mem;
	int32_t nm = match_unit_nodes(s->ctx, s->gi, u, &mem);
	const fd_composite_rec *c = unit_comp(s, u);
	for (int k = 0; k < i; k++) {
		if (s->units[k] == FD_NONE)
			continue;
		if (s->units[k] == u)
			return k;
		/* the Conv's own bias add shares the Conv node with the op it follows */
		if (c && c->host >= 0 && s->units[k] == link_unit && c->host == link_unit)
			continue;
		const int32_t *km;
		int32_t nk = match_unit_nodes(s->ctx, s->gi, s->units[k], &km);
		for (int a = 0; a < nm; a++)
			for (int b = 0; b < nk; b++)
				if (mem[a] == km[b])
					return k;
	}
	return -1;
}

static bool assigned_overlap(const match_run_state *s, int i, int32_t u, int32_t link_unit)
{
	return assigned_to(s, i, u, link_unit) >= 0;
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
	fd_source_type st = stated_type(src);
	return (states_same(src) && src->same_op < i) || st == SRC_PARAM || st == SRC_CONST || st == SRC_INITIALIZER ||
	       st == SRC_CONST_OR_PARAM;
}

/* Op i's link outside the chain: without a from_op, the entry of input 0
 * when it has a same_as (or else a source_type param): the op is looked for
 * among the readers of that tensor (of the graph inputs). -1: it reads op
 * i-1 (or its from_op), as the chain goes. */
int match_outside_link(const fd_rule_op *op, int i)
{
	int k0 = -1;
	for (int k = 0; k < op->n_sources; k++) {
		if (states_from(&op->sources[k]))
			return -1;
		if (op->sources[k].input == 0)
			k0 = k;
	}
	if (k0 < 0)
		return -1;
	const fd_input_source *src = &op->sources[k0];
	return (states_same(src) && src->same_op < i) || stated_type(src) == SRC_PARAM ? k0 : -1;
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
	if (op->conds & COND_BIT(FEEDS)) {   /* the one producer of the input it feeds (link is op feeds_op) */
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

/* Op i linked by entry k (match_outside_link): the readers of the tensor its
 * same_as names, or of every graph input for a param. */
__attribute__((noinline)) static void gather_outside(match_run_state *s, int i, int k, int link)
{
	const fd_rule_op *op = &s->pat->ops[i];
	const fd_input_source *src = &op->sources[k];
	i32_vec *cand = &s->cand[i];
	cand->n = 0;
	if (states_same(src)) {
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
	fd_reason r = cond_check_event(EV_OPERAND, c.input->conds, &c, NULL);
	if (quiet)
		return r == REASON_NONE;   /* the caller takes its names back */
	cond_event_payload p = { .operand = { .slot = slot, .tensor = t, .bound = c.bound } };
	uint32_t ev = match_emit_cond(s, EV_OPERAND, r ? ST_FAIL : ST_PASS, r, i, k, u, &p);
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
	if (t == FD_NONE && (src->conds & COND_BIT(OPTIONAL_INPUT))) {
		if (!quiet) {
			cond_event_payload p = { .source = { .producer = FD_NONE, .tensor = FD_NONE, .slot = slot } };
			match_emit_cond(s, EV_SOURCE, ST_PASS, REASON_NONE, i, k, u, &p);
		}
		++*passed;
		return true;
	}
	/* an entry of operand conditions only (rank, shape, …): its operand event says it all;
	 * optional states nothing of a present tensor */
	bool operand = src->conds & s->rows.operand;
	if (!(src->conds & s->rows.source & ~COND_BIT(OPTIONAL_INPUT)) && t != FD_NONE)
		return !operand || check_operand(s, i, u, k, slot, t, passed, quiet);
	fd_cond_check c = {
		.ctx = s->ctx, .graph = s->gi, .g = s->g, .ix = s->ix, .rule = s->r, .op = &s->pat->ops[i], .op_index = i,
		.input = src, .source_index = k, .unit = u, .tensor = t, .slot = slot, .run = s,
	};
	fd_reason why = cond_check_event(EV_SOURCE, src->conds, &c, NULL);
	bool ok = why == REASON_NONE;
	if (!quiet) {
		c.payload.source.tensor = t;
		c.payload.source.slot = slot;
		uint32_t ev = match_emit_cond(s, EV_SOURCE, ok ? ST_PASS : ST_FAIL, why, i, k, u, &c.payload);
		if (!ok)
			match_fail(s, ev, why, i, *passed);
	}
	if (!ok)
		return false;
	++*passed;
	return !operand || check_operand(s, i, u, k, slot, t, passed, quiet);
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
	cond_event_payload p = { .source = { .producer = prev, .tensor = t, .slot = slot } };
	uint32_t ev = match_emit_cond(s, EV_SOURCE, ok ? ST_PASS : ST_FAIL, ok ? REASON_NONE : REASON_NM04_SOURCE,
	                              i, link == i - 1 ? -1 : -3 - link, u, &p);
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
	if (!cond_check_event(EV_ORDER, COND_BIT(POSITION), &c, NULL))
		return;
	cond_event_payload p = { .order = { .swapped = 1 } };
	uint32_t ev = match_emit_cond(s, EV_ORDER, ST_FAIL, REASON_NM14_POSITION, i, -1, u, &p);
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
	if (i && match_outside_link(op, i) >= 0)
		from = via >= 0 ? s->g->tensors[via].producer : FD_NONE;
	cond_event_payload p = { .type = { .follows = from, .reached_by = via } };
	ev = match_emit_cond(s, EV_TYPE, why ? ST_FAIL : ST_PASS, why, i, -1, u, &p);
	if (why) {
		/* another type where an optional op could be is its absence, not a failure */
		if (!op->optional)
			match_fail(s, ev, why, i, passed);
		return false;
	}
	s->type_alt[i] = (int8_t)cc->sub;
	int op_id = cc->op_id;
	passed++;
	/* the op's own rows before its inputs', in list order (its optional is
	 * the search's: skip_optional) */
	if ((op->conds & s->rows.op_before) && !match_check_rows(s, op->conds & s->rows.op_before, i, i, cc, &passed))
		return false;
	/* a producer is linked by its feeds, an op placed by where its inputs
	 * come from by them: no chain link to check */
	bool has_from = (op->conds & COND_BIT(FEEDS)) || (i > 0 && match_outside_link(op, i) >= 0 && inputs_all_placed(s, op, i, u));
	for (int k = 0; k < op->n_sources; k++)
		if (states_from(&op->sources[k]))
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
			cond_event_payload p = { .order = { .swapped = 1 } };
			match_emit_cond(s, EV_ORDER, ST_INFO, REASON_NONE, i, -1, u, &p);
		}
		if (!check_order(s, i, link, u, order == 1, has_from, &p2)) {
			if (binary && op->has_fixed)
				diagnose_fixed(s, i, u, passed);
			continue;
		}
		/* the op's rows after its inputs' (its group, and the group in
		 * s->group for the cover when it holds) */
		if ((op->conds & s->rows.op_after) && !match_check_rows(s, op->conds & s->rows.op_after, i, i, cc, &p2))
			break;
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

/* No node produces the input op i feeds (an initializer, a graph input),
 * or its producer is an earlier op of this match already: its feeds
 * condition fails on the op it would feed. */
__attribute__((noinline)) static uint32_t feeds_none(match_run_state *s, int i, int link)
{
	const fd_rule_op *op = &s->pat->ops[i];
	int32_t lu = s->units[link];
	int slot = op->feeds_input;
	if (s->swapped[op->feeds_op] && slot < 2)
		slot ^= 1;
	int32_t t = s->units[op->feeds_op] == lu ? unit_input(s, lu, slot) : FD_NONE;
	/* its producer taken by earlier op m: produces -1 - m (cond_feeds.c words it) */
	int32_t p0 = t != FD_NONE ? s->g->tensors[t].producer : FD_NONE;
	int m = p0 >= 0 ? assigned_to(s, i, p0, lu) : -1;
	cond_event_payload p = { .feeds = { .owner = lu, .tensor = t, .produces = m >= 0 ? -1 - m : 0 } };
	return match_emit_cond(s, EV_FEEDS, ST_FAIL, REASON_NM04_SOURCE, i, -1, lu, &p);
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
	if (!s->exhausted && !s->settled && s->complete_count == completes)
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
	int outside = match_outside_link(op, i);
	if (outside >= 0)
		gather_outside(s, i, outside, link);
	else
		gather(s, i, link);
	i32_vec *cand = &s->cand[i];
	if (cand->n == 0) {
		if (op->optional)
			return skip_optional(s, i, link);
		cond_event_payload none = { .source = { .producer = FD_NONE, .linked_op = link } };
		uint32_t ev = op->conds & COND_BIT(FEEDS) ? feeds_none(s, i, link)
		            : match_emit_cond(s, EV_SOURCE, ST_FAIL, REASON_NM04_SOURCE, i, -2, s->units[link], &none);
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
		if (s->exhausted || s->settled)
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
	if (op->optional && s->complete_count < max && !s->settled)
		return skip_optional(s, i, link);
	return false;
}

/* One alternative of an attempt, from its anchor (s->pat and s->branch
 * set): the memo is off until MEMO_AFTER steps in (or as opt->memo says). */
bool match_search_pattern(match_run_state *s)
{
	s->memo.on = false;
	switch (s->opt->memo) {
	case MATCH_MEMO_OFF: s->memo_at = UINT64_MAX; break;
	case MATCH_MEMO_AT_ONCE: s->memo_at = s->steps + 1; break;
	default: s->memo_at = s->steps + MEMO_AFTER; break;
	}
	s->complete_count = 0;
	s->binds.n = 0;
	return search(s, 0);
}
