/* cmd_suggest.c — `fusiondbg suggest MODEL [-r RULES] [--top N] [--max-ops K]
 * [--format text|json] [--write N -o RULE.yaml]`: the chains no rule
 * fuses, grouped by pattern and ranked by the intermediate bytes a fusion
 * of every instance would keep off memory, each with its count, the
 * estimated speed-up, the rules that came nearest, and the rule that makes
 * it (src/suggest/suggest.h). --write N writes pattern N's rule (-o -:
 * standard output). Exit 0, 2 on bad input or a pattern that is not there. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "base/text.h"
#include "session/session.h"
#include "suggest/suggest.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg suggest MODEL [-r RULES] [--top N] [--max-ops K] [--format text|json] [--write N -o RULE.yaml]"
	         CLI_USAGE_MODEL CLI_USAGE_ROUNDS,
	.allowed = OPT_RULES | OPT_MODEL_COMMON | OPT_FORMAT | OPT_ROUNDS | OPT_TOP | OPT_MAXOPS | OPT_WRITE |
	           OPT_OUTPUT | OPT_PEAKWARN,
	.needs = "suggest needs one MODEL",
	.events = true,
};

static int write_rule(const cli_options *o, const fd_suggest *sg)
{
	if (o->write > sg->n) {
		txt_fprintf(stderr, "fusiondbg: suggest: no pattern %d (there %s %d)\n", o->write, sg->n == 1 ? "is" : "are",
		            sg->n);
		return EXIT_BAD_INPUT;
	}
	const char *yaml = sg->patterns[o->write - 1].rule_yaml;
	if (!strcmp(o->output, "-")) {
		fputs(yaml, stdout);
		return EXIT_OK;
	}
	FILE *f = fopen(o->output, "w");
	if (!f || fputs(yaml, f) < 0 || fclose(f) != 0) {
		txt_fprintf(stderr, "fusiondbg: %s: cannot write: %s\n", o->output, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	txt_fprintf(stderr, "fusiondbg: wrote %s (rule %s, %d instances)\n", o->output,
	            sg->patterns[o->write - 1].rule_name, sg->patterns[o->write - 1].n_instances);
	return EXIT_OK;
}

static int run(const cli_options *o, fd_session *s)
{
	if (o->write && !o->output) {
		cli_usage_error(spec.usage, "--write N needs -o RULE.yaml");
		return EXIT_BAD_INPUT;
	}
	fd_suggest_options so = { .max_ops = o->max_ops, .top = o->top, .target = o->target };
	so.est.peak_warn = o->peak_warn > 0 ? o->peak_warn : 0;
	if (o->write > so.top && o->write > SUGGEST_TOP_DEFAULT)
		so.top = o->write;
	fd_suggest sg;
	suggest_init(&sg);
	fd_diags d;
	diags_init(&d);
	int rc = suggest_run(&sg, &s->current_rounds, &s->rules, &so, &d);
	if (rc < 0) {
		cli_print_diags(&d);
		diags_release(&d);
		suggest_release(&sg);
		return EXIT_BAD_INPUT;
	}
	diags_release(&d);
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
