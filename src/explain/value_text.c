/* value_text.c — the words for what a run speaks of: a unit ("conv1
 * (Conv)", a composite with its members), a node's param value, the value a
 * rule writes, and a place in the rule text. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "base/strbuf.h"
#include "explain/explain.h"
#include "explain/explain_internal.h"
#include "base/text.h"

static const char *const composite_names[] = { "", "Swish", "Gelu", "LayerNorm", "BiasAdd" };
static_assert(sizeof composite_names / sizeof *composite_names == COMPOSITE_BIASADD + 1,
              "one name per fd_composite");

const char *explain_composite_name(int kind)
{
	return kind >= 0 && kind <= COMPOSITE_BIASADD ? composite_names[kind] : "?";
}

char *explain_unit_label_full(const fd_match_ctx *ctx, int32_t graph, int32_t u, char *buf, size_t size,
                             size_t *full)
{
	const fd_graph_index *ix = &ctx->graphs[graph];
	const fd_graph *g = ix->g;
	if (u < 0 || u >= ix->n_units) {
		snprintf(buf, size, "-");
		*full = 1;
		return buf;
	}
	const fd_composite_rec *c = match_composite(ctx, graph, u);
	if (!c) {
		/* "conv1 (Conv)": joined by hand when it fits, as text_cutf would */
		const char *name = g->nodes[u].name ? g->nodes[u].name : "(null)";
		size_t nn = strlen(name), no = strlen(g->nodes[u].op_type);
		*full = nn + no + 3;
		if (*full >= size) {
			text_cutf(buf, size, "%s (%s)", name, g->nodes[u].op_type);
			return buf;
		}
		memcpy(buf, name, nn);
		memcpy(buf + nn, " (", 2);
		memcpy(buf + nn + 2, g->nodes[u].op_type, no);
		memcpy(buf + nn + 2 + no, ")", 2);
		return buf;
	}
	/* "Mul_20 (Swish: silu of Sigmoid_19, Mul_20)": a trace prints one per event */
	size_t at = text_append(buf, size, 0, g->nodes[c->last].name, " (");
	at = text_append(buf, size, at, explain_composite_name(c->kind), ": ");
	at = text_append(buf, size, at, canon_recogniser_name(c->recogniser), " of ");
	for (int k = 0; k < c->n_members; k++)
		at = text_append(buf, size, at, k ? ", " : "", g->nodes[ix->canon.pool[c->members + k]].name);
	*full = text_append(buf, size, at, ")", "");
	text_mark_cut(buf, size, *full);
	return buf;
}

char *explain_unit_label(const fd_match_ctx *ctx, int32_t graph, int32_t u, char *buf, size_t size)
{
	size_t full;
	return explain_unit_label_full(ctx, graph, u, buf, size, &full);
}

/* Floats print as %.9g, with ".0" when that looks like an integer. */
static size_t append_float(char *buf, size_t size, size_t at, double f)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.9g", f);
	if (!strpbrk(tmp, ".eEn"))
		strcat(tmp, ".0");
	return buf_printf(buf, size, at, "%s", tmp);
}

char *explain_pval(const fd_pval *v, char *buf, size_t size)
{
	size_t at = 0;
	if (!size)
		return buf;
	buf[0] = '\0';
	switch (v->kind) {
	/* text_put_at: buf_printf of each piece without a format (a trace
	 * prints a value per param check) */
	case PV_ABSENT: text_put_at(buf, size, 0, "absent"); break;
	case PV_NO_SUCH: text_put_at(buf, size, 0, "no such param"); break;
	case PV_UNKNOWN: text_put_at(buf, size, 0, "unknown"); break;
	case PV_INT: text_put_int_at(buf, size, 0, (long long)v->i); break;
	case PV_BOOL: text_put_at(buf, size, 0, v->i ? "true" : "false"); break;
	case PV_FLOAT: append_float(buf, size, 0, v->f); break;
	case PV_STRING: buf_printf(buf, size, 0, "\"%s\"", v->s); break;
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
		return buf_printf(buf, size, at, "\"%s\"", v->text ? v->text : "");
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

char *explain_yval(const fd_yval *v, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	yval_append(v, buf, size, 0);
	return buf;
}

char *explain_where(const fd_srcpos *p, char *buf, size_t size)
{
	char line[24], col[24];
	if (!p->file || !p->line)
		buf[0] = '\0';
	else   /* "%s:%d:%d", joined */
		put_parts(buf, size, 5, p->file, ":", text_decimal(p->line, line), ":", text_decimal(p->col, col));
	return buf;
}
