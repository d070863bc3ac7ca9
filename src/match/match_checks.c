/* match_checks.c — the checks of one pattern op on one candidate unit that
 * only rules of the language beyond the seed ask for, off the search's hot
 * path (match.c calls them when an op has them): the input it feeds, its outputs conditions and
 * where expressions after its params (their entries decide, here are their
 * events). */
#include "match/match_internal.h"

/* The outputs conditions and where expressions of op i on c's unit, after
 * its params: decided by their entries, one event for each expression. */
bool match_check_op_conditions(match_run_state *s, int i, fd_cond_check *c, uint32_t *passed)
{
	const fd_rule_op *op = &s->pat->ops[i];
	int32_t u = c->unit;
	if (op->feeds_op >= 0) {
		fd_reason r = cond_feeds_check(c, NULL);
		uint32_t ev = match_emit(s, EV_FEEDS, r ? ST_FAIL : ST_PASS, r, i, -1, u, c->other, c->a, c->b);
		if (r) {
			match_fail(s, ev, r, i, *passed);
			return false;
		}
		++*passed;
	}
	if (op->graph_output >= 0 || op->min_consumers >= 0 || op->max_consumers >= 0 || op->output_count >= 0 ||
	    op->n_not_read_by) {
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
		int64_t off = 0, n = 0;
		if (op->where_ops && i > 0 && !s->opt->no_events) {
			/* the earlier ops' units and op ids, for the words of opJ.NAME */
			int32_t path[2 * MATCH_MAX_OPS];
			for (int j = 0; j < i; j++) {
				const fd_rule_op *oj = &s->pat->ops[j];
				int alt = s->type_alt[j];
				path[j] = s->units[j];
				path[i + j] = alt >= 0 && alt < oj->n_types ? oj->ops[alt] : oj->op;
			}
			n = 2 * i;
			off = s->sink.path(s->sink.ctx, path, (uint32_t)n);
		}
		for (int w = 0; w < c->sub; w++, ++*passed)
			match_emit(s, EV_WHERE, ST_PASS, REASON_NONE, i, w, u, FD_NONE, off, n);
		if (r) {
			uint32_t ev = match_emit(s, EV_WHERE, ST_FAIL, r, i, c->sub, u, FD_NONE, off, n);
			match_fail(s, ev, r, i, *passed);
			return false;
		}
	}
	return true;
}
