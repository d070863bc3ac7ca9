/* cond_subgraph.c — the conditions of match.subgraph, measured on a
 * complete match (the run's cover, match_subgraph.c): allow_intermediate_outputs
 * (no tensor made inside is read outside, unless the rule allows it: the
 * seed's default is false, so its check runs for every rule that does not
 * write true), input_count_range (the external non-constant inputs) and
 * output_count (the tensors leaving the match). Each reads its key, decides
 * on the cover in a run (c->unit and its event's c->payload) and
 * says the recorded event in words. */
#include "match/conditions.h"
#include <stdio.h>
#include "base/text.h"
#include "match/cond_text.h"
#include "match/match_internal.h"

/* The facts every subgraph row starts from: the subgraph map decided. */
static void begin_facts(const fd_cond_check *c, fd_cond_facts *f, const char *key)
{
	cond_facts_clear(f);
	f->reason = c->ev->status == ST_FAIL ? (fd_reason)c->ev->reason : REASON_NONE;
	f->decided = c->rule->subgraph_where;
	snprintf(f->path, sizeof f->path, "%s", key);
}

/* ---- allow_intermediate_outputs --------------------------------------------------- */

bool cond_intermediate_outputs_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	bool b;
	if (!schema_bool(s, v, path, &b))
		return false;
	at->rule->allow_intermediate_outputs = b;
	at->states = !b;   /* true: nothing to check */
	return true;
}

void cond_intermediate_outputs_describe(const fd_cond_check *c, char *buf, size_t size)
{
	(void)c;
	text_cut(buf, size, "used only inside the match");
}

/* A run: the first tensor made inside and read outside, its producer's
 * unit and the reader (FD_NONE: a graph output). */
fd_reason cond_intermediate_outputs_check(fd_cond_check *c, fd_cond_facts *f)
{
	if (c->run) {
		match_run_state *s = c->run;
		c->unit = c->payload.escape.consumer = FD_NONE;
		c->payload.escape.tensor = -1;
		if (!s->cover.escapes.n)
			return REASON_NONE;
		int32_t t = s->cover.escapes.items[0];
		c->payload.escape.consumer = match_outside_consumer(s, t);
		c->unit = match_unit_of_node(s, c->op_index, s->g->tensors[t].producer);
		c->payload.escape.tensor = t;
		return REASON_NM05_ESCAPE;
	}
	const fd_event *ev = c->ev;
	if (!f)
		return ev->status == ST_FAIL ? (fd_reason)ev->reason : REASON_NONE;
	begin_facts(c, f, "allow_intermediate_outputs");
	cond_intermediate_outputs_describe(c, f->expected, sizeof f->expected);
	const fd_graph *g = c->g;
	int32_t reader = c->payload.escape.consumer;
	int64_t t = c->payload.escape.tensor;
	if (ev->status != ST_FAIL)
		text_cut(f->actual, sizeof f->actual, "none escapes");
	else if (reader >= 0)
		text_cutf(f->actual, sizeof f->actual, "%s also read by %s (%s)", cond_tensor_name(g, t),
		          g->nodes[reader].name, g->nodes[reader].op_type);
	else
		text_cutf(f->actual, sizeof f->actual, "%s is a graph output", cond_tensor_name(g, t));
	if (ev->status == ST_FAIL)
		text_cut(f->reason_text, sizeof f->reason_text, "intermediate escapes (allow_intermediate_outputs: false)");
	return f->reason;
}

/* ---- input_count_range ------------------------------------------------------------ */

bool cond_input_count_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	char b[128], q[320];
	int lo, hi;
	if (v->kind != YV_SEQ || v->n != 2) {
		ERR(s, v, "%s: expected [min, max], got %s", path,
		    v->kind == YV_SEQ ? "a list of another length" : schema_describe(v, b, sizeof b));
		return false;
	}
	snprintf(q, sizeof q, "%.300s[0]", path);
	if (!schema_small_int(s, v->items[0], q, 0, &lo))
		return false;
	snprintf(q, sizeof q, "%.300s[1]", path);
	if (!schema_small_int(s, v->items[1], q, 0, &hi))
		return false;
	if (lo > hi) {
		ERR(s, v, "%s: lower bound %d > upper bound %d", path, lo, hi);
		return false;
	}
	at->rule->input_count_min = lo;
	at->rule->input_count_max = hi;
	return true;
}

void cond_input_count_describe(const fd_cond_check *c, char *buf, size_t size)
{
	text_cutf(buf, size, "[%d, %d]", c->rule->input_count_min, c->rule->input_count_max);
}

/* A run: the external inputs that are no constant. */
fd_reason cond_input_count_check(fd_cond_check *c, fd_cond_facts *f)
{
	const fd_rule *r = c->rule;
	if (c->run) {
		const match_run_state *s = c->run;
		int64_t k = 0;
		for (size_t i = 0; i < s->cover.inputs.n; i++)
			if (!(s->ix->tflags[s->cover.inputs.items[i]] & TF_CONST))
				k++;
		c->unit = FD_NONE;
		c->payload.inputs.external = k;
		return k >= r->input_count_min && k <= r->input_count_max ? REASON_NONE : REASON_NM06_COUNTS;
	}
	const fd_event *ev = c->ev;
	if (!f)
		return ev->status == ST_FAIL ? (fd_reason)ev->reason : REASON_NONE;
	begin_facts(c, f, "input_count_range");
	cond_input_count_describe(c, f->expected, sizeof f->expected);
	text_cutf(f->actual, sizeof f->actual, "%lld external inputs", (long long)c->payload.inputs.external);
	if (ev->status == ST_FAIL)
		text_cut(f->reason_text, sizeof f->reason_text, "external (non-constant) input count outside the range");
	return f->reason;
}

/* ---- output_count ----------------------------------------------------------------- */

bool cond_output_count_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	return schema_small_int(s, v, path, 1, &at->rule->output_count);
}

void cond_output_count_describe(const fd_cond_check *c, char *buf, size_t size)
{
	text_cutf(buf, size, "%d", c->rule->output_count);
}

/* A run: the outputs of the match and the count written. */
fd_reason cond_output_count_check(fd_cond_check *c, fd_cond_facts *f)
{
	if (c->run) {
		c->unit = FD_NONE;
		c->payload.outputs.counted = (int64_t)c->run->cover.outputs.n;
		c->payload.outputs.written = c->rule->output_count;
		return c->payload.outputs.counted == c->payload.outputs.written ? REASON_NONE : REASON_NM06_COUNTS;
	}
	const fd_event *ev = c->ev;
	if (!f)
		return ev->status == ST_FAIL ? (fd_reason)ev->reason : REASON_NONE;
	begin_facts(c, f, "output_count");
	text_cutf(f->expected, sizeof f->expected, "%lld", (long long)c->payload.outputs.written);
	text_cutf(f->actual, sizeof f->actual, "%lld", (long long)c->payload.outputs.counted);
	if (ev->status == ST_FAIL)
		text_cut(f->reason_text, sizeof f->reason_text, "output count differs");
	return f->reason;
}
