/* rules_args.c — the rules the options name (-r, else the default location),
 * with the environment applied: ruleset_load_paths, diagnostics printed. */
#include <stdio.h>
#include "cli.h"
#include "ruleset/ruleset.h"

int cli_load_rules(const cli_options *o, fd_ruleset *rs)
{
	fd_diags d;
	diags_init(&d);
	ruleset_init(rs);
	int rc = ruleset_load_paths(rs, o->rules, o->n_rules, true, &d);
	cli_print_diags(&d);
	if (d.errors)
		rc = -1;
	diags_release(&d);
	return rc;
}
