/* cmd_match.c — `fusiondbg match MODEL -r RULES [--trace] [--format text|json]`:
 * runs the rules and prints per rule priority, match_times and effect_times,
 * every fusion and the rejections; --trace adds the canonical text trace (or,
 * in JSON, a "trace" key). Exit 0, or 2 on bad usage / unreadable input.
 * --set / --diff and the JSON "memory" keys come from the session and the
 * estimates. */
#include <stdio.h>
#include "cli.h"
#include "base/json.h"
#include "match/match.h"
#include "rules/rules.h"
#include "session/session.h"
#include "explain/explain.h"

static const char usage[] =
	"fusiondbg match MODEL -r RULES [--trace] [--format text|json] [--target T] [--dim N=V] [--no-canonicalize]"
	" [--set RULE.PATH=VALUE]... [--diff]";

int cmd_match(int argc, char **argv)
{
	cli_options o;
	if (cli_parse(argc, argv, OPT_RULES | OPT_MODEL_COMMON | OPT_TRACE | OPT_FORMAT | OPT_SET | OPT_DIFF, usage, &o) < 0)
		return EXIT_BAD_INPUT;
	if (!o.model || o.n_positional != 1) {
		fprintf(stderr, "fusiondbg: match needs one MODEL\nusage: %s\n", usage);
		return EXIT_BAD_INPUT;
	}
	/* the session loads model and rules, applies --set and runs once */
	fd_session s;
	if (cli_open_session(&o, &s, true) < 0)
		return EXIT_BAD_INPUT;
	fd_match_result *rp = &s.current;
	const char *origin = NULL, *from = o.n_rules ? NULL : ruleset_default_path(&origin);
	if (o.format == FORMAT_JSON) {
		fputs("{\n", stdout);
		if (from) {
			fputs("  \"rules_from\": {\"path\": ", stdout);
			json_write_string(stdout, from);
			fprintf(stdout, ", \"origin\": \"%s\"},\n", origin);
		}
		estimate_attach_json(rp, session_estimate(&s));
		explain_match_json_fields(stdout, rp);
		fputs(",\n  \"memory\": ", stdout);
		estimate_write_memory_json(stdout, session_estimate(&s));
		if (o.diff) {
			fputs(",\n  \"diff\": ", stdout);
			cli_print_session_diff(stdout, &o, &s);
		}
		if (o.trace) {
			fputs(",\n  \"trace\": ", stdout);
			explain_trace_json(stdout, rp);
			fputs("}\n", stdout);
		} else {
			fputs("\n}\n", stdout);
		}
	} else {
		if (from)
			printf("rules from %s (%s: no -r given)\n", from, origin);
		explain_match_text(stdout, rp);
		if (o.trace) {
			fputc('\n', stdout);
			explain_trace_text(stdout, rp);
		}
	}
	if (o.diff && o.format != FORMAT_JSON) {
		fputc('\n', stdout);
		cli_print_session_diff(stdout, &o, &s);
	}
	session_close(&s);
	return EXIT_OK;
}
