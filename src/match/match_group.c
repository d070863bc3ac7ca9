/* match_group.c — a complete op chain whose pattern has a group of
 * siblings (cond_siblings.c found the members): the ops after the group op
 * that each member has its own of (each_member: a QuantizeLinear after each
 * Slice) matched for every member but the candidate, whose own the search
 * found. For a member, each such op is the first reader of its link (the
 * member, or the member's op before) that meets the op's conditions, read
 * with the member in the group op's place; there is no backtracking among
 * them. The result is the group's units, member by member, for the cover
 * (match_subgraph.c). */
#include <string.h>
#include "match/match_internal.h"

/* The position op j (each_member) reads through: its latest from_op, or
 * the op before it. */
static int link_of(const fd_rule_op *op, int j)
{
	int l = -1;
	for (int k = 0; k < op->n_sources; k++)
		if ((op->sources[k].conds & COND_BIT(FROM_OP)) && op->sources[k].from_op < j && op->sources[k].from_op > l)
			l = op->sources[k].from_op;
	return l >= 0 ? l : j - 1;
}

/* Unit u is one of the match's already: the chain's or a member's. */
static bool taken(const match_run_state *s, int n, const int32_t *chain, int32_t u)
{
	for (int i = 0; i < n; i++)
		if (chain[i] == u || s->units[i] == u)
			return true;
	for (size_t q = 0; q < s->group.n; q++)
		if (s->group.items[q] == u)
			return true;
	for (size_t q = 0; q < s->group_units.n; q++)
		if (s->group_units.items[q] == u)
			return true;
	return false;
}

/* Op j's unit for the member now in the group op's place: FD_NONE, *why
 * the last reader's failure, when none fits. */
static int32_t own_op(match_run_state *s, int j, int n, const int32_t *chain, fd_reason *why)
{
	int32_t lu = s->units[link_of(&s->pat->ops[j], j)];
	*why = REASON_NM04_SOURCE;
	for (int k = 0; k < unit_n_outputs(s, lu); k++) {
		int32_t t = unit_output(s, lu, k);
		if (t < 0)
			continue;
		const fd_tensor *x = &s->g->tensors[t];
		for (int q = 0; q < x->n_consumers; q++) {
			int32_t c = x->consumers[q];
			if (taken(s, n, chain, c))
				continue;
			fd_reason r = cond_siblings_unit_fails(s, j, c);
			if (!r)
				return c;
			*why = r;
		}
	}
	return FD_NONE;
}

bool match_group_complete(match_run_state *s, int n, uint32_t passed)
{
	const fd_rule_pattern *p = s->pat;
	int g = p->group;
	int32_t chain[MATCH_MAX_OPS];
	bool swapped[MATCH_MAX_OPS];
	memcpy(chain, s->units, (size_t)n * sizeof *chain);
	memcpy(swapped, s->swapped, (size_t)n * sizeof *swapped);
	s->group_units.n = 0;
	bool ok = true;
	for (size_t q = 0; q < s->group.n && ok; q++) {
		int32_t m = s->group.items[q];
		vec_push(&s->group_units, m);
		s->units[g] = m;
		s->swapped[g] = false;
		for (int j = g + 1; j < n; j++) {
			if (!p->ops[j].each_member)
				continue;
			if (m == chain[g]) {   /* the candidate: the search found its own */
				vec_push(&s->group_units, chain[j]);
				continue;
			}
			fd_reason why;
			int32_t u = own_op(s, j, n, chain, &why);
			if (u == FD_NONE) {
				cond_event_payload p = { .siblings = { .who = m, .follower_op = j, .detail = why } };
				uint32_t ev = match_emit_cond(s, EV_SIBLINGS, ST_FAIL, REASON_NM24_SIBLINGS, g, SIB_FOLLOWER, chain[g],
				                              &p);
				match_fail(s, ev, REASON_NM24_SIBLINGS, n, passed);
				ok = false;
				break;
			}
			s->units[j] = u;
			s->swapped[j] = false;
			vec_push(&s->group_units, u);
		}
	}
	memcpy(s->units, chain, (size_t)n * sizeof *chain);
	memcpy(s->swapped, swapped, (size_t)n * sizeof *swapped);
	return ok;
}
