/* cmd_match.c — `fusiondbg match MODEL -r RULES [--trace] [--format text|json]`:
 * runs the rules and prints per rule priority, match_times and effect_times,
 * every fusion and the rejections; --trace adds the canonical text trace (or,
 * in JSON, a "trace" key). Exit 0, or 2 on bad usage / unreadable input.
 * Owner: h4. */
#include <stdio.h>
#include "cli.h"
#include "match.h"
#include "rules.h"

static const char usage[] =
	"fusiondbg match MODEL -r RULES [--trace] [--format text|json] [--target T] [--dim N=V] [--no-canonicalize]";

int cmd_match(int argc, char **argv)
{
	cli_options o;
	if (cli_parse(argc, argv, OPT_RULES | OPT_MODEL_COMMON | OPT_TRACE | OPT_FORMAT, usage, &o) < 0)
		return EXIT_BAD_INPUT;
	if (!o.model || o.n_positional != 1) {
		fprintf(stderr, "fusiondbg: match needs one MODEL\nusage: %s\n", usage);
		return EXIT_BAD_INPUT;
	}
	fd_model m;
	if (cli_load_model(&o, &m) < 0)
		return EXIT_BAD_INPUT;
	fd_ruleset rs;
	if (cli_load_rules(&o, &rs) < 0) {
		ruleset_release(&rs);
		model_release(&m);
		return EXIT_BAD_INPUT;
	}
	fd_match_ctx ctx;
	fd_match_result r;
	fd_diags d;
	diags_init(&d);
	match_ctx_init(&ctx, &m, !o.no_canonicalize, &d);
	cli_print_diags(&d);
	diags_release(&d);
	match_result_init(&r);
	fd_match_options mo = { .target = o.target };
	match_run(&ctx, &rs, &mo, &r);
	if (o.format == FORMAT_JSON) {
		fputs("{\n", stdout);
		match_write_json_fields(stdout, &r);
		if (o.trace) {
			fputs(",\n  \"trace\": ", stdout);
			trace_write_json(stdout, &r);
			fputs("}\n", stdout);
		} else {
			fputs("\n}\n", stdout);
		}
	} else {
		match_write_text(stdout, &r);
		if (o.trace) {
			fputc('\n', stdout);
			trace_write_text(stdout, &r);
		}
	}
	match_result_release(&r);
	match_ctx_release(&ctx);
	ruleset_release(&rs);
	model_release(&m);
	return EXIT_OK;
}
