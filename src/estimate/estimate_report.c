/* estimate_report.c — estimates in words: byte and speed-up formatting, the
 * JSON objects shared by `mem` and `match --format json`, and `mem`'s text
 * report. Writes only to the FILE the caller gives. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/json.h"
#include "estimate/estimate.h"
#include "base/units.h"
#include "base/text.h"

static const struct advice_def {
	const char *json, *text;
} advice_defs[] = {
#define X(id, json, text) [id] = { json, text },
	FD_MEM_ADVICE(X)
#undef X
};
_Static_assert(sizeof advice_defs / sizeof *advice_defs == ADVICE_COUNT, "one entry per advice");

const char *mem_advice_text(fd_mem_advice a)
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
	double v = bytes_in_unit(bytes, 6, &unit);
	if (v < 10 && fabs(v - round(v)) >= 0.05)
		snprintf(buf, size, "%.1f %s", v, unit);
	else
		snprintf(buf, size, "%.0f %s", v, unit);
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

/* A double for JSON: two decimals, never NaN / inf. */
static void json_num(FILE *f, double x)
{
	if (!isfinite(x))
		x = 0;
	fprintf(f, "%.2f", x);
}

void estimate_write_fusion_json(FILE *f, const fd_estimate *e, size_t i)
{
	const fd_fusion_est *fe = &e->fusions[i];
	fprintf(f, "{\"inputs_bytes\": %" PRId64 ", \"input_activation_bytes\": %" PRId64
	        ", \"input_constant_bytes\": %" PRId64 ", \"outputs_bytes\": %" PRId64
	        ", \"intermediate_bytes_removed\": %" PRId64 ", \"workspace_bytes\": %" PRId64
	        ", \"kernel_peak_bytes\": %" PRId64 ", \"chunk_ratio\": ",
	        fe->inputs_bytes, fe->input_act_bytes, fe->input_const_bytes, fe->outputs_bytes,
	        fe->intermediate_bytes_removed, fe->workspace_bytes, fe->kernel_peak_bytes);
	fprintf(f, "%.6g", fe->chunk_ratio);
	fputs(", \"speedup_estimate\": ", f);
	json_num(f, fe->speedup);
	fprintf(f, ", \"unknown_tensors\": %d, \"advice\": ", fe->n_unknown);
	if (advice_defs[fe->advice].json)
		json_write_string(f, advice_defs[fe->advice].json);
	else
		fputs("null", f);
	fputc('}', f);
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
	fputc('[', f);
	for (int32_t i = 0; i < lv->n_peak_tensors; i++) {
		fputs(i ? ", {\"name\": " : "{\"name\": ", f);
		json_write_string(f, g->tensors[lv->peak_tensors[i].tensor].name);
		fprintf(f, ", \"bytes\": %" PRId64 "}", lv->peak_tensors[i].bytes);
	}
	fputc(']', f);
}

static void graph_json(FILE *f, const fd_estimate *e, int32_t gi, const char *indent)
{
	const fd_graph_est *ge = &e->graphs[gi];
	const fd_graph *g = e->r->ctx->graphs[gi].g;
	fprintf(f, "\"peak_before_bytes\": %" PRId64 ",\n%s\"peak_after_bytes\": %" PRId64 ",\n%s\"peak_tensors\": ",
	        ge->before.peak_bytes, indent, ge->after.peak_bytes, indent);
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
	fprintf(f, "\"peak_warn_bytes\": %" PRId64 ",\n    \"fusions_over_threshold\": %d,\n    \"hardware\": ",
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

static void liveness_text(FILE *f, const fd_graph *g, const char *label, const fd_liveness *lv)
{
	char b[32];
	txt_fprintf(f, "  %-6s %s", label, estimate_format_bytes(lv->peak_bytes, b, sizeof b));
	if (lv->peak_step >= 0 && g->topo_order)
		txt_fprintf(f, " at %s", g->nodes[g->topo_order[lv->peak_step]].name);
	txt_fprintf(f, " (%d tensors live)\n", lv->n_live_at_peak);
	for (int32_t i = 0; i < lv->n_peak_tensors; i++) {
		const fd_tensor *t = &g->tensors[lv->peak_tensors[i].tensor];
		char sh[96];
		txt_fprintf(f, "    %-10s %-24s %s\n", estimate_format_bytes(lv->peak_tensors[i].bytes, b, sizeof b),
		        shape_format(&t->shape, sh, sizeof sh), t->name);
	}
}

void estimate_write_text(FILE *f, const fd_estimate *e)
{
	const fd_match_result *r = e->r;
	char b1[32], b2[32], b3[32], b4[32], b5[32], sp[32];
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
		        estimate_format_bytes(fe->inputs_bytes, b1, sizeof b1),
		        estimate_format_bytes(fe->input_act_bytes, b2, sizeof b2),
		        estimate_format_bytes(fe->input_const_bytes, b3, sizeof b3),
		        estimate_format_bytes(fe->outputs_bytes, b4, sizeof b4),
		        estimate_format_bytes(fe->intermediate_bytes_removed, b5, sizeof b5));
		txt_fprintf(f, "    workspace %s%s  kernel peak %s", estimate_format_bytes(fe->workspace_bytes, b1, sizeof b1),
		        fe->workspace_known ? "" : " (unknown)",
		        estimate_format_bytes(fe->kernel_peak_bytes, b2, sizeof b2));
		if (fe->chunk_ratio < 1)
			txt_fprintf(f, " (chunked x%.4g of %s)", fe->chunk_ratio,
			        estimate_format_bytes(fe->kernel_peak_unchunked_bytes, b3, sizeof b3));
		if (fe->n_unknown)
			txt_fprintf(f, "  [%d tensors of unknown size counted as 0]", fe->n_unknown);
		fputc('\n', f);
		if (fe->advice != ADVICE_NONE)
			txt_fprintf(f, "    warning: kernel peak %s over %s: %s\n", b2,
			        estimate_format_bytes(e->opt.peak_warn, b3, sizeof b3), mem_advice_text(fe->advice));
	}
	for (int32_t gi = 0; gi < e->n_graphs; gi++) {
		const fd_graph_est *ge = &e->graphs[gi];
		const fd_graph *g = r->ctx->graphs[gi].g;
		if (gi == 0)
			txt_fprintf(f, "\nmemory (main graph, activations): peak %s -> %s\n",
			        estimate_format_bytes(ge->before.peak_bytes, b1, sizeof b1),
			        estimate_format_bytes(ge->after.peak_bytes, b2, sizeof b2));
		else
			txt_fprintf(f, "\nmemory (body %s of %s): peak %s -> %s\n", g->name ? g->name : "?",
			        g->owner_node >= 0 ? r->ctx->graphs[g->parent].g->nodes[g->owner_node].name : "?",
			        estimate_format_bytes(ge->before.peak_bytes, b1, sizeof b1),
			        estimate_format_bytes(ge->after.peak_bytes, b2, sizeof b2));
		liveness_text(f, g, "before", &ge->before);
		liveness_text(f, g, "after", &ge->after);
		txt_fprintf(f, "  weights and constants (not in the peak): %s\n",
		        estimate_format_bytes(ge->weight_bytes, b1, sizeof b1));
		if (ge->n_unknown)
			txt_fprintf(f, "  %d of %d activations have an unknown size (counted as 0)\n", ge->n_unknown,
			        ge->n_activations);
	}
	if (e->n_over_threshold)
		txt_fprintf(f, "\nwarning: %d fusion(s) with a kernel peak over %s\n", e->n_over_threshold,
		        estimate_format_bytes(e->opt.peak_warn, b1, sizeof b1));
}
