/* match_checks.c — the rows of the condition list a run checks on its own
 * (an op's, past its type; the subgraph's): each stated row in list order,
 * decided by cond_check_event, its events emitted here from what the check
 * measured (c->sub, c->payload). A row of several items (params,
 * where) has an event for each item that held before the one that decided. */
#include "match/match_internal.h"

bool match_check_rows(match_run_state *s, uint64_t rows, int op, int depth, fd_cond_check *c, uint32_t *passed)
{
	for (int k = 0; k < COND_COUNT; k++) {
		if (!(rows >> k & 1))
			continue;
		const fd_cond_def *d = cond_def((fd_cond_kind)k);
		c->sub = -1;
		c->payload = cond_event_empty(d->event);
		c->held = 0;
		fd_reason r = cond_check_event(d->event, (uint64_t)1 << k, c, NULL);
		for (int item = 0; item < c->held; item++, ++*passed)
			match_emit_cond(s, d->event, ST_PASS, REASON_NONE, op, item, c->unit, &c->payload);
		if (r) {
			uint32_t ev = match_emit_cond(s, d->event, ST_FAIL, r, op, c->sub, c->unit, &c->payload);
			match_fail(s, ev, r, depth, *passed);
			return false;
		}
		if (!c->held) {
			match_emit_cond(s, d->event, ST_PASS, REASON_NONE, op, c->sub, c->unit, &c->payload);
			++*passed;
		}
	}
	return true;
}
