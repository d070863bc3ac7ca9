/* cmd_verify.c — `fusiondbg verify RULES...`: YAML and schema of rule files
 * (files or directories); file:line:col errors on stderr, a summary on stdout.
 * Exit 0 ok (warnings allowed), 1 schema errors, 2 unreadable / not YAML / usage. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "rules.h"

static const char usage[] = "fusiondbg verify RULES...";

/* "rules/: 7 rules in 4 files, 0 errors, 0 warnings" */
void rules_print_summary(const cli_options *o, const fd_ruleset *rs, const fd_diags *d)
{
	for (int i = 0; i < o->n_positional; i++)
		printf("%s%s", i ? ", " : "", o->positional[i]);
	printf(": %d rule%s in %d file%s, %zu error%s, %zu warning%s\n", rs->n_rules, rs->n_rules == 1 ? "" : "s",
	       rs->n_files, rs->n_files == 1 ? "" : "s", d->errors, d->errors == 1 ? "" : "s", d->warnings,
	       d->warnings == 1 ? "" : "s");
}

int rules_exit_code(const fd_ruleset *rs, const fd_diags *d)
{
	if (rs->n_unparsed)
		return EXIT_BAD_INPUT;
	return d->errors ? EXIT_FINDINGS : EXIT_OK;
}

int cmd_verify(int argc, char **argv)
{
	cli_options o;
	if (cli_parse(argc, argv, 0, usage, &o) < 0)
		return EXIT_BAD_INPUT;
	if (o.n_positional == 0) {
		fprintf(stderr, "fusiondbg: verify needs a rule file or directory\nusage: %s\n", usage);
		return EXIT_BAD_INPUT;
	}
	fd_ruleset rs;
	fd_diags d;
	ruleset_init(&rs);
	diags_init(&d);
	for (int i = 0; i < o.n_positional; i++)
		ruleset_load(&rs, o.positional[i], &d);
	cli_print_diags(&d);
	rules_print_summary(&o, &rs, &d);
	int rc = rules_exit_code(&rs, &d);
	diags_release(&d);
	ruleset_release(&rs);
	return rc;
}
