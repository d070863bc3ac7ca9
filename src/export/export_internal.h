/* export_internal.h — what the exporter's files share, and which file owns
 * what. Only src/export/ includes it (it brings in cgraph); the public entry
 * is export.h.
 *
 *   export.c             formats, options, export_graph: select, check the
 *                        layout limit, draw, write
 *   export_gv.c          Graphviz plumbing: the deterministic id discipline
 *                        (export_gv_open) and the capture of Graphviz's
 *                        messages into diagnostics (export_capture_*)
 *   export_label.c       text: escString / HTML escaping, tensor facts, every
 *                        label and tooltip, the legend's table
 *   export_builder.c     the drawing's state (export_builder): rule colours,
 *                        near-miss marks, the look (palette, default
 *                        attributes), object ids and attribute setters
 *   export_draw.c        the Graphviz objects: containers, clusters, nodes,
 *                        edges, the legend (export_build)
 *   export_render.c      DOT through agwrite, PNG / SVG through gvc
 *                        (export_render)
 *   export_budget.c      dot's work estimated, its layout bounded past a
 *                        size (export_layout_span, export_bound_layout)
 *   export_compiler.c    the compiler's own UB groups of a graph dump as
 *                        clusters (export_compiler_*)
 *   export_fusion_dots.c one DOT per fusion (output.gen_dot_graph)
 *   export_chart.c       the memory timeline as a chart (export_memory_chart)
 *   export_chart_bound.c a session's chart, a partly bound model drawn at 1
 *                        (export_session_memory_chart)
 *   export_select.c      what is drawn (export_select, declared in export.h)
 *
 * Ownership: an export_builder owns the cgraph root and every array it
 * holds (its arena); it reads the match result, options, estimate and
 * selection it was made from, which must outlive it. */
#ifndef FD_EXPORT_INTERNAL_H
#define FD_EXPORT_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <cgraph.h>
#include <gvc.h>
#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/vec.h"
#include "estimate/estimate.h"
#include "export/export.h"
#include "ge/ge_record.h"

#define EXPORT_PEAK_COLOR "#d62728"     /* red is kept for the memory peak */
#define EXPORT_FLOAT_FILL "#fff1c1"     /* an op a quantized model left in float */
#define EXPORT_FLOAT_BORDER "#b8860b"
#define EXPORT_COMPILER_BORDER "#4b5d73" /* the compiler's UB groups: slate, dotted */
#define EXPORT_COMPILER_FILL "#eef1f5"
#define EXPORT_FONT "Helvetica,Arial,sans-serif"
#define EXPORT_NAME_MAX_SHOWN 24        /* longer node names are elided in the middle */
#define EXPORT_NEAR_MISS_MAX_PER_RULE 16  /* marks per rule; the legend counts the rest */
/* small grey text inside an HTML-like label */
#define EXPORT_HTML_SMALL "<FONT POINT-SIZE=\"8\" COLOR=\"#555555\">"

/* ---- export_gv.c ---------------------------------------------------------- */

/* A directed root graph whose object ids number names in creation order, so
 * neither the DOT text nor dot's layout input depends on memory addresses. */
Agraph_t *export_gv_open(const char *name);

/* While it is open, Graphviz's messages (agerr and whatever its plugins write
 * to stderr) become diagnostics in d at `where`. One at a time. */
typedef struct export_capture {
	agusererrf old_f;
	agerrlevel_t old_level;
	int saved_fd2;
	FILE *stderr_file;
} export_capture;

void export_capture_begin(export_capture *c, fd_diags *d, const char *where);
void export_capture_end(export_capture *c);

/* ---- export_builder.c ----------------------------------------------------- */

typedef struct export_palette_entry {
	const char *border, *fill;
} export_palette_entry;

typedef struct export_near_mark {
	uint32_t attempt;
	int32_t next;              /* next mark on the same node, -1 */
} export_near_mark;

/* What the drawing made of one graph of the model. */
typedef struct export_graph_state {
	Agraph_t *cont;            /* container: the root, or the body's cluster */
	Agnode_t **obj;            /* [node] what stands for the node */
	Agnode_t **tobj;           /* [tensor] graph input / output node */
	uint8_t *peak;             /* [tensor] 1: a tensor at the peak */
	int32_t *mark_head;        /* [node] first export_near_mark, -1 */
	bool *in_float;            /* [node] an op a quantized graph left in float (explain_float_ops) */
	int32_t n_float;
} export_graph_state;

typedef struct export_fusion_state {
	Agraph_t *cluster;         /* before view */
	Agnode_t *node;            /* after view: the collapsed node */
	int32_t seq;               /* 1-based index among its rule's fusions */
} export_fusion_state;

typedef struct export_rule_state {
	int32_t color;             /* palette index, -1: none */
	int32_t n_fusions;         /* all of the rule's fusions */
	int64_t drawn;             /* clusters drawn */
	int64_t marks, marks_left; /* near misses marked, and those over the limit */
} export_rule_state;

typedef struct export_builder {
	const fd_match_result *r;
	const fd_model *m;
	const fd_export_options *o;
	const fd_estimate *est;
	const fd_export_selection *sel;
	bool after;
	bool near;                 /* near-miss marks drawn */
	Agraph_t *root;
	export_graph_state *graph;   /* [graph] */
	export_fusion_state *fusion; /* [fusion] */
	export_rule_state *rule;     /* [rule] */
	VEC(export_near_mark) marks;
	ge_record ub;              /* the compiler's UB groups (a graph dump's; else none) */
	int32_t **ub_group;        /* [graph][node] group index, -1; NULL: no groups drawn */
	Agraph_t **ub_cluster;     /* [group] its cluster once made */
	strmap ids;                /* object ids used (uniqueness) */
	strmap edges;              /* "tail head tensor" seen */
	fd_arena arena;            /* the arrays above, ids and edge keys */
} export_builder;

/* Ready to draw sel of r with o (colours, near-miss marks, an empty root with
 * the default attributes); export_build then makes the objects. */
void export_builder_init(export_builder *b, const fd_match_result *r, const fd_export_options *o,
                         const fd_estimate *est, const fd_export_selection *sel);
void export_builder_release(export_builder *b);

const export_palette_entry *export_rule_palette(const export_builder *b, int32_t rule);
/* A unique object id: the name, or "name#2", "name#3", … */
const char *export_unique_id(export_builder *b, const char *want);
/* "" for the main graph, "g<N>/" for a body: prefixes object ids. */
const char *export_graph_prefix(int32_t g, char *buf, size_t size);
void export_set(void *obj, const char *name, const char *value);
void export_set_html(export_builder *b, void *obj, const char *name, const char *html);

/* ---- export_compiler.c ---------------------------------------------------- */

void export_compiler_init(export_builder *b);
void export_compiler_release(export_builder *b);
/* The compiler's UB group node n of graph g is drawn in, -1. */
int32_t export_compiler_group(const export_builder *b, int32_t g, int32_t n);
/* Group k's cluster, made the first time it is asked for. */
Agraph_t *export_compiler_cluster(export_builder *b, int32_t k);

/* ---- export_label.c ------------------------------------------------------- */

/* Text for an escString attribute (label, tooltip). */
void export_esc(strbuf *s, const char *text);
/* A name as a part of a node id: %XX for what an id must not carry. */
void export_id_part(strbuf *s, const char *text);

void export_node_label(export_builder *b, strbuf *s, int32_t g, int32_t n);
void export_node_tooltip(export_builder *b, strbuf *s, int32_t g, int32_t n);
/* A subgraph body's cluster. */
void export_body_label(export_builder *b, strbuf *s, int32_t g);
void export_cluster_label(export_builder *b, strbuf *s, size_t f);
void export_fusion_tooltip(export_builder *b, strbuf *s, size_t f);
/* The node a fusion collapses into (after view). */
void export_fusion_node_label(export_builder *b, strbuf *s, size_t f);
/* A graph input or output. */
void export_io_label(export_builder *b, strbuf *s, int32_t g, int32_t t, bool output);
/* An edge carrying tensor t of graph g. */
void export_edge_tooltip(export_builder *b, strbuf *s, int32_t g, int32_t t);
/* The peak tensor's size, written on its edge. */
void export_edge_label(export_builder *b, strbuf *s, int32_t g, int32_t t);
/* The legend's HTML table. */
void export_legend_label(export_builder *b, strbuf *s);

/* ---- export_draw.c, export_render.c -------------------------------------- */

void export_build(export_builder *b);
/* In a picture of a part (sel->part): the edges cut at its border, which
 * export_build ends in stubs (the legend says how many). */
int64_t export_count_cut_edges(export_builder *b);
/* Lays out (not for DOT) and writes root to path atomically. A PNG longer
 * than max_side px on a side (0: no limit) is refused, path untouched. */
int export_render(Agraph_t *root, fd_export_format format, const char *path, int max_side, const char *part_hint,
                  fd_export_files *pages, fd_diags *d);
/* The PNG pages (export_pages.c): laid, root laid out and taller than
 * max_side, dot its text before the layout; path-1.png, path-2.png, … each
 * at most max_side px a side, cut between ranks, cut edges ending in stubs
 * naming the page they continue on; every page's path appended to written
 * (may be NULL). -1 + d, nothing written, when no cut makes pages that fit. */
int export_render_pages(GVC_t *gvc, Agraph_t *laid, const char *dot, const char *path, int max_side,
                        fd_export_files *written, fd_diags *d);
/* Its two steps: which page (0-based) each node of laid goes on, the
 * pages spanning at most room_pt points of ranks each, into page_of (by DOT
 * id; the ids are laid's), and the page count; then page k of n, the DOT
 * text with the other pages' nodes out and a stub for every edge to them
 * ("page-stub:in:J:ID" labelled "from page J", "page-stub:out:J:ID"
 * "continues on page J"), titled "TITLE: page K of N"; not laid out. */
struct strmap;
int export_plan_pages(Agraph_t *laid, double room_pt, struct strmap *page_of);
Agraph_t *export_page_graph(const char *dot, const struct strmap *page_of, int k, int n, const char *title);
/* "x.png", page k (0-based) → "x-(k+1).png". */
void export_page_path(const char *path, int k, char *buf, size_t size);
/* What a refusal suggests for drawing less, from what o already gives
 * ("draw a part with --around NODE --depth K or --rule NAME" when neither). */
const char *export_part_hint(const fd_export_options *o, char *buf, size_t size);
/* The process's one graphviz context (export_render.c says why one). */
GVC_t *export_gvc(void);

/* ---- export_budget.c ------------------------------------------------------ */

/* dot's work on g: the virtual nodes its long edges become, estimated as the
 * sum of the edges' spans (less one) under a longest-path ranking. Up to
 * EXPORT_LAYOUT_SPAN_FREE the layout runs as dot would; past it with its
 * iterations bounded (export_bound_layout); past EXPORT_LAYOUT_SPAN_MAX the
 * picture is refused. Measured (CPU seconds, Graphviz 2.43): a DenseNet-121
 * export (opset 17), 378 nodes, span 23016: unbounded not done in 25
 * minutes, bounded 8.4 s; tests/tools/make_dense_model.py 3 20, span 9240:
 * 80 s and 1.9 s; 4 24, span 20800: bounded 2.9 s. The shared models span
 * at most 580 (light_densenet121), laid out unbounded as before. */
#define EXPORT_LAYOUT_SPAN_FREE 5000
#define EXPORT_LAYOUT_SPAN_MAX 100000
int64_t export_layout_span(Agraph_t *g);
/* The bounding attributes set on g when span passes EXPORT_LAYOUT_SPAN_FREE;
 * true when it did. */
bool export_bound_layout(Agraph_t *g, int64_t span);

/* ---- export.c ------------------------------------------------------------- */

/* The estimate to label with: o->estimate, or one computed into own. */
const fd_estimate *export_estimate_for(const fd_match_result *r, const fd_export_options *o,
                                       fd_estimate *own);
/* Draws sel and writes it as format to path, Graphviz's messages in d. */
int export_draw_and_write(const fd_match_result *r, const fd_export_options *o, const fd_estimate *est,
                          const fd_export_selection *sel, fd_export_format format, const char *path,
                          fd_diags *d);

#endif
