/* cmd_why.c — `fusiondbg why MODEL -r RULES --rule R [--node N]`: the
 * attempt that answers for R on N (explain_why, as the TUI's why-not) and its
 * deciding check in one line (expected, actual, code, the rule's
 * file:line), then the attempt's events. Without
 * --node, the closest near-misses across every graph. Exit 0 when R fires
 * (on N), 1 when it does not, 2 on bad usage, unknown rule or node.
 * --set / --diff through the session. */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "match/match.h"
#include "rules/rules.h"
#include "session/session.h"
#include "explain/explain.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg why MODEL -r RULES --rule NAME [--node NODE]" CLI_USAGE_MODEL
	         CLI_USAGE_WHATIF CLI_USAGE_ROUNDS,
	.allowed = OPT_RULES | OPT_MODEL_COMMON | OPT_RULE | OPT_NODE | OPT_SET | OPT_DIFF | OPT_ROUNDS,
	.required = OPT_RULE,
	.needs = "why needs one MODEL and --rule NAME",
	.events = true,
};

#define NEAR_MISSES 10

static int why_node(const fd_rounds *rd, int32_t ri, const char *node_name)
{
	const fd_match_result *r1 = rd->items[0]->result;
	int32_t g, node;
	if (!model_find_node(r1->ctx->model, node_name, &g, &node)) {
		fprintf(stderr, "fusiondbg: %s: no node named '%s'\n", r1->ctx->model->path, node_name);
		return EXIT_BAD_INPUT;
	}
	fd_rounds_why w;
	explain_rounds_why(rd, ri, g, node, &w);
	printf("%s\n", w.line);
	if (!w.round)
		return EXIT_FINDINGS;
	const fd_match_result *r = rd->items[w.round - 1]->result;
	if (w.why.kind == WHY_ATTEMPT) {
		const fd_attempt *at = &r->trace.attempts[w.why.attempt];
		if (at->anchor >= 0 && match_unit_node(r->ctx, g, at->anchor) != w.node) {
			char lab[256];
			printf("note: %s is not an anchor of %s; this is the deepest attempt that reached it, at %s\n",
			       node_name, r->rules->rules[ri].name,
			       explain_unit_label(r->ctx, g, at->anchor, lab, sizeof lab));
		}
	}
	if (w.why.attempt != UINT32_MAX)
		explain_attempt_text(stdout, r, w.why.attempt);
	return w.fired ? EXIT_OK : EXIT_FINDINGS;
}

/* The attempts of the rule in every round, ranked together. */
typedef struct ranked {
	int32_t round;
	uint32_t attempt;
	uint32_t score;
} ranked;

static int cmp_ranked(const void *pa, const void *pb)
{
	const ranked *a = pa, *b = pb;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->round != b->round ? (a->round < b->round ? -1 : 1) : 0;
}

static int why_rule(const fd_rounds *rd, int32_t ri)
{
	const fd_rule *rule = &rd->rules->rules[ri];
	bool rounds = rd->n > 1;
	int64_t fired = 0, match_times = 0, attempts = 0;
	ranked top[NEAR_MISSES * 8];
	size_t n = 0;
	for (int32_t k = 0; k < rd->n; k++) {
		const fd_match_result *r = rd->items[k]->result;
		fired += r->stats[ri].effect_times;
		match_times += r->stats[ri].match_times;
		attempts += r->stats[ri].attempts;
		uint32_t idx[NEAR_MISSES + 64];
		size_t m = explain_rank_attempts(r, ri, idx, sizeof idx / sizeof *idx);
		for (size_t i = 0, kept = 0; i < m && kept < NEAR_MISSES && n < sizeof top / sizeof *top; i++) {
			if (r->trace.attempts[idx[i]].rung == RUNG_FIRED)
				continue;
			top[n++] = (ranked){ k + 1, idx[i], r->trace.attempts[idx[i]].score };
			kept++;
		}
	}
	if (attempts == 0) {
		printf("why: %s had no anchor in the model (no node of op0's type)\n", rule->name);
		return EXIT_FINDINGS;
	}
	qsort(top, n, sizeof *top, cmp_ranked);
	if (fired) {
		printf("%s fired %lld time%s (match_times %lld, attempts %lld", rule->name, (long long)fired,
		       fired == 1 ? "" : "s", (long long)match_times, (long long)attempts);
		if (rounds) {
			printf("; in round");
			for (int32_t k = 0, c = 0; k < rd->n; k++)
				if (rd->items[k]->result->stats[ri].effect_times)
					printf("%s %d", c++ ? "," : "", (int)k + 1);
		}
		printf(")\n");
	} else {
		printf("%s never fired (match_times %lld, attempts %lld); closest near-misses:\n", rule->name,
		       (long long)match_times, (long long)attempts);
	}
	char line[2048];
	for (size_t i = 0; i < n && i < NEAR_MISSES; i++) {
		if (i == 0 && fired)
			printf("closest near-misses:\n");
		explain_why_line(rd->items[top[i].round - 1]->result, top[i].attempt, line, sizeof line);
		if (rounds)
			printf("[round %d] ", (int)top[i].round);
		printf("%s\n", line);
	}
	if (n) {
		printf("\ndetail of the closest:\n");
		explain_attempt_text(stdout, rd->items[top[0].round - 1]->result, top[0].attempt);
	}
	return fired ? EXIT_OK : EXIT_FINDINGS;
}

/* the session has loaded model and rules, applied --set and run once */
static int run(const cli_options *o, fd_session *s)
{
	int32_t ri = ruleset_find(session_rules(s), o->rule);
	if (ri < 0) {
		fprintf(stderr, "fusiondbg: no rule named '%s' in the given rules\n", o->rule);
		return EXIT_BAD_INPUT;
	}
	int rc = o->node ? why_node(session_rounds(s), ri, o->node) : why_rule(session_rounds(s), ri);
	cli_print_diff_after(o, s);
	return rc;
}

int cmd_why(int argc, char **argv)
{
	return cli_run_session(argc, argv, &spec, run);
}
