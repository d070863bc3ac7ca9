/* cond_same_value_as.c — input_sources.inputK.same_value_as: {op: j, input:
 * k}: a constant with the very values of the tensor match op j reads at its
 * input k (another tensor, the same numbers). onnxruntime drops the Q/DQ
 * pair around a data-movement op only when the Q's scale and zero point
 * equal the DQ's (IsQDQPairSupported): a Resize between two quantizations
 * of different ranges keeps them. Its reading, words and values; it is
 * decided in the SOURCE event with from_op, source_type and same_as
 * (cond_source.c), the tensor it names the event's other when it fails. */
#include "match/conditions.h"
#include <stdio.h>
#include "base/text.h"
#include "match/cond_same_value_as.h"

bool cond_same_value_as_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	int j = -1, k = -1;
	if (!cond_op_input_parse(s, v, path, "the values of the tensor op j reads at input k", &j, &k))
		return false;
	if (j >= at->index) {
		ERR(s, yval_get(v, "op"), "%s.op: %d is not an earlier op (op%d can name op0..op%d)", path, j, at->index,
		    at->index - 1);
		return false;
	}
	at->input->value_op = j;
	at->input->value_input = k;
	return true;
}

void cond_same_value_as_describe(const fd_cond_check *c, char *buf, size_t size)
{
	snprintf(buf, size, "the values op%d reads at input%d", c->input->value_op, c->input->value_input);
}

bool cond_same_values(const fd_graph *g, int32_t t, int32_t want)
{
	if (t < 0 || want < 0)
		return false;
	if (t == want)
		return true;
	const fd_const *a = g->tensors[t].value, *b = g->tensors[want].value;
	if (!a || !b || a->count != b->count || a->count < 1 || g->tensors[t].dtype != g->tensors[want].dtype)
		return false;
	for (int64_t i = 0; i < a->count; i++) {
		if (a->i64 && b->i64 ? a->i64[i] != b->i64[i] : a->f64 && b->f64 ? a->f64[i] != b->f64[i] : true)
			return false;
	}
	return true;
}

void cond_values_text(const fd_graph *g, int32_t t, char *buf, size_t size)
{
	const fd_const *v = t >= 0 ? g->tensors[t].value : NULL;
	if (!v || (!v->i64 && !v->f64)) {
		text_cutf(buf, size, "%s (value not known)", t >= 0 ? g->tensors[t].name : "-");
		return;
	}
	size_t at = text_appendf(buf, size, 0, "%s = ", g->tensors[t].name);
	for (int64_t k = 0; k < v->count && k < 4; k++)
		at = text_appendf(buf, size, at, "%s%.9g", k ? ", " : "", v->f64 ? v->f64[k] : (double)v->i64[k]);
	if (v->count > 4)
		text_appendf(buf, size, at, ", … (%lld values)", (long long)v->count);
}
