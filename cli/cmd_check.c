/* cmd_check.c — `fusiondbg check [--strict] [--verbose] RULES...`: the schema
 * (as verify) and then the lint (rule_check.c) over all the rules together,
 * so duplicate names and priority ties across files are seen. --strict makes
 * every warning an error (unknown keys and constraint types, priority ties, …).
 * Exit 0 ok, 1 findings, 2 unreadable / not YAML / usage. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "rules.h"

static const char usage[] = "fusiondbg check [--strict] [--verbose] RULES...";

void rules_print_summary(const cli_options *o, const fd_ruleset *rs, const fd_diags *d);
int rules_exit_code(const fd_ruleset *rs, const fd_diags *d);

int cmd_check(int argc, char **argv)
{
	cli_options o;
	if (cli_parse(argc, argv, OPT_STRICT | OPT_VERBOSE, usage, &o) < 0)
		return EXIT_BAD_INPUT;
	if (o.n_positional == 0) {
		fprintf(stderr, "fusiondbg: check needs a rule file or directory\nusage: %s\n", usage);
		return EXIT_BAD_INPUT;
	}
	fd_ruleset rs;
	fd_diags d;
	ruleset_init(&rs);
	diags_init(&d);
	for (int i = 0; i < o.n_positional; i++)
		ruleset_load(&rs, o.positional[i], &d);
	fd_check_options co = { .strict = o.strict, .verbose = o.verbose };
	ruleset_check(&rs, &co, &d);
	if (o.strict)   /* the loader's warnings (unknown keys, …) count too */
		for (size_t i = 0; i < d.n; i++)
			if (d.items[i].severity == DIAG_WARNING) {
				d.items[i].severity = DIAG_ERROR;
				d.warnings--;
				d.errors++;
			}
	cli_print_diags(&d);
	rules_print_summary(&o, &rs, &d);
	int rc = rules_exit_code(&rs, &d);
	diags_release(&d);
	ruleset_release(&rs);
	return rc;
}
