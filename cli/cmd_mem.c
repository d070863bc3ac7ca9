/* cmd_mem.c — `fusiondbg mem MODEL -r RULES [--format text|json]
 * [--peak-warn BYTES] [--set RULE.PATH=VALUE]... [--diff]`: per fusion the
 * bytes in / out / removed, workspace, kernel peak and the estimated
 * speed-up; the main graph's (and every body's) activation peak before and
 * after the fusions with the tensors that make it; warnings over the
 * threshold. JSON: the match keys plus "memory". --sweep: mem_sweep.c.
 * Exit 0, 2 on bad input. */
#include <stdio.h>
#include "cli.h"
#include "session/session.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg mem MODEL -r RULES [--format text|json] [--peak-warn BYTES] [--sweep NAME=V,V,...]"
	         CLI_USAGE_WHATIF CLI_USAGE_MODEL CLI_USAGE_ROUNDS,
	.allowed = OPT_RULES | OPT_MODEL_COMMON | OPT_FORMAT | OPT_PEAKWARN | OPT_SET | OPT_DIFF | OPT_ROUNDS | OPT_SWEEP,
	.needs = "mem needs one MODEL",
};

static int run(const cli_options *o, fd_session *s)
{
	if (o->sweep)
		return cli_mem_sweep(o, s);
	if (o->format == FORMAT_JSON) {
		fputs("{\n", stdout);
		cli_write_run_json(stdout, o, s);
		fputs("\n}\n", stdout);
	} else {
		estimate_write_text(stdout, session_final_estimate(s));   /* the final fusions, every round */
		cli_print_diff_after(o, s);
	}
	return EXIT_OK;
}

int cmd_mem(int argc, char **argv)
{
	return cli_run_session(argc, argv, &spec, run);
}
