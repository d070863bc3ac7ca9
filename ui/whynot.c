/* whynot.c — "why did a rule not fire on this node?": a menu of every rule
 * with how far it got there, then the landing on the deciding check in the
 * trace, said in one line (explain_why_line). The graph and detail views
 * ask it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain/explain.h"
#include "view.h"

unsigned tui_why_not_node(tui *t, int32_t g, int32_t n)
{
	const fd_rounds *rd = session_rounds(&t->s);
	const fd_ruleset *rs = session_rules(&t->s);
	const fd_node *node = &session_model(&t->s)->graphs[g].nodes[n];
	bool rounds = tui_n_rounds(t) > 1;
	int count = (int)tui_rules(t)->n_rows + 1;
	char (*text)[256] = xcalloc((size_t)count, sizeof *text);
	const char **items = xcalloc((size_t)count, sizeof *items);
	int32_t *rule_of = xcalloc((size_t)count, sizeof *rule_of);
	snprintf(text[0], sizeof text[0], "(all rules: the one that got furthest)");
	rule_of[0] = -1;
	items[0] = text[0];
	int initial = 0;
	fd_rounds_why w;
	for (size_t i = 0; i < tui_rules(t)->n_rows; i++) {
		int32_t ri = tui_rules(t)->rows[i];
		explain_rounds_why(rd, ri, g, n, &w);
		const char *what = "no attempt reached it";
		char oc[96];
		if (w.why.attempt != UINT32_MAX) {
			const fd_attempt *at = &rd->items[w.round - 1]->result->trace.attempts[w.why.attempt];
			if (at->rung == RUNG_FIRED)
				snprintf(oc, sizeof oc, "fired");
			else
				snprintf(oc, sizeof oc, "%s %s", rung_name((fd_rung)at->rung), reason_code((fd_reason)at->reason));
			if (rounds)
				snprintf(oc + strlen(oc), sizeof oc - strlen(oc), " (round %d)", (int)w.round);
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
	explain_rounds_why(rd, rule, g, n, &w);
	if (w.why.attempt == UINT32_MAX) {
		tui_message(t, rule >= 0 ? ROLE_FAIL : ROLE_WARN, "%s", w.line[0] ? w.line :
		            "no rule made an attempt that reached the node");
		return RES_REDRAW;
	}
	const fd_match_result *r = rd->items[w.round - 1]->result;
	unsigned res = tui_goto_round_event(t, w.round, vs_attempt_focus(&r->trace, w.why.attempt));
	tui_message(t, w.fired ? ROLE_FIRED : ROLE_FAIL, "%s", w.line);
	return res | RES_REDRAW;
}
