/* rules_args.c — rule loading shared by the model commands (match, why, and
 * later mem / export / apply): every -r path in order, or
 * GRAPH_AUTOFUSION_RULES_DIR when none is given; then the environment
 * (GRAPH_AUTOFUSION_ENABLE / GRAPH_AUTOFUSION_RULES). */
#include <stdio.h>
#include "cli.h"
#include "rules/rules.h"

int cli_load_rules(const cli_options *o, fd_ruleset *rs)
{
	fd_diags d;
	diags_init(&d);
	ruleset_init(rs);
	int rc = 0;
	if (o->n_rules == 0) {
		const char *dir = ruleset_default_path(NULL);
		if (!dir) {
			fprintf(stderr, "fusiondbg: " RULESET_NONE_MESSAGE "\n");
			diags_release(&d);
			return -1;
		}
		if (ruleset_load(rs, dir, &d) < 0)
			rc = -1;
	}
	for (int i = 0; i < o->n_rules; i++)
		if (ruleset_load(rs, o->rules[i], &d) < 0)
			rc = -1;
	ruleset_apply_env_diags(rs, &d);
	cli_print_diags(&d);
	if (d.errors)
		rc = -1;
	diags_release(&d);
	return rc;
}
