/* cmd_suggest.c — `fusiondbg suggest MODEL -r RULES [--top N] [--max-ops K]
 * [--max-heavy N] [--format text|json] [--write N -o RULE.yaml]`: the
 * chains no rule fuses, as kernels (one heavy op each unless --max-heavy
 * says more), grouped by pattern and ranked by the intermediate bytes a
 * fusion of every instance would keep off memory, no node in two patterns,
 * each with its count, the estimated speed-up, the rules that came nearest,
 * and the rule that makes it (src/suggest/suggest.h). --write N writes
 * pattern N's rule through the one writer of -o files (base/atomic_file.h:
 * a file replaced whole or not at all; -: standard output). Exit 0, 2 on
 * bad input or a pattern that is not there. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "base/atomic_file.h"
#include "base/text.h"
#include "session/session.h"
#include "suggest/suggest.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg suggest MODEL -r RULES [--top N] [--max-ops K] [--max-heavy N] [--format text|json] "
	         "[--write N -o RULE.yaml]" CLI_USAGE_MODEL CLI_USAGE_ROUNDS,
	.allowed = OPT_RULES | OPT_MODEL_COMMON | OPT_FORMAT | OPT_ROUNDS | OPT_TOP | OPT_MAXOPS | OPT_MAXHEAVY |
	           OPT_WRITE | OPT_OUTPUT | OPT_PEAKWARN,
	.needs = "suggest needs one MODEL",
	.events = true,
};

static int write_rule(const cli_options *o, const fd_suggest *sg)
{
	if (o->write > sg->n) {
		char why[256];
		if (sg->n == 0)
			txt_fprintf(stderr, "fusiondbg: suggest: no pattern %d: nothing to suggest (%s)\n", o->write,
			            suggest_none_reason(sg, why, sizeof why));
		else
			txt_fprintf(stderr, "fusiondbg: suggest: no pattern %d: %d pattern%s kept (1 to %d)\n", o->write, sg->n,
			            sg->n == 1 ? " is" : "s are", sg->n);
		return EXIT_BAD_INPUT;
	}
	const fd_suggest_pattern *p = &sg->patterns[o->write - 1];
	fd_diags d;
	diags_init(&d);
	int rc = file_write_output(o->output, p->rule_yaml, strlen(p->rule_yaml), &d);
	cli_print_diags(&d);
	diags_release(&d);
	if (rc < 0)
		return EXIT_BAD_INPUT;
	if (strcmp(o->output, "-"))
		txt_fprintf(stderr, "fusiondbg: wrote %s (rule %s, %d instance%s)\n", o->output, p->rule_name,
		            p->n_instances, p->n_instances == 1 ? "" : "s");
	return EXIT_OK;
}

static int run(const cli_options *o, fd_session *s)
{
	if (o->write && !o->output) {
		cli_usage_error(spec.usage, "--write N needs -o RULE.yaml");
		return EXIT_BAD_INPUT;
	}
	fd_suggest_options so = { .max_ops = o->max_ops, .max_heavy = o->max_heavy, .top = o->top,
	                          .target = o->target };
	so.est.peak_warn = o->peak_warn > 0 ? o->peak_warn : 0;
	if (o->write > so.top && o->write > SUGGEST_TOP_DEFAULT)
		so.top = o->write;
	fd_suggest sg;
	suggest_init(&sg);
	fd_diags d;
	diags_init(&d);
	int rc = suggest_run(&sg, &s->current_rounds, &s->rules, &so, &d);
	cli_print_diags(&d);   /* the error, or a rule made that did not load */
	diags_release(&d);
	if (rc < 0) {
		suggest_release(&sg);
		return EXIT_BAD_INPUT;
	}
	if (o->write)
		rc = write_rule(o, &sg);
	else if (o->format == FORMAT_JSON)
		suggest_write_json(stdout, &sg, session_model(s), session_rules(s)), rc = EXIT_OK;
	else
		suggest_write_text(stdout, &sg, session_model(s), session_rules(s)), rc = EXIT_OK;
	suggest_release(&sg);
	return rc;
}

int cmd_suggest(int argc, char **argv)
{
	return cli_run_session(argc, argv, &spec, run);
}
