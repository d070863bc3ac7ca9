/* whynot.c — "why did a rule not fire on this node?": a menu of every rule
 * with how far it got there, then the landing on the deciding check in the
 * trace, said in one line (explain_why_line). For an op a quantized model
 * left in float the menu's first row asks why it stayed float instead
 * (explain_why_float). The graph and detail views ask it. */
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
	const fd_match_result *final = session_final_result(&t->s);
	bool stayed = explain_graph_quantized(&session_model(&t->s)->graphs[g]) && explain_left_in_float(final, g, n);
	int first = stayed ? 2 : 1;   /* rows before the rules' */
	int32_t n_rules = session_result(&t->s)->n_rules;
	int count = (int)n_rules + first;
	char (*text)[256] = xcalloc((size_t)count, sizeof *text);
	const char **items = xcalloc((size_t)count, sizeof *items);
	int32_t *rule_of = xcalloc((size_t)count, sizeof *rule_of);
	if (stayed) {
		snprintf(text[0], sizeof text[0], "(quantized model: why it stayed float)");
		rule_of[0] = -3;
		items[0] = text[0];
	}
	snprintf(text[first - 1], sizeof text[0], "(all rules: the one that got furthest)");
	rule_of[first - 1] = -1;
	items[first - 1] = text[first - 1];
	int initial = 0;
	fd_rounds_why w;
	for (size_t i = 0; i < (size_t)n_rules; i++) {   /* in the order they run */
		int32_t ri = tui_run_order(t, i);
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
		snprintf(text[i + first], sizeof text[0], "%-32s %s", rs->rules[ri].name, what);
		items[i + first] = text[i + first];
		rule_of[i + first] = ri;
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
	if (rule == -3) {
		char line[2048];
		explain_why_float(rd, final, g, n, line, sizeof line);
		tui_message(t, ROLE_FAIL, "%s", line);
		return RES_REDRAW;
	}
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
