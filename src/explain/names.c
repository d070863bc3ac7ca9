/* names.c — "did you mean" for the names a user gives of a run: a rule, a
 * node, a reason code (base/nearest.h does the measuring). Each returns the
 * " (did you mean …?)" tail of a message, or "". */
#include <stdio.h>
#include "base/nearest.h"
#include "explain/explain.h"

char *explain_rule_hint(const fd_ruleset *rs, const char *typed, char *buf, size_t size)
{
	fd_nearest nn;
	nearest_init(&nn, typed);
	for (int32_t i = 0; i < rs->n_rules; i++)
		nearest_add(&nn, rs->rules[i].name);
	return nearest_hint(&nn, buf, size);
}

char *explain_node_hint(const fd_model *m, const char *typed, char *buf, size_t size)
{
	fd_nearest nn;
	nearest_init(&nn, typed);
	for (int32_t g = 0; g < m->n_graphs; g++)
		for (int32_t n = 0; n < m->graphs[g].n_nodes; n++)
			nearest_add(&nn, m->graphs[g].nodes[n].name);
	return nearest_hint(&nn, buf, size);
}

char *explain_reason_hint(const char *typed, char *buf, size_t size)
{
	fd_nearest nn;
	nearest_init(&nn, typed);
	for (int k = REASON_NONE + 1; k < REASON_COUNT; k++)
		nearest_add(&nn, reason_code((fd_reason)k));
	return nearest_hint(&nn, buf, size);
}
