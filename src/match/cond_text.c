/* cond_text.c — the words the conditions' checks share (cond_text.h). */
#include "match/cond_text.h"
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "base/strbuf.h"
#include "base/text.h"
#include "rules/optable.h"

static const char *const composite_names[] = { "", "Swish", "Gelu", "LayerNorm", "BiasAdd" };
static_assert(sizeof composite_names / sizeof *composite_names == COMPOSITE_BIASADD + 1,
              "one name per fd_composite");

const char *cond_composite_name(int kind)
{
	return kind >= 0 && kind <= COMPOSITE_BIASADD ? composite_names[kind] : "?";
}

/* Floats print as %.9g, with ".0" when that looks like an integer. */
static size_t append_float(char *buf, size_t size, size_t at, double f)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.9g", f);
	if (!strpbrk(tmp, ".eEn"))
		strcat(tmp, ".0");
	return text_appendf(buf, size, at, "%s", tmp);
}

char *cond_pval_text(const fd_pval *v, char *buf, size_t size)
{
	size_t at = 0;
	if (!size)
		return buf;
	buf[0] = '\0';
	switch (v->kind) {
	/* text_put_at: text_appendf of each piece without a format (a trace
	 * prints a value per param check) */
	case PV_ABSENT: text_put_at(buf, size, 0, "absent"); break;
	case PV_NO_SUCH: text_put_at(buf, size, 0, "no such param"); break;
	case PV_UNKNOWN: text_put_at(buf, size, 0, "unknown"); break;
	case PV_INT: text_put_int_at(buf, size, 0, (long long)v->i); break;
	case PV_BOOL: text_put_at(buf, size, 0, v->i ? "true" : "false"); break;
	case PV_FLOAT: append_float(buf, size, 0, v->f); break;
	case PV_STRING: text_appendf(buf, size, 0, "\"%s\"", v->s); break;
	case PV_INTS:
	case PV_FLOATS:
		at = text_put_at(buf, size, at, "[");
		for (int64_t k = 0; k < v->n; k++) {
			if (k)
				at = text_put_at(buf, size, at, ", ");
			if (k >= 16) {
				at = text_put_at(buf, size, at, "…");
				break;
			}
			if (v->kind == PV_INTS)
				at = text_put_int_at(buf, size, at, (long long)pval_ints(v)[k]);
			else
				at = append_float(buf, size, at, pval_floats(v)[k]);
		}
		text_put_at(buf, size, at, "]");
		break;
	}
	return buf;
}

static size_t yval_append(const fd_yval *v, char *buf, size_t size, size_t at)
{
	if (!v || v->kind == YV_NULL)
		return text_put_at(buf, size, at, "null");
	if (v->kind == YV_SCALAR && v->quoted)
		return text_appendf(buf, size, at, "\"%s\"", v->text ? v->text : "");
	if (v->kind == YV_SCALAR)
		return text_put_at(buf, size, at, v->text ? v->text : "");
	if (v->kind == YV_SEQ) {
		at = text_put_at(buf, size, at, "[");
		for (size_t k = 0; k < v->n; k++) {
			if (k)
				at = text_put_at(buf, size, at, ", ");
			at = yval_append(v->items[k], buf, size, at);
		}
		return text_put_at(buf, size, at, "]");
	}
	return text_put_at(buf, size, at, "{…}");
}

char *cond_yval_text(const fd_yval *v, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	yval_append(v, buf, size, 0);
	return buf;
}

char *cond_types_text(const fd_rule_op *op, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	at = text_appendf(buf, size, at, "[");
	for (int t = 0; t < op->n_types; t++)
		at = text_appendf(buf, size, at, "%s%s", t ? ", " : "", op->types[t]);
	text_appendf(buf, size, at, "]");
	return buf;
}

/* "w (initializer)", "x (graph input)", "y from conv1 (Conv)". */
void cond_tensor_origin(const fd_match_ctx *ctx, int32_t gi, int64_t t, char *buf, size_t size)
{
	const fd_graph_index *ix = &ctx->graphs[gi];
	const fd_graph *g = ix->g;
	if (t < 0 || t >= g->n_tensors) {
		text_cut(buf, size, "no such input");
		return;
	}
	const fd_tensor *x = &g->tensors[t];
	uint8_t f = ix->tflags[t];
	if (x->kind == TENSOR_INITIALIZER)
		text_cutf(buf, size, "%s (%s)", x->name, tensor_initializer_words(ctx->model, x));
	else if (x->kind == TENSOR_CONSTANT)
		text_cutf(buf, size, "%s (Constant)", x->name);
	else if (f & TF_INPUT)
		text_cutf(buf, size, "%s (graph input)", x->name);
	else if (x->producer >= 0)
		text_cutf(buf, size, "%s from %s (%s%s)", x->name, g->nodes[x->producer].name, g->nodes[x->producer].op_type,
		          (f & TF_CONST) ? ", constant-foldable" : "");
	else
		text_cutf(buf, size, "%s (%s)", x->name, (f & TF_CONST) ? "outer constant" : "outer scope");
}

const char *cond_tensor_name(const fd_graph *g, int64_t t)
{
	return t >= 0 && t < g->n_tensors ? g->tensors[t].name : "-";
}

void cond_facts_clear(fd_cond_facts *f)
{
	f->reason = REASON_NONE;
	f->decided = NULL;
	f->decided_at = -1;
	f->path[0] = f->expected[0] = f->actual[0] = f->binding[0] = f->reason_text[0] = '\0';
}

int cond_op_max_inputs(const fd_rule_op *op)
{
	int most = -1;
	for (int t = 0; t < op->n_types; t++) {
		int a = optable_max_inputs(op->ops[t]);
		if (a < 0)
			return -1;
		if (a > most)
			most = a;
	}
	return most;
}

const char *cond_op_types_name(const fd_rule_op *op, char *buf, size_t size)
{
	if (op->n_types <= 1) {
		const fd_op_def *d = optable_get(op->op);
		snprintf(buf, size, "%s", d ? d->name : op->type ? op->type : "?");
		return buf;
	}
	size_t at = (size_t)snprintf(buf, size, "[");
	for (int t = 0; t < op->n_types && at < size; t++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", t ? ", " : "", op->types[t]);
	if (at < size)
		snprintf(buf + at, size - at, "]");
	return buf;
}
