/* compare.c — the compare view's data (loop.h): the compiler's optimized
 * model or fusion_result.json read once, compared with the session's rounds
 * after every run (explain/compare.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/atomic_file.h"
#include "loop.h"
#include "onnx/onnx.h"

void tui_compare_open(tui *t, const char *path)
{
	t->compare_with = path;
	if (!path)
		return;
	fd_diags d;
	diags_init(&d);
	size_t size;
	char *text = file_read_all(path, &size, &d);
	size_t k = 0;
	while (text && k < size && strchr(" \t\r\n", text[k]))
		k++;
	if (!text)
		t->cmp_source = 0;
	else if (k < size && (text[k] == '{' || text[k] == '['))
		t->cmp_source = jdoc_parse(&t->cmp_doc, path, text, size, &d) == 0 ? 2 : 0;
	else
		t->cmp_source = model_load_onnx_buffer(&t->cmp_model, path, text, size, &(fd_load_options){ 0 }, &d) == 0
		                ? 1 : 0;
	free(text);
	if (!t->cmp_source && d.n)
		diag_format(&d.items[0], t->cmp_error, sizeof t->cmp_error);
	diags_release(&d);
	tui_compare_refresh(t);
}

void tui_compare_refresh(tui *t)
{
	if (t->cmp_valid)
		comparison_release(&t->cmp);
	t->cmp_valid = false;
	if (!t->cmp_source)
		return;
	fd_diags d;
	diags_init(&d);
	rounds_make_all(&t->s.current_rounds, &d);
	comparison_init(&t->cmp);
	t->cmp_valid = true;
	if (t->cmp_source == 1)
		compare_optimized(&t->cmp, session_rounds(&t->s), &t->cmp_model, t->compare_with);
	else if (compare_record(&t->cmp, session_rounds(&t->s), &t->cmp_doc, t->compare_with, &d) < 0) {
		diag_format(&d.items[0], t->cmp_error, sizeof t->cmp_error);
		comparison_release(&t->cmp);
		t->cmp_valid = false;
	}
	diags_release(&d);
}

void tui_compare_release(tui *t)
{
	if (t->cmp_valid)
		comparison_release(&t->cmp);
	if (t->cmp_source == 1)
		model_release(&t->cmp_model);
	if (t->cmp_source == 2)
		jdoc_release(&t->cmp_doc);
	t->cmp_valid = false;
	t->cmp_source = 0;
}
