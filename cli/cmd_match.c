/* cmd_match.c — `fusiondbg match MODEL -r RULES [--trace] [--format text|json]`:
 * runs the rules and prints per rule priority, match_times and effect_times,
 * every fusion and the rejections; --trace adds the canonical text trace (or,
 * in JSON, a "trace" key). Exit 0, or 2 on bad usage / unreadable input.
 * --set / --diff and the JSON "memory" keys come from the session and the
 * estimates. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "base/json.h"
#include "match/match.h"
#include "rounds/rounds.h"
#include "ruleset/ruleset.h"
#include "session/session.h"
#include "explain/explain.h"
#include "base/text.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg match MODEL -r RULES [--trace] [--format text|json]" CLI_USAGE_MODEL CLI_USAGE_WHATIF
	         CLI_USAGE_ROUNDS,
	.allowed = OPT_RULES | OPT_MODEL_COMMON | OPT_TRACE | OPT_FORMAT | OPT_SET | OPT_DIFF | OPT_ROUNDS,
	.needs = "match needs one MODEL",
	.events = true,
	.estimates_json = true,
};

/* No rule fired anywhere: say so, and where the rules came closest. */
static void print_nearest_misses(const fd_session *s)
{
	if (rounds_n_fusions(session_rounds(s)))
		return;
	const fd_match_result *r = session_result(s);
	uint32_t idx[3];
	size_t n = explain_nearest_misses(r, idx, 3);
	if (!n) {
		txt_fprintf(stdout, "\nno rule fired, and no rule found an anchor in this model; "
		            "`fusiondbg why MODEL -r RULES --rule NAME` says what is nearest to one\n");
		return;
	}
	txt_fprintf(stdout, "\nno rule fired; the nearest misses (the attempts that got furthest):\n");
	for (size_t i = 0; i < n; i++) {
		char line[2048];
		const char *l = explain_why_line(r, idx[i], line, sizeof line);
		txt_fprintf(stdout, "  %s\n", !strncmp(l, "why: ", 5) ? l + 5 : l);
	}
}

/* the session has loaded model and rules, applied --set and run once */
static int run(const cli_options *o, fd_session *s)
{
	const char *origin = NULL, *from = o->n_rules ? NULL : ruleset_default_path(&origin);
	if (o->format == FORMAT_JSON) {
		fputs("{\n", stdout);
		if (from) {
			fputs("  \"rules_from\": {\"path\": ", stdout);
			json_write_string(stdout, from);
			txt_fprintf(stdout, ", \"origin\": \"%s\"},\n", origin);
		}
		cli_write_run_json(stdout, o, s);
		if (o->trace) {
			fputs(",\n  \"trace\": ", stdout);
			explain_rounds_trace_json(stdout, session_rounds(s));
			fputs("}\n", stdout);
		} else {
			fputs("\n}\n", stdout);
		}
	} else {
		if (from)
			txt_fprintf(stdout, "rules from %s (%s: no -r given)\n", from, origin);
		explain_rounds_text(stdout, session_rounds(s));
		print_nearest_misses(s);
		if (o->trace) {
			fputc('\n', stdout);
			explain_transpose_text(stdout, &s->tpose);   /* before the rules: the graph they see */
			explain_rounds_trace_text(stdout, session_rounds(s));
		}
		cli_print_diff_after(o, s);
	}
	if (!session_rounds(s)->settled) {
		fputs("fusiondbg: warning: ", stderr);
		explain_rounds_settle_text(stderr, session_rounds(s));
	}
	return EXIT_OK;
}

int cmd_match(int argc, char **argv)
{
	return cli_run_session(argc, argv, &spec, run);
}
