/* export_chart.c — the memory timeline as a chart (export --memory-chart):
 * live activation bytes at each step of the topological order, before
 * fusion (grey) and after (blue), each peak marked in red with its size and
 * node, the tensors that make the peaks listed under it, the bindings named.
 * With a baseline (--baseline FLOAT.onnx, estimate_compare): both models
 * after fusion on the baseline's steps, the baseline grey and this model
 * blue, both peaks and their ratio.
 *
 * It is drawn with the Graphviz already in the build, as a graph whose
 * nodes are pinned to chart coordinates (pos, in points) and laid out with
 * the "nop" engine, which keeps them where they are and draws straight
 * edges: one drawing gives SVG (core renderer) and PNG (cairo, with pango's
 * fonts, as the other pictures), and DOT for the golden tests — no second
 * drawing library, no SVG rasteriser to depend on. A long timeline is
 * reduced to CHART_POINTS points, each the largest of its steps, so peaks
 * survive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gvc.h>
#include "base/atomic_file.h"
#include "export/export_internal.h"

#define CHART_W 720.0           /* plot area, points */
#define CHART_H 280.0
#define CHART_X0 90.0
#define CHART_Y0 110.0
#define CHART_POINTS 720
#define BEFORE_COLOR "#8c8c8c"
#define AFTER_COLOR "#1f77b4"

typedef struct chart {
	Agraph_t *g;
	strbuf s;
	int seq;
	double ymax, step;
	int32_t n_steps, n_points, per_point;
	const fd_timeline *t;        /* the unit the values are in */
	const double *live[2];       /* the two series, n_steps each: [0] grey, [1] blue */
	int32_t peak_step[2];
	double peak[2];
	const char *names[2];        /* the series in the legend */
} chart;

static Agnode_t *at(chart *c, double x, double y, const char *shape)
{
	char id[32], pos[64];
	snprintf(id, sizeof id, "p%d", c->seq++);
	Agnode_t *n = agnode(c->g, id, 1);
	snprintf(pos, sizeof pos, "%.2f,%.2f!", x, y);
	export_set(n, "pos", pos);
	export_set(n, "shape", shape);
	return n;
}

/* Plain text centred at (x, y); names in it are escaped. */
static Agnode_t *text(chart *c, double x, double y, const char *label, const char *size)
{
	Agnode_t *n = at(c, x, y, "plaintext");
	strbuf esc = { 0 };
	export_esc(&esc, label);
	export_set(n, "label", sb_str(&esc));
	sb_release(&esc);
	export_set(n, "fontsize", size);
	return n;
}

static void line(chart *c, Agnode_t *a, Agnode_t *b, const char *color, const char *width)
{
	Agedge_t *e = agedge(c->g, a, b, NULL, 1);
	export_set(e, "color", color);
	export_set(e, "penwidth", width);
}

/* Bytes (or bytes per unit) in words. */
static void value_text(const fd_timeline *t, double v, char *buf, size_t size)
{
	char b[32];
	estimate_format_bytes((int64_t)(v + 0.5), b, sizeof b);
	if (t->unit[0])
		snprintf(buf, size, "%s × %s", b, t->unit);
	else
		snprintf(buf, size, "%s", b);
}

/* The left edge of a point's span: the chart is a staircase, each step (or
 * point of steps) holding its value over its width. */
static double px(const chart *c, int32_t point)
{
	return CHART_X0 + (c->n_points > 0 ? CHART_W * point / c->n_points : 0);
}

static double py(const chart *c, double v)
{
	return CHART_Y0 + CHART_H * v / c->ymax;
}

/* The point of side's series at index i: the largest of its steps. */
static double point_value(const chart *c, int side, int32_t i)
{
	double best = 0;
	for (int32_t k = i * c->per_point; k < (i + 1) * c->per_point && k < c->n_steps; k++)
		if (c->live[side][k] > best)
			best = c->live[side][k];
	return best;
}

static Agnode_t *joint(chart *c, double x, double y, const char *color)
{
	Agnode_t *n = at(c, x, y, "point");
	export_set(n, "width", "0.01");
	export_set(n, "color", color);
	return n;
}

static void series(chart *c, int side)
{
	const char *color = side ? AFTER_COLOR : BEFORE_COLOR, *width = side ? "2.2" : "1.6";
	Agnode_t *prev = NULL;
	for (int32_t i = 0; i < c->n_points; i++) {
		double y = py(c, point_value(c, side, i));
		Agnode_t *a = joint(c, px(c, i), y, color), *b = joint(c, px(c, i + 1), y, color);
		if (prev)
			line(c, prev, a, color, width);
		line(c, a, b, color, width);
		prev = b;
	}
}

/* A round scale: the top of the axis and its step, 1, 2 or 5 times a power
 * of ten in the unit the values print in (B, KiB, MiB …). */
static void scale(chart *c, double peak)
{
	double unit = 1;
	while (peak / unit >= 1024 && unit < 1099511627776.0)
		unit *= 1024;
	/* the largest of 1, 2, 5 times a power of ten that is at most a quarter
	 * of the peak: four to eight ticks */
	double raw = peak / unit / 4, step = 1;
	while (step * 10 <= raw)
		step *= 10;
	if (raw >= 5 * step)
		step *= 5;
	else if (raw >= 2 * step)
		step *= 2;
	c->step = step * unit;
	c->ymax = c->step;
	while (c->ymax < peak * 1.02)
		c->ymax += c->step;
}

static void axes(chart *c, const char *x_words)
{
	Agnode_t *o = at(c, CHART_X0, CHART_Y0, "point"), *xe = at(c, CHART_X0 + CHART_W, CHART_Y0, "point"),
	         *ye = at(c, CHART_X0, CHART_Y0 + CHART_H, "point");
	export_set(o, "width", "0.01");
	export_set(xe, "width", "0.01");
	export_set(ye, "width", "0.01");
	line(c, o, xe, "black", "1");
	line(c, o, ye, "black", "1");
	char buf[192];
	for (double v = 0; v <= c->ymax + c->step / 2; v += c->step) {
		value_text(c->t, v, buf, sizeof buf);
		text(c, CHART_X0 - 45, py(c, v), buf, "9");
		Agnode_t *a = at(c, CHART_X0 - 4, py(c, v), "point"), *b = at(c, CHART_X0, py(c, v), "point");
		export_set(a, "width", "0.01");
		export_set(b, "width", "0.01");
		line(c, a, b, "black", "1");
	}
	int32_t last = -1;
	for (int k = 0; k <= 4; k++) {
		int32_t step = (int32_t)((int64_t)(c->n_steps > 0 ? c->n_steps - 1 : 0) * k / 4);
		if (step == last)
			continue;
		last = step;
		snprintf(buf, sizeof buf, "%d", step);
		/* under the middle of the step's span */
		text(c, CHART_X0 + CHART_W * (step + 0.5) / (c->n_steps ? c->n_steps : 1), CHART_Y0 - 14, buf, "9");
	}
	text(c, CHART_X0 + CHART_W / 2, CHART_Y0 - 32, x_words, "10");
}

/* The bindings that made the numbers: " · at batch=8", or "". */
static void bindings(const fd_model *m, char *bind, size_t size)
{
	size_t at_ = 0;
	bind[0] = '\0';
	for (int32_t i = 0; i < m->n_symdims && at_ < size; i++)
		if (m->symdims[i].bound && m->symdims[i].used)
			at_ += (size_t)snprintf(bind + at_, size - at_, "%s%s=%lld", at_ ? ", " : " · at ",
			                        m->symdims[i].name, (long long)m->symdims[i].value);
}

static const char *file_name(const char *path)
{
	return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

/* A line of each series' colour and its name; a baseline's names are
 * longer, so its entries stand further apart, each name after its line. */
static void legend_series(chart *c, bool compare)
{
	for (int side = 0; side < 2; side++) {
		double y = CHART_Y0 + CHART_H + 28;
		double x = CHART_X0 + 10 + side * (compare ? 330 : 170);
		Agnode_t *a = at(c, x, y, "point"), *b = at(c, x + 30, y, "point");
		export_set(a, "width", "0.01");
		export_set(b, "width", "0.01");
		line(c, a, b, side ? AFTER_COLOR : BEFORE_COLOR, "2.2");
		text(c, compare ? x + 40 + 2.6 * (double)strlen(c->names[side]) : x + 80, y, c->names[side], "10");
	}
}

static void legend(chart *c, const fd_model *m, const fd_graph *g, const fd_estimate *e)
{
	char title[1024], pb[256], pa[256], bind[256] = "";
	bindings(m, bind, sizeof bind);
	const char *base = file_name(m->path);
	const fd_graph_est *ge = &e->graphs[c->t->graph];
	snprintf(title, sizeof title, "memory timeline · %s · %s · peak %s → %s (est.)%s", base,
	         c->t->graph ? g->name : "main graph", estimate_format_peak(m, &ge->before, pb, sizeof pb),
	         estimate_format_peak(m, &ge->after, pa, sizeof pa), bind);
	text(c, CHART_X0 + CHART_W / 2, CHART_Y0 + CHART_H + 50, title, "12");
	legend_series(c, false);
}

/* A side's peak marked at step k, with its words (in red). */
static void peak_mark(chart *c, int side, int32_t k, const char *label)
{
	double x = (px(c, k / c->per_point) + px(c, k / c->per_point + 1)) / 2, y = py(c, c->peak[side]);
	Agnode_t *n = at(c, x, y, "circle");
	export_set(n, "width", "0.09");
	export_set(n, "fixedsize", "true");
	export_set(n, "style", "filled");
	export_set(n, "fillcolor", EXPORT_PEAK_COLOR);
	export_set(n, "color", EXPORT_PEAK_COLOR);
	/* the grey side's words above its mark, the blue side's below: they never overlap */
	Agnode_t *w = text(c, x < CHART_X0 + 130 ? x + 90 : x > CHART_X0 + CHART_W - 130 ? x - 90 : x,
	                   y + (side ? -11 : 11), label, "9");
	export_set(w, "fontcolor", EXPORT_PEAK_COLOR);
}

/* The peak of a side marked, with its size and node; the tensors that make
 * it listed under the chart. */
static void peaks(chart *c, const fd_graph *g, const fd_estimate *e)
{
	const fd_graph_est *ge = &e->graphs[c->t->graph];
	for (int side = 0; side < 2; side++) {
		int32_t k = c->peak_step[side];
		if (k < 0)
			continue;
		char v[192], label[512];
		value_text(c->t, c->peak[side], v, sizeof v);
		const char *node = g->topo_order && k < g->n_nodes ? g->nodes[g->topo_order[k]].name : "?";
		snprintf(label, sizeof label, "%s peak %s at %s", side ? "after:" : "before:", v, node);
		peak_mark(c, side, k, label);
		/* who makes it */
		const fd_liveness *lv = side ? &ge->after : &ge->before;
		sb_clear(&c->s);
		sb_printf(&c->s, "%s the peak: ", side ? "after fusion, at" : "before fusion, at");
		for (int32_t i = 0; i < lv->n_peak_tensors && i < 6; i++) {
			char sz[256];
			sb_printf(&c->s, "%s%s %s", i ? ", " : "", g->tensors[lv->peak_tensors[i].tensor].name,
			          estimate_format_size(lv->peak_tensors[i].size, sz, sizeof sz));
		}
		if (lv->n_live_at_peak > 6)
			sb_printf(&c->s, " (+%d more)", lv->n_live_at_peak - 6);
		Agnode_t *l = text(c, CHART_X0 + CHART_W / 2, CHART_Y0 - 56 - 16 * side, sb_str(&c->s), "9");
		export_set(l, "fontcolor", side ? AFTER_COLOR : "#555555");
	}
}

/* A chart of n_steps steps whose larger series peaks at top: its graph. */
static void chart_open(chart *c, int32_t n_steps, double top)
{
	c->g = export_gv_open("memory_timeline");
	c->n_steps = n_steps;
	c->per_point = n_steps > CHART_POINTS ? (n_steps + CHART_POINTS - 1) / CHART_POINTS : 1;
	c->n_points = n_steps > 0 ? (n_steps + c->per_point - 1) / c->per_point : 0;
	scale(c, top);
	export_set(c->g, "splines", "line");
	export_set(c->g, "outputorder", "edgesfirst");
	export_set(c->g, "forcelabels", "true");
	export_set(c->g, "pad", "0.3");
	export_set(c->g, "bgcolor", "white");
	agattr(c->g, AGNODE, "fontname", EXPORT_FONT);
	agattr(c->g, AGNODE, "label", "");
	agattr(c->g, AGEDGE, "dir", "none");
}

/* The chart to path as DOT, or laid out by "nop" as SVG or PNG; closes it. */
static int chart_write(chart *c, fd_export_format format, const char *path, fd_diags *d)
{
	int rc = -1;
	if (format == EXPORT_DOT) {
		rc = export_render(c->g, format, path, 0, NULL, NULL, d);
	} else {
		GVC_t *gvc = export_gvc();
		char *data = NULL;
		unsigned int len = 0;
		if (gvLayout(gvc, c->g, "nop") == 0 && gvRenderData(gvc, c->g, export_format_name(format), &data, &len) == 0 &&
		    data)
			rc = file_write_output(path, data, len, d);
		else
			diag_error(d, srcpos_file(path), "graphviz could not draw the memory chart");
		if (data)
			gvFreeRenderData(data);
		gvFreeLayout(gvc, c->g);
	}
	sb_release(&c->s);
	agclose(c->g);
	return rc;
}

bool export_memory_chart_needs_binding(const fd_estimate *e, int32_t graph)
{
	fd_timeline t;
	if (!e->r || !e->r->ctx || estimate_timeline(e, graph, &t) < 0)
		return false;
	const char *names[1];
	bool needs = !t.known && !t.unknowable && model_unbound_symbols(e->r->ctx->model, names, 1) > 0;
	estimate_timeline_release(&t);
	return needs;
}

int export_memory_chart(const fd_estimate *e, int32_t graph, const char *path, fd_diags *d)
{
	return export_memory_chart_noted(e, graph, path, NULL, d);
}

int export_memory_chart_noted(const fd_estimate *e, int32_t graph, const char *path, const char *note, fd_diags *d)
{
	fd_export_format format;
	if (export_format_from_path(path, &format) < 0) {
		diag_error(d, srcpos_file(path), "the memory chart is .svg, .png or .dot");
		return -1;
	}
	fd_timeline t;
	if (!e->r || !e->r->ctx || estimate_timeline(e, graph, &t) < 0) {
		diag_error(d, srcpos_file(path), "no graph %d to draw", graph);
		return -1;
	}
	if (!t.known) {
		diag_error(d, srcpos_file(path), "the memory timeline needs numbers: %s", t.why);
		estimate_timeline_release(&t);
		return -1;
	}
	const fd_model *m = e->r->ctx->model;
	const fd_graph *g = &m->graphs[graph];
	export_capture cap;
	export_capture_begin(&cap, d, path);
	chart c = { .t = &t, .live = { t.live[0], t.live[1] }, .peak_step = { t.peak_step[0], t.peak_step[1] },
	            .peak = { t.peak[0], t.peak[1] }, .names = { "before fusion", "after fusion" } };
	chart_open(&c, t.n_steps, t.peak[0] > t.peak[1] ? t.peak[0] : t.peak[1]);
	axes(&c, "step (topological order)");
	series(&c, 0);
	series(&c, 1);
	peaks(&c, g, e);
	legend(&c, m, g, e);
	if (note)
		text(&c, CHART_X0 + CHART_W / 2, CHART_Y0 + CHART_H + 66, note, "10");
	int rc = chart_write(&c, format, path, d);
	export_capture_end(&cap);
	estimate_timeline_release(&t);
	return rc;
}

/* ---- against a baseline ---------------------------------------------------------- */

/* The larger value of a series and its first step. */
static int32_t series_peak(const double *v, int32_t n, double *peak)
{
	int32_t at_ = -1;
	*peak = 0;
	for (int32_t k = 0; k < n; k++)
		if (at_ < 0 || v[k] > *peak) {
			*peak = v[k];
			at_ = k;
		}
	return at_;
}

int export_memory_chart_compare(const fd_estimate *e, const fd_estimate *base, const char *path, fd_diags *d)
{
	fd_export_format format;
	if (export_format_from_path(path, &format) < 0) {
		diag_error(d, srcpos_file(path), "the memory chart is .svg, .png or .dot");
		return -1;
	}
	fd_mem_compare cmp;
	if (estimate_compare(e, base, &cmp) < 0) {
		diag_error(d, srcpos_file(path), "no main graph to compare");
		return -1;
	}
	if (!cmp.known || cmp.n_steps == 0) {
		diag_error(d, srcpos_file(path), "the two timelines cannot be compared: %s",
		           cmp.known ? "the baseline computes nothing" : cmp.why);
		estimate_compare_release(&cmp);
		return -1;
	}
	const fd_model *m = e->r->ctx->model, *bm = base->r->ctx->model;
	const fd_graph *bg = &bm->graphs[0];
	/* the series on the baseline's computing steps; a row with no node here
	 * holds the value before it (the op the quantizer removed ran in it) */
	double *v = calloc((size_t)cmp.n_steps * 2 + 1, sizeof *v);
	if (!v) {
		estimate_compare_release(&cmp);
		return -1;
	}
	double last = 0;
	for (int32_t k = 0; k < cmp.n_steps; k++) {
		v[k] = cmp.steps[k].base_live;
		if (cmp.steps[k].live >= 0)
			last = cmp.steps[k].live;
		v[cmp.n_steps + k] = last;
	}
	char names[2][320], title[1200], bind[256], a[192], b[192], label[600];
	snprintf(names[0], sizeof names[0], "%s (baseline), after fusion", file_name(bm->path));
	snprintf(names[1], sizeof names[1], "%s, after fusion", file_name(m->path));
	export_capture cap;
	export_capture_begin(&cap, d, path);
	chart c = { .t = &cmp.t[0], .live = { v, v + cmp.n_steps }, .names = { names[0], names[1] } };
	for (int side = 0; side < 2; side++)
		c.peak_step[side] = series_peak(c.live[side], cmp.n_steps, &c.peak[side]);
	chart_open(&c, cmp.n_steps, c.peak[0] > c.peak[1] ? c.peak[0] : c.peak[1]);
	axes(&c, "step (the baseline's computing steps; each model's live bytes after fusion)");
	series(&c, 0);
	series(&c, 1);
	for (int side = 0; side < 2; side++) {
		value_text(c.t, c.peak[side], a, sizeof a);
		snprintf(label, sizeof label, "%s peak %s at %s", side ? "this model:" : "baseline:", a,
		         bg->nodes[cmp.steps[c.peak_step[side]].node].name);
		peak_mark(&c, side, c.peak_step[side], label);
	}
	bindings(m, bind, sizeof bind);
	value_text(c.t, cmp.t[0].peak[1], a, sizeof a);
	value_text(c.t, cmp.t[1].peak[1], b, sizeof b);
	snprintf(title, sizeof title, "memory timeline · %s against %s · peak after fusion %s against %s, ratio %.2f "
	         "(est.)%s", file_name(m->path), file_name(bm->path), a, b, cmp.ratio[1], bind);
	text(&c, CHART_X0 + CHART_W / 2, CHART_Y0 + CHART_H + 50, title, "12");
	legend_series(&c, true);
	int rc = chart_write(&c, format, path, d);
	export_capture_end(&cap);
	free(v);
	estimate_compare_release(&cmp);
	return rc;
}
