/* export_pages.c — a PNG too tall to read, split into pages instead of
 * refused: name-1.png, name-2.png, … each at most max_side px a side. The
 * laid-out picture is cut between ranks (never through a node), each page is
 * the same DOT with the other pages' nodes taken out and laid out again, and
 * every edge the cut goes through ends in a stub that names the page it
 * continues on. All pages are laid out and checked before any is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/atomic_file.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "export/export_internal.h"

#define PX_PER_PT (96.0 / 72.0)

typedef struct placed {
	const char *name;          /* the node's DOT id (the layout graph's) */
	double top, bottom;        /* points, y up */
	int page;                  /* 0-based */
} placed;

/* Higher first: a rank's nodes share their centre's y. */
static int cmp_centre(const void *a, const void *b)
{
	const placed *x = a, *y = b;
	double cx = (x->top + x->bottom) / 2, cy = (y->top + y->bottom) / 2;
	return cx < cy ? 1 : cx > cy ? -1 : 0;
}

/* Greedy, top down: a rank (the nodes whose centres share a y) joins the
 * page while the page stays within room points; a rank is never split.
 * Returns the pages. */
static int assign_pages(placed *p, size_t n, double room)
{
	qsort(p, n, sizeof *p, cmp_centre);
	int page = 0;
	double page_top = 0;
	for (size_t i = 0; i < n;) {
		double centre = (p[i].top + p[i].bottom) / 2, top = p[i].top, bottom = p[i].bottom;
		size_t j = i + 1;
		while (j < n && (p[j].top + p[j].bottom) / 2 > centre - 0.5) {
			top = p[j].top > top ? p[j].top : top;
			bottom = p[j].bottom < bottom ? p[j].bottom : bottom;
			j++;
		}
		if (i == 0)
			page_top = top;
		else if (page_top - bottom > room) {
			page++;
			page_top = top;
		}
		for (size_t k = i; k < j; k++)
			p[k].page = page;
		i = j;
	}
	return n ? page + 1 : 0;
}

/* An edge of page graph g between on (a node of the page) and a node of
 * page far: one stub per node, page and direction. */
static void stub(Agraph_t *g, Agnode_t *on, int far, bool in)
{
	/* the whole name in the id: two names cut to one length would share a
	 * stub, and the second node's edge would be dropped */
	strbuf id = { 0 };
	char label[64];
	sb_printf(&id, "page-stub:%s:%d:%s", in ? "in" : "out", far + 1, agnameof(on));
	bool made = !agnode(g, (char *)sb_str(&id), 0);
	Agnode_t *s = agnode(g, (char *)sb_str(&id), 1);
	sb_release(&id);
	if (!made)
		return;
	snprintf(label, sizeof label, in ? "from page %d" : "continues on page %d", far + 1);
	agsafeset(s, "label", label, "");
	agsafeset(s, "shape", "plaintext", "");
	agsafeset(s, "style", "", "");
	agsafeset(s, "fontcolor", "#777777", "");
	agsafeset(s, "fontsize", "9", "");
	agsafeset(s, "tooltip", label, "");
	Agedge_t *e = agedge(g, in ? s : on, in ? on : s, NULL, 1);
	agsafeset(e, "style", "dashed", "");
	agsafeset(e, "color", "#999999", "");
}

Agraph_t *export_page_graph(const char *dot, const strmap *page_of, int k, int n, const char *title)
{
	Agraph_t *g = agmemread(dot);
	if (!g)
		return NULL;
	Agnode_t *next;
	for (Agnode_t *v = agfstnode(g); v; v = next) {
		next = agnxtnode(g, v);
		int pv = strmap_get(page_of, agnameof(v));
		if (pv < 0 || pv == k)
			continue;
		for (Agedge_t *e = agfstout(g, v); e; e = agnxtout(g, e))
			if (strmap_get(page_of, agnameof(aghead(e))) == k)
				stub(g, aghead(e), pv, true);
		for (Agedge_t *e = agfstin(g, v); e; e = agnxtin(g, e))
			if (strmap_get(page_of, agnameof(agtail(e))) == k)
				stub(g, agtail(e), pv, false);
	}
	for (Agnode_t *v = agfstnode(g); v; v = next) {   /* then out, once every stub is made */
		next = agnxtnode(g, v);
		int pv = strmap_get(page_of, agnameof(v));
		if (pv >= 0 && pv != k)
			agdelnode(g, v);
	}
	strbuf label = { 0 };   /* whole: a long file name must not cut "page k of n" off */
	sb_printf(&label, "%s: page %d of %d", title, k + 1, n);
	agsafeset(g, "label", (char *)sb_str(&label), "");
	sb_release(&label);
	agsafeset(g, "labelloc", "t", "");
	return g;
}

void export_page_path(const char *path, int k, char *buf, size_t size)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	if (!dot || (slash && dot < slash))
		dot = path + strlen(path);
	snprintf(buf, size, "%.*s-%d%s", (int)(dot - path), path, k + 1, dot);
}

static double page_height_px(Agraph_t *g, double *w)
{
	boxf bb = GD_bb(g);
	*w = (bb.UR.x - bb.LL.x) * PX_PER_PT;
	return (bb.UR.y - bb.LL.y) * PX_PER_PT;
}

/* The nodes of laid with their vertical extent. */
static placed *place(Agraph_t *laid, size_t *n)
{
	*n = 0;
	for (Agnode_t *v = agfstnode(laid); v; v = agnxtnode(laid, v))
		(*n)++;
	placed *p = xcalloc(*n ? *n : 1, sizeof *p);
	size_t i = 0;
	for (Agnode_t *v = agfstnode(laid); v; v = agnxtnode(laid, v), i++) {
		double y = ND_coord(v).y, h = ND_ht(v);
		p[i] = (placed){ agnameof(v), y + h / 2, y - h / 2, 0 };
	}
	return p;
}

int export_plan_pages(Agraph_t *laid, double room_pt, strmap *page_of)
{
	size_t n;
	placed *p = place(laid, &n);
	int pages = assign_pages(p, n, room_pt);
	for (size_t i = 0; i < n; i++)
		strmap_set(page_of, p[i].name, p[i].page);
	free(p);
	return pages;
}

int export_render_pages(GVC_t *gvc, Agraph_t *laid, const char *dot, const char *path, int max_side,
                        fd_export_files *written, fd_diags *d)
{
	const char *slash = strrchr(path, '/');
	const char *title = slash ? slash + 1 : path;
	/* the room a page's nodes may span: its side, less the title and the
	 * stubs' ranks above and below; smaller each time a page laid out again
	 * comes out taller than that */
	double room = max_side / PX_PER_PT - 140;
	int rc = -1, n_pages = 0;
	Agraph_t **pages = NULL;
	for (int attempt = 0; attempt < 6 && room > 40; attempt++, room *= 0.8) {
		strmap page_of;
		strmap_init(&page_of);
		n_pages = export_plan_pages(laid, room, &page_of);
		pages = xcalloc((size_t)n_pages + 1, sizeof *pages);
		bool fits = true;
		for (int k = 0; k < n_pages && fits; k++) {
			pages[k] = export_page_graph(dot, &page_of, k, n_pages, title);
			double w, h;
			if (!pages[k] || gvLayout(gvc, pages[k], "dot") != 0) {
				diag_error(d, srcpos_file(path), "graphviz could not lay page %d out", k + 1);
				fits = false;
				attempt = 6;
				break;
			}
			h = page_height_px(pages[k], &w);
			fits = h <= max_side && w <= max_side;
		}
		strmap_release(&page_of);
		if (fits) {
			rc = 0;
			break;
		}
		for (int k = 0; k < n_pages; k++)
			if (pages[k]) {
				gvFreeLayout(gvc, pages[k]);
				agclose(pages[k]);
			}
		free(pages);
		pages = NULL;
	}
	if (rc < 0) {
		if (!d->errors)
			diag_error(d, srcpos_file(path), "the picture cannot be cut into pages of at most %d px a side "
			           "(a rank is wider or taller than that); write .svg, or raise --max-side", max_side);
		return -1;
	}
	for (int k = 0; k < n_pages; k++) {
		char *data = NULL, name[4096];
		unsigned int len = 0;
		export_page_path(path, k, name, sizeof name);
		if (rc == 0 && (gvRenderData(gvc, pages[k], "png", &data, &len) != 0 || !data)) {
			diag_error(d, srcpos_file(name), "graphviz could not render png (is its png plugin installed?)");
			rc = -1;
		} else if (rc == 0 && file_write_output(name, data, len, d) < 0) {
			rc = -1;
		} else if (rc == 0 && written) {
			if (written->n == written->cap) {
				written->cap = written->cap ? written->cap * 2 : 8;
				written->paths = xrealloc(written->paths, written->cap * sizeof *written->paths);
			}
			written->paths[written->n++] = xstrdup(name);
		}
		if (data)
			gvFreeRenderData(data);
		gvFreeLayout(gvc, pages[k]);
		agclose(pages[k]);
	}
	free(pages);
	return rc;
}
