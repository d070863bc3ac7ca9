/* nearest_misses.c — when no rule fired anywhere, where to look first: the
 * attempts that got furthest, so that the first screen of the TUI and
 * `match` point somewhere instead of at an empty list of fusions. */
#include <stdlib.h>
#include "explain/explain.h"
#include "base/text.h"

static _Thread_local const fd_match_result *order_r;   /* qsort's comparator */

/* Deeper first; of equal depth, the earlier attempt (load and topo order). */
static int cmp_deeper(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint32_t sa = order_r->trace.attempts[a].score, sb = order_r->trace.attempts[b].score;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	return (a > b) - (a < b);
}

size_t explain_nearest_misses(const fd_match_result *r, uint32_t *idx, size_t max)
{
	uint32_t *all = xmalloc((r->trace.n_attempts + 1) * sizeof *all);
	size_t n_all = 0, n = 0;
	for (size_t i = 0; i < r->trace.n_attempts; i++)
		if (r->trace.attempts[i].anchor >= 0 && r->trace.attempts[i].rung != RUNG_FIRED)
			all[n_all++] = (uint32_t)i;
	order_r = r;
	qsort(all, n_all, sizeof *all, cmp_deeper);
	/* one line per rule and reason: the same miss on three alike blocks
	 * teaches once */
	for (size_t i = 0; i < n_all && n < max; i++) {
		const fd_attempt *a = &r->trace.attempts[all[i]];
		bool seen = false;
		for (size_t k = 0; k < n && !seen; k++)
			seen = r->trace.attempts[idx[k]].rule == a->rule && r->trace.attempts[idx[k]].reason == a->reason;
		if (!seen)
			idx[n++] = all[i];
	}
	free(all);
	return n;
}
