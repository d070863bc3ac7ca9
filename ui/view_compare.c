/* view_compare.c — where the compiler's result (--with) and the prediction
 * differ: one row per group of the comparison (explain/compare.h), the
 * differences first; Enter shows the row's node in the graph view. With a
 * fusion_result.json, one row per pass.
 * State: compare_view (tui.h, t->views[VIEW_COMPARE].data): the compiler's
 * result and the comparison, which compare.c reads and makes again. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "view.h"

/* Row 0 says what is compared; then what reading the file warned of, and,
 * when --shapes onnx would leave fewer differences, the suggestion (as
 * compare says both). */
static bool suggests_shapes(const compare_view *cv)
{
	return cv->valid && !cv->result.record && cv->result.differences_shapes_onnx >= 0;
}

static size_t head_rows(const tui *t)
{
	const compare_view *cv = tui_compare(t);
	return 1 + (cv->valid && cv->warning[0]) + suggests_shapes(cv);
}

static size_t rows(tui *t)
{
	if (!tui_compare(t)->valid)
		return 1;
	return (tui_compare(t)->result.record ? tui_compare(t)->result.passes.n : tui_compare(t)->result.rows.n) +
	       head_rows(t);
}

/* Below the head rows: differences, then the same. */
static size_t nth(const tui *t, size_t row)
{
	if (row < head_rows(t))
		return SIZE_MAX;
	row -= head_rows(t) - 1;
	size_t k = 0;
	for (int same = 0; same < 2; same++)
		for (size_t i = 0; i < tui_compare(t)->result.rows.n; i++)
			if ((tui_compare(t)->result.rows.items[i].kind == CMP_SAME) == same && ++k == row)
				return i;
	return SIZE_MAX;
}

static const char *text_of(tui *t, size_t row, char *buf, size_t size, int *role)
{
	*role = ROLE_NORMAL;
	if (!tui_compare(t)->valid) {
		*role = ROLE_DIM;
		snprintf(buf, size, tui_compare(t)->error[0] ? "%s" : "nothing to compare: start with --with OPTIMIZED.onnx or "
		         "fusion_result.json%s", tui_compare(t)->error);
		return buf;
	}
	const fd_comparison *c = &tui_compare(t)->result;
	if (row == 0) {
		*role = ROLE_HEADER;
		if (c->record) {
			compare_record_summary(c, buf, size);
		} else {
			snprintf(buf, size, "%s: same %zu, compiler only %zu, fusiondbg only %zu, different %zu", c->with,
			         c->counts[CMP_SAME], c->counts[CMP_COMPILER_ONLY], c->counts[CMP_PREDICTED_ONLY],
			         c->counts[CMP_DIFFERENT]);
		}
		return buf;
	}
	if (row < head_rows(t)) {
		*role = ROLE_WARN;
		if (row == 1 && tui_compare(t)->warning[0])
			snprintf(buf, size, "%s", tui_compare(t)->warning);
		else
			snprintf(buf, size, "try --shapes onnx: %lld of these %zu differences remain",
			         (long long)c->differences_shapes_onnx, compare_differences(c));
		return buf;
	}
	if (c->record) {
		fd_cmp_pass_kind k = c->passes.items[row - 1].kind;
		*role = k == CMP_PASS_DIFFERS ? ROLE_WARN : k == CMP_PASS_NO_RULE ? ROLE_NORMAL : ROLE_PASS;
		return compare_pass_text(c, row - 1, buf, size);
	}
	size_t i = nth(t, row);
	if (i == SIZE_MAX)
		return "";
	fd_cmp_kind k = c->rows.items[i].kind;
	*role = k == CMP_SAME ? ROLE_PASS : k == CMP_DIFFERENT ? ROLE_WARN : ROLE_FAIL;
	return compare_row_text(c, session_rounds(&t->s), i, buf, size);
}

static const char *row_text(void *ctx, size_t row, char *buf, size_t size)
{
	int role;
	return text_of(ctx, row, buf, size, &role);
}

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	char buf[2048];
	int role;
	text_of(t, row, buf, sizeof buf, &role);
	char fit[1024];   /* a long node name keeps its head and its tail */
	display_list_row(t->disp, y, x, w, cursor && t->focus == VIEW_COMPARE, role, tui_fit_names(t, buf, w - 1, fit, sizeof fit));
}

/* The row's node and, in the status line, fusiondbg's why. */
static void select_row(tui *t)
{
	size_t row = t->views[VIEW_COMPARE].list.cursor;
	if (!tui_compare(t)->valid || tui_compare(t)->result.record || row < head_rows(t))
		return;
	size_t i = nth(t, row);
	if (i == SIZE_MAX)
		return;
	const fd_cmp_row *r = &tui_compare(t)->result.rows.items[i];
	tui_set_detail_node(t, r->graph, r->node);
	if (r->why)
		tui_message(t, ROLE_INFO, "why: %s", r->why);
}

static unsigned action(tui *t, enum tui_action a)
{
	size_t row = t->views[VIEW_COMPARE].list.cursor;
	if (a != ACT_ENTER)
		return RES_UNHANDLED;
	if (!tui_compare(t)->valid || tui_compare(t)->result.record || row < head_rows(t))
		return RES_REDRAW;
	size_t i = nth(t, row);
	if (i == SIZE_MAX)
		return RES_REDRAW;
	const fd_cmp_row *r = &tui_compare(t)->result.rows.items[i];
	size_t gr = vs_graph_node_row(&tui_graph(t)->rows, session_model(&t->s), r->graph, r->node);
	if (gr == VS_NONE)
		return RES_REDRAW;
	unsigned res = tui_show_view(t, VIEW_GRAPH);
	vs_list_set_rows(&t->views[VIEW_GRAPH].list, vs_graph_rows_count(&tui_graph(t)->rows));
	vs_list_goto(&t->views[VIEW_GRAPH].list, gr);
	tui_set_detail_node(t, r->graph, r->node);
	return res | RES_DETAIL;
}

static const enum tui_action hints[] = { ACT_ENTER, ACT_WHY_NOT, ACT_BACK, ACT_VIEW_HELP, ACT_NONE };

/* The view's state (compare_view, tui.h): compare.c reads the file into it
 * (tui_compare_open) and releases what it read (tui_compare_release). */
static void *open_view(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(compare_view));
}

static void close_view(void *data)
{
	free(data);
}

const view_ops view_compare_ops = {
	.rows = rows, .draw_row = draw_row, .row_text = row_text, .action = action, .select = select_row,
	.hints = hints,
	.open = open_view, .close = close_view,
};
