/* estimate_report.c — estimates in words: byte and speed-up formatting, the
 * JSON objects shared by `mem` and `match --format json`, and `mem`'s text
 * report. Writes only to the FILE the caller gives. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/json.h"
#include "base/outbuf.h"
#include "estimate/estimate.h"
#include "base/units.h"
#include "base/text.h"
#include "shape/shape_infer.h"

static const struct advice_def {
	const char *json, *text;
} advice_defs[] = {
#define X(id, json, text) [id] = { json, text },
	FD_MEM_ADVICE(X)
#undef X
};
_Static_assert(sizeof advice_defs / sizeof *advice_defs == ADVICE_COUNT, "one entry per advice");

const char *estimate_advice_text(fd_mem_advice a)
{
	return a >= ADVICE_NONE && a < ADVICE_COUNT ? advice_defs[a].text : "";
}

char *estimate_format_bytes(int64_t bytes, char *buf, size_t size)
{
	if (bytes < 1024) {
		snprintf(buf, size, "%lld B", (long long)bytes);
		return buf;
	}
	const char *unit;
	double v = units_scale_bytes(bytes, 6, &unit);
	if (v < 10 && fabs(v - round(v)) >= 0.05)
		snprintf(buf, size, "%.1f %s", v, unit);
	else
		snprintf(buf, size, "%.0f %s", v, unit);
	return buf;
}

char *estimate_format_size(fd_sint s, char *buf, size_t size)
{
	int64_t v;
	if (s.e && !dexpr_has_fresh(s.e))
		return dexpr_format_bytes(s.e, buf, size);
	if (!s.e && sint_value(s, &v) && v >= 0)
		return estimate_format_bytes(v, buf, size);
	snprintf(buf, size, "unknown");
	return buf;
}

char *estimate_format_peak(const fd_model *m, const fd_liveness *lv, char *buf, size_t size)
{
	if (lv->n_peak_max < 2 && !sint_defined(lv->peak_f) && sint_defined(lv->peak_lower)) {
		/* a lower bound says more than "unknown"; "≥" labels it as one */
		char b[480];
		estimate_format_size(lv->peak_lower, b, sizeof b);
		if (strcmp(b, "unknown") && strcmp(b, "0 B")) {
			snprintf(buf, size, "\xe2\x89\xa5 %s", b);
			return buf;
		}
	}
	if (!lv->peak_depends)
		return estimate_format_size(lv->peak_f, buf, size);
	if (lv->n_peak_max > 1) {   /* the max of a few formulas is exact; never cut: too long, it is not shown */
		size_t at = (size_t)snprintf(buf, size, "%smax(", lv->peak_max_lower ? "\xe2\x89\xa5 " : "");   /* ≥ */
		bool cut = false;
		for (int32_t i = 0; i < lv->n_peak_max && !cut; i++) {
			char b[512];
			estimate_format_size(lv->peak_max[i], b, sizeof b);
			cut = strlen(b) + 1 >= sizeof b;
			if (!cut)
				at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? ", " : "", b);
			cut |= at + 1 >= size;
		}
		if (!cut)
			return snprintf(buf + at, size - at, ")"), buf;
	}
	const char *names[8];
	int n = model_unbound_symbols(m, names, 8);
	if (n == 0) {   /* on sizes nobody knows, not on a symbol a binding reaches */
		snprintf(buf, size, "unknown");
		return buf;
	}
	size_t at = (size_t)snprintf(buf, size, "unknown (depends on ");
	for (int i = 0; i < n && i < 8 && at < size; i++) {
		char alias[16];
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? ", " : "",
		                       dimtab_display_name(m->dimtab, names[i], alias, sizeof alias));
	}
	if (at < size)
		snprintf(buf + at, size - at, ")");
	return buf;
}

char *estimate_format_speedup(double s, char *buf, size_t size)
{
	if (!(s > 0))
		snprintf(buf, size, "est. n/a");
	else
		snprintf(buf, size, "est. \xc3\x97%.1f", s);   /* × */
	return buf;
}

/* ---- JSON --------------------------------------------------------------- */

/* A fusion's object is written once per fusion of a big model: through an
 * outbuf, no printf per field. */

/* A byte count, or null when the figure is not a number. */
static void json_size(outbuf *o, const char *sep, const char *key, fd_sint s)
{
	int64_t v;
	ob_lit(o, sep);
	ob_char(o, '"');
	ob_lit(o, key);
	ob_lit(o, "\": ");
	if (!s.e && sint_value(s, &v) && v >= 0)
		ob_int(o, v);
	else
		ob_lit(o, "null");
}

/* {"key": "256 KiB × batch" | null, …} for the figures that are formulas. */
static void json_formula(outbuf *o, const char *key, fd_sint s, bool *first)
{
	char buf[512];
	if (!s.e || dexpr_has_fresh(s.e))
		return;
	ob_lit(o, *first ? "\"" : ", \"");
	ob_lit(o, key);
	ob_lit(o, "\": ");
	ob_json(o, dexpr_format_bytes_as(s.e, false, buf, sizeof buf));
	*first = false;
}

static void estimate_write_fusion_json(FILE *f, const fd_estimate *e, size_t i)
{
	const fd_fusion_est *fe = &e->fusions[i];
	outbuf o;
	ob_init(&o, f);
	ob_char(&o, '{');
	json_size(&o, "", "inputs_bytes", fe->inputs_f);
	json_size(&o, ", ", "input_activation_bytes", fe->input_act_f);
	json_size(&o, ", ", "input_constant_bytes", fe->input_const_f);
	json_size(&o, ", ", "outputs_bytes", fe->outputs_f);
	json_size(&o, ", ", "intermediate_bytes_removed", fe->removed_f);
	json_size(&o, ", ", "workspace_bytes", fe->workspace_known ? fe->workspace_f : sint_num(0));
	json_size(&o, ", ", "kernel_peak_bytes", fe->kernel_peak_f);
	if (fe->symbolic) {
		bool first = true;
		ob_lit(&o, ", \"formulas\": {");
		json_formula(&o, "inputs", fe->inputs_f, &first);
		json_formula(&o, "outputs", fe->outputs_f, &first);
		json_formula(&o, "intermediate_removed", fe->removed_f, &first);
		json_formula(&o, "workspace", fe->workspace_f, &first);
		json_formula(&o, "kernel_peak", fe->kernel_peak_f, &first);
		ob_char(&o, '}');
	}
	ob_printf(&o, ", \"chunk_ratio\": %.6g, \"speedup_estimate\": %.2f, \"unknown_tensors\": %d, \"advice\": ",
	          fe->chunk_ratio, isfinite(fe->speedup) ? fe->speedup : 0.0, fe->n_unknown);
	if (advice_defs[fe->advice].json)
		ob_json(&o, advice_defs[fe->advice].json);
	else
		ob_lit(&o, "null");
	ob_char(&o, '}');
	ob_flush(&o);
}

static void fusion_json_hook(FILE *f, const fd_match_result *r, size_t fusion, const void *arg)
{
	const fd_estimate *e = arg;
	if (e && e->r == r && fusion < e->n_fusions)
		estimate_write_fusion_json(f, e, fusion);
	else
		fputs("null", f);
}

void estimate_attach_json(fd_match_result *r, const fd_estimate *e)
{
	r->memory_json = fusion_json_hook;
	r->memory_json_arg = e;
}

static void tensors_json(FILE *f, const fd_graph *g, const fd_liveness *lv)
{
	char buf[512];
	fputc('[', f);
	for (int32_t i = 0; i < lv->n_peak_tensors; i++) {
		const fd_peak_tensor *p = &lv->peak_tensors[i];
		fputs(i ? ", {\"name\": " : "{\"name\": ", f);
		json_write_string(f, g->tensors[p->tensor].name);
		if (p->bytes >= 0)
			fprintf(f, ", \"bytes\": %" PRId64 "}", p->bytes);
		else if (p->size.e && !dexpr_has_fresh(p->size.e)) {
			fputs(", \"bytes\": null, \"formula\": ", f);
			json_write_string(f, dexpr_format_bytes_as(p->size.e, false, buf, sizeof buf));
			fputc('}', f);
		} else
			fputs(", \"bytes\": null}", f);
	}
	fputc(']', f);
}

/* "key_bytes": N | null, "key_formula": "…" | null */
static void peak_json(FILE *f, const char *key, const fd_liveness *lv, const char *indent)
{
	char buf[512];
	int64_t v;
	fprintf(f, "\"%s_bytes\": ", key);
	if (!lv->peak_f.e && sint_value(lv->peak_f, &v) && v >= 0)
		fprintf(f, "%" PRId64, v);
	else
		fputs("null", f);
	fprintf(f, ",\n%s\"%s_formula\": ", indent, key);
	if (lv->peak_f.e && !dexpr_has_fresh(lv->peak_f.e))
		json_write_string(f, dexpr_format_bytes_as(lv->peak_f.e, false, buf, sizeof buf));
	else
		fputs("null", f);
	/* sizes nobody knows: what the peak is at least (a number or formula;
	 * with max_of below, that max) */
	fprintf(f, ",\n%s\"%s_at_least\": ", indent, key);
	if (lv->n_peak_max > 1 && lv->peak_max_lower)
		json_write_string(f, "max_of");
	else if (lv->n_peak_max < 2 && !sint_defined(lv->peak_f) && sint_defined(lv->peak_lower) &&
	         (lv->peak_lower.e ? !dexpr_has_fresh(lv->peak_lower.e) : lv->peak_lower.n > 0))
		json_write_string(f, lv->peak_lower.e ? dexpr_format_bytes_as(lv->peak_lower.e, false, buf, sizeof buf)
		                                      : estimate_format_size(lv->peak_lower, buf, sizeof buf));
	else
		fputs("null", f);
	/* a peak that depends on the values: the formulas it is the max of */
	fprintf(f, ",\n%s\"%s_max_of\": ", indent, key);
	if (lv->n_peak_max < 2) {
		fputs("null", f);
		return;
	}
	for (int32_t i = 0; i < lv->n_peak_max; i++) {
		fputs(i ? ", " : "[", f);
		fd_sint s = lv->peak_max[i];
		if (s.e)
			json_write_string(f, dexpr_format_bytes_as(s.e, false, buf, sizeof buf));
		else
			json_write_string(f, estimate_format_size(s, buf, sizeof buf));
	}
	fputc(']', f);
}

static void graph_json(FILE *f, const fd_estimate *e, int32_t gi, const char *indent)
{
	const fd_graph_est *ge = &e->graphs[gi];
	const fd_graph *g = e->r->ctx->graphs[gi].g;
	peak_json(f, "peak_before", &ge->before, indent);
	fprintf(f, ",\n%s", indent);
	peak_json(f, "peak_after", &ge->after, indent);
	fprintf(f, ",\n%s\"peak_tensors\": ", indent);
	tensors_json(f, g, &ge->after);
	fprintf(f, ",\n%s\"peak_tensors_before\": ", indent);
	tensors_json(f, g, &ge->before);
	fprintf(f, ",\n%s\"weight_bytes\": %" PRId64 ",\n%s\"unknown_tensors\": %d", indent, ge->weight_bytes,
	        indent, ge->n_unknown);
}

void estimate_write_memory_json(FILE *f, const fd_estimate *e)
{
	fputs("{\n    ", f);
	if (e->n_graphs > 0) {
		graph_json(f, e, 0, "    ");
		fputs(",\n    ", f);
	} else {
		fputs("\"peak_before_bytes\": 0,\n    \"peak_after_bytes\": 0,\n    \"peak_tensors\": [],\n    ", f);
	}
	const fd_model *m = e->r->ctx ? e->r->ctx->model : NULL;
	fputs("\"bindings\": {", f);
	for (int32_t i = 0, k = 0; m && i < m->n_symdims; i++)
		if (m->symdims[i].bound) {
			fputs(k++ ? ", " : "", f);
			json_write_string(f, m->symdims[i].name);
			fprintf(f, ": %" PRId64, m->symdims[i].value);
		}
	fputs("},\n    \"unbound_symbols\": [", f);
	const char *names[64];
	int n = m ? model_unbound_symbols(m, names, 64) : 0;
	for (int i = 0; i < n && i < 64; i++) {
		fputs(i ? ", " : "", f);
		json_write_string(f, names[i]);
	}
	fprintf(f, "],\n    \"peak_warn_bytes\": %" PRId64 ",\n    \"fusions_over_threshold\": %d,\n    \"hardware\": ",
	        e->opt.peak_warn, e->n_over_threshold);
	json_write_string(f, e->opt.hw->name);
	fputs(",\n    \"graphs\": [", f);
	for (int32_t gi = 1; gi < e->n_graphs; gi++) {
		fputs(gi > 1 ? ",\n      {\"graph\": " : "\n      {\"graph\": ", f);
		json_write_string(f, e->r->ctx->graphs[gi].g->name);
		fputs(",\n        ", f);
		graph_json(f, e, gi, "        ");
		fputc('}', f);
	}
	fputs(e->n_graphs > 1 ? "\n    ]\n  }" : "]\n  }", f);
}

/* ---- text ------------------------------------------------------------------ */

static void liveness_text(FILE *f, const fd_model *m, const fd_graph *g, const char *label, const fd_liveness *lv)
{
	char b[512];
	txt_fprintf(f, "  %-6s %s", label, estimate_format_peak(m, lv, b, sizeof b));
	if (lv->peak_step >= 0 && g->topo_order)
		txt_fprintf(f, " %s %s", lv->peak_depends ? "largest for large values at" : "at",
		        g->nodes[g->topo_order[lv->peak_step]].name);
	txt_fprintf(f, " (%d tensors live)\n", lv->n_live_at_peak);
	if (lv->peak_body >= 0) {   /* the node at the peak runs a body: its own peak counts on top */
		char words[256];
		txt_fprintf(f, "    + %s of %s: %s (its own peak)\n", estimate_body_words(m, lv->peak_body, words, sizeof words),
		        g->topo_order ? g->nodes[g->topo_order[lv->peak_step]].name : "?",
		        estimate_format_size(lv->peak_body_size, b, sizeof b));
	}
	for (int32_t i = 0; i < lv->n_peak_tensors; i++) {
		const fd_tensor *t = &g->tensors[lv->peak_tensors[i].tensor];
		char sh[256];
		fd_sint sz = lv->peak_tensors[i].size;
		int64_t v;
		/* a dim nothing knows counts 0 bytes in the peak: not a size to print */
		if (!sz.e && sint_value(sz, &v) && v == 0 && !shape_is_known(&t->shape))
			snprintf(b, sizeof b, "unknown");
		else
			estimate_format_size(sz, b, sizeof b);
		shape_format(&t->shape, sh, sizeof sh);
		txt_fprintf(f, "    %-*s %-*s %s\n", text_pad(b, 10), b, text_pad(sh, 24), sh, t->name);
	}
}

/* "(at batch=8, samples=16000)" for the bound symbols, "" when none. */
static void bindings_text(const fd_model *m, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int32_t i = 0, k = 0; m && i < m->n_symdims && at < size; i++)
		if (m->symdims[i].bound && m->symdims[i].used)
			at += (size_t)snprintf(buf + at, size - at, "%s%s=%lld", k++ ? ", " : " (at ", m->symdims[i].name,
			                       (long long)m->symdims[i].value);
	if (at && at < size)
		snprintf(buf + at, size - at, ")");
}

void estimate_write_text(FILE *f, const fd_estimate *e)
{
	const fd_match_result *r = e->r;
	const fd_model *m = r->ctx ? r->ctx->model : NULL;
	char b1[512], b2[512], b3[512], b4[512], b5[512], sp[32], bind[256];
	txt_fprintf(f, "fusions: %zu   (bytes; speed-ups are roofline estimates on %s)\n", e->n_fusions,
	        e->opt.hw->name);
	for (size_t i = 0; i < e->n_fusions; i++) {
		const fd_fusion *fu = &r->fusions[i];
		const fd_fusion_est *fe = &e->fusions[i];
		const fd_graph *g = r->ctx->graphs[fu->graph].g;
		const fd_rule *rule = &r->rules->rules[fu->rule];
		const int32_t *nodes = fusion_ids(r, fu->nodes);
		txt_fprintf(f, "  %s @ %s (%d nodes) -> %s  %s\n", rule->name,
		        fu->n_nodes ? g->nodes[nodes[0]].name : "?", fu->n_nodes,
		        rule->target_op ? rule->target_op : "?", estimate_format_speedup(fe->speedup, sp, sizeof sp));
		txt_fprintf(f, "    in %s (act %s, const %s)  out %s  removed %s\n",
		        estimate_format_size(fe->inputs_f, b1, sizeof b1),
		        estimate_format_size(fe->input_act_f, b2, sizeof b2),
		        estimate_format_size(fe->input_const_f, b3, sizeof b3),
		        estimate_format_size(fe->outputs_f, b4, sizeof b4),
		        estimate_format_size(fe->removed_f, b5, sizeof b5));
		txt_fprintf(f, "    workspace %s  kernel peak %s", estimate_format_size(fe->workspace_f, b1, sizeof b1),
		        estimate_format_size(fe->kernel_peak_f, b2, sizeof b2));
		if (fe->chunk_ratio < 1)
			txt_fprintf(f, " (chunked x%.4g of %s)", fe->chunk_ratio,
			        estimate_format_bytes(fe->kernel_peak_unchunked_bytes, b3, sizeof b3));
		if (fe->n_unknown && !fe->symbolic)
			txt_fprintf(f, "  [%d tensors of unknown size]", fe->n_unknown);
		fputc('\n', f);
		if (fe->advice != ADVICE_NONE)
			txt_fprintf(f, "    warning: kernel peak %s over %s: %s\n", b2,
			        estimate_format_bytes(e->opt.peak_warn, b3, sizeof b3), estimate_advice_text(fe->advice));
	}
	for (int32_t gi = 0; gi < e->n_graphs; gi++) {
		const fd_graph_est *ge = &e->graphs[gi];
		const fd_graph *g = r->ctx->graphs[gi].g;
		bindings_text(m, bind, sizeof bind);
		if (gi == 0)
			txt_fprintf(f, "\nmemory (main graph, activations): peak %s -> %s%s\n",
			        estimate_format_peak(m, &ge->before, b1, sizeof b1),
			        estimate_format_peak(m, &ge->after, b2, sizeof b2), bind);
		else
			txt_fprintf(f, "\nmemory (body %s of %s): peak %s -> %s%s\n", g->name ? g->name : "?",
			        g->owner_node >= 0 ? r->ctx->graphs[g->parent].g->nodes[g->owner_node].name : "?",
			        estimate_format_peak(m, &ge->before, b1, sizeof b1),
			        estimate_format_peak(m, &ge->after, b2, sizeof b2), bind);
		liveness_text(f, m, g, "before", &ge->before);
		liveness_text(f, m, g, "after", &ge->after);
		txt_fprintf(f, "  weights and constants (not in the peak): %s\n",
		        estimate_format_bytes(ge->weight_bytes, b1, sizeof b1));
		int32_t formulas = 0;
		for (int32_t t = 0; t < g->n_tensors && ge->n_unknown; t++)
			formulas += g->tensors[t].kind != TENSOR_INITIALIZER && tensor_bytes_sym(&g->tensors[t]).e != NULL &&
			            !dexpr_has_fresh(tensor_bytes_sym(&g->tensors[t]).e);
		if (ge->n_unknown > formulas)
			txt_fprintf(f, "  %d of %d activations have an unknown size\n", ge->n_unknown - formulas,
			        ge->n_activations);
	}
	const char *unbound[16];
	int n_unbound = m ? model_unbound_symbols(m, unbound, 16) : 0;
	if (n_unbound) {
		fprintf(f, "\nunbound symbols (sizes above are formulas in them; bind with --dim NAME=V or --input-shape):");
		for (int i = 0; i < n_unbound && i < 16; i++)
			fprintf(f, " %s", unbound[i]);
		fputc('\n', f);
	}
	if (e->n_over_threshold)
		txt_fprintf(f, "\nwarning: %d fusion(s) with a kernel peak over %s\n", e->n_over_threshold,
		        estimate_format_bytes(e->opt.peak_warn, b1, sizeof b1));
}
