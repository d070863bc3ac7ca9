/* export.c — the exporter's entry: formats by file name, options, and
 * export_graph (choose what to draw, refuse a layout too large, draw,
 * write). How the work is split over src/export/: export_internal.h.
 * Estimates (speed-up, memory, the peak tensors) come from estimate.h,
 * never computed here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "export/export_internal.h"
#include "base/arena.h"

/* ---- formats ------------------------------------------------------------ */

static const struct format_def {
	const char *name;        /* gvc renderer */
	const char *const ext[3];
} formats[] = {
#define X(id, name, ext1, ext2) [id] = { name, { ext1, ext2, NULL } },
	FD_EXPORT_FORMATS(X)
#undef X
};
_Static_assert(sizeof formats / sizeof *formats == EXPORT_FORMAT_COUNT, "one entry per format");

int export_format_from_path(const char *path, fd_export_format *out)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	const char *slash = path ? strrchr(path, '/') : NULL;
	if (!dot || (slash && dot < slash))
		return -1;
	for (int f = 0; f < EXPORT_FORMAT_COUNT; f++)
		for (int k = 0; formats[f].ext[k]; k++)
			if (!strcasecmp(dot, formats[f].ext[k])) {
				*out = (fd_export_format)f;
				return 0;
			}
	return -1;
}

const char *export_format_name(fd_export_format f)
{
	return f >= 0 && f < EXPORT_FORMAT_COUNT ? formats[f].name : "?";
}

void export_options_init(fd_export_options *o)
{
	memset(o, 0, sizeof *o);
	o->format = EXPORT_DOT;
	o->depth = 2;
	o->fusion = -1;
}

void export_files_release(fd_export_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->paths[i]);
	free(f->paths);
	memset(f, 0, sizeof *f);
}

/* ---- drawing one picture -------------------------------------------------- */

const fd_estimate *export_estimate_for(const fd_match_result *r, const fd_export_options *o,
                                       fd_estimate *own)
{
	if (o->estimate)
		return o->estimate;
	estimate_init(own);
	estimate_compute(own, r, NULL);
	return own;
}

const char *export_part_hint(const fd_export_options *o, char *buf, size_t size)
{
	/* suggest only what was not given already */
	if (o->around)
		snprintf(buf, size, "draw less with a smaller --depth (now %d)", o->depth);
	else if (o->rule)
		snprintf(buf, size, "draw less with a smaller --depth (now %d) or --around NODE --depth K", o->depth);
	else
		snprintf(buf, size, "draw a part with --around NODE --depth K or --rule NAME");
	return buf;
}

int export_draw_and_write(const fd_match_result *r, const fd_export_options *o, const fd_estimate *est,
                          const fd_export_selection *sel, fd_export_format format, const char *path,
                          fd_diags *d)
{
	export_capture cap;
	export_capture_begin(&cap, d, path);
	export_builder b;
	export_builder_init(&b, r, o, est, sel);
	export_build(&b);
	int side = o->max_side_px ? o->max_side_px : EXPORT_PNG_MAX_SIDE;
	char hint[160];
	fd_export_files own = { 0 };   /* pages go where the caller wants them listed, else nowhere */
	fd_export_files *pages = o->no_pages ? NULL : o->pages ? o->pages : &own;
	int rc = export_render(b.root, format, path, side > 0 ? side : 0, export_part_hint(o, hint, sizeof hint), pages,
	                       d);
	export_files_release(&own);
	export_builder_release(&b);
	export_capture_end(&cap);
	return rc;
}

/* Nodes dot would lay out: a collapsed fusion is one. */
static int64_t layout_nodes(const fd_match_result *r, const fd_export_options *o,
                            const fd_export_selection *sel)
{
	int64_t objects = sel->n_nodes;
	if (o->after)
		for (size_t f = 0; f < r->n_fusions; f++)
			if (sel->fusion_drawn[f])
				objects -= r->fusions[f].n_nodes - 1;
	return objects;
}

int export_graph(const fd_match_result *r, const fd_export_options *o, const char *path, fd_diags *d)
{
	fd_doing("drawing the graph into %s", path);
	fd_export_selection sel;
	if (export_select(r, o, &sel, d) < 0)
		return -1;
	int64_t objects = layout_nodes(r, o, &sel);
	int limit = o->max_layout_nodes ? o->max_layout_nodes : EXPORT_MAX_LAYOUT_NODES;
	if (o->format != EXPORT_DOT && limit > 0 && objects > limit) {
		char hint[160];
		diag_error(d, srcpos_file(r->ctx->model->path),
		           "%lld nodes to draw is more than %s layout handles in reasonable time "
		           "(limit %d); %s, or write .dot", (long long)objects, export_format_name(o->format), limit,
		           export_part_hint(o, hint, sizeof hint));
		export_selection_release(&sel);
		return -1;
	}
	fd_estimate own;
	const fd_estimate *est = export_estimate_for(r, o, &own);
	int rc = export_draw_and_write(r, o, est, &sel, o->format, path, d);
	if (est == &own)
		estimate_release(&own);
	export_selection_release(&sel);
	return rc;
}
