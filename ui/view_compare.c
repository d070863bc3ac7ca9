/* view_compare.c — where the compiler's result (--with) and the prediction
 * differ: one row per group of the comparison (explain/compare.h), the
 * differences first; Enter shows the row's node in the graph view. With a
 * fusion_result.json, one row per pass; with a GE dump, one per group of
 * its record that maps onto the model.
 * State: its own compare_view (t->views[VIEW_COMPARE].data): the
 * compiler's result, read once when the view opens, and the comparison with
 * the session's rounds (explain/compare.h), made again after every run. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "view.h"
#include "base/atomic_file.h"
#include "explain/compare.h"
#include "ir/cann_record.h"
#include "ge/ge.h"
#include "onnx/onnx.h"

/* The view's own state (t->views[VIEW_COMPARE].data): the compiler's file
 * (--with), its model or record, the comparison (error: why there is none;
 * warning: what reading the file warned of, an initializer listed twice,
 * shown as a row). */
typedef struct compare_view {
	const char *with;
	int source;             /* 0 none, 1 an optimized model, 2 a fusion_result.json, 3 a GE dump */
	fd_model model;
	fd_cann_records recs;
	fd_comparison result;
	bool valid;
	char error[512];
	char warning[512];
} compare_view;

static compare_view *state(const tui *t)
{
	return t->views[VIEW_COMPARE].data;
}

/* The comparison with the session's rounds as they are now. */
static void compare_again(tui *t, compare_view *cv)
{
	if (cv->valid)
		compare_release(&cv->result);
	cv->valid = false;
	if (!cv->source)
		return;
	fd_diags d;
	diags_init(&d);
	rounds_make_all(&t->s.current_rounds, &d);
	compare_init(&cv->result);
	cv->valid = true;
	if (cv->source == 1) {
		fd_comparison *c = &cv->result;
		compare_optimized(c, session_rounds(&t->s), &cv->model, cv->with);
		/* the header suggests --shapes onnx when it leaves fewer differences, as compare does */
		int64_t left = compare_differences(c) ? session_differences_shapes_onnx(&t->s, &cv->model, cv->with) : -1;
		if (left >= 0 && (size_t)left < compare_differences(c))
			c->differences_shapes_onnx = left;
	}
	else if (cv->source == 3)
		compare_dump(&cv->result, session_rounds(&t->s), &cv->model, cv->with);
	else if (compare_record(&cv->result, session_rounds(&t->s), &cv->recs, NULL, &d) < 0) {
		diag_format(&d.items[0], cv->error, sizeof cv->error);
		compare_release(&cv->result);
		cv->valid = false;
	}
	diags_release(&d);
}

/* The compiler's optimized model or fusion_result.json (t->compare_with),
 * read once, then compared. */
static void *open_view(tui *t)
{
	compare_view *cv = xcalloc(1, sizeof *cv);
	const char *path = cv->with = t->compare_with;
	if (!path)
		return cv;
	fd_diags d;
	diags_init(&d);
	size_t size;
	char *text = input_file_read_all(path, &size, &d);
	size_t k = 0;
	while (text && k < size && strchr(" \t\r\n", text[k]))
		k++;
	if (!text)
		cv->source = 0;
	else if (k < size && (text[k] == '{' || text[k] == '['))
		cv->source = cann_records_read(&cv->recs, path, text, size, &d) == 0 ? 2 : 0;
	else if (ge_detect(text, size) == GE_FORMAT_MODELDEF)
		cv->source = ge_load_model_buffer(&cv->model, path, text, size, &(fd_load_options){ 0 }, &d) == 0 ? 3 : 0;
	else
		/* onnxruntime writes some initializers of a model with If twice: a warning, as compare says */
		cv->source = onnx_load_model_buffer(&cv->model, path, text, size,
		                                    &(fd_load_options){ .identical_duplicates = true }, &d) == 0 ? 1 : 0;
	free(text);
	if (!cv->source && d.n)
		diag_format(&d.items[0], cv->error, sizeof cv->error);
	else if (d.n)
		diag_format(&d.items[0], cv->warning, sizeof cv->warning);
	diags_release(&d);
	compare_again(t, cv);
	return cv;
}

static void close_view(void *data)
{
	compare_view *cv = data;
	if (cv->valid)
		compare_release(&cv->result);
	if (cv->source == 1 || cv->source == 3)
		model_release(&cv->model);
	if (cv->source == 2)
		cann_records_release(&cv->recs);
	free(cv);
}

static void after_run(tui *t)
{
	compare_again(t, state(t));
}

/* Row 0 says what is compared; then what reading the file warned of, and,
 * when --shapes onnx would leave fewer differences, the suggestion (as
 * compare says both). */
static bool suggests_shapes(const compare_view *cv)
{
	return cv->valid && !cv->result.record && cv->result.differences_shapes_onnx >= 0;
}

static size_t head_rows(const tui *t)
{
	const compare_view *cv = state(t);
	return 1 + (cv->valid && cv->warning[0]) + suggests_shapes(cv);
}

static size_t rows(tui *t)
{
	if (!state(t)->valid)
		return 1;
	return (state(t)->result.record ? state(t)->result.passes.n : state(t)->result.rows.n) +
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
		for (size_t i = 0; i < state(t)->result.rows.n; i++)
			if ((state(t)->result.rows.items[i].kind == CMP_SAME) == same && ++k == row)
				return i;
	return SIZE_MAX;
}

static const char *row_text(tui *t, size_t row, char *buf, size_t size, int *role)
{
	*role = ROLE_NORMAL;
	if (!state(t)->valid) {
		*role = ROLE_DIM;
		snprintf(buf, size, state(t)->error[0] ? "%s" : "nothing to compare: start with --with OPTIMIZED.onnx or "
		         "fusion_result.json%s", state(t)->error);
		return buf;
	}
	const fd_comparison *c = &state(t)->result;
	if (row == 0) {
		*role = ROLE_HEADER;
		if (c->record) {
			compare_record_summary(c, buf, size);
		} else if (c->dump) {
			compare_dump_summary(c, buf, size);
		} else {
			snprintf(buf, size, "%s: same %zu, compiler only %zu, fusiondbg only %zu, different %zu", c->with,
			         c->counts[CMP_SAME], c->counts[CMP_COMPILER_ONLY], c->counts[CMP_PREDICTED_ONLY],
			         c->counts[CMP_DIFFERENT]);
		}
		return buf;
	}
	if (row < head_rows(t)) {
		*role = ROLE_WARN;
		if (row == 1 && state(t)->warning[0])
			snprintf(buf, size, "%s", state(t)->warning);
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

/* The row's node and, in the status line, fusiondbg's why. */
static void select_row(tui *t)
{
	size_t row = t->views[VIEW_COMPARE].list.cursor;
	if (!state(t)->valid || state(t)->result.record || row < head_rows(t))
		return;
	size_t i = nth(t, row);
	if (i == SIZE_MAX)
		return;
	const fd_cmp_row *r = &state(t)->result.rows.items[i];
	tui_set_detail_node(t, r->graph, r->node);
	if (r->why)
		tui_message(t, ROLE_INFO, "why: %s", r->why);
}

static unsigned action(tui *t, enum tui_action a)
{
	size_t row = t->views[VIEW_COMPARE].list.cursor;
	if (a != ACT_ENTER)
		return RES_UNHANDLED;
	if (!state(t)->valid || state(t)->result.record || row < head_rows(t))
		return RES_REDRAW;
	size_t i = nth(t, row);
	if (i == SIZE_MAX)
		return RES_REDRAW;
	const fd_cmp_row *r = &state(t)->result.rows.items[i];
	return tui_show_node(t, r->graph, r->node);
}

static const enum tui_action hints[] = { ACT_ENTER, ACT_WHY_NOT, ACT_BACK, ACT_VIEW_HELP, ACT_NONE };

const view_ops view_compare_ops = {
	.rows = rows, .text = row_text, .action = action, .select = select_row,
	.hints = hints,
	.open = open_view, .close = close_view, .after_run = after_run,
};
