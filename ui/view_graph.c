/* view_graph.c — the graph view: every node in topological order (bodies of
 * If / Loop / Scan after the main graph, indented), its op, its first
 * output's shape and dtype, and the fusion that took it, marked and coloured
 * per rule. Only visible rows are formatted. */
#include <stdio.h>
#include "view.h"

static size_t rows(tui *t)
{
	return vs_graph_rows_count(&t->grows);
}

static void row_node(tui *t, size_t row, int32_t *g, int32_t *n)
{
	vs_graph_row_node(&t->grows, session_model(&t->s), row, g, n);
}

static const char *row_text(void *ctx, size_t row, char *buf, size_t size)
{
	tui *t = ctx;
	int32_t g, n;
	row_node(t, row, &g, &n);
	if (g < 0)
		return "";
	const fd_node *node = &session_model(&t->s)->graphs[g].nodes[n];
	int32_t round;
	int32_t f = tui_node_fusion(t, g, n, &round);
	const fd_match_result *r = f >= 0 ? rounds_get(session_rounds(&t->s), round)->result : NULL;
	snprintf(buf, size, "%s %s %s", node->name, node->op_type, r ? r->rules->rules[r->fusions[f].rule].name : "");
	return buf;
}

static bool node_has_bp(tui *t, int32_t g, int32_t n)
{
	for (size_t i = 0; i < t->bps.n; i++)
		if (t->bps.items[i].kind == BP_NODE && t->bps.items[i].graph == g && t->bps.items[i].node == n)
			return true;
	return false;
}

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	int32_t g, n;
	row_node(t, row, &g, &n);
	if (g < 0)
		return;
	const fd_model *m = session_model(&t->s);
	const fd_graph *gr = &m->graphs[g];
	const fd_node *node = &gr->nodes[n];
	/* the fusion that took it last (with rounds: the final one) */
	int32_t round;
	int32_t f = tui_node_fusion(t, g, n, &round);
	const fd_match_result *r = f >= 0 ? rounds_get(session_rounds(&t->s), round)->result : session_result(&t->s);
	int end = x + w;
	bool cur = cursor && t->focus == VIEW_GRAPH;
	if (cur)
		display_fill(y, x, w, ROLE_CURSOR, 0);
	int base = cur ? ROLE_CURSOR : ROLE_NORMAL;
	bool bp = node_has_bp(t, g, n);
	x = display_text(y, x, end - x, bp ? ROLE_BREAK : base, 0, bp ? G.breakpoint : cursor ? G.cursor : " ");
	int rrole = f >= 0 ? ROLE_RULE0 + r->fusions[f].rule % ROLE_RULE_COLOURS : base;
	x = display_text(y, x, end - x, rrole, 0, f >= 0 ? G.bar : " ");
	char buf[512];
	snprintf(buf, sizeof buf, "%*s", gr->depth * 2, "");
	x = display_text(y, x, end - x, base, 0, buf);
	int avail = end - x;
	int name_w = avail / 4 < 10 ? 10 : avail / 4 > 28 ? 28 : avail / 4;
	int op_w = avail - name_w > 14 ? 14 : avail - name_w;
	int tag_w = f >= 0 ? avail - name_w - op_w : 0;
	if (tag_w > 28)
		tag_w = 28;
	int shape_w = avail - name_w - op_w - tag_w;
	if (shape_w < 0)
		shape_w = 0;
	display_text(y, x, name_w - 1, base, 0, node->name);
	x += name_w;
	snprintf(buf, sizeof buf, "%s%s%s", node->domain && *node->domain ? node->domain : "",
	         node->domain && *node->domain ? "." : "", node->op_type);
	display_text(y, x, op_w - 1, cur ? ROLE_CURSOR : ROLE_HEADER, 0, buf);
	x += op_w;
	if (shape_w > 1 && node->n_outputs > 0 && node->outputs[0] >= 0) {
		const fd_tensor *tt = &gr->tensors[node->outputs[0]];
		char sb[96], shape[128];
		snprintf(shape, sizeof shape, "%s %s", shape_format(&tt->shape, sb, sizeof sb), dtype_name(tt->dtype));
		display_text(y, x, shape_w - 1, cur ? ROLE_CURSOR : ROLE_DIM, 0, shape);
	}
	x += shape_w;
	if (f >= 0 && tag_w > 0) {
		const fd_fusion *fu = &r->fusions[f];
		if (tui_n_rounds(t) > 1)
			snprintf(buf, sizeof buf, "R%d #%d %s", (int)round, f, r->rules->rules[fu->rule].name);
		else
			snprintf(buf, sizeof buf, "#%d %s", f, r->rules->rules[fu->rule].name);
		display_text(y, x, tag_w, cur ? ROLE_CURSOR : rrole, 0, buf);
	}
}

static void select_row(tui *t)
{
	int32_t g, n;
	row_node(t, t->list[VIEW_GRAPH].cursor, &g, &n);
	if (g >= 0)
		tui_set_detail_node(t, g, n);
}

static unsigned action(tui *t, enum tui_action a)
{
	int32_t g, n;
	row_node(t, t->list[VIEW_GRAPH].cursor, &g, &n);
	if (g < 0)
		return RES_UNHANDLED;
	switch (a) {
	case ACT_ENTER:
		tui_set_detail_node(t, g, n);
		return tui_show_view(t, VIEW_DETAIL);
	case ACT_WHY_NOT:
		return tui_why_not_node(t, g, n);
	case ACT_BREAKPOINT: {
		vs_breakpoint bp = { .kind = BP_NODE, .graph = g, .node = n };
		bool on = vs_bp_toggle(&t->bps, &bp);
		tui_message(t, ROLE_BREAK, "breakpoint %s: node %s (c runs to it)", on ? "set" : "removed",
		            session_model(&t->s)->graphs[g].nodes[n].name);
		return RES_REDRAW;
	}
	default:
		return RES_UNHANDLED;
	}
}

static const enum tui_action hints[] = {
	ACT_WHY_NOT, ACT_ENTER, ACT_BREAKPOINT, ACT_SEARCH, ACT_NEXT_FIRE, ACT_VIEW_NEXT, ACT_EXPORT, ACT_VIEW_HELP,
	ACT_NONE
};

const view_ops view_graph_ops = {
	.rows = rows, .draw_row = draw_row, .row_text = row_text, .action = action,
	.select = select_row, .hints = hints,
};
