/* why_rounds.c — "why did rule R (not) fire on node N?" across the rounds
 * of a run (explain_rounds_why, for `why` and the TUI): each round's answer
 * (explain_why_in_round over the node N had become in that round: its line
 * names the round), the round that answers, and the words for how the nodes
 * involved were made. */
#include <stdio.h>
#include <string.h>
#include "explain/explain.h"

static bool one_round(const fd_rounds *rd)
{
	return rd->n == 1 && rd->n_passes == 1 && !rd->pass_file;
}

static void append(char *line, size_t size, const char *text)
{
	size_t n = strlen(line);
	if (n < size)
		snprintf(line + n, size - n, "%s", text);
}

/* "; fused_conv1 (ConvBN) was made from … in round 1" for a made node. */
static void append_origin(const fd_rounds *rd, int32_t round, int32_t graph, int32_t node, char *line, size_t size)
{
	char o[1024];
	if (!explain_rounds_origin(rd, round, graph, node, o, sizeof o))
		return;
	append(line, size, "; ");
	append(line, size, o);
}

/* The first round in which another rule fused the node (then its words). */
static bool fused_by_other(const fd_rounds *rd, int32_t rule, int32_t graph, int32_t node, char *buf, size_t size)
{
	for (int32_t k = 1; k <= rd->n; k++) {
		const fd_match_result *r = rd->items[k - 1]->result;
		int32_t u = rounds_node_in(rd, k, graph, node);
		if (u < 0 || r->claim[graph][u] < 0)
			continue;
		const fd_fusion *fu = &r->fusions[r->claim[graph][u]];
		if (fu->rule == rule)
			return false;
		const fd_rule *by = &rd->rules->rules[fu->rule];
		snprintf(buf, size, "; in round %d %s was fused by %s (into %s)", (int)k,
		         rd->items[0]->model->graphs[graph].nodes[node].name, by->name, by->target_op ? by->target_op : "?");
		return true;
	}
	return false;
}

void explain_rounds_why(const fd_rounds *rd, int32_t rule, int32_t graph, int32_t node, fd_rounds_why *out)
{
	memset(out, 0, sizeof *out);
	out->why.attempt = out->why.decisive = UINT32_MAX;
	if (rd->n == 0)
		return;
	if (one_round(rd)) {
		out->round = 1;
		out->node = node;
		explain_why(rd->items[0]->result, rule, graph, node, &out->why);
		out->fired = out->why.fired;
		snprintf(out->line, sizeof out->line, "%s", out->why.line);
		return;
	}
	if (rule >= 0 && rd->rule_pass[rule] < 0) {
		out->why.kind = WHY_NOT_RUN;
		snprintf(out->line, sizeof out->line, "why: %s did not run: the pass list %s puts it in no pass",
		         rd->rules->rules[rule].name, rd->pass_file ? rd->pass_file : "");
		return;
	}
	/* per round: the first that fired, else the last attempt that reached
	 * the node, else the first not-run record, else the first round at all */
	int32_t fired = 0, attempt = 0, not_run = 0, any = 0, last_ran = 0;
	fd_why w[3];   /* fired / attempt / other */
	memset(w, 0, sizeof w);
	for (int32_t k = 1; k <= rd->n && !fired; k++) {
		const fd_round *r = rd->items[k - 1];
		if (rule >= 0 && !r->ran[rule])
			continue;
		int32_t u = rounds_node_in(rd, k, graph, node);
		if (u < 0)
			continue;
		last_ran = k;
		fd_why one;   /* its line says "in round k" */
		explain_why_in_round(r->result, k, rule, graph, u, &one);
		if (one.fired) {
			fired = k;
			w[0] = one;
		} else if (one.kind == WHY_ATTEMPT) {
			attempt = k;
			w[1] = one;
		} else if ((one.kind == WHY_NOT_RUN && !not_run) || (!not_run && !any)) {
			if (one.kind == WHY_NOT_RUN)
				not_run = k;
			any = k;
			w[2] = one;
		}
	}
	for (int32_t k = last_ran + 1; rule >= 0 && k <= rd->n; k++)
		if (rd->items[k - 1]->ran[rule] && rounds_node_in(rd, k, graph, node) >= 0)
			last_ran = k;
	out->round = fired ? fired : attempt ? attempt : any;
	out->why = fired ? w[0] : attempt ? w[1] : w[2];
	if (!out->round) {
		snprintf(out->line, sizeof out->line, "why: %s ran in no round", rule >= 0 ? rd->rules->rules[rule].name : "no rule");
		return;
	}
	out->fired = out->why.fired;
	out->node = rounds_node_in(rd, out->round, graph, node);
	snprintf(out->line, sizeof out->line, "%s", out->why.line);
	const fd_round *r = rd->items[out->round - 1];
	append_origin(rd, out->round, graph, out->node, out->line, sizeof out->line);
	if (out->why.attempt != UINT32_MAX) {
		const fd_attempt *a = &r->result->trace.attempts[out->why.attempt];
		int32_t anchor = a->anchor >= 0 ? match_unit_node(r->ctx, a->graph, a->anchor) : FD_NONE;
		if (anchor >= 0 && anchor != out->node)
			append_origin(rd, out->round, graph, anchor, out->line, sizeof out->line);
	}
	if (out->fired)
		return;
	char other[512], made[8];
	if (rule >= 0 && !explain_rounds_origin(rd, out->round, graph, out->node, made, sizeof made) &&
	    fused_by_other(rd, rule, graph, node, other, sizeof other))
		append(out->line, sizeof out->line, other);
	if (out->round < rd->n)
		append(out->line, sizeof out->line, last_ran > out->round ? "; no later round offered it again"
		                                                          : "; no later round ran the rule (it names no type a later round made)");
}
