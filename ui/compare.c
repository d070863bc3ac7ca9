/* compare.c — the compare view's data (loop.h): the compiler's optimized
 * model or fusion_result.json (every graph it holds) read once, compared with the session's rounds
 * after every run (explain/compare.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/atomic_file.h"
#include "loop.h"
#include "onnx/onnx.h"

void tui_compare_open(tui *t, const char *path)
{
	tui_compare(t)->with = path;
	if (!path)
		return;
	fd_diags d;
	diags_init(&d);
	size_t size;
	char *text = input_file_read_all(path, &size, &d);
	size_t k = 0;
	while (text && k < size && strchr(" \t\r\n", text[k]))
		k++;
	if (!text)
		tui_compare(t)->source = 0;
	else if (k < size && (text[k] == '{' || text[k] == '['))
		tui_compare(t)->source = cann_records_read(&tui_compare(t)->recs, path, text, size, &d) == 0 ? 2 : 0;
	else
		/* onnxruntime writes some initializers of a model with If twice: a warning, as compare says */
		tui_compare(t)->source = onnx_load_model_buffer(&tui_compare(t)->model, path, text, size,
		                                                &(fd_load_options){ .identical_duplicates = true }, &d) == 0
		                ? 1 : 0;
	free(text);
	if (!tui_compare(t)->source && d.n)
		diag_format(&d.items[0], tui_compare(t)->error, sizeof tui_compare(t)->error);
	else if (d.n)
		diag_format(&d.items[0], tui_compare(t)->warning, sizeof tui_compare(t)->warning);
	diags_release(&d);
	tui_compare_refresh(t);
}

void tui_compare_refresh(tui *t)
{
	if (tui_compare(t)->valid)
		compare_release(&tui_compare(t)->result);
	tui_compare(t)->valid = false;
	if (!tui_compare(t)->source)
		return;
	fd_diags d;
	diags_init(&d);
	rounds_make_all(&t->s.current_rounds, &d);
	compare_init(&tui_compare(t)->result);
	tui_compare(t)->valid = true;
	if (tui_compare(t)->source == 1) {
		fd_comparison *c = &tui_compare(t)->result;
		compare_optimized(c, session_rounds(&t->s), &tui_compare(t)->model, tui_compare(t)->with);
		/* the header suggests --shapes onnx when it leaves fewer differences, as compare does */
		int64_t left = compare_differences(c) ? session_differences_shapes_onnx(&t->s, &tui_compare(t)->model,
		                                                                       tui_compare(t)->with) : -1;
		if (left >= 0 && (size_t)left < compare_differences(c))
			c->differences_shapes_onnx = left;
	}
	else if (compare_record(&tui_compare(t)->result, session_rounds(&t->s), &tui_compare(t)->recs, NULL, &d) < 0) {
		diag_format(&d.items[0], tui_compare(t)->error, sizeof tui_compare(t)->error);
		compare_release(&tui_compare(t)->result);
		tui_compare(t)->valid = false;
	}
	diags_release(&d);
}

void tui_compare_release(tui *t)
{
	if (tui_compare(t)->valid)
		compare_release(&tui_compare(t)->result);
	if (tui_compare(t)->source == 1)
		model_release(&tui_compare(t)->model);
	if (tui_compare(t)->source == 2)
		cann_records_release(&tui_compare(t)->recs);
	tui_compare(t)->valid = false;
	tui_compare(t)->source = 0;
}
