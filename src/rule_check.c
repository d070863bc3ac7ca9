/* rule_check.c — `check`: lint over a loaded rule set (stub, filled in next). */
#include "rules.h"

void ruleset_check(const fd_ruleset *rs, const fd_check_options *opt, fd_diags *d)
{
	(void)rs, (void)opt, (void)d;
}
