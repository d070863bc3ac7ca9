/* fuzz_export.c — libFuzzer harness for `export` as DOT and the paging of
 * a picture too tall (export/: export_graph, export_budget.c,
 * export_pages.c): any bytes are a model file, opened in a session with the
 * shipped rules (rules/, or $FUZZ_RULES) as the command opens it; the graph
 * is exported as DOT (before, with near misses; after fusion), read back
 * with cgraph, and, when small enough to lay out quickly (bounded: at most
 * MAX_LAID nodes and a span export_budget.c lays out unbounded), laid out
 * with dot and planned into pages a third of its height as a PNG too
 * tall would be. Nothing is rendered. What must hold: the DOT reads back;
 * every node is on one page; each page holds its nodes, and every edge the
 * cut goes through ends in a stub on both of its pages. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/strbuf.h"
#include "export/export_internal.h"
#include "session/session.h"
#include "fuzz_file.h"

#define MAX_LAID 80

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_export: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	strbuf b = { 0 };
	char chunk[4096];
	size_t n;
	while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sb_add(&b, chunk, n);
	if (f)
		fclose(f);
	sb_add(&b, "", 0);
	return b.s ? b.s : calloc(1, 1);
}

/* The stub page k must hold for an edge between node name and page far. */
static void has_stub(Agraph_t *page, bool in, int far, const char *name)
{
	strbuf id = { 0 };
	sb_printf(&id, "page-stub:%s:%d:%s", in ? "in" : "out", far + 1, name);
	if (!agnode(page, (char *)sb_str(&id), 0))
		fail("an edge the cut goes through has no stub", sb_str(&id));
	sb_release(&id);
}

static void check_page(const char *dot, Agraph_t *laid, const strmap *page_of, int k, int n)
{
	Agraph_t *page = export_page_graph(dot, page_of, k, n, "fuzz.png");
	if (!page)
		fail("a page's DOT does not read", NULL);
	int own = 0, on_page = 0;
	for (Agnode_t *v = agfstnode(laid); v; v = agnxtnode(laid, v)) {
		int pv = strmap_get(page_of, agnameof(v));
		if (pv < 0 || pv >= n)
			fail("a node is on no page", agnameof(v));
		if (pv != k)
			continue;
		own++;
		if (!agnode(page, agnameof(v), 0))
			fail("a page lost one of its nodes", agnameof(v));
		for (Agedge_t *e = agfstout(laid, v); e; e = agnxtout(laid, e)) {
			int ph = strmap_get(page_of, agnameof(aghead(e)));
			if (ph != k)
				has_stub(page, false, ph, agnameof(v));
		}
		for (Agedge_t *e = agfstin(laid, v); e; e = agnxtin(laid, e)) {
			int pt = strmap_get(page_of, agnameof(agtail(e)));
			if (pt != k)
				has_stub(page, true, pt, agnameof(v));
		}
	}
	for (Agnode_t *v = agfstnode(page); v; v = agnxtnode(page, v))
		on_page += strncmp(agnameof(v), "page-stub:", 10) != 0;
	if (on_page != own)
		fail("a page holds nodes of another page", NULL);
	agclose(page);
}

static void pages(const char *path)
{
	char *dot = read_all(path);
	Agraph_t *g = agmemread(dot);
	if (!g)
		fail("the exported DOT does not read back", path);
	if (agnnodes(g) > 0 && agnnodes(g) <= MAX_LAID && export_layout_span(g) <= EXPORT_LAYOUT_SPAN_FREE &&
	    gvLayout(export_gvc(), g, "dot") == 0) {
		double height = GD_bb(g).UR.y - GD_bb(g).LL.y;
		strmap page_of;
		strmap_init(&page_of);
		int n = export_plan_pages(g, height / 3 > 1 ? height / 3 : 1, &page_of);
		if (n < 1)
			fail("no pages", NULL);
		for (int k = 0; k < n; k++)
			check_page(dot, g, &page_of, k, n);
		strmap_release(&page_of);
		gvFreeLayout(export_gvc(), g);
	}
	agclose(g);
	free(dot);
}

static void export_dot(const fd_session *s, bool after)
{
	char buf[512];
	const char *path = fuzz_path("graph.dot", buf, sizeof buf);
	fd_export_options eo;
	export_options_init(&eo);
	eo.after = after;
	eo.near_misses = !after;
	eo.estimate = after ? session_final_estimate(s) : session_estimate(s);
	fd_diags d;
	diags_init(&d);
	if (export_graph(after ? session_final_result(s) : session_result(s), &eo, path, &d) == 0)
		pages(path);
	else if (!d.errors)
		fail("export failed without an error", NULL);
	diags_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[512];
	const char *rules = getenv("FUZZ_RULES") ? getenv("FUZZ_RULES") : "rules";
	fd_session_options o = { .model_path = fuzz_write("model.onnx", data, size, buf, sizeof buf),
	                         .rule_paths = (const char *const[]){ rules }, .n_rule_paths = 1, .no_env = true };
	fd_session s;
	fd_diags d;
	diags_init(&d);
	if (session_open(&s, &o, &d) == 0) {
		export_dot(&s, false);
		export_dot(&s, true);
		session_close(&s);
	}
	diags_release(&d);
	return 0;
}
