/* cmd_mem.c — `fusiondbg mem MODEL -r RULES [--format text|json]
 * [--peak-warn BYTES] [--set RULE.PATH=VALUE]... [--diff]`: per fusion the
 * bytes in / out / removed, workspace, kernel peak and the estimated
 * speed-up; the main graph's (and every body's) activation peak before and
 * after the fusions with the tensors that make it; warnings over the
 * threshold. JSON: the match keys plus "memory". --sweep: mem_sweep.c.
 * --baseline FLOAT.onnx: the same rules on the model before quantization,
 * both peaks, the ratio and the steps side by side (estimate_compare.c);
 * JSON key "baseline".
 * Exit 0, 2 on bad input. */
#include <stdio.h>
#include "cli.h"
#include "session/session.h"
#include "base/text.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg mem MODEL -r RULES [--format text|json] [--peak-warn BYTES] [--sweep NAME=V,V,...] "
	         "[--baseline FLOAT.onnx]"
	         CLI_USAGE_WHATIF CLI_USAGE_MODEL CLI_USAGE_ROUNDS,
	.allowed = OPT_RULES | OPT_MODEL_COMMON | OPT_FORMAT | OPT_PEAKWARN | OPT_SET | OPT_DIFF | OPT_ROUNDS | OPT_SWEEP |
	           OPT_BASELINE,
	.needs = "mem needs one MODEL",
};

static int run(const cli_options *o, fd_session *s)
{
	if (o->sweep && o->baseline) {
		cli_usage_error(spec.usage, "--sweep and --baseline: one at a time");
		return EXIT_BAD_INPUT;
	}
	if (o->sweep)
		return cli_mem_sweep(o, s);
	fd_session base;
	fd_mem_compare cmp = { 0 };
	if (o->baseline) {
		if (cli_open_baseline(o, &base) < 0)
			return EXIT_BAD_INPUT;
		if (estimate_compare(session_final_estimate(s), session_final_estimate(&base), &cmp) < 0) {
			txt_fprintf(stderr, "fusiondbg: %s: no main graph to compare\n", o->baseline);
			session_close(&base);
			return EXIT_BAD_INPUT;
		}
	}
	if (o->format == FORMAT_JSON) {
		fputs("{\n", stdout);
		cli_write_run_json(stdout, o, s);
		if (o->baseline) {
			fputs(",\n  \"baseline\": ", stdout);
			estimate_write_compare_json(stdout, session_final_estimate(&base), &cmp);
		}
		fputs("\n}\n", stdout);
	} else {
		estimate_write_text(stdout, session_final_estimate(s));   /* the final fusions, every round */
		if (o->baseline)
			estimate_write_compare_text(stdout, session_final_estimate(s), session_final_estimate(&base), &cmp);
		cli_print_diff_after(o, s);
	}
	if (o->baseline) {
		estimate_compare_release(&cmp);
		session_close(&base);
	}
	return EXIT_OK;
}

int cmd_mem(int argc, char **argv)
{
	return cli_run_session(argc, argv, &spec, run);
}
