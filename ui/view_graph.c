/* view_graph.c — the graph view: every node in topological order (bodies of
 * If / Loop / Scan after the main graph, indented), its op, its first
 * output's shape and dtype, and the fusion that took it, marked and coloured
 * per rule. The columns are sized to the pane from what the rows on screen
 * need; a name too long is cut to its tail of whole scopes
 * (…/layer1/conv/Conv), else in the middle, and Left / Right scroll to the
 * rest. Only visible rows are formatted. m on a chain's first node and m
 * on its last mark the chain whose rule w then writes (suggest_write.c).
 * State: its own graph_view (t->views[VIEW_GRAPH].data): the graphs' rows
 * and the chain marked. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "view.h"

/* The view's own state (t->views[VIEW_GRAPH].data): the rows of the
 * model's graphs (view_state.h), and the chain marked for write-rule:
 * graph -1 none, last -1 only its start. */
typedef struct graph_view {
	vs_graph_rows rows;
	struct { int32_t graph, first, last; } mark;
} graph_view;

static graph_view *state(const tui *t)
{
	return t->views[VIEW_GRAPH].data;
}

static size_t rows(tui *t)
{
	return vs_graph_rows_count(&state(t)->rows);
}

static void row_node(tui *t, size_t row, int32_t *g, int32_t *n)
{
	vs_graph_row_node(&state(t)->rows, session_model(&t->s), row, g, n);
}

static size_t node_row(tui *t, int32_t graph, int32_t node)
{
	return vs_graph_node_row(&state(t)->rows, session_model(&t->s), graph, node);
}

/* For search: the node's name, its op and the rule that fused it. */
static const char *row_text(tui *t, size_t row, char *buf, size_t size, int *role)
{
	*role = ROLE_NORMAL;
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

/* A row's cells as text: op (with its domain), first output's shape and
 * dtype, the fusion tag. */
typedef struct cells {
	char op[128], shape[160], tag[192];
} cells;

static void row_cells(tui *t, int32_t g, int32_t n, cells *c)
{
	const fd_graph *gr = &session_model(&t->s)->graphs[g];
	const fd_node *node = &gr->nodes[n];
	snprintf(c->op, sizeof c->op, "%s%s%s", node->domain && *node->domain ? node->domain : "",
	         node->domain && *node->domain ? "." : "", node->op_type);
	c->shape[0] = c->tag[0] = '\0';
	if (node->n_outputs > 0 && node->outputs[0] >= 0) {
		const fd_tensor *tt = &gr->tensors[node->outputs[0]];
		char sb[96];
		snprintf(c->shape, sizeof c->shape, "%s %s", shape_format(&tt->shape, sb, sizeof sb), dtype_name(tt->dtype));
	}
	/* the fusion that took it last (with rounds: the final one, and its round) */
	int32_t round;
	int32_t f = tui_node_fusion(t, g, n, &round);
	const fd_match_result *r = f >= 0 ? rounds_get(session_rounds(&t->s), round)->result : NULL;
	if (r && tui_n_rounds(t) > 1)
		snprintf(c->tag, sizeof c->tag, "R%d #%d %s", (int)round, f, r->rules->rules[r->fusions[f].rule].name);
	else if (r)
		snprintf(c->tag, sizeof c->tag, "#%d %s", f, r->rules->rules[r->fusions[f].rule].name);
}

/* The columns, the same for every row on screen: what each needs in full
 * (the widest visible cell), then fitted to w. The name, cut in the middle
 * (head…tail) when it must be, keeps all it can. */
typedef struct columns {
	int indent;   /* the deepest body's indent on screen: names start after it */
	int name, op, shape, tag;
	int need;   /* all of it in full: the right end of horizontal scrolling */
} columns;

static columns layout_columns(tui *t, int w)
{
	const vs_list *l = &t->views[VIEW_GRAPH].list;
	const fd_model *m = session_model(&t->s);
	int name = 4, op = 4, shape = 0, tag = 0, indent = 0;
	for (int i = 0; i < l->height; i++) {
		int32_t g, n;
		vs_graph_row_node(&state(t)->rows, m, l->top + (size_t)i, &g, &n);
		if (g < 0)
			break;
		cells c;
		row_cells(t, g, n, &c);
		int nw = display_width(m->graphs[g].nodes[n].name), d = m->graphs[g].depth * 2;
		name = nw > name ? nw : name;
		indent = d > indent ? d : indent;
		op = display_width(c.op) > op ? display_width(c.op) : op;
		shape = display_width(c.shape) > shape ? display_width(c.shape) : shape;
		tag = display_width(c.tag) > tag ? display_width(c.tag) : tag;
	}
	columns k = { indent, name + 1, op + 1 < 24 ? op + 1 : 24, shape ? shape + 1 : 0, tag, 0 };
	k.need = 2 + indent + k.name + k.op + k.shape + k.tag;
	int avail = w - 2 - indent;
	int over = k.name + k.op + k.shape + k.tag - avail;
	/* the shape gives way first, then the tag and the op down to a readable
	 * width, and the name last (it is what a row is about) */
	int *give[] = { &k.shape, &k.tag, &k.op, &k.name }, floor[] = { 0, 14, 10, 12 };
	for (int i = 0; i < 4 && over > 0; i++) {
		int room = *give[i] - floor[i];
		int g = room < over ? room : over;
		if (g <= 0)
			continue;
		*give[i] -= g;
		over -= g;
		if (i == 0 && k.shape < 8) {   /* a shape of a few columns says nothing */
			over -= k.shape;
			k.shape = 0;
		}
	}
	if (over < 0 && k.shape == 0 && k.name < name + 1) {   /* what the dropped shape left goes to the name */
		int g = -over < name + 1 - k.name ? -over : name + 1 - k.name;
		k.name += g;
	}
	return k;
}

/* ---- the chain marked for write-rule ------------------------------------- */

static void clear_mark(graph_view *gv)
{
	gv->mark.graph = gv->mark.first = gv->mark.last = -1;
}

/* The mark a row shows: "chain start", "chain end", or NULL. */
static const char *chain_mark(const tui *t, int32_t graph, int32_t node)
{
	const graph_view *gv = state(t);
	if (gv->mark.graph != graph)
		return NULL;
	return node == gv->mark.first ? "chain start" : node == gv->mark.last ? "chain end" : NULL;
}

/* m: the chain's start, then its end, then the marks cleared. */
static unsigned mark_chain(tui *t, int32_t graph, int32_t node)
{
	graph_view *gv = state(t);
	const char *name = session_model(&t->s)->graphs[graph].nodes[node].name;
	if (gv->mark.graph >= 0 && gv->mark.last >= 0) {
		clear_mark(gv);
		tui_message(t, ROLE_INFO, "chain marks cleared");
	} else if (gv->mark.graph == graph && gv->mark.first != node) {
		gv->mark.last = node;
		tui_message(t, ROLE_INFO, "chain end: %s; w adds the rule of this chain alone, m clears", name);
	} else {
		clear_mark(gv);
		gv->mark.graph = graph;
		gv->mark.first = node;
		tui_message(t, ROLE_INFO, "chain start: %s; m on its last node marks the end", name);
	}
	return RES_REDRAW;
}

/* w (and why-not): the rule of the chain marked, or why-not on the node
 * when none is marked. */
static unsigned write_chain_rule(tui *t, int32_t graph, int32_t node)
{
	graph_view *gv = state(t);
	if (gv->mark.graph < 0)
		return tui_why_not_node(t, graph, node);
	if (gv->mark.last < 0) {
		tui_message(t, ROLE_WARN, "mark the chain's end too: m on its last node");
		return RES_REDRAW;
	}
	fd_suggest sg;
	suggest_init(&sg);
	fd_diags d;
	diags_init(&d);
	fd_suggest_options so = { .target = t->s.opt.target };
	unsigned res;
	if (suggest_chain(&sg, &t->s.current_rounds, &t->s.rules, &so, gv->mark.graph, gv->mark.first, gv->mark.last,
	                  &d) < 0) {
		char line[1024];
		tui_message(t, ROLE_ERROR, "no rule for this chain: %s",
		            d.n ? diag_format(&d.items[0], line, sizeof line) : "it cannot be fused");
		res = RES_REDRAW;
	} else {
		clear_mark(gv);
		res = tui_write_pattern_rule(t, &sg.patterns[0]);
	}
	diags_release(&d);
	suggest_release(&sg);
	return res;
}

/* ---- drawing and actions -------------------------------------------------- */

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	int32_t g, n;
	row_node(t, row, &g, &n);
	if (g < 0)
		return;
	const fd_model *m = session_model(&t->s);
	const fd_graph *gr = &m->graphs[g];
	const fd_node *node = &gr->nodes[n];
	int32_t round;
	int32_t f = tui_node_fusion(t, g, n, &round);
	const fd_match_result *r = f >= 0 ? rounds_get(session_rounds(&t->s), round)->result : session_result(&t->s);
	int end = x + w;
	bool cur = cursor && t->focus == VIEW_GRAPH;
	if (cur)
		display_fill(t->disp, y, x, w, ROLE_CURSOR, 0);
	int base = cur ? ROLE_CURSOR : ROLE_NORMAL;
	bool bp = node_has_bp(t, g, n);
	x = display_text(t->disp, y, x, end - x, bp ? ROLE_BREAK : base, 0, bp ? t->disp->g->breakpoint : cursor ? t->disp->g->cursor : " ");
	int rrole = f >= 0 ? ROLE_RULE0 + r->fusions[f].rule % ROLE_RULE_COLOURS : base;
	x = display_text(t->disp, y, x, end - x, rrole, 0, f >= 0 ? t->disp->g->bar : " ");
	columns k = layout_columns(t, w);
	cells c;
	row_cells(t, g, n, &c);
	char pad[64];
	snprintf(pad, sizeof pad, "%*s", gr->depth * 2 < 60 ? gr->depth * 2 : 60, "");
	x = display_text(t->disp, y, x, end - x, base, 0, pad);
	int name_w = k.indent + k.name - (int)strlen(pad);   /* columns align across indents */
	display_text_name(t->disp, y, x, name_w - 1, base, 0, node->name);
	x += name_w;
	display_text(t->disp, y, x, k.op - 1, cur ? ROLE_CURSOR : ROLE_HEADER, 0, c.op);
	x += k.op;
	if (k.shape > 1)
		display_text_mid(t->disp, y, x, k.shape - 1, cur ? ROLE_CURSOR : ROLE_DIM, 0, c.shape);
	x += k.shape;
	const char *mark = f < 0 ? chain_mark(t, g, n) : NULL;   /* a chain for write-rule */
	if (f >= 0)
		display_text(t->disp, y, x, end - x, cur ? ROLE_CURSOR : rrole, 0, c.tag);
	else if (mark)
		display_text(t->disp, y, x, end - x, cur ? ROLE_CURSOR : ROLE_HEADER, 0, mark);
}

static int content_width(tui *t)
{
	return layout_columns(t, 0).need;
}

static void select_row(tui *t)
{
	int32_t g, n;
	row_node(t, t->views[VIEW_GRAPH].list.cursor, &g, &n);
	if (g >= 0)
		tui_set_detail_node(t, g, n);
}

static unsigned action(tui *t, enum tui_action a)
{
	int32_t g, n;
	row_node(t, t->views[VIEW_GRAPH].list.cursor, &g, &n);
	if (g < 0)
		return RES_UNHANDLED;
	switch (a) {
	case ACT_ENTER:
		tui_set_detail_node(t, g, n);
		return tui_show_view(t, VIEW_DETAIL);
	case ACT_WHY_NOT:   /* with a chain marked, the same key writes its rule */
	case ACT_WRITE_RULE:
		return write_chain_rule(t, g, n);
	case ACT_MARK_CHAIN:
		return mark_chain(t, g, n);
	case ACT_BREAKPOINT: {
		vs_breakpoint bp = { .kind = BP_NODE, .graph = g, .node = n };
		return tui_toggle_breakpoint(t, &bp);
	}
	default:
		return RES_UNHANDLED;
	}
}

/* The rule of the fusion that took the node under the cursor (in round 1),
 * else the rules view's. */
static int32_t cursor_rule(tui *t)
{
	const fd_match_result *r = session_result(&t->s);
	int32_t g, n;
	row_node(t, t->views[VIEW_GRAPH].list.cursor, &g, &n);
	if (g >= 0 && n >= 0 && r->claim[g][n] >= 0)
		return r->fusions[r->claim[g][n]].rule;
	return tui_view_rule(t, VIEW_RULES);
}

static const enum tui_action hints[] = {
	ACT_WHY_NOT, ACT_ENTER, ACT_BREAKPOINT, ACT_SEARCH, ACT_NEXT_FIRE, ACT_VIEW_NEXT, ACT_EXPORT, ACT_VIEW_HELP,
	ACT_NONE
};

/* The rows of the model's graphs; no chain marked. */
static void *open_view(tui *t)
{
	graph_view *gv = xcalloc(1, sizeof *gv);
	vs_graph_rows_init(&gv->rows, session_model(&t->s));
	clear_mark(gv);
	return gv;
}

static void close_view(void *data)
{
	graph_view *gv = data;
	vs_graph_rows_release(&gv->rows);
	free(gv);
}

const view_ops view_graph_ops = {
	.rows = rows, .text = row_text, .draw_row = draw_row, .action = action,
	.select = select_row, .hints = hints, .content_width = content_width, .cursor_rule = cursor_rule,
	.node_row = node_row,
	.open = open_view, .close = close_view,
};
