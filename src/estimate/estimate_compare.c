/* estimate_compare.c — a model's memory against a baseline's: a quantized
 * model beside the float model it was made from (mem --baseline, export
 * --memory-chart --baseline). Both peaks before and after the fusions, their
 * ratio, and the after-fusion timelines step by step on the baseline's steps:
 * a quantizer keeps the names of the ops it wraps in QuantizeLinear /
 * DequantizeLinear (and their outputs' names), so baseline step k (node N)
 * lines up with this model's node N (an unnamed node: by its first
 * output); the Q/DQ steps between two such nodes count at the next one (the
 * largest live bytes since the step before), so no peak falls between rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/json.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/text.h"
#include "estimate/estimate.h"

void estimate_compare_release(fd_mem_compare *c)
{
	estimate_timeline_release(&c->t[0]);
	estimate_timeline_release(&c->t[1]);
	free(c->steps);
	memset(c, 0, sizeof *c);
}

/* What lines a node up across the two models: its name; for a node the
 * model left unnamed (its name made up from its position), the name of its
 * first output, which a quantizer keeps. */
static const char *node_key(const fd_graph *g, const fd_node *n, bool by_output, strbuf *key)
{
	sb_clear(key);
	if (by_output && n->n_outputs && n->outputs[0] != FD_NONE)
		sb_printf(key, "t:%s", g->tensors[n->outputs[0]].name);
	else
		sb_printf(key, "n:%s", n->name);
	return sb_str(key);
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

int estimate_compare(const fd_estimate *e, const fd_estimate *base, fd_mem_compare *c)
{
	memset(c, 0, sizeof *c);
	if (!e->r || !e->r->ctx || !base->r || !base->r->ctx || estimate_timeline(e, 0, &c->t[0]) < 0)
		return -1;
	if (estimate_timeline(base, 0, &c->t[1]) < 0) {
		estimate_timeline_release(&c->t[0]);
		return -1;
	}
	for (int k = 0; k < 2 && !c->why[0]; k++)
		if (!c->t[k].known)
			snprintf(c->why, sizeof c->why, "%s: %s", k ? "the baseline" : "this model", c->t[k].why);
	if (!c->why[0] && strcmp(c->t[0].unit, c->t[1].unit))
		snprintf(c->why, sizeof c->why, "the two scale differently (%s against %s): bind the dims",
		         c->t[0].unit[0] ? c->t[0].unit : "bytes", c->t[1].unit[0] ? c->t[1].unit : "bytes");
	c->known = !c->why[0];
	if (!c->known)
		return 0;
	for (int side = 0; side < 2; side++)
		c->ratio[side] = ratio(c->t[0].peak[side], c->t[1].peak[side]);
	const fd_graph *g = &e->r->ctx->model->graphs[0], *bg = &base->r->ctx->model->graphs[0];
	strmap names;
	strmap_init(&names);
	strmap_reserve(&names, (size_t)g->n_nodes);
	strbuf key = { 0 };
	for (int32_t k = 0; k < c->t[0].n_steps && k < g->n_nodes; k++) {
		const fd_node *n = &g->nodes[g->topo_order[k]];
		strmap_put(&names, node_key(g, n, false, &key), k);
		if (n->n_outputs && n->outputs[0] != FD_NONE)
			strmap_put(&names, node_key(g, n, true, &key), k);
	}
	int32_t n = c->t[1].n_steps < bg->n_nodes ? c->t[1].n_steps : bg->n_nodes;
	c->steps = calloc((size_t)n + 1, sizeof *c->steps);
	int32_t prev = -1;
	for (int32_t k = 0; c->steps && k < n; k++) {
		int32_t node = bg->topo_order[k];
		if (match_node_is_constant(&base->r->ctx->graphs[0], node))
			continue;   /* a weight's ConstantOfShape: no step of the computation */
		fd_mem_step *s = &c->steps[c->n_steps++];
		s->base_step = k;
		s->node = node;
		s->base_live = c->t[1].live[1][k];
		s->step = strmap_get(&names, node_key(bg, &bg->nodes[node], bg->nodes[node].name_synthesized, &key));
		s->live = -1;
		if (s->step < 0)
			continue;
		c->n_aligned++;
		int32_t from = s->step > prev ? prev + 1 : s->step;
		for (int32_t j = from; j <= s->step; j++)
			if (c->t[0].live[1][j] > s->live)
				s->live = c->t[0].live[1][j];
		prev = s->step > prev ? s->step : prev;
	}
	strmap_release(&names);
	sb_release(&key);
	return c->steps ? 0 : -1;
}

static void live_text(const fd_timeline *t, double v, char *buf, size_t size)
{
	char b[32];
	if (v < 0) {
		snprintf(buf, size, "—");
		return;
	}
	estimate_format_bytes((int64_t)(v + 0.5), b, sizeof b);
	snprintf(buf, size, "%s%s%s", b, t->unit[0] ? " × " : "", t->unit);
}

void estimate_write_compare_text(FILE *f, const fd_estimate *e, const fd_estimate *base, const fd_mem_compare *c)
{
	const fd_model *bm = base->r->ctx->model;
	txt_fprintf(f, "\nagainst the baseline %s (main graph, activations):\n", bm->path);
	if (!c->known) {
		txt_fprintf(f, "  not compared: %s\n", c->why);
		return;
	}
	char a[192], b[192];
	for (int side = 0; side < 2; side++) {
		live_text(&c->t[0], c->t[0].peak[side], a, sizeof a);
		live_text(&c->t[1], c->t[1].peak[side], b, sizeof b);
		txt_fprintf(f, "  peak %s fusion  %s here, %s in the baseline (ratio %.2f)\n", side ? "after " : "before", a,
		            b, c->ratio[side]);
	}
	const fd_graph *bg = &bm->graphs[0];
	(void)e;
	txt_fprintf(f, "  after fusion, step by step: the baseline's %d computing steps, %d of them a node of the same "
	            "name (or output) here (this model's live bytes: the largest since the row before)\n", (int)c->n_steps,
	            (int)c->n_aligned);
	txt_fprintf(f, "    %5s  %-32s %14s %14s %6s\n", "step", "node", "baseline", "this model", "ratio");
	int32_t prev = -1;
	for (int32_t k = 0; k < c->n_steps; k++) {
		const fd_mem_step *s = &c->steps[k];
		char name[40], r[16] = "—";
		text_cut(name, sizeof name, bg->nodes[s->node].name);
		live_text(&c->t[1], s->base_live, b, sizeof b);
		live_text(&c->t[0], s->live, a, sizeof a);
		if (s->live >= 0 && s->base_live > 0)
			snprintf(r, sizeof r, "%.2f", s->live / s->base_live);
		/* this model's peak falls in the steps this row stands for */
		bool here = s->step >= 0 && s->step >= c->t[0].peak_step[1] && prev < c->t[0].peak_step[1];
		if (s->step > prev)
			prev = s->step;
		bool there = s->base_step == c->t[1].peak_step[1];
		txt_fprintf(f, "    %5d  %-32s %14s %14s %6s%s\n", (int)s->base_step, name, b, a, r,
		            here && there ? "  <- both peaks" : here ? "  <- peak here" : there ? "  <- baseline peak" : "");
	}
}

void estimate_write_compare_json(FILE *f, const fd_estimate *base, const fd_mem_compare *c)
{
	const fd_model *bm = base->r->ctx->model;
	const fd_graph *bg = &bm->graphs[0];
	fputs("{\"model\": ", f);
	json_write_string(f, bm->path);
	txt_fprintf(f, ", \"compared\": %s", c->known ? "true" : "false");
	if (!c->known) {
		fputs(", \"why\": ", f);
		json_write_string(f, c->why);
		fputs("}", f);
		return;
	}
	fputs(", \"unit\": ", f);
	json_write_string(f, c->t[0].unit);
	txt_fprintf(f, ", \"peak_before\": %.0f, \"peak_after\": %.0f, \"baseline_peak_before\": %.0f, "
	            "\"baseline_peak_after\": %.0f, \"ratio_before\": %.4f, \"ratio_after\": %.4f, \"steps_aligned\": %d, "
	            "\"steps\": [", c->t[0].peak[0], c->t[0].peak[1], c->t[1].peak[0], c->t[1].peak[1], c->ratio[0],
	            c->ratio[1], (int)c->n_aligned);
	for (int32_t k = 0; k < c->n_steps; k++) {
		const fd_mem_step *s = &c->steps[k];
		fputs(k ? ",\n    {\"node\": " : "\n    {\"node\": ", f);
		json_write_string(f, bg->nodes[s->node].name);
		txt_fprintf(f, ", \"step\": %d, \"baseline_after\": %.0f, \"after\": ", (int)s->base_step, s->base_live);
		if (s->live >= 0)
			txt_fprintf(f, "%.0f}", s->live);
		else
			fputs("null}", f);
	}
	fputs("]}", f);
}
