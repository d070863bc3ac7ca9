/* info_tensors.c — `fusiondbg info MODEL --tensors [--format text|json]`:
 * every tensor of every graph with its kind, dtype, shape (numbers and
 * expressions over the symbols), its size (a number at the bindings, or the
 * formula in the unbound symbols) and the node that produces it. JSON keys:
 * fusiondbg(1), COMMANDS info. */
#include <stdio.h>
#include <string.h>
#include "base/json.h"
#include "cli.h"
#include "base/text.h"
#include "estimate/estimate.h"
#include "ir/model_info.h"

static const char *producer_of(const fd_graph *g, const fd_tensor *t)
{
	return t->producer >= 0 ? g->nodes[t->producer].name : NULL;
}

static const char *graph_label(const fd_graph *g)
{
	return g->index == 0 ? "main" : g->name && g->name[0] ? g->name : "body";
}

/* "256 KiB", "256 KiB × batch", "?" */
static const char *size_text(const fd_tensor *t, char *buf, size_t size)
{
	fd_sint b = tensor_bytes_sym(t);
	int64_t v;
	if (sint_value(b, &v) && v >= 0) {
		estimate_format_bytes(v, buf, size);
	} else if (b.e) {
		dexpr_format_bytes(b.e, buf, size);
	} else {
		snprintf(buf, size, "?");
	}
	return buf;
}

static void json_shape(FILE *f, const fd_shape *s, bool values)
{
	if (s->rank < 0) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (int32_t i = 0; i < s->rank; i++) {
		fd_dim d = s->dims[i];
		fputs(i ? ", " : "", f);
		if (values ? d.value >= 0 : !d.expr && d.value >= 0)
			txt_fprintf(f, "%lld", (long long)d.value);
		else if (!values && d.expr)
			json_write_string(f, dexpr_text(d.expr));
		else
			fputs("null", f);
	}
	fputc(']', f);
}

static bool symbolic(const fd_shape *s)
{
	for (int32_t i = 0; i < s->rank; i++)
		if (s->dims[i].expr)
			return true;
	return false;
}

/* Every tensor the listing shows (outer-scope reads are their graph's),
 * graph by graph, handed to fn. */
typedef void (*tensor_fn)(void *arg, const fd_graph *g, const fd_tensor *t);

static void each_tensor(const fd_model *m, tensor_fn fn, void *arg)
{
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		for (int32_t ti = 0; ti < g->n_tensors; ti++)
			if (g->tensors[ti].kind != TENSOR_OUTER_SCOPE)
				fn(arg, g, &g->tensors[ti]);
	}
}

static void json_name_or_null(FILE *f, const char *s)
{
	if (s)
		json_write_string(f, s);
	else
		fputs("null", f);
}

typedef struct json_state {
	FILE *f;
	bool first;
} json_state;

static void json_tensor(void *arg, const fd_graph *g, const fd_tensor *t)
{
	json_state *js = arg;
	FILE *f = js->f;
	char buf[512];
	txt_fprintf(f, "%s\n    {\"graph\": %d, \"graph_name\": ", js->first ? "" : ",", g->index);
	js->first = false;
	json_write_string(f, graph_label(g));
	fputs(", \"name\": ", f);
	json_write_string(f, t->name);
	txt_fprintf(f, ", \"kind\": \"%s\", \"dtype\": \"%s\", \"shape\": ", tensor_kind_name((fd_tensor_kind)t->kind),
	        dtype_name(t->dtype));
	json_shape(f, &t->shape, false);
	if (symbolic(&t->shape)) {
		fputs(", \"shape_at_bindings\": ", f);
		json_shape(f, &t->shape, true);
	}
	fd_sint b = tensor_bytes_sym(t);
	int64_t v;
	if (sint_value(b, &v) && v >= 0)
		txt_fprintf(f, ", \"bytes\": %lld, \"bytes_formula\": null", (long long)v);
	else if (b.e) {
		fputs(", \"bytes\": null, \"bytes_formula\": ", f);
		json_write_string(f, dexpr_format_bytes_as(b.e, false, buf, sizeof buf));
	} else
		fputs(", \"bytes\": null, \"bytes_formula\": null", f);
	fputs(", \"producer\": ", f);
	json_name_or_null(f, producer_of(g, t));
	fputs(", \"producer_op\": ", f);
	json_name_or_null(f, t->producer >= 0 ? g->nodes[t->producer].op_type : NULL);
	fputc('}', f);
}

static void print_json(FILE *f, const char *path, const fd_model *m)
{
	const char *unbound[64];
	int n_unbound = model_unbound_symbols(m, unbound, 64);
	fputs("{\n  \"model\": ", f);
	json_write_string(f, path);
	fputs(",\n  \"unbound_symbols\": [", f);
	for (int i = 0; i < n_unbound && i < 64; i++) {
		fputs(i ? ", " : "", f);
		json_write_string(f, unbound[i]);
	}
	fputs("],\n  \"tensors\": [", f);
	json_state js = { f, true };
	each_tensor(m, json_tensor, &js);
	fputs(js.first ? "]\n}\n" : "\n  ]\n}\n", f);
}

typedef struct text_state {
	FILE *f;
	int wn, ws, wg, wp;      /* column widths */
	bool measure;            /* this pass only measures */
} text_state;

static void text_tensor(void *arg, const fd_graph *g, const fd_tensor *t)
{
	text_state *ts = arg;
	char shape[1024], size[512], who[300];
	const char *from = producer_of(g, t);
	if (from)
		snprintf(who, sizeof who, "%s (%s)", from, g->nodes[t->producer].op_type);
	else
		snprintf(who, sizeof who, "(%s)", tensor_kind_name((fd_tensor_kind)t->kind));
	shape_format(&t->shape, shape, sizeof shape);
	if (ts->measure) {
		int n = (int)strlen(t->name), s = (int)text_columns(shape), p = (int)strlen(who), l = (int)strlen(graph_label(g));
		ts->wn = n > ts->wn ? (n < 48 ? n : 48) : ts->wn;
		ts->ws = s > ts->ws ? (s < 40 ? s : 40) : ts->ws;
		ts->wp = p > ts->wp ? (p < 48 ? p : 48) : ts->wp;
		ts->wg = l > ts->wg ? l : ts->wg;
		return;
	}
	txt_fprintf(ts->f, "%-*s  %-*s  %-9s  %-*s  %-*s  %s\n", ts->wg, graph_label(g), ts->wn, t->name,
	        dtype_name(t->dtype), text_pad(shape, ts->ws), shape, ts->wp, who, size_text(t, size, sizeof size));
}

static void print_text(FILE *f, const fd_model *m)
{
	text_state ts = { f, 6, 5, 5, 8, true };
	each_tensor(m, text_tensor, &ts);
	ts.measure = false;
	txt_fprintf(f, "%-*s  %-*s  %-9s  %-*s  %-*s  %s\n", ts.wg, "graph", ts.wn, "tensor", "dtype", ts.ws, "shape",
	        ts.wp, "producer", "bytes");
	each_tensor(m, text_tensor, &ts);
	const char *unbound[64];
	int n = model_unbound_symbols(m, unbound, 64);
	if (n) {
		txt_fprintf(f, "\nunbound symbols (sizes above are formulas in them; bind with --dim NAME=V):");
		for (int i = 0; i < n && i < 64; i++)
			txt_fprintf(f, " %s", unbound[i]);
		fputc('\n', f);
	}
}

void cli_info_tensors(FILE *f, const char *path, const fd_model *m, bool json)
{
	if (json)
		print_json(f, path, m);
	else
		print_text(f, m);
}
