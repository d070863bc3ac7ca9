/* match_checks.c — the checks of one pattern op on one candidate unit that
 * only rules of the language beyond the seed ask for, off the search's hot
 * path (match.c calls them when an op has them): its outputs conditions and
 * where expressions after its params, and, when a position: fixed op's
 * sources fail, whether they would hold swapped (FD-NM14). */
#include "match/match_internal.h"

/* The where expressions and outputs conditions of op i on u, after its params. */
bool match_check_op_conditions(match_run_state *s, int i, int32_t u, int op_id, uint32_t *passed)
{
	const fd_rule_op *op = &s->pat->ops[i];
	if (op->graph_output >= 0 || op->min_consumers >= 0 || op->max_consumers >= 0) {
		int64_t consumers;
		int32_t gout;
		fd_reason r = match_outputs(s, op, u, &consumers, &gout);
		uint32_t ev = match_emit(s, EV_OUTPUT, r ? ST_FAIL : ST_PASS, r, i, -1, u, FD_NONE, consumers, gout);
		if (r) {
			match_fail(s, ev, r, i, *passed);
			return false;
		}
		++*passed;
	}
	for (int w = 0; w < op->n_where; w++) {
		bool ok = match_where_eval(s->ctx, s->gi, u, op_id, op->where_exprs[w], NULL, 0) == 1;
		uint32_t ev = match_emit(s, EV_WHERE, ok ? ST_PASS : ST_FAIL, ok ? REASON_NONE : REASON_NM16_WHERE, i, w, u,
		                         FD_NONE, 0, 0);
		if (!ok) {
			match_fail(s, ev, REASON_NM16_WHERE, i, *passed);
			return false;
		}
		++*passed;
	}
	return true;
}
