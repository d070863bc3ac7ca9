/* cmd_why.c — `fusiondbg why MODEL -r RULES --rule R [--node N]`: the
 * attempt that answers for R on N (explain_why, as the TUI's why-not) and its
 * deciding check in one line (expected, actual, code, the rule's
 * file:line), then the attempt's events. Without
 * --node, the closest near-misses across every graph. Exit 0 when R fires
 * (on N), 1 when it does not, 2 on bad usage, unknown rule or node.
 * --set / --diff through the session. */
#include <stdio.h>
#include "cli.h"
#include "match/match.h"
#include "rules/rules.h"
#include "session/session.h"
#include "explain/explain.h"
#include "base/text.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg why MODEL -r RULES --rule NAME [--node NODE]" CLI_USAGE_MODEL
	         CLI_USAGE_WHATIF,
	.allowed = OPT_RULES | OPT_MODEL_COMMON | OPT_RULE | OPT_NODE | OPT_SET | OPT_DIFF,
	.required = OPT_RULE,
	.needs = "why needs one MODEL and --rule NAME",
	.events = true,
};

#define NEAR_MISSES 10

static int why_node(const fd_match_result *r, int32_t ri, const char *node_name)
{
	int32_t g, node;
	if (!model_find_node(r->ctx->model, node_name, &g, &node)) {
		txt_fprintf(stderr, "fusiondbg: %s: no node named '%s'\n", r->ctx->model->path, node_name);
		return EXIT_BAD_INPUT;
	}
	fd_why w;
	explain_why(r, ri, g, node, &w);
	txt_fprintf(stdout, "%s\n", w.line);
	if (w.kind == WHY_ATTEMPT) {
		const fd_attempt *at = &r->trace.attempts[w.attempt];
		if (at->anchor >= 0 && match_unit_node(r->ctx, g, at->anchor) != node) {
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

static int why_rule(const fd_match_result *r, int32_t ri)
{
	const fd_rule *rule = &r->rules->rules[ri];
	const fd_rule_stats *st = &r->stats[ri];
	uint32_t idx[NEAR_MISSES + 64];
	size_t n = explain_rank_attempts(r, ri, idx, sizeof idx / sizeof *idx);
	char line[2048];
	size_t fired = (size_t)st->effect_times;
	if (n == 0) {
		txt_fprintf(stdout, "why: %s had no anchor in the model (no node of op0's type)\n", rule->name);
		return EXIT_FINDINGS;
	}
	if (fired)
		txt_fprintf(stdout, "%s fired %zu time%s (match_times %lld, attempts %lld)\n", rule->name, fired,
		       fired == 1 ? "" : "s", (long long)st->match_times, (long long)st->attempts);
	else
		txt_fprintf(stdout, "%s never fired (match_times %lld, attempts %lld); closest near-misses:\n", rule->name,
		       (long long)st->match_times, (long long)st->attempts);
	size_t shown = 0;
	uint32_t top = UINT32_MAX;
	for (size_t i = 0; i < n && shown < NEAR_MISSES; i++) {
		if (r->trace.attempts[idx[i]].rung == RUNG_FIRED)
			continue;
		if (top == UINT32_MAX) {
			top = idx[i];
			if (fired)
				txt_fprintf(stdout, "closest near-misses:\n");
		}
		txt_fprintf(stdout, "%s\n", explain_why_line(r, idx[i], line, sizeof line));
		shown++;
	}
	if (top != UINT32_MAX) {
		txt_fprintf(stdout, "\ndetail of the closest:\n");
		explain_attempt_text(stdout, r, top);
	}
	return fired ? EXIT_OK : EXIT_FINDINGS;
}

/* the session has loaded model and rules, applied --set and run once */
static int run(const cli_options *o, fd_session *s)
{
	int32_t ri = ruleset_find(session_rules(s), o->rule);
	if (ri < 0) {
		txt_fprintf(stderr, "fusiondbg: no rule named '%s' in the given rules\n", o->rule);
		return EXIT_BAD_INPUT;
	}
	int rc = o->node ? why_node(session_result(s), ri, o->node) : why_rule(session_result(s), ri);
	cli_print_diff_after(o, s);
	return rc;
}

int cmd_why(int argc, char **argv)
{
	return cli_run_session(argc, argv, &spec, run);
}
