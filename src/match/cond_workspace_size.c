/* cond_workspace_size.c — constraint workspace_size: the workspace the
 * match's nodes need (workspace_estimate, summed) within max_workspace; over
 * it with spill_to_l2 is a warning (FD-WN03, it spills) instead of a
 * failure. A node whose workspace waits on a binding ends the attempt
 * "unknown: depends on …"; one nothing knows passes undecided. Its parse,
 * check and words. */
#include "base/text.h"
#include "match/cond_constraint.h"
#include "match/match_internal.h"

bool cond_workspace_size_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	int before = s->errors;
	fd_constraint *c = at->constraint;
	cond_parse_bytes(s, v, path, "max_workspace", &c->max_workspace);
	if (!yval_get(v, "max_workspace"))
		ERR(s, v, "%s: workspace_size needs 'max_workspace'", path);
	const fd_yval *f = yval_get(v, "spill_to_l2");
	if (f) {
		char p[256];
		snprintf(p, sizeof p, "%.200s.spill_to_l2", path);
		schema_bool(s, f, p, &c->spill_to_l2);
	}
	return s->errors == before;
}

/* The run: a = the total of the nodes known, b = the limit; unit the
 * largest node (or the first unknown, or the one that waits). */
static fd_event measure(fd_cond_check *c)
{
	const match_run_state *s = c->run;
	const fd_constraint *k = c->constraint;
	int64_t total = 0;
	int32_t unknown = FD_NONE, top = FD_NONE, waits = FD_NONE;
	int64_t top_bytes = -1;
	for (size_t i = 0; i < s->cover.nodes.n; i++) {
		int32_t node = s->cover.nodes.items[i];
		bool known = true;
		const fd_node *n = &s->g->nodes[node];
		int64_t w = workspace_estimate(s->g, n, &known);
		if (!known) {
			bool wait = false;
			for (int q = 0; q < n->n_inputs && !wait; q++)
				wait = n->inputs[q] >= 0 && cond_shape_waits(&s->g->tensors[n->inputs[q]].shape);
			for (int q = 0; q < n->n_outputs && !wait; q++)
				wait = n->outputs[q] >= 0 && cond_shape_waits(&s->g->tensors[n->outputs[q]].shape);
			if (wait && waits == FD_NONE)
				waits = node;
			else if (!wait && unknown == FD_NONE)
				unknown = node;
			continue;
		}
		total += w;
		if (w > top_bytes) {
			top_bytes = w;
			top = node;
		}
	}
	if (k->max_workspace >= 0 && total > k->max_workspace) {
		if (k->spill_to_l2)
			return cond_constraint_emit(c, ST_WARN, REASON_WN03_SPILL, -1, top, FD_NONE, total, k->max_workspace);
		return cond_constraint_emit(c, ST_FAIL, REASON_CF04_WORKSPACE, -1, top, FD_NONE, total, k->max_workspace);
	}
	if (waits != FD_NONE && k->max_workspace >= 0) {
		const fd_node *n = &s->g->nodes[waits];
		return cond_constraint_unbound(c, -1, waits, n->n_outputs > 0 ? n->outputs[0] : FD_NONE, total,
		                               k->max_workspace);
	}
	return cond_constraint_pass(c, unknown != FD_NONE || waits != FD_NONE, -1,
	                            unknown != FD_NONE ? unknown : waits != FD_NONE ? waits : top, FD_NONE, total,
	                            k->max_workspace);
}

static void words(const fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_event *ev = c->ev;
	const fd_graph *g = c->g;
	if (c->constraint->max_workspace >= 0)
		cond_workspace_size_describe(c, facts->expected, sizeof facts->expected);
	if (ev->reason == REASON_CF06_UNBOUND) {
		const fd_node *wn = &g->nodes[ev->unit];
		int64_t ts[16];
		int n = 0;
		for (int q = 0; q < wn->n_inputs && n < 16; q++)
			ts[n++] = wn->inputs[q];
		for (int q = 0; q < wn->n_outputs && n < 16; q++)
			ts[n++] = wn->outputs[q];
		text_cutf(facts->actual, sizeof facts->actual, "%s workspace unknown", wn->name);
		cond_unbound_words(g, ts, n, "", facts->reason_text, sizeof facts->reason_text);
		return;
	}
	char a[64];
	cond_bytes_words(c->payload.constraint.measured, a, sizeof a);
	text_cutf(facts->actual, sizeof facts->actual, "%s%s", a,
	          ev->status == ST_WARN && ev->reason == REASON_WN02_UNDECIDED ? " (some unknown)" : "");
	if (ev->reason == REASON_WN03_SPILL)
		text_cut(facts->reason_text, sizeof facts->reason_text,
		         "over max_workspace, spills to L2 (spill_to_l2: true)");
}

fd_reason cond_workspace_size_check(fd_cond_check *c, fd_cond_facts *facts)
{
	fd_event ran;
	const fd_event *ev = c->run ? (ran = measure(c), &ran) : c->ev;
	return cond_constraint_decided(c, ev, facts, "max_workspace", words);
}

/* "<= 64.0 KiB (65536)" */
void cond_workspace_size_describe(const fd_cond_check *c, char *buf, size_t size)
{
	char b[64];
	cond_bytes_words(c->constraint->max_workspace, b, sizeof b);
	text_join(buf, size, 3, "<= ", b, "");
}
