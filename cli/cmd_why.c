/* cmd_why.c — `fusiondbg why MODEL -r RULES --rule R [--node N]`: the
 * attempt that answers for R on N (explain_why, as the TUI's why-not) and its
 * deciding check in one line (expected, actual, code, the rule's
 * file:line), then the attempt's events. Without
 * --node, the rule's record: the anchors it did not fire on, deepest
 * failure first (--limit N), or for a rule without an anchor the nodes
 * nearest to being one. Exit 0 when R fires
 * (on N), 1 when it does not, 2 on bad usage, unknown rule or node.
 * --float (no --rule): in a quantized model, the ops left in float, each
 * with the check that kept it from its integer kernel (explain_why_float);
 * with --node, that op's; exit 1 when some op is left in float.
 * --set / --diff through the session. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "match/match.h"
#include "ruleset/ruleset.h"
#include "session/session.h"
#include "explain/explain.h"
#include "base/text.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg why MODEL -r RULES (--rule NAME | --float) [--node NODE | --limit N]" CLI_USAGE_MODEL
	         CLI_USAGE_WHATIF CLI_USAGE_ROUNDS,
	.allowed = OPT_RULES | OPT_MODEL_COMMON | OPT_RULE | OPT_NODE | OPT_LIMIT | OPT_SET | OPT_DIFF | OPT_ROUNDS |
	           OPT_FLOAT,
	.required = OPT_RULE,
	.needs = "why needs one MODEL and --rule NAME (or --float)",
	.events = true,
};

/* Over rounds (explain_rounds_why): the round that answers, and its attempt. */
/* What the rule set's transpose optimizer did to the node: a removed node's
 * one line (then the rules never saw it), else a note for a changed one. */
static bool why_transposed(const fd_transpose_result *tp, const char *node_name, bool present)
{
	const fd_tpose_event *e = NULL;
	for (size_t k = 0; k < tp->events.n && !e; k++)
		if (!strcmp(tp->events.items[k].node, node_name))
			e = &tp->events.items[k];
	if (!e)
		return false;
	if (!present)
		txt_fprintf(stdout, "why: %s is not in the graph the rules see: %s\n", node_name, e->text);
	else
		txt_fprintf(stdout, "note: %s: %s\n", node_name, e->text);
	return true;
}

/* A node the rule set's common-subexpression elimination merged away
 * before the rules (either pass): its one line. */
static bool why_merged(const fd_session *s, const char *node_name)
{
	const fd_cse_event *e = cse_event_of(&s->cse_first, node_name);
	if (!e)
		e = cse_event_of(&s->cse, node_name);
	if (!e)
		return false;
	txt_fprintf(stdout, "why: %s is not in the graph the rules see: %s\n", node_name, e->text);
	return true;
}

static int why_node(const fd_session *s, const fd_rounds *rd, const fd_transpose_result *tp, int32_t ri,
                    const char *node_name)
{
	const fd_match_result *r = rd->items[0]->result;
	int32_t g, node;
	if (!model_find_node(r->ctx->model, node_name, &g, &node) &&
	    (why_transposed(tp, node_name, false) || why_merged(s, node_name)))
		return EXIT_FINDINGS;
	if (!model_find_node(r->ctx->model, node_name, &g, &node)) {
		char hint[600];
		txt_fprintf(stderr, "fusiondbg: %s: no node named '%s'%s\n", r->ctx->model->path, node_name,
		        explain_node_hint(r->ctx->model, node_name, hint, sizeof hint));
		return EXIT_BAD_INPUT;
	}
	fd_rounds_why rw;
	explain_rounds_why(rd, ri, g, node, &rw);
	txt_fprintf(stdout, "%s\n", rw.line);
	why_transposed(tp, node_name, true);
	if (!rw.round)
		return EXIT_FINDINGS;
	r = rd->items[rw.round - 1]->result;
	fd_why w = rw.why;
	if (w.kind == WHY_ATTEMPT) {
		const fd_attempt *at = &r->trace.attempts[w.attempt];
		if (at->anchor >= 0 && match_unit_node(r->ctx, g, at->anchor) != rw.node) {
			char lab[256];
			txt_fprintf(stdout, "note: %s is not an anchor of %s; this is the deepest attempt that reached it, at %s\n",
			       node_name, r->rules->rules[ri].name,
			       explain_unit_label(r->ctx, g, at->anchor, lab, sizeof lab));
		}
	}
	if (w.attempt != UINT32_MAX)
		explain_attempt_text(stdout, r, w.attempt);
	return w.fired ? EXIT_OK : EXIT_FINDINGS;
}

/* A rule without an anchor: what came nearest (explain_anchor_candidates). */
static int no_anchor(const fd_match_result *r, int32_t ri)
{
	const fd_rule *rule = &r->rules->rules[ri];
	char lines[16][320];
	size_t n = explain_anchor_candidates(r, ri, lines, 16);
	txt_fprintf(stdout, "why: %s had no anchor in the model (no node of op0's type)%s\n", rule->name, n ? ":" : "");
	for (size_t i = 0; i < n; i++)
		txt_fprintf(stdout, "  %s\n", lines[i]);
	return EXIT_FINDINGS;
}

/* Without --node: the rule's record across the model, then the anchors it
 * did not fire on, deepest failure first (at most limit, 0: all), and the
 * detail of the closest. */
static int why_rule(const fd_match_result *r, int32_t ri, int limit)
{
	const fd_rule *rule = &r->rules->rules[ri];
	const fd_rule_stats *st = &r->stats[ri];
	char line[2048];
	for (size_t i = 0; i < r->trace.n_attempts; i++)   /* it did not run at all */
		if (r->trace.attempts[i].rule == ri && r->trace.attempts[i].anchor < 0) {
			txt_fprintf(stdout, "%s\n", explain_why_line(r, (uint32_t)i, line, sizeof line));
			return EXIT_FINDINGS;
		}
	if (st->attempts == 0)
		return no_anchor(r, ri);
	size_t fired = (size_t)(st->effect_times - st->unchanged), n;   /* fusions: not a match that changed nothing */
	uint32_t *miss = explain_misses(r, ri, &n);
	if (fired && !n)
		txt_fprintf(stdout, "%s fired %zu time%s, on every anchor it tried (match_times %lld, attempts %lld)\n", rule->name, fired,
		       fired == 1 ? "" : "s", (long long)st->match_times, (long long)st->attempts);
	else if (fired)
		txt_fprintf(stdout, "%s fired %zu time%s (match_times %lld, attempts %lld); on the other %zu anchor%s, deepest failure "
		       "first:\n", rule->name, fired, fired == 1 ? "" : "s", (long long)st->match_times,
		       (long long)st->attempts, n, n == 1 ? "" : "s");
	else if (st->match_times)   /* matched, then refused: say both, not "never fired (match_times 2" */
		txt_fprintf(stdout, "%s matched %lld time%s but never fired (match_times %lld, effect_times %lld, attempts %lld); "
		       "closest near-misses:\n", rule->name, (long long)st->match_times, st->match_times == 1 ? "" : "s",
		       (long long)st->match_times, (long long)st->effect_times, (long long)st->attempts);
	else
		txt_fprintf(stdout, "%s never fired (match_times %lld, attempts %lld); closest near-misses:\n", rule->name,
		       (long long)st->match_times, (long long)st->attempts);
	size_t shown = limit > 0 && (size_t)limit < n ? (size_t)limit : n;
	for (size_t i = 0; i < shown; i++)
		txt_fprintf(stdout, "%s\n", explain_why_line(r, miss[i], line, sizeof line));
	if (shown < n)
		txt_fprintf(stdout, "... and %zu more (--limit 0 lists them all)\n", n - shown);
	if (n) {
		txt_fprintf(stdout, "\ndetail of the closest:\n");
		explain_attempt_text(stdout, r, miss[0]);
	}
	free(miss);
	return fired ? EXIT_OK : EXIT_FINDINGS;
}

/* An anchor the rule did not fire on, in some round. */
typedef struct ranked {
	int32_t round;
	uint32_t attempt, score;
} ranked;

static int cmp_ranked(const void *pa, const void *pb)
{
	const ranked *a = pa, *b = pb;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->round != b->round ? (a->round < b->round ? -1 : 1) : (a->attempt > b->attempt) - (a->attempt < b->attempt);
}

/* The same over every round: the counts summed, the misses of all rounds
 * ranked together, each line saying its round. */
static int why_rule_rounds(const fd_rounds *rd, int32_t ri, int limit)
{
	const fd_rule *rule = &rd->rules->rules[ri];
	long long fired = 0, match_times = 0, attempts = 0;
	VEC(ranked) all = { 0 };
	for (int32_t k = 0; k < rd->n; k++) {
		const fd_match_result *r = rd->items[k]->result;
		fired += r->stats[ri].effect_times - r->stats[ri].unchanged;
		match_times += r->stats[ri].match_times;
		attempts += r->stats[ri].attempts;
		size_t n;
		uint32_t *miss = explain_misses(r, ri, &n);
		for (size_t i = 0; i < n; i++)
			vec_push(&all, ((ranked){ k + 1, miss[i], r->trace.attempts[miss[i]].score }));
		free(miss);
	}
	if (attempts == 0)
		return no_anchor(rd->items[0]->result, ri);
	if (all.n > 1)
		qsort(all.items, all.n, sizeof *all.items, cmp_ranked);
	if (fired)
		txt_fprintf(stdout, "%s fired %lld time%s (match_times %lld, attempts %lld; in round", rule->name, fired,
		       fired == 1 ? "" : "s", match_times, attempts);
	else if (match_times)
		txt_fprintf(stdout, "%s matched %lld time%s but never fired (match_times %lld, effect_times 0, attempts %lld; in round",
		       rule->name, match_times, match_times == 1 ? "" : "s", match_times, attempts);
	else
		txt_fprintf(stdout, "%s never fired (match_times 0, attempts %lld; in round", rule->name, attempts);
	for (int32_t k = 0, c = 0; k < rd->n; k++)
		if (rd->items[k]->result->stats[ri].effect_times || (!fired && rd->items[k]->result->stats[ri].attempts))
			txt_fprintf(stdout, "%s %d", c++ ? "," : "", (int)k + 1);
	txt_fprintf(stdout, ")%s\n", all.n ? (fired ? "; on the other anchors, deepest failure first:" : "; closest near-misses:") : "");
	char line[2048];
	size_t shown = limit > 0 && (size_t)limit < all.n ? (size_t)limit : all.n;
	for (size_t i = 0; i < shown; i++)
		txt_fprintf(stdout, "[round %d] %s\n", (int)all.items[i].round,
		       explain_why_line(rd->items[all.items[i].round - 1]->result, all.items[i].attempt, line, sizeof line));
	if (shown < all.n)
		txt_fprintf(stdout, "... and %zu more (--limit 0 lists them all)\n", all.n - shown);
	if (all.n) {
		txt_fprintf(stdout, "\ndetail of the closest (round %d):\n", (int)all.items[0].round);
		explain_attempt_text(stdout, rd->items[all.items[0].round - 1]->result, all.items[0].attempt);
	}
	vec_release(&all);
	return fired ? EXIT_OK : EXIT_FINDINGS;
}

/* --float: every op left in float in the quantized graphs, topological
 * order, a line each; or --node's. */
static int why_float(const cli_options *o, const fd_session *s)
{
	const fd_rounds *rd = session_rounds(s);
	const fd_match_result *final = session_final_result(s);
	const fd_model *m = final->ctx->model;
	char line[2048];
	if (o->node) {
		int32_t g, node;
		if (!model_find_node(m, o->node, &g, &node) &&
		    (why_transposed(&s->tpose, o->node, false) || why_merged(s, o->node)))
			return EXIT_FINDINGS;
		if (!model_find_node(m, o->node, &g, &node)) {
			char hint[600];
			txt_fprintf(stderr, "fusiondbg: %s: no node named '%s'%s\n", m->path, o->node,
			            explain_node_hint(m, o->node, hint, sizeof hint));
			return EXIT_BAD_INPUT;
		}
		bool stayed = explain_graph_quantized(&m->graphs[g]) && explain_why_float(rd, final, g, node, line, sizeof line);
		if (!explain_graph_quantized(&m->graphs[g]))
			txt_fprintf(stdout, "%s is in no quantized graph (no QuantizeLinear and DequantizeLinear there)\n", o->node);
		else
			txt_fprintf(stdout, "%s\n", line);
		return stayed ? EXIT_FINDINGS : EXIT_OK;
	}
	int32_t total = 0, quantized = 0;
	for (int32_t g = 0; g < m->n_graphs; g++) {
		if (!explain_graph_quantized(&m->graphs[g]))
			continue;
		quantized++;
		int32_t n_float = explain_float_ops(final, g, NULL);
		if (g == 0 || n_float)
			txt_fprintf(stdout, "%s%s: %d op%s left in float\n", total ? "\n" : "", g ? m->graphs[g].name : "main graph",
			            (int)n_float, n_float == 1 ? "" : "s");
		for (int32_t i = 0; i < m->graphs[g].n_nodes; i++) {
			int32_t node = m->graphs[g].topo_order[i];
			if (explain_left_in_float(final, g, node) && explain_why_float(rd, final, g, node, line, sizeof line))
				txt_fprintf(stdout, "  %s\n", line);
		}
		total += n_float;
	}
	if (!quantized)
		txt_fprintf(stdout, "%s is not a quantized model: no graph has QuantizeLinear and DequantizeLinear nodes\n",
		            m->path);
	return total ? EXIT_FINDINGS : EXIT_OK;
}

/* the session has loaded model and rules, applied --set and run once */
static int run(const cli_options *o, fd_session *s)
{
	if (o->float_ops && o->rule) {
		cli_usage_error(spec.usage, "--float answers from every rule with Q/DQ ops: give --rule NAME or --float, "
		                "not both");
		return EXIT_BAD_INPUT;
	}
	if (o->float_ops) {
		int rc = why_float(o, s);
		cli_print_diff_after(o, s);
		return rc;
	}
	int32_t ri = ruleset_find(session_rules(s), o->rule);
	if (ri < 0) {
		char hint[600];
		txt_fprintf(stderr, "fusiondbg: no rule named '%s' in the given rules%s\n", o->rule,
		        explain_rule_hint(session_rules(s), o->rule, hint, sizeof hint));
		return EXIT_BAD_INPUT;
	}
	const fd_rounds *rd = session_rounds(s);
	int rc = o->node ? why_node(s, rd, &s->tpose, ri, o->node)
	       : rd->n > 1 ? why_rule_rounds(rd, ri, o->limit) : why_rule(session_result(s), ri, o->limit);
	cli_print_diff_after(o, s);
	return rc;
}

int cmd_why(int argc, char **argv)
{
	return cli_run_session(argc, argv, &spec, run);
}
