/* match_checks.c — the checks of one pattern op on one candidate unit that
 * only rules of the language beyond the seed ask for, off the search's hot
 * path (match.c calls them when an op has them): its outputs conditions and
 * where expressions after its params (their entries decide, here are their
 * events), and, when a position: fixed op's
 * sources fail, whether they would hold swapped (FD-NM14). */
#include "match/match_internal.h"

/* position: fixed, and the sources failed as they stand: would they hold
 * swapped? Then that is the reason (FD-NM14), deeper than the failure seen. */
void match_diagnose_fixed(match_run_state *s, int i, int32_t u, uint32_t passed)
{
	const fd_rule_op *op = &s->pat->ops[i];
	uint32_t quiet_passed = 0;
	size_t mark = s->binds.n;
	bool swapped_holds = true;
	for (int k = 0; k < op->n_sources && swapped_holds; k++)
		swapped_holds = match_check_source(s, i, u, k, true, &quiet_passed, true);
	s->binds.n = mark;
	if (!swapped_holds)
		return;
	uint32_t ev = match_emit(s, EV_ORDER, ST_FAIL, REASON_NM14_POSITION, i, -1, u, FD_NONE, 1, 0);
	match_fail(s, ev, REASON_NM14_POSITION, i, passed + quiet_passed);
}

/* The outputs conditions and where expressions of op i on c's unit, after
 * its params: decided by their entries, one event for each expression. */
bool match_check_op_conditions(match_run_state *s, int i, fd_cond_check *c, uint32_t *passed)
{
	const fd_rule_op *op = &s->pat->ops[i];
	int32_t u = c->unit;
	if (op->graph_output >= 0 || op->min_consumers >= 0 || op->max_consumers >= 0) {
		fd_reason r = cond_outputs_check(c, NULL);
		uint32_t ev = match_emit(s, EV_OUTPUT, r ? ST_FAIL : ST_PASS, r, i, -1, u, FD_NONE, c->a, c->b);
		if (r) {
			match_fail(s, ev, r, i, *passed);
			return false;
		}
		++*passed;
	}
	if (op->n_where) {
		fd_reason r = cond_where_check(c, NULL);
		for (int w = 0; w < c->sub; w++, ++*passed)
			match_emit(s, EV_WHERE, ST_PASS, REASON_NONE, i, w, u, FD_NONE, 0, 0);
		if (r) {
			uint32_t ev = match_emit(s, EV_WHERE, ST_FAIL, r, i, c->sub, u, FD_NONE, 0, 0);
			match_fail(s, ev, r, i, *passed);
			return false;
		}
	}
	return true;
}
