/* event_path.c — the what-if path of the rule value an event checked
 * (explain_event_path), so that an edit goes to what decided it: an op's
 * own condition by its entry's facts (the field that decided), the
 * subgraph's, a constraint's and the rule's by the event's kind. */
#include <stdio.h>
#include "explain/explain.h"
#include "explain/explain_internal.h"

bool explain_event_path(const fd_match_result *r, uint32_t idx, char *buf, size_t size)
{
	buf[0] = '\0';
	if (idx >= r->trace.n_events)
		return false;
	fd_event ev = trace_event(&r->trace, idx);
	const fd_event *e = &ev;
	if (e->rule < 0 || e->rule >= r->rules->n_rules)
		return false;
	const fd_rule *rule = &r->rules->rules[e->rule];
	char pat[64];
	const fd_rule_pattern *pt = &rule->match;
	if (e->branch >= 0 && e->branch < rule->n_branches) {
		pt = &rule->branches[e->branch];
		snprintf(pat, sizeof pat, "match.branches.%d.ops.%d", e->branch, e->op);
	} else if (e->branch == FD_BRANCH_EFFECT || e->branch == FD_BRANCH_CHANGE) {
		pt = cond_event_pattern(rule, e->branch);
		snprintf(pat, sizeof pat, "match.ops.%d.%s", e->op, e->branch == FD_BRANCH_EFFECT ? "effect" : "change");
	} else {
		snprintf(pat, sizeof pat, "match.ops.%d", e->op);
	}
	const fd_rule_op *op = e->op >= 0 && e->op < pt->n_ops ? &pt->ops[e->op] : NULL;
	fd_cond_check c;
	fd_cond_facts f;
	fd_cond_kind kind;
	if (explain_op_condition(r, e, &c, &f, &kind)) {
		if (f.path[0])
			snprintf(buf, size, "%s.%s", pat, f.path);
		return buf[0] != '\0';
	}
	switch (e->kind) {
	case EV_SOURCE: case EV_OPERAND: case EV_ORDER: {
		char key[96];
		if (op && e->sub >= -1 && explain_input_key(r, op, e, key, sizeof key))
			snprintf(buf, size, "%s.%s", pat, key);
		break;
	}
	case EV_INPUTS:
		snprintf(buf, size, "match.subgraph.input_count_range");
		break;
	case EV_OUTPUTS:
		snprintf(buf, size, "match.subgraph.output_count");
		break;
	case EV_ESCAPE:
		snprintf(buf, size, "match.subgraph.allow_intermediate_outputs");
		break;
	case EV_CONSTRAINT:
		explain_constraint_path(r, e, buf, size);
		break;
	case EV_RULE:
		snprintf(buf, size, e->status == ST_FAIL ? "enabled" : "priority");
		break;
	case EV_ANCHOR: case EV_CONFLICT: case EV_FIRE: case EV_REWRITE: case EV_CYCLE:
		snprintf(buf, size, "priority");
		break;
	default:
		break;
	}
	return buf[0] != '\0';
}
