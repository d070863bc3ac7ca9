/* whynot.c — "why did a rule not fire on this node?": a menu of every rule
 * with how far it got there, then the landing on the deciding check in the
 * trace, said in one line (explain_why_line). The graph and detail views
 * ask it. */
#include <stdio.h>
#include <stdlib.h>
#include "explain/explain.h"
#include "view.h"

unsigned tui_why_not_node(tui *t, int32_t g, int32_t n)
{
	const fd_match_result *r = session_result(&t->s);
	const fd_ruleset *rs = session_rules(&t->s);
	const fd_node *node = &session_model(&t->s)->graphs[g].nodes[n];
	int count = (int)t->n_rule_rows + 1;
	char (*text)[256] = xcalloc((size_t)count, sizeof *text);
	const char **items = xcalloc((size_t)count, sizeof *items);
	int32_t *rule_of = xcalloc((size_t)count, sizeof *rule_of);
	snprintf(text[0], sizeof text[0], "(all rules: the one that got furthest)");
	rule_of[0] = -1;
	items[0] = text[0];
	int initial = 0;
	for (size_t i = 0; i < t->n_rule_rows; i++) {
		int32_t ri = t->rule_rows[i];
		uint32_t a = vs_why_not(r, ri, g, n);
		const char *what = "no attempt reached it";
		char oc[96];
		if (a != UINT32_MAX) {
			const fd_attempt *at = &r->trace.attempts[a];
			if (at->rung == RUNG_FIRED)
				snprintf(oc, sizeof oc, "fired");
			else
				snprintf(oc, sizeof oc, "%s %s", rung_name((fd_rung)at->rung), reason_code((fd_reason)at->reason));
			what = oc;
		}
		snprintf(text[i + 1], sizeof text[0], "%-32s %s", rs->rules[ri].name, what);
		items[i + 1] = text[i + 1];
		rule_of[i + 1] = ri;
	}
	char title[300];
	snprintf(title, sizeof title, "why did a rule not fire on %s (%s)?", node->name, node->op_type);
	int k = prompt_menu(t, title, items, count, initial);
	int32_t rule = k >= 0 ? rule_of[k] : -2;
	free(text);
	free(items);
	free(rule_of);
	if (rule == -2)
		return RES_REDRAW;
	uint32_t a = vs_why_not(r, rule, g, n);
	if (a == UINT32_MAX) {
		if (rule >= 0) {
			const fd_rule *ru = &rs->rules[rule];
			const fd_rule_op *op0 = ru->match.n_ops ? &ru->match.ops[0]
			                      : ru->n_branches && ru->branches[0].n_ops ? &ru->branches[0].ops[0] : NULL;
			fd_srcpos p = op0 ? yval_pos(op0->type_where) : yval_pos(ru->root);
			tui_message(t, ROLE_FAIL, "%s did not fire on %s (%s): no attempt reached it; op0 type: expected %s, "
			            "actual %s [FD-NM01] at %s:%d:%d", ru->name, node->name, node->op_type,
			            op0 ? op0->type : "?", node->op_type, p.file ? p.file : "?", p.line, p.col);
		} else {
			tui_message(t, ROLE_WARN, "no rule made an attempt that reached %s", node->name);
		}
		return RES_REDRAW;
	}
	unsigned res = tui_goto_event(t, vs_attempt_focus(&r->trace, a));
	char line[1024];
	const fd_attempt *at = &r->trace.attempts[a];
	tui_message(t, at->rung == RUNG_FIRED ? ROLE_FIRED : ROLE_FAIL, "%s", explain_why_line(r, a, line, sizeof line));
	return res | RES_REDRAW;
}
