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
#include "match/cond_text.h"

static const char *explain_composite_name(int kind)
{
	return cond_composite_name(kind);
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

char *explain_pval(const fd_pval *v, char *buf, size_t size)
{
	return cond_pval_text(v, buf, size);
}

char *explain_where(const fd_srcpos *p, char *buf, size_t size)
{
	char line[24], col[24];
	if (!p->file || !p->line)
		buf[0] = '\0';
	else   /* "%s:%d:%d", joined */
		text_join(buf, size, 5, p->file, ":", text_decimal(p->line, line), ":", text_decimal(p->col, col));
	return buf;
}
