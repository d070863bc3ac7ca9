/* view_memory.c — the memory timeline: the main graph's peak before ->
 * after fusion with the binding named, the symbols (bound with their value,
 * unbound named; Enter or @ binds one), what the last change of a binding
 * did (fusions gained and lost with the reason each attempt ends on, the
 * peak before -> after), then one row per step of the topological order:
 * its node, the live activation bytes before and after fusion, and a bar of
 * each (after over before), the peaks marked. Sizes that are formulas show
 * in bytes per unit of their symbols ("× batch") when every step scales
 * alike; otherwise the view says which symbols to bind. Enter on a step
 * shows its node in the graph view; E draws the timeline as a chart (SVG,
 * PNG or DOT, as `export --memory-chart` does, export_session_memory_chart:
 * a partly bound model at its unbound symbols = 1, saying so).
 * State: its own memory_view (t->views[VIEW_MEMORY].data): the rows,
 * the timeline and the widest value's columns, rebuilt after every run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view.h"
#include "base/vec.h"
#include "estimate/estimate.h"
#include "export/export.h"

enum mem_row_kind { MR_PEAK, MR_SYMBOLS, MR_CHANGE_HEAD, MR_CHANGE, MR_HEAD, MR_STEP, MR_NONE };

struct mem_row {
	enum mem_row_kind kind;
	size_t i;
};

/* The view's own state (t->views[VIEW_MEMORY].data): rows and the
 * timeline, rebuilt after every run. */
typedef struct memory_view {
	VEC(struct mem_row) rows;
	fd_timeline tl;
	unsigned built_gen;
	int value_w;          /* columns the widest value of the timeline takes */
} memory_view;

static void *open_view(tui *t)
{
	memory_view *mv = xcalloc(1, sizeof *mv);
	mv->built_gen = t->run_gen - 1;   /* built on first use */
	return mv;
}

static void close_view(void *data)
{
	memory_view *mv = data;
	estimate_timeline_release(&mv->tl);
	vec_release(&mv->rows);
	free(mv);
}

static void measure(tui *t, memory_view *mv);

static void push(memory_view *mv, enum mem_row_kind k, size_t i)
{
	vec_push(&mv->rows, ((struct mem_row){ k, i }));
}

/* The view's state, its rows and timeline those of the last run. */
static memory_view *ensure(tui *t)
{
	memory_view *mv = t->views[VIEW_MEMORY].data;
	if (mv->built_gen == t->run_gen)
		return mv;
	mv->built_gen = t->run_gen;
	estimate_timeline_release(&mv->tl);
	mv->rows.n = 0;
	push(mv, MR_PEAK, 0);
	push(mv, MR_SYMBOLS, 0);
	const fd_binding_diff *bd = session_binding_diff(&t->s);
	if (bd) {
		push(mv, MR_CHANGE_HEAD, 0);
		for (size_t i = 0; i < bd->n_changes; i++)
			push(mv, MR_CHANGE, i);
	}
	if (estimate_timeline(session_final_estimate(&t->s), 0, &mv->tl) < 0 || !mv->tl.known) {
		push(mv, MR_NONE, 0);
		return mv;
	}
	push(mv, MR_HEAD, 0);
	for (int32_t k = 0; k < mv->tl.n_steps; k++)
		push(mv, MR_STEP, (size_t)k);
	measure(t, mv);
	return mv;
}

static void value_text(tui *t, const fd_timeline *tl, double v, char *buf, size_t size)
{
	char b[32];
	estimate_format_bytes((int64_t)(v + 0.5), b, sizeof b);
	if (tl->unit[0])
		snprintf(buf, size, "%s %s %s", b, t->disp->g->times, tl->unit);
	else
		snprintf(buf, size, "%s", b);
}

static const char *value_text_ret(tui *t, const fd_timeline *tl, double v, char *buf, size_t size)
{
	value_text(t, tl, v, buf, size);
	return buf;
}

static void measure(tui *t, memory_view *mv)
{
	char b[192];
	mv->value_w = 8;
	for (int side = 0; side < 2; side++)
		for (int32_t k = 0; k < mv->tl.n_steps; k++) {
			int w = display_width(value_text_ret(t, &mv->tl, mv->tl.live[side][k], b, sizeof b));
			if (w > mv->value_w)
				mv->value_w = w;
		}
}

static size_t rows(tui *t)
{
	return ensure(t)->rows.n;
}

static void symbols_text(const fd_model *m, char *buf, size_t size)
{
	size_t at = (size_t)snprintf(buf, size, "symbols:");
	int shown = 0;
	for (int32_t i = 0; i < m->n_symdims && at < size; i++) {
		if (!m->symdims[i].used)
			continue;
		shown++;
		if (m->symdims[i].bound)
			at += (size_t)snprintf(buf + at, size - at, " %s=%lld", m->symdims[i].name,
			                       (long long)m->symdims[i].value);
		else
			at += (size_t)snprintf(buf + at, size - at, " %s (unbound)", m->symdims[i].name);
	}
	if (at < size)
		snprintf(buf + at, size - at, shown ? "   (Enter or @ binds one: what-if)" : " none to bind");
}

static const char *change_text(tui *t, const fd_binding_change *c, char *buf, size_t size, int *role)
{
	const fd_ruleset *rs = session_rules(&t->s);
	const fd_graph *g = &session_model(&t->s)->graphs[c->graph];
	const char *node = c->node >= 0 && c->node < g->n_nodes ? g->nodes[c->node].name : "?";
	const char *code = reason_code(c->why);
	const fd_reason_def *def = reason_get(c->why);
	if (c->kind == CHANGE_GAINED) {
		*role = ROLE_GAIN;
		snprintf(buf, size, "  + gained %s @ %s%s%s%s", rs->rules[c->rule_after].name, node,
		         code[0] ? " (was " : "", code, code[0] ? ")" : "");
	} else if (c->kind == CHANGE_LOST) {
		*role = ROLE_LOSS;
		snprintf(buf, size, "  - lost   %s @ %s%s%s%s%s%s", rs->rules[c->rule_before].name, node,
		         code[0] ? ": " : "", code, def ? " " : "", def ? def->summary : "", "");
	} else {
		*role = ROLE_WARN;
		snprintf(buf, size, "  ~ changed %s %s %s @ %s", rs->rules[c->rule_before].name, t->disp->g->arrow,
		         rs->rules[c->rule_after].name, node);
	}
	return buf;
}

static const char *row_text(tui *t, size_t row, char *buf, size_t size, int *role)
{
	memory_view *mv = ensure(t);
	const fd_timeline *tl = &mv->tl;
	const struct mem_row *r = &mv->rows.items[row];
	const fd_estimate *e = session_final_estimate(&t->s);
	const fd_model *m = session_model(&t->s);
	char b1[192], b2[192];
	*role = ROLE_NORMAL;
	switch (r->kind) {
	case MR_PEAK:
		*role = ROLE_HEADER;
		if (e->n_graphs > 0)
			snprintf(buf, size, "main graph: peak %s %s %s (est.)",
			         estimate_format_peak(m, &e->graphs[0].before, b1, sizeof b1), t->disp->g->arrow,
			         estimate_format_peak(m, &e->graphs[0].after, b2, sizeof b2));
		else
			snprintf(buf, size, "no graph");
		break;
	case MR_SYMBOLS:
		*role = ROLE_KEY;
		symbols_text(m, buf, size);
		break;
	case MR_CHANGE_HEAD: {
		const fd_binding_diff *bd = session_binding_diff(&t->s);
		*role = ROLE_HEADER;
		snprintf(buf, size, "last binding change %s: %zu gained, %zu lost, %zu changed; peak after fusion %s %s %s",
		         bd->what, bd->n_gained, bd->n_lost, bd->n_changed, bd->peak_old[1], t->disp->g->arrow, bd->peak_new[1]);
		break;
	}
	case MR_CHANGE:
		return change_text(t, &session_binding_diff(&t->s)->changes[r->i], buf, size, role);
	case MR_HEAD:
		*role = ROLE_HEADER;
		snprintf(buf, size, " step  node  before fusion  after fusion   (bars: %s before, %s after)", t->disp->g->info, t->disp->g->fused);
		break;
	case MR_STEP: {
		int32_t k = (int32_t)r->i;
		const fd_graph *g = &m->graphs[0];
		const char *node = g->topo_order && k < g->n_nodes ? g->nodes[g->topo_order[k]].name : "?";
		value_text(t, tl, tl->live[0][k], b1, sizeof b1);
		value_text(t, tl, tl->live[1][k], b2, sizeof b2);
		snprintf(buf, size, " %5d  %s  %s  %s  %s", k, node, b1, b2,
		         k == tl->peak_step[0] && k == tl->peak_step[1] ? "peak before and after"
		         : k == tl->peak_step[0] ? "peak before" : k == tl->peak_step[1] ? "peak after" : "");
		break;
	}
	case MR_NONE:
		*role = ROLE_WARN;
		/* a partly bound model still has its chart: each unbound symbol at 1 */
		if (export_memory_chart_needs_binding(session_final_estimate(&t->s), 0))
			snprintf(buf, size, "timeline: E draws it at 1 (%s)", tl->why);
		else
			snprintf(buf, size, "timeline: %s", tl->why[0] ? tl->why : "no steps");
		break;
	}
	return buf;
}

/* The bars of a step row, after over before, in the columns left. */
static void draw_bars(tui *t, const fd_timeline *tl, int y, int x, int w, int32_t k)
{
	double top = tl->peak[0] > tl->peak[1] ? tl->peak[0] : tl->peak[1];
	if (w < 4 || top <= 0)
		return;
	int nb = (int)(tl->live[0][k] / top * w + 0.5), na = (int)(tl->live[1][k] / top * w + 0.5);
	for (int i = 0; i < w && i < nb; i++)
		display_text(t->disp, y, x + i, 1, i < na ? ROLE_FIRED : ROLE_DIM, 0, i < na ? t->disp->g->fused : t->disp->g->info);
}

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	char buf[1024];
	int role;
	row_text(t, row, buf, sizeof buf, &role);
	bool cur = cursor && t->focus == VIEW_MEMORY;
	if (cur)
		display_fill(t->disp, y, x, w, ROLE_CURSOR, 0);
	display_text(t->disp, y, x, 1, ROLE_CURSOR, 0, cur ? t->disp->g->cursor : "");
	memory_view *mv = t->views[VIEW_MEMORY].data;
	const fd_timeline *tl = &mv->tl;
	const int value_w = mv->value_w;
	const struct mem_row *r = &mv->rows.items[row];
	int rr = cur ? ROLE_CURSOR : role;
	if (r->kind != MR_STEP && r->kind != MR_HEAD) {
		display_text(t->disp, y, x + 1, w - 1, rr, 0, buf);
		return;
	}
	/* columns sized to the pane: step, node, before, after, then the bars
	 * and the peak mark in what is left (the bars at least 10 wide when the
	 * node's column can give way) */
	int mark_w = 9, node_w = w - 1 - 6 - 2 * (value_w + 1) - 12 - mark_w;
	node_w = node_w > 28 ? 28 : node_w < 6 ? 6 : node_w;
	int at = x + 1, end = x + w;
	const fd_graph *g = &session_model(&t->s)->graphs[0];
	char b1[192], b2[192], num[16];
	/* nothing drawn past the pane's right edge */
#define CLIP(x_, w_) ((x_) >= end ? 0 : (x_) + (w_) > end ? end - (x_) : (w_))
	if (r->kind == MR_HEAD) {
		at = display_text(t->disp, y, at, end - at, rr, 0, " step ");
		display_text(t->disp, y, at, CLIP(at, node_w), rr, 0, "node");
		at += node_w + 1;
		display_text(t->disp, y, at, CLIP(at, value_w), rr, 0, "before");
		at += value_w + 1;
		display_text(t->disp, y, at, CLIP(at, value_w), rr, 0, "after");
		at += value_w + 1;
		snprintf(b1, sizeof b1, "%s before %s after", t->disp->g->info, t->disp->g->fused);
		display_text(t->disp, y, at, CLIP(at, end - at), rr, 0, b1);
		return;
	}
	int32_t k = (int32_t)r->i;
	snprintf(num, sizeof num, "%5d ", k);
	at = display_text(t->disp, y, at, end - at, rr, 0, num);
	display_text(t->disp, y, at, CLIP(at, node_w), rr, 0, g->topo_order && k < g->n_nodes ? g->nodes[g->topo_order[k]].name : "?");
	at += node_w + 1;
	value_text(t, tl, tl->live[0][k], b1, sizeof b1);
	value_text(t, tl, tl->live[1][k], b2, sizeof b2);
	int x1 = at + value_w - display_width(b1);
	display_text(t->disp, y, x1, CLIP(x1, value_w), rr, 0, b1);
	at += value_w + 1;
	int x2 = at + value_w - display_width(b2);
	display_text(t->disp, y, x2, CLIP(x2, value_w), rr, 0, b2);
	at += value_w + 2;
	int bar_w = end - at - mark_w;
	if (bar_w > 60)
		bar_w = 60;
	if (bar_w > 0 && at + bar_w <= end) {
		draw_bars(t, tl, y, at, bar_w, k);
		at += bar_w + 1;
	}
	const char *mark = k == tl->peak_step[0] && k == tl->peak_step[1] ? "< peak"
	                 : k == tl->peak_step[0] ? "< before" : k == tl->peak_step[1] ? "< after" : NULL;
	if (mark && at < end)
		display_text(t->disp, y, at, end - at, cur ? ROLE_CURSOR : ROLE_LOSS, 0, mark);
#undef CLIP
}

/* E in this view: the timeline as a chart. */
static unsigned export_chart(tui *t)
{
	const char *base = strrchr(t->model_path, '/') ? strrchr(t->model_path, '/') + 1 : t->model_path;
	char def[300], path[1024], line[1024];
	snprintf(def, sizeof def, "%.*s-memory.svg", (int)(strrchr(base, '.') ? strrchr(base, '.') - base : (long)strlen(base)),
	         base);
	if (!prompt_line(t, "memory chart to (.svg, .png, .dot): ", def, path, sizeof path) || !path[0])
		return RES_REDRAW;
	fd_diags d;
	diags_init(&d);
	char at[256], bind[256];
	int n_at;
	if (export_session_memory_chart(&t->s, path, at, sizeof at, bind, sizeof bind, &n_at, &d) < 0)
		tui_message(t, ROLE_ERROR, "memory chart not written: %s", d.n ? diag_format(&d.items[0], line, sizeof line) : "?");
	else if (!n_at)
		tui_message(t, ROLE_FIRED, "wrote %s (memory timeline)", path);
	else   /* a partly bound model: drawn at 1, as the chart's note says */
		tui_message(t, ROLE_FIRED, "wrote %s (memory timeline at %s: not bound, the steps do not scale alike by %s; "
		            "@ binds %s)", path, at, n_at > 1 ? "them" : "it", n_at > 1 ? "one" : "it");
	diags_release(&d);
	return RES_REDRAW;
}

static unsigned action(tui *t, enum tui_action a)
{
	memory_view *mv = ensure(t);
	size_t row = t->views[VIEW_MEMORY].list.cursor;
	if (a == ACT_EXPORT)
		return export_chart(t);
	if (a != ACT_ENTER || row >= mv->rows.n)
		return RES_UNHANDLED;
	const struct mem_row *r = &mv->rows.items[row];
	const fd_model *m = session_model(&t->s);
	int32_t graph = -1, node = -1;
	if (r->kind == MR_SYMBOLS) {
		const char *first = NULL;
		for (int32_t i = 0; i < m->n_symdims && !first; i++)
			if (m->symdims[i].used && !m->symdims[i].bound)
				first = m->symdims[i].name;
		return tui_bind_dim(t, first);
	}
	if (r->kind == MR_STEP && m->graphs[0].topo_order) {
		graph = 0;
		node = m->graphs[0].topo_order[r->i];
	} else if (r->kind == MR_CHANGE) {
		const fd_binding_change *c = &session_binding_diff(&t->s)->changes[r->i];
		graph = c->graph;
		node = c->node;
	}
	return node < 0 ? RES_REDRAW : tui_show_node(t, graph, node);
}

static const enum tui_action hints[] = {
	ACT_ENTER, ACT_BIND_DIM, ACT_EXPORT, ACT_BACK, ACT_VIEW_HELP, ACT_NONE
};

const view_ops view_memory_ops = {
	.rows = rows, .draw_row = draw_row, .text = row_text, .action = action, .hints = hints,
	.open = open_view, .close = close_view,
};
