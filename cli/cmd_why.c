/* cmd_why.c — `fusiondbg why MODEL -r RULES --rule R [--node N]`: the deepest
 * attempt of R on N and its first failing check in one line (expected,
 * actual, code, the rule's file:line), then the attempt's events. Without
 * --node, the closest near-misses across every graph. Exit 0 when R fires
 * (on N), 1 when it does not, 2 on bad usage, unknown rule or node.
 * --set / --diff through the session. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "match/match.h"
#include "rules/optable.h"
#include "rules/rules.h"
#include "session/session.h"
#include "explain/explain.h"

static const char usage[] =
	"fusiondbg why MODEL -r RULES --rule NAME [--node NODE] [--target T] [--dim N=V] [--no-canonicalize]"
	" [--set RULE.PATH=VALUE]... [--diff]";

#define NEAR_MISSES 10

/* A node the rule never tried and no attempt touched: say why from op0. */
static int never_tried(const fd_match_result *r, const fd_rule *rule, const fd_graph *g, int32_t node)
{
	const fd_node *n = &g->nodes[node];
	const fd_rule_op *op0 = rule->match.n_ops ? &rule->match.ops[0]
	                      : rule->n_branches && rule->branches[0].n_ops ? &rule->branches[0].ops[0] : NULL;
	fd_srcpos p = op0 ? yval_pos(op0->type_where) : yval_pos(rule->root);
	char where[300] = "";
	if (p.file && p.line)
		snprintf(where, sizeof where, " at %s:%d:%d", p.file, p.line, p.col);
	printf("why: %s did not fire on %s (%s): op0 %s type: expected %s, actual %s; no attempt of this rule "
	       "reached the node [FD-NM01]%s\n", rule->name, n->name, n->op_type, op0 ? op0->type : "?",
	       op0 ? op0->type : "?", n->op_type, where);
	return EXIT_FINDINGS;
}

static int why_node(const fd_match_result *r, int32_t ri, const char *node_name)
{
	const fd_match_ctx *ctx = r->ctx;
	const fd_rule *rule = &r->rules->rules[ri];
	int32_t gi = -1, node = -1;
	for (int32_t g = 0; g < ctx->n_graphs && node < 0; g++) {
		node = graph_find_node(ctx->graphs[g].g, node_name);
		gi = g;
	}
	if (node < 0) {
		fprintf(stderr, "fusiondbg: %s: no node named '%s'\n", ctx->model->path, node_name);
		return EXIT_BAD_INPUT;
	}
	char line[2048];
	/* a rule that did not run at all */
	for (size_t i = 0; i < r->trace.n_attempts; i++)
		if (r->trace.attempts[i].rule == ri && r->trace.attempts[i].anchor < 0) {
			printf("%s\n", explain_why_line(r, (uint32_t)i, line, sizeof line));
			explain_attempt_text(stdout, r, (uint32_t)i);
			return EXIT_FINDINGS;
		}
	int32_t f = r->claim[gi][node];
	if (f >= 0 && r->fusions[f].rule == ri) {
		const fd_fusion *fu = &r->fusions[f];
		char lab[256];
		printf("why: %s fires on %s (%s): part of the fusion at %s, %d nodes into %s [FD-OK]\n", rule->name,
		       node_name, ctx->graphs[gi].g->nodes[node].op_type,
		       match_unit_label(ctx, fu->graph, fu->anchor, lab, sizeof lab), fu->n_nodes,
		       rule->target_op ? rule->target_op : "?");
		if (fu->attempt >= 0)
			explain_attempt_text(stdout, r, (uint32_t)fu->attempt);
		return EXIT_OK;
	}
	uint32_t a = explain_find_attempt(r, ri, gi, node);
	if (a == UINT32_MAX)
		return never_tried(r, rule, ctx->graphs[gi].g, node);
	const fd_attempt *at = &r->trace.attempts[a];
	printf("%s\n", explain_why_line(r, a, line, sizeof line));
	if (at->anchor >= 0 && match_unit_node(ctx, gi, at->anchor) != node) {
		char lab[256];
		printf("note: %s is not an anchor of %s; this is the deepest attempt that reached it, at %s\n",
		       node_name, rule->name, match_unit_label(ctx, gi, at->anchor, lab, sizeof lab));
	}
	explain_attempt_text(stdout, r, a);
	return at->rung == RUNG_FIRED ? EXIT_OK : EXIT_FINDINGS;
}

static int why_rule(const fd_match_result *r, int32_t ri)
{
	const fd_rule *rule = &r->rules->rules[ri];
	const fd_rule_stats *st = &r->stats[ri];
	uint32_t idx[NEAR_MISSES + 64];
	size_t n = explain_rank_attempts(r, ri, idx, sizeof idx / sizeof *idx);
	char line[2048];
	size_t fired = (size_t)st->effect_times;
	if (n == 0) {
		printf("why: %s had no anchor in the model (no node of op0's type)\n", rule->name);
		return EXIT_FINDINGS;
	}
	if (fired)
		printf("%s fired %zu time%s (match_times %lld, attempts %lld)\n", rule->name, fired,
		       fired == 1 ? "" : "s", (long long)st->match_times, (long long)st->attempts);
	else
		printf("%s never fired (match_times %lld, attempts %lld); closest near-misses:\n", rule->name,
		       (long long)st->match_times, (long long)st->attempts);
	size_t shown = 0;
	uint32_t top = UINT32_MAX;
	for (size_t i = 0; i < n && shown < NEAR_MISSES; i++) {
		if (r->trace.attempts[idx[i]].rung == RUNG_FIRED)
			continue;
		if (top == UINT32_MAX) {
			top = idx[i];
			if (fired)
				printf("closest near-misses:\n");
		}
		printf("%s\n", explain_why_line(r, idx[i], line, sizeof line));
		shown++;
	}
	if (top != UINT32_MAX) {
		printf("\ndetail of the closest:\n");
		explain_attempt_text(stdout, r, top);
	}
	return fired ? EXIT_OK : EXIT_FINDINGS;
}

int cmd_why(int argc, char **argv)
{
	cli_options o;
	if (cli_parse(argc, argv, OPT_RULES | OPT_MODEL_COMMON | OPT_RULE | OPT_NODE | OPT_SET | OPT_DIFF, usage, &o) < 0)
		return EXIT_BAD_INPUT;
	if (!o.model || o.n_positional != 1 || !o.rule) {
		fprintf(stderr, "fusiondbg: why needs one MODEL and --rule NAME\nusage: %s\n", usage);
		return EXIT_BAD_INPUT;
	}
	/* the session loads model and rules, applies --set and runs once */
	fd_session s;
	if (cli_open_session(&o, &s, true) < 0)
		return EXIT_BAD_INPUT;
	int32_t ri = ruleset_find(session_rules(&s), o.rule);
	if (ri < 0) {
		fprintf(stderr, "fusiondbg: no rule named '%s' in the given rules\n", o.rule);
		session_close(&s);
		return EXIT_BAD_INPUT;
	}
	int rc = o.node ? why_node(session_result(&s), ri, o.node) : why_rule(session_result(&s), ri);
	if (o.diff) {
		fputc('\n', stdout);
		cli_print_session_diff(stdout, &o, &s);
	}
	session_close(&s);
	return rc;
}
