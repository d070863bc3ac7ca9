/* info_tensors.c — `fusiondbg info MODEL --tensors [--format text|json]`:
 * every tensor of every graph with its kind, dtype, shape (numbers and
 * expressions over the symbols), its size (a number at the bindings, or the
 * formula in the unbound symbols) and the node that produces it. JSON keys:
 * fusiondbg(1), COMMANDS info. */
#include <stdio.h>
#include <string.h>
#include "base/json.h"
#include "cli.h"
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
			fprintf(f, "%lld", (long long)d.value);
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

static void print_json(FILE *f, const char *path, const fd_model *m)
{
	const char *unbound[64];
	int n_unbound = model_unbound_symbols(m, unbound, 64);
	char buf[512];
	fputs("{\n  \"model\": ", f);
	json_write_string(f, path);
	fputs(",\n  \"unbound_symbols\": [", f);
	for (int i = 0; i < n_unbound && i < 64; i++) {
		fputs(i ? ", " : "", f);
		json_write_string(f, unbound[i]);
	}
	fputs("],\n  \"tensors\": [", f);
	bool first = true;
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		for (int32_t ti = 0; ti < g->n_tensors; ti++) {
			const fd_tensor *t = &g->tensors[ti];
			if (t->kind == TENSOR_OUTER_SCOPE)
				continue;
			fprintf(f, "%s\n    {\"graph\": %d, \"graph_name\": ", first ? "" : ",", gi);
			first = false;
			json_write_string(f, graph_label(g));
			fputs(", \"name\": ", f);
			json_write_string(f, t->name);
			fprintf(f, ", \"kind\": \"%s\", \"dtype\": \"%s\", \"shape\": ", tensor_kind_name((fd_tensor_kind)t->kind),
			        dtype_name(t->dtype));
			json_shape(f, &t->shape, false);
			if (symbolic(&t->shape)) {
				fputs(", \"shape_at_bindings\": ", f);
				json_shape(f, &t->shape, true);
			}
			fd_sint b = tensor_bytes_sym(t);
			int64_t v;
			if (sint_value(b, &v) && v >= 0)
				fprintf(f, ", \"bytes\": %lld, \"bytes_formula\": null", (long long)v);
			else if (b.e) {
				fputs(", \"bytes\": null, \"bytes_formula\": ", f);
				json_write_string(f, dexpr_format_bytes(b.e, buf, sizeof buf));
			} else
				fputs(", \"bytes\": null, \"bytes_formula\": null", f);
			fputs(", \"producer\": ", f);
			if (producer_of(g, t))
				json_write_string(f, producer_of(g, t));
			else
				fputs("null", f);
			fputs(", \"producer_op\": ", f);
			if (t->producer >= 0)
				json_write_string(f, g->nodes[t->producer].op_type);
			else
				fputs("null", f);
			fputc('}', f);
		}
	}
	fputs(first ? "]\n}\n" : "\n  ]\n}\n", f);
}

static void print_text(FILE *f, const fd_model *m)
{
	int wn = 6, ws = 5, wg = 5, wp = 8;
	char shape[1024], size[512];
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		if ((int)strlen(graph_label(g)) > wg)
			wg = (int)strlen(graph_label(g));
		for (int32_t ti = 0; ti < g->n_tensors; ti++) {
			const fd_tensor *t = &g->tensors[ti];
			int n = (int)strlen(t->name), s = (int)strlen(shape_format(&t->shape, shape, sizeof shape));
			wn = n > wn ? (n < 48 ? n : 48) : wn;
			ws = s > ws ? (s < 40 ? s : 40) : ws;
			int p = t->producer >= 0 ? (int)(strlen(g->nodes[t->producer].name) +
			                                 strlen(g->nodes[t->producer].op_type) + 3) : 14;
			wp = p > wp ? (p < 48 ? p : 48) : wp;
		}
	}
	fprintf(f, "%-*s  %-*s  %-9s  %-*s  %-*s  %s\n", wg, "graph", wn, "tensor", "dtype", ws, "shape", wp,
	        "producer", "bytes");
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		for (int32_t ti = 0; ti < g->n_tensors; ti++) {
			const fd_tensor *t = &g->tensors[ti];
			if (t->kind == TENSOR_OUTER_SCOPE)
				continue;
			const char *from = producer_of(g, t);
			char who[300];
			if (from)
				snprintf(who, sizeof who, "%s (%s)", from, g->nodes[t->producer].op_type);
			else
				snprintf(who, sizeof who, "(%s)", tensor_kind_name((fd_tensor_kind)t->kind));
			fprintf(f, "%-*s  %-*s  %-9s  %-*s  %-*s  %s\n", wg, graph_label(g), wn, t->name,
			        dtype_name(t->dtype), ws, shape_format(&t->shape, shape, sizeof shape), wp, who,
			        size_text(t, size, sizeof size));
		}
	}
	const char *unbound[64];
	int n = model_unbound_symbols(m, unbound, 64);
	if (n) {
		fprintf(f, "\nunbound symbols (sizes above are formulas in them; bind with --dim NAME=V):");
		for (int i = 0; i < n && i < 64; i++)
			fprintf(f, " %s", unbound[i]);
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
