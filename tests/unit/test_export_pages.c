/* test_export_pages.c — a PNG too tall, cut into pages (export_pages.c):
 * the plan cuts between ranks, top down, within the room it is given; each
 * page keeps its own nodes and ends every edge to another page in a stub
 * naming that page; the pages written are each at most max_side px a side
 * and named x-1.png, x-2.png, … */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "base/strmap.h"
#include "export/export_internal.h"

enum { CHAIN = 40 };

/* n0 -> n1 -> … -> n39, and n5 -> n35 across the whole picture */
static Agraph_t *chain(char **dot_out)
{
	static char dot[4096];
	size_t at = (size_t)snprintf(dot, sizeof dot, "digraph g {\n");
	for (int i = 0; i + 1 < CHAIN; i++)
		at += (size_t)snprintf(dot + at, sizeof dot - at, "n%d -> n%d;\n", i, i + 1);
	snprintf(dot + at, sizeof dot - at, "n5 -> n35;\n}\n");
	*dot_out = dot;
	Agraph_t *g = agmemread(dot);
	assert_non_null(g);
	assert_int_equal(gvLayout(export_gvc(), g, "dot"), 0);
	return g;
}

static int page_of_node(const strmap *m, int i)
{
	char id[16];
	snprintf(id, sizeof id, "n%d", i);
	return strmap_get(m, id);
}

static void test_plan_cuts_between_ranks_top_down(void **state)
{
	(void)state;
	char *dot;
	Agraph_t *g = chain(&dot);
	strmap m;
	strmap_init(&m);
	int pages = export_plan_pages(g, 400, &m);   /* a rank of the chain is 36 pt plus 18 of ranksep */
	assert_true(pages >= 4);
	int last = 0;
	for (int i = 0; i < CHAIN; i++) {
		int p = page_of_node(&m, i);
		assert_true(p >= last && p <= last + 1);   /* in order, none skipped */
		last = p;
	}
	assert_int_equal(last, pages - 1);
	strmap_release(&m);
	gvFreeLayout(export_gvc(), g);
	agclose(g);
}

static const char *label_of(Agraph_t *g, const char *id)
{
	Agnode_t *n = agnode(g, (char *)id, 0);
	return n ? agget(n, "label") : NULL;
}

static void test_page_keeps_its_nodes_and_stubs_the_cut_edges(void **state)
{
	(void)state;
	char *dot;
	Agraph_t *g = chain(&dot);
	strmap m;
	strmap_init(&m);
	int pages = export_plan_pages(g, 400, &m);
	int p5 = page_of_node(&m, 5), p35 = page_of_node(&m, 35);
	assert_true(p35 > p5 + 1);
	Agraph_t *page = export_page_graph(dot, &m, p5, pages, "chain.png");
	assert_non_null(page);
	int first = -1, kept = 0;
	for (int i = 0; i < CHAIN; i++) {
		char id[16];
		snprintf(id, sizeof id, "n%d", i);
		bool on = page_of_node(&m, i) == p5;
		assert_int_equal(agnode(page, id, 0) != NULL, on);
		if (on && first < 0)
			first = i;
		kept += on;
	}
	char id[64], want[64];
	/* the chain comes in from the page before (when there is one) and goes on to the next */
	if (p5 > 0) {
		snprintf(id, sizeof id, "page-stub:in:%d:n%d", p5, first);
		snprintf(want, sizeof want, "from page %d", p5);
		assert_non_null(label_of(page, id));
		assert_string_equal(label_of(page, id), want);
	}
	snprintf(id, sizeof id, "page-stub:out:%d:n%d", p5 + 2, first + kept - 1);
	snprintf(want, sizeof want, "continues on page %d", p5 + 2);
	assert_string_equal(label_of(page, id), want);
	/* the long edge n5 -> n35 ends in a stub naming n35's page */
	snprintf(id, sizeof id, "page-stub:out:%d:n5", p35 + 1);
	snprintf(want, sizeof want, "continues on page %d", p35 + 1);
	assert_string_equal(label_of(page, id), want);
	snprintf(want, sizeof want, "chain.png: page %d of %d", p5 + 1, pages);
	assert_string_equal(agget(page, "label"), want);
	agclose(page);
	page = export_page_graph(dot, &m, p35, pages, "chain.png");
	snprintf(id, sizeof id, "page-stub:in:%d:n35", p5 + 1);
	snprintf(want, sizeof want, "from page %d", p5 + 1);
	assert_string_equal(label_of(page, id), want);
	agclose(page);
	strmap_release(&m);
	gvFreeLayout(export_gvc(), g);
	agclose(g);
}

/* A PNG's width and height from its IHDR. */
static void png_size(const char *path, unsigned *w, unsigned *h)
{
	unsigned char b[24];
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(b, 1, 24, f), 24);
	fclose(f);
	*w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
	*h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
}

/* Four nodes whose names share their first 600 bytes: a0 -> c0 and b0 -> d0
 * cross the cut between pages 1 and 2. Each of the four keeps its own stub
 * and its edge (one stub's id cut short to a shared prefix took the other's
 * edge with it). */
static void test_long_names_each_keep_their_stub(void **state)
{
	(void)state;
	enum { PREFIX = 600 };
	char names[4][PREFIX + 2];
	for (int i = 0; i < 4; i++) {
		memset(names[i], 'n', PREFIX);
		names[i][PREFIX] = (char)('a' + i);
		names[i][PREFIX + 1] = '\0';
	}
	char dot[4 * PREFIX + 64];
	snprintf(dot, sizeof dot, "digraph g { \"%s\" -> \"%s\"; \"%s\" -> \"%s\"; }", names[0], names[2],
	         names[1], names[3]);
	strmap m;
	strmap_init(&m);
	for (int i = 0; i < 4; i++)
		strmap_set(&m, names[i], i < 2 ? 0 : 1);
	for (int k = 0; k < 2; k++) {
		Agraph_t *page = export_page_graph(dot, &m, k, 2, "long.png");
		assert_non_null(page);
		for (int i = 2 * k; i < 2 * k + 2; i++) {
			Agnode_t *v = agnode(page, names[i], 0);
			assert_non_null(v);
			Agedge_t *e = k == 0 ? agfstout(page, v) : agfstin(page, v);
			assert_non_null(e);   /* the cut edge ends in a stub of its own */
			Agnode_t *s = k == 0 ? aghead(e) : agtail(e);
			assert_string_equal(agget(s, "label"), k == 0 ? "continues on page 2" : "from page 1");
			assert_int_equal(agdegree(page, s, 1, 1), 1);
		}
		agclose(page);
	}
	strmap_release(&m);
}

static void test_pages_written_within_max_side(void **state)
{
	(void)state;
	char dir[] = "/tmp/fdbg-pages.XXXXXX", path[128], page[160];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/chain.png", dir);
	char *dot;
	Agraph_t *g = chain(&dot);
	fd_export_files written = { 0 };
	fd_diags d;
	diags_init(&d);
	assert_int_equal(export_render_pages(export_gvc(), g, dot, path, 600, &written, &d), 0);
	assert_int_equal(d.errors, 0);
	assert_true(written.n >= 3);
	for (size_t k = 0; k < written.n; k++) {
		export_page_path(path, (int)k, page, sizeof page);
		assert_string_equal(written.paths[k], page);
		unsigned w, h;
		png_size(page, &w, &h);
		assert_true(w <= 600 && h <= 600 && h > 100);
		unlink(page);
	}
	assert_int_equal(access(path, F_OK), -1);   /* the one picture is not written */
	export_files_release(&written);
	diags_release(&d);
	gvFreeLayout(export_gvc(), g);
	agclose(g);
	rmdir(dir);
}

static void test_page_path(void **state)
{
	(void)state;
	char b[64];
	export_page_path("a.d/x.png", 1, b, sizeof b);
	assert_string_equal(b, "a.d/x-2.png");
	export_page_path("a.d/noext", 0, b, sizeof b);
	assert_string_equal(b, "a.d/noext-1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_cuts_between_ranks_top_down),
		cmocka_unit_test(test_page_keeps_its_nodes_and_stubs_the_cut_edges),
		cmocka_unit_test(test_long_names_each_keep_their_stub),
		cmocka_unit_test(test_pages_written_within_max_side),
		cmocka_unit_test(test_page_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
