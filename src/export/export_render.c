/* export_render.c — a drawn graph to a file, atomically: DOT through
 * cgraph's agwrite (no layout, so byte-identical for the same input and
 * written at any size), PNG (cairo) and SVG (core) through gvc's dot layout
 * and renderers, in-process. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <gvc.h>
#include "base/atomic_file.h"
#include "export/export_internal.h"

/* One graphviz context for the whole process, made at the first picture and
 * freed at exit: the pango text plugin caches the last font name it measured
 * by pointer, so a picture drawn after another context was freed reads freed
 * memory (two pictures in one run: export -o and --memory-chart, or the
 * TUI's export menu twice). */
static GVC_t *shared_gvc;

static void free_shared_gvc(void)
{
	gvFreeContext(shared_gvc);
	shared_gvc = NULL;
}

GVC_t *export_gvc(void)
{
	if (!shared_gvc) {
		shared_gvc = gvContext();
		if (shared_gvc)
			atexit(free_shared_gvc);
	}
	return shared_gvc;
}

/* g as DOT text (heap, *len bytes); NULL + d when cgraph cannot write it. */
static char *dot_text(Agraph_t *g, const char *path, size_t *len, fd_diags *d)
{
	char *text = NULL;
	*len = 0;
	FILE *f = open_memstream(&text, len);
	if (!f) {
		diag_error(d, srcpos_file(path), "cannot write: out of memory");
		return NULL;
	}
	bool ok = agwrite(g, f) == 0 && fputc('\n', f) != EOF;
	ok = fclose(f) == 0 && ok;
	if (!ok) {
		diag_error(d, srcpos_file(path), "cannot write: graphviz could not write the DOT text");
		free(text);
		return NULL;
	}
	return text;
}

/* cgraph writes DOT to a FILE*: into memory, then one atomic write. */
static int write_dot(Agraph_t *g, const char *path, fd_diags *d)
{
	size_t len;
	char *text = dot_text(g, path, &len, d);
	int rc = text ? file_write_output(path, text, len, d) : -1;
	free(text);
	return rc;
}

/* dot's work on root (export_budget.c): unbounded when small, bounded with
 * a warning that says so past a size, refused past what even that does in
 * reasonable time. */
static int bound_layout(Agraph_t *root, const char *path, const char *part_hint, fd_diags *d)
{
	int64_t span = export_layout_span(root);
	if (span > EXPORT_LAYOUT_SPAN_MAX) {
		diag_error(d, srcpos_file(path), "dot's layout of this graph would take too long (its long edges "
		           "make %lld virtual nodes, more than %d); %s, or write .dot", (long long)span,
		           EXPORT_LAYOUT_SPAN_MAX, part_hint ? part_hint : "draw a part");
		return -1;
	}
	if (export_bound_layout(root, span))
		diag_warning(d, srcpos_file(path), "layout bounded: the graph's long edges make %lld virtual nodes "
		             "(more than %d), so dot's placement and crossing minimisation stop early; edges may "
		             "cross more than they need (%s, or write .dot for an unbounded layout)", (long long)span,
		             EXPORT_LAYOUT_SPAN_FREE, part_hint ? part_hint : "draw a part");
	return 0;
}

int export_render(Agraph_t *root, fd_export_format format, const char *path, int max_side, const char *part_hint,
                  fd_export_files *pages, fd_diags *d)
{
	if (format == EXPORT_DOT)
		return write_dot(root, path, d);
	GVC_t *gvc = export_gvc();
	int rc = -1;
	size_t errors0 = d->errors;
	if (bound_layout(root, path, part_hint, d) < 0)
		return -1;
	/* the graph as built (bounded too), for the pages a picture too tall is cut into */
	size_t dot_len = 0;
	char *dot = format == EXPORT_PNG && pages && max_side ? dot_text(root, path, &dot_len, d) : NULL;
	if (gvLayout(gvc, root, "dot") != 0 || d->errors > errors0) {
		if (d->errors == errors0)
			diag_error(d, srcpos_file(path), "graphviz could not lay the graph out");
		free(dot);
		return -1;
	}
	/* a PNG too long to read is refused (export.h: EXPORT_PNG_MAX_SIDE); past
	 * 32767 px a side cairo would scale it down anyway */
	double llx, lly, urx, ury;
	const char *bb = agget(root, "bb");
	if (format == EXPORT_PNG && bb && (sscanf(bb, "%lf,%lf,%lf,%lf", &llx, &lly, &urx, &ury) == 4 ||
	                                   sscanf(bb, "%lf %lf %lf %lf", &llx, &lly, &urx, &ury) == 4)) {
		double w = (urx - llx) * 96 / 72, h = (ury - lly) * 96 / 72;
		if (dot && h > max_side && w <= max_side) {   /* tall, not wide: pages cut between ranks */
			rc = export_render_pages(gvc, root, dot, path, max_side, pages, d);
			free(dot);
			gvFreeLayout(gvc, root);
			return rc;
		}
		if (max_side && (w > max_side || h > max_side)) {
			diag_error(d, srcpos_file(path), "the picture would be %.0fx%.0f px, too %s to read as a PNG "
			           "(limit %d px a side); %s, write .svg (a viewer zooms it), or raise --max-side", w, h,
			           h >= w ? "tall" : "wide", max_side, part_hint ? part_hint : "draw a part");
			free(dot);
			gvFreeLayout(gvc, root);
			return -1;
		}
		if (w > 32767 || h > 32767)
			diag_warning(d, srcpos_file(path), "the picture would be %.0fx%.0f px, more than a PNG holds "
			             "(32767 a side), so it is scaled down; .svg keeps it sharp", w, h);
	}
	free(dot);
	char *data = NULL;
	unsigned int len = 0;
	if (gvRenderData(gvc, root, export_format_name(format), &data, &len) != 0 || !data) {
		if (d->errors == errors0)
			diag_error(d, srcpos_file(path), "graphviz could not render %s (is its %s plugin installed?)",
			           export_format_name(format), export_format_name(format));
	} else {
		rc = file_write_output(path, data, len, d);
	}
	if (data)
		gvFreeRenderData(data);
	gvFreeLayout(gvc, root);
	return rc;
}
