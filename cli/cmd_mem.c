/* cmd_mem.c — `fusiondbg mem MODEL -r RULES [--format text|json]
 * [--peak-warn BYTES] [--set RULE.PATH=VALUE]... [--diff]`: per fusion the
 * bytes in / out / removed, workspace, kernel peak and the estimated
 * speed-up; the main graph's (and every body's) activation peak before and
 * after the fusions with the tensors that make it; warnings over the
 * threshold. JSON: the match keys plus "memory". Exit 0, 2 on bad input. */
#include <stdio.h>
#include "cli.h"
#include "session/session.h"
#include "explain/explain.h"

static const char usage[] =
	"fusiondbg mem MODEL -r RULES [--format text|json] [--peak-warn BYTES] [--set RULE.PATH=VALUE]... [--diff]"
	" [--target T] [--dim N=V] [--no-canonicalize]";

int cmd_mem(int argc, char **argv)
{
	cli_options o;
	if (cli_parse(argc, argv, OPT_RULES | OPT_MODEL_COMMON | OPT_FORMAT | OPT_PEAKWARN | OPT_SET | OPT_DIFF,
	              usage, &o) < 0)
		return EXIT_BAD_INPUT;
	if (!o.model || o.n_positional != 1) {
		fprintf(stderr, "fusiondbg: mem needs one MODEL\nusage: %s\n", usage);
		return EXIT_BAD_INPUT;
	}
	fd_session s;
	if (cli_open_session(&o, &s, false) < 0)
		return EXIT_BAD_INPUT;
	const fd_estimate *e = session_estimate(&s);
	if (o.format == FORMAT_JSON) {
		fputs("{\n", stdout);
		estimate_attach_json(&s.current, e);
		explain_match_json_fields(stdout, session_result(&s));
		fputs(",\n  \"memory\": ", stdout);
		estimate_write_memory_json(stdout, e);
		if (o.diff) {
			fputs(",\n  \"diff\": ", stdout);
			cli_print_session_diff(stdout, &o, &s);
		}
		fputs("\n}\n", stdout);
	} else {
		estimate_write_text(stdout, e);
		if (o.diff) {
			fputc('\n', stdout);
			cli_print_session_diff(stdout, &o, &s);
		}
	}
	session_close(&s);
	return EXIT_OK;
}
