/* export_label.c — every word the picture shows: node, cluster, edge and
 * graph-input labels (HTML-like) and tooltips (escString), and the legend's
 * table. The numbers come from the estimate (estimate.h) and the reasons
 * from explain.h; nothing is computed here. */
#include <stdlib.h>
#include <string.h>
#include "base/text.h"
#include "explain/explain.h"
#include "export/export_internal.h"
#include "trace/reason.h"
#include "trace/trace.h"

/* ---- text helpers ---------------------------------------------------------- */

/* Names in escString attributes (tooltips, cluster labels): control bytes
 * and invalid UTF-8 as visible escapes, a backslash doubled so it starts no
 * escape (\N, \l) — base/text.h's text_dot_escape. Quotes are cgraph's to
 * escape when it writes the value. */
void export_esc(strbuf *s, const char *text)
{
	text_dot_escape(s, text);
}

/* Text inside an HTML-like label: visible escapes, then entities. */
static void put_html(strbuf *s, const char *text)
{
	text_html_escape(s, text);
}

/* Text for a legend cell, broken into left-aligned lines of about width
 * columns where a long formula has room to break (after ", " and before
 * " + " / " - "), so that a peak formula never makes the picture wider
 * than its graph. */
#define LEGEND_WRAP 64
static void put_html_wrapped(strbuf *s, const char *text, size_t width)
{
	size_t n = strlen(text), line = 0, from = 0;
	char piece[1024];
	for (size_t i = 0; i <= n; i++) {
		bool after_comma = i >= 2 && text[i - 2] == ',' && text[i - 1] == ' ';
		bool before_op = i + 2 < n && text[i] == ' ' && (text[i + 1] == '+' || text[i + 1] == '-') && text[i + 2] == ' ';
		if (i < n && !after_comma && !before_op)
			continue;
		size_t len = i - from;   /* the piece up to this break */
		if (line && line + len > width) {
			sb_puts(s, "<BR ALIGN=\"LEFT\"/>&nbsp;&nbsp;");
			line = 2;
		}
		while (len) {
			size_t k = len < sizeof piece - 1 ? len : sizeof piece - 1;
			memcpy(piece, text + from, k);
			piece[k] = '\0';
			put_html(s, piece);
			from += k;
			len -= k;
			line += text_columns(piece);
		}
	}
}

/* "d0 = p2o.DynamicDimension.0, d1 = …": the aliases the shapes use. */
static void put_alias_legend(strbuf *h, const fd_model *m)
{
	bool any = false;
	for (int32_t i = 0; i < m->n_symdims; i++) {
		char alias[16];
		if (!m->symdims[i].used ||
		    !dimtab_symbol_alias(m->dimtab, dimtab_find_symbol(m->dimtab, m->symdims[i].name), alias, sizeof alias))
			continue;
		sb_puts(h, any ? "<BR ALIGN=\"LEFT\"/>" : "<TR><TD COLSPAN=\"3\" ALIGN=\"LEFT\">");
		put_html(h, alias);
		sb_puts(h, " = ");
		put_html(h, m->symdims[i].name);
		any = true;
	}
	if (any)
		sb_puts(h, "<BR ALIGN=\"LEFT\"/></TD></TR>");
}

/* A part of a node id: names may hold anything, an id must not end a DOT
 * string early (a trailing backslash, a quote) nor carry a control byte into
 * the SVG's <title>; those bytes (and '%' itself) are written %XX. */
void export_id_part(strbuf *s, const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t n = strlen(text);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t len = c < 0x80 ? 1 : text_utf8_seq(p + i, n - i);
		if (len > 1) {
			sb_add(s, text + i, len);
			i += len;
		} else if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '%') {
			sb_add(s, text + i, 1);
			i++;
		} else {
			sb_printf(s, "%%%02X", c);
			i++;
		}
	}
}

static const char *basename_of(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "";
}

/* "res2a_branch2a_bn_…_output_0": the head and tail of a long name, cut on
 * UTF-8 character boundaries. */
static void put_elided(strbuf *s, const char *text, void (*esc)(strbuf *, const char *))
{
	size_t n = strlen(text);
	if (n <= EXPORT_NAME_MAX_SHOWN) {
		esc(s, text);
		return;
	}
	size_t head = EXPORT_NAME_MAX_SHOWN / 2 - 1, tail = n - (EXPORT_NAME_MAX_SHOWN - head - 1);
	while (head > 0 && ((unsigned char)text[head] & 0xC0) == 0x80)
		head--;
	while (tail < n && ((unsigned char)text[tail] & 0xC0) == 0x80)
		tail++;
	char *h = xmalloc(head + 1);
	memcpy(h, text, head);
	h[head] = '\0';
	esc(s, h);
	free(h);
	sb_puts(s, "…");
	esc(s, text + tail);
}

/* "[1,64,56,56] float32" */
static void put_tensor_facts(strbuf *s, const fd_tensor *t)
{
	char shape[128];
	shape_format(&t->shape, shape, sizeof shape);
	sb_printf(s, "%s %s", shape, dtype_name(t->dtype));
}

/* The same, small and grey on a new line of an HTML label; "(+N)" for the
 * outputs after the first. The closing </FONT> is the caller's. */
static void put_html_facts(strbuf *s, const fd_tensor *t, int more)
{
	strbuf facts = { 0 };
	put_tensor_facts(&facts, t);
	sb_puts(s, "<BR/>" EXPORT_HTML_SMALL);
	put_html(s, sb_str(&facts));
	sb_release(&facts);
	if (more > 0)
		sb_printf(s, " (+%d)", more);
}

/* A figure: "1.5 MiB", "256 KiB × batch", "unknown". */
static void put_size(strbuf *s, fd_sint size)
{
	char buf[512];
	sb_puts(s, estimate_format_size(size, buf, sizeof buf));
}

/* "×2.1 (est.)", or "speed-up n/a (est.)" when the estimate knows nothing. */
static void put_speedup(strbuf *s, double speedup)
{
	if (speedup > 0)
		sb_printf(s, "×%.*f (est.)", speedup < 10 ? 2 : 1, speedup);
	else
		sb_puts(s, "speed-up n/a (est.)");
}

static const fd_tensor *first_output(const fd_graph *g, const fd_node *n)
{
	for (int32_t k = 0; k < n->n_outputs; k++)
		if (n->outputs[k] != FD_NONE)
			return &g->tensors[n->outputs[k]];
	return NULL;
}

/* ---- nodes ------------------------------------------------------------------ */

/* The op type bold, the name, then the output's shape and dtype small and
 * grey, then one line per near-miss mark. */
void export_node_label(export_builder *b, strbuf *s, int32_t g, int32_t n)
{
	const fd_graph *gr = &b->m->graphs[g];
	const fd_node *node = &gr->nodes[n];
	sb_puts(s, "<B>");
	if (node->domain && *node->domain)
		put_html(s, node->domain), sb_puts(s, ".");
	put_html(s, node->op_type);
	sb_puts(s, "</B> ");
	put_elided(s, node->name, put_html);
	const fd_tensor *t = first_output(gr, node);
	if (t) {
		int extra = 0;
		for (int32_t k = 0; k < node->n_outputs; k++)
			extra += node->outputs[k] != FD_NONE;
		put_html_facts(s, t, extra - 1);
		sb_puts(s, "</FONT>");
	}
	if (b->graph[g].in_float[n])
		sb_printf(s, "<BR/><FONT POINT-SIZE=\"8\" COLOR=\"%s\">float (not quantized)</FONT>", EXPORT_FLOAT_BORDER);
	for (int32_t k = b->graph[g].mark_head[n]; k >= 0; k = b->marks.items[k].next) {
		const fd_attempt *at = &b->r->trace.attempts[b->marks.items[k].attempt];
		sb_printf(s, "<BR/><FONT POINT-SIZE=\"8\" COLOR=\"%s\">✗ %s ",
		          export_rule_palette(b, at->rule)->border, reason_code(at->reason));
		put_elided(s, b->r->rules->rules[at->rule].name, put_html);
		sb_puts(s, "</FONT>");
	}
}

void export_node_tooltip(export_builder *b, strbuf *s, int32_t g, int32_t n)
{
	const fd_graph *gr = &b->m->graphs[g];
	const fd_node *node = &gr->nodes[n];
	export_esc(s, node->name);
	sb_puts(s, " (");
	export_esc(s, node->op_type);
	sb_puts(s, ")");
	for (int32_t k = 0; k < node->n_outputs; k++) {
		if (node->outputs[k] == FD_NONE)
			continue;
		const fd_tensor *t = &gr->tensors[node->outputs[k]];
		sb_puts(s, "\\nout ");
		export_esc(s, t->name);
		sb_puts(s, ": ");
		put_tensor_facts(s, t);
	}
	for (int32_t k = b->graph[g].mark_head[n]; k >= 0; k = b->marks.items[k].next) {
		char why[1024];
		explain_why_line(b->r, b->marks.items[k].attempt, why, sizeof why);
		sb_puts(s, "\\n");
		export_esc(s, why);
	}
}

void export_io_label(export_builder *b, strbuf *s, int32_t g, int32_t t, bool output)
{
	const fd_tensor *ten = &b->m->graphs[g].tensors[t];
	sb_puts(s, output ? "<B>output</B> " : "<B>input</B> ");
	put_elided(s, ten->name, put_html);
	put_html_facts(s, ten, 0);
	sb_puts(s, "</FONT>");
}

/* "body then_branch of If_0": a subgraph's cluster. */
void export_body_label(export_builder *b, strbuf *s, int32_t g)
{
	const fd_graph *gr = &b->m->graphs[g];
	const fd_graph *pg = &b->m->graphs[gr->parent >= 0 ? gr->parent : 0];
	sb_puts(s, "body ");
	export_esc(s, gr->owner_attr ? gr->owner_attr : "?");
	sb_puts(s, " of ");
	if (gr->owner_node >= 0)
		export_esc(s, pg->nodes[gr->owner_node].name);
	else
		sb_puts(s, "?");
}

/* ---- fusions ---------------------------------------------------------------- */

/* "Conv_BN_Relu_Fusion · 3 ops → conv_bn_relu_fusion\n×2.10 (est.) · removes 1.5 MiB" */
void export_cluster_label(export_builder *b, strbuf *s, size_t f)
{
	const fd_fusion *fu = &b->r->fusions[f];
	const fd_rule *rule = &b->r->rules->rules[fu->rule];
	const fd_fusion_est *fe = &b->est->fusions[f];
	const char *kernel = rule->kernel_name ? rule->kernel_name
	                   : rule->target_op ? rule->target_op : "?";
	export_esc(s, rule->name);
	sb_printf(s, " · %d ops → ", (int)fu->n_nodes);
	export_esc(s, kernel);
	sb_puts(s, "\\l");
	put_speedup(s, fe->speedup);
	sb_puts(s, " · removes ");
	put_size(s, fe->removed_f);
	if (fe->advice != ADVICE_NONE) {
		sb_puts(s, "\\l⚠ kernel peak ");
		put_size(s, fe->kernel_peak_f);
		sb_puts(s, ": ");
		export_esc(s, estimate_advice_text(fe->advice));
	}
	sb_puts(s, "\\l");   /* left-justified, as the cluster's labeljust says */
}

void export_fusion_tooltip(export_builder *b, strbuf *s, size_t f)
{
	const fd_fusion *fu = &b->r->fusions[f];
	const fd_rule *rule = &b->r->rules->rules[fu->rule];
	const fd_fusion_est *fe = &b->est->fusions[f];
	const fd_graph *gr = &b->m->graphs[fu->graph];
	export_esc(s, rule->name);
	sb_printf(s, " (priority %lld) fusion %d of the rule → ", (long long)rule->priority,
	          (int)b->fusion[f].seq);
	export_esc(s, rule->target_op ? rule->target_op : "?");
	sb_puts(s, "\\nnodes:");
	const int32_t *nodes = fusion_ids(b->r, fu->nodes);
	for (int32_t i = 0; i < fu->n_nodes; i++) {
		sb_puts(s, " ");
		export_esc(s, gr->nodes[nodes[i]].name);
	}
	sb_puts(s, "\\ninputs ");
	put_size(s, fe->inputs_f);
	sb_puts(s, ", outputs ");
	put_size(s, fe->outputs_f);
	sb_puts(s, ", intermediates removed ");
	put_size(s, fe->removed_f);
	sb_puts(s, ", workspace ");
	put_size(s, fe->workspace_f);
	sb_puts(s, ", kernel peak ");
	put_size(s, fe->kernel_peak_f);
	sb_puts(s, "\\nspeed-up ");
	put_speedup(s, fe->speedup);
	sb_puts(s, " on ");
	export_esc(s, b->est->opt.hw ? b->est->opt.hw->name : "?");
	sb_puts(s, " (roofline estimate)");
}

/* The target op bold, the rule and its size, the speed-up, the first and
 * last member (to find the cluster of the before view), the first output. */
void export_fusion_node_label(export_builder *b, strbuf *s, size_t f)
{
	const fd_fusion *fu = &b->r->fusions[f];
	const fd_rule *rule = &b->r->rules->rules[fu->rule];
	const fd_graph *gr = &b->m->graphs[fu->graph];
	sb_puts(s, "<B>");
	put_html(s, rule->target_op ? rule->target_op : "?");
	sb_puts(s, "</B><BR/>");
	put_html(s, rule->name);
	sb_printf(s, " · %d ops<BR/>", (int)fu->n_nodes);
	put_speedup(s, b->est->fusions[f].speedup);
	const int32_t *members = fusion_ids(b->r, fu->nodes);
	sb_puts(s, "<BR/>" EXPORT_HTML_SMALL);
	put_elided(s, gr->nodes[members[0]].name, put_html);
	if (fu->n_nodes > 1) {
		sb_puts(s, fu->n_nodes > 2 ? " … " : ", ");
		put_elided(s, gr->nodes[members[fu->n_nodes - 1]].name, put_html);
	}
	sb_puts(s, "</FONT>");
	const int32_t *outs = fusion_ids(b->r, fu->outputs);
	if (fu->n_outputs > 0) {
		put_html_facts(s, &gr->tensors[outs[0]], (int)fu->n_outputs - 1);
		sb_puts(s, "</FONT>");
	}
}

/* ---- edges ------------------------------------------------------------------ */

void export_edge_tooltip(export_builder *b, strbuf *s, int32_t g, int32_t t)
{
	const fd_tensor *ten = &b->m->graphs[g].tensors[t];
	export_esc(s, ten->name);
	sb_puts(s, ": ");
	put_tensor_facts(s, ten);
	sb_puts(s, ", ");
	put_size(s, ten->dtype == DT_UNDEFINED ? sint_unknown() : tensor_bytes_sym(ten));
	if (b->graph[g].peak[t])
		sb_puts(s, " (at the memory peak)");
}

void export_edge_label(export_builder *b, strbuf *s, int32_t g, int32_t t)
{
	const fd_tensor *x = &b->m->graphs[g].tensors[t];
	put_size(s, x->dtype == DT_UNDEFINED ? sint_unknown() : tensor_bytes_sym(x));
}

/* ---- the legend ------------------------------------------------------------- */

/* The model and view, the scope (--rule, --around), one row per rule drawn
 * or marked, the peak, and what is not drawn. */
void export_legend_label(export_builder *b, strbuf *h)
{
	const fd_match_result *r = b->r;
	const fd_export_selection *sel = b->sel;
	size_t drawn = 0;
	for (size_t f = 0; f < r->n_fusions; f++)
		drawn += sel->fusion_drawn[f];
	sb_puts(h, "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\">");
	sb_puts(h, "<TR><TD COLSPAN=\"3\" ALIGN=\"LEFT\"><B>");
	put_html(h, basename_of(b->m->path));
	sb_printf(h, "</B> · %s fusion · %zu fusion%s drawn</TD></TR>",
	          b->after ? "after" : "before", drawn, drawn == 1 ? "" : "s");
	if (sel->part) {
		sb_puts(h, "<TR><TD COLSPAN=\"3\" ALIGN=\"LEFT\">");
		if (b->o->fusion >= 0)
			sb_printf(h, "fusion #%d", (int)b->o->fusion);
		if (b->o->rule) {
			sb_puts(h, b->o->fusion >= 0 ? ", rule " : "rule ");
			put_html(h, b->o->rule);
		}
		if (b->o->around) {
			sb_puts(h, b->o->rule || b->o->fusion >= 0 ? ", around " : "around ");
			put_html(h, b->o->around);
		}
		int64_t cut = export_count_cut_edges(b);
		sb_printf(h, ", depth %d: %lld node%s drawn, %lld left out", b->o->depth, (long long)sel->n_nodes,
		          sel->n_nodes == 1 ? "" : "s", (long long)sel->n_left_out);
		if (cut)
			sb_printf(h, "; dashed stubs … end %lld edge%s cut at the border", (long long)cut,
			          cut == 1 ? "" : "s");
		sb_puts(h, "</TD></TR>");
	}
	for (int32_t oi = 0; oi < r->n_rules; oi++) {
		int32_t rule = r->order[oi];
		if (!b->rule[rule].drawn && !b->rule[rule].marks)
			continue;
		const export_palette_entry *pe = export_rule_palette(b, rule);
		sb_printf(h, "<TR><TD BGCOLOR=\"%s\"><FONT COLOR=\"%s\">■■</FONT></TD>", pe->fill, pe->border);
		sb_puts(h, "<TD ALIGN=\"LEFT\">");
		put_html(h, r->rules->rules[rule].name);
		sb_printf(h, " (%lld)</TD><TD ALIGN=\"RIGHT\">%lld fusion%s",
		          (long long)r->rules->rules[rule].priority, (long long)b->rule[rule].drawn,
		          b->rule[rule].drawn == 1 ? "" : "s");
		if (b->rule[rule].marks)
			sb_printf(h, ", %lld near miss%s", (long long)b->rule[rule].marks,
			          b->rule[rule].marks == 1 ? "" : "es");
		if (b->rule[rule].marks_left)
			sb_printf(h, " (+%lld not marked)", (long long)b->rule[rule].marks_left);
		sb_puts(h, "</TD></TR>");
	}
	const fd_graph_est *ge = &b->est->graphs[0];
	const fd_liveness *shown = b->after ? &ge->after : &ge->before;
	char pb[1024], pa[1024], both[2100];
	sb_puts(h, "<TR><TD COLSPAN=\"3\" ALIGN=\"LEFT\">");
	snprintf(both, sizeof both, "peak %s → %s", estimate_format_peak(b->m, &ge->before, pb, sizeof pb),
	         estimate_format_peak(b->m, &ge->after, pa, sizeof pa));
	put_html_wrapped(h, both, LEGEND_WRAP);
	if (sint_defined(shown->peak_f))
		sb_printf(h, " (est.); <FONT COLOR=\"%s\">red</FONT>: tensors at the %s peak</TD></TR>", EXPORT_PEAK_COLOR,
		          b->after ? "after-fusion" : "before-fusion");
	else
		sb_puts(h, " (est.); no peak marked: it is not known</TD></TR>");
	put_alias_legend(h, b->m);
	int32_t n_float = 0;
	for (int32_t g = 0; g < b->m->n_graphs; g++)
		n_float += b->graph[g].n_float;
	if (n_float)
		sb_printf(h, "<TR><TD BGCOLOR=\"%s\"><FONT COLOR=\"%s\">■■</FONT></TD><TD COLSPAN=\"2\" ALIGN=\"LEFT\">"
		          "%d op%s left in float between Q/DQ (why --float says why)</TD></TR>", EXPORT_FLOAT_FILL,
		          EXPORT_FLOAT_BORDER, (int)n_float, n_float == 1 ? "" : "s");
	if (b->near)
		sb_puts(h, "<TR><TD COLSPAN=\"3\" ALIGN=\"LEFT\">dashed node: near miss "
		        "(✗ reason code; hover for why)</TD></TR>");
	if (!b->o->show_constants)
		sb_printf(h, "<TR><TD COLSPAN=\"3\" ALIGN=\"LEFT\">not drawn: %lld weight/constant "
		          "node%s, %lld initializer%s</TD></TR>",
		          (long long)sel->n_hidden_consts, sel->n_hidden_consts == 1 ? "" : "s",
		          (long long)sel->n_initializers, sel->n_initializers == 1 ? "" : "s");
	sb_puts(h, "</TABLE>");
}
