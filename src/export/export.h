/* export.h — the matched graph as a picture: DOT, PNG or SVG, every fusion a
 * labelled cluster (rule · N ops → kernel · ×speed-up (est.) · memory),
 * coloured per rule with a legend; or, with `after`, every fusion collapsed
 * into one node of its rewrite.target_op. The batch `export` command and the
 * TUI call the same export_graph.
 *
 * Graphviz (cgraph + gvc) lives behind src/export/ alone (which file does
 * what: export_internal.h); nothing here prints. Every message (ours and
 * Graphviz's own) is returned in an fd_diags.
 *
 * Ownership: the caller owns the options and what they point to; export_graph
 * keeps nothing after it returns. fd_export_files owns its path strings. */
#ifndef FD_EXPORT_H
#define FD_EXPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/diag.h"
#include "match/match.h"

/* The formats: X(id, name (gvc's renderer), file name ending, another or NULL). */
#define FD_EXPORT_FORMATS(X) \
	X(EXPORT_DOT, "dot", ".dot", ".gv")   /* cgraph's own writer: no layout, deterministic bytes */ \
	X(EXPORT_PNG, "png", ".png", NULL)    /* gvc: dot layout, cairo renderer */ \
	X(EXPORT_SVG, "svg", ".svg", NULL)    /* gvc: dot layout, core SVG renderer */

typedef enum fd_export_format {
#define X(id, name, ext1, ext2) id,
	FD_EXPORT_FORMATS(X)
#undef X
	EXPORT_FORMAT_COUNT
} fd_export_format;

/* Above this many drawn nodes (a collapsed fusion counts one) PNG / SVG are
 * refused: dot's layout time grows faster than linearly. Measured (export to
 * SVG, Graphviz 2.43, CPU seconds; wall time on the shared 2-core machine
 * was 2-3x that): synthetic conv / attention chains (tests/bench/gen_model)
 * 1036 nodes 3.7 s, 2035 nodes 9.1 s, 3034 nodes 19 s, 5032 nodes 90 s;
 * light_densenet121, 668 drawn nodes, 0.8 s (1746 with its constant nodes
 * drawn: 1.0 s, they are short separate chains). 1000 keeps the worst
 * measured case near 4 s, and a picture of more nodes is past what a PNG
 * holds anyway (densenet's 668 already reach the 32767 px bitmap limit).
 * DOT output has no layout step and is written at any size. */
#define EXPORT_MAX_LAYOUT_NODES 1000
/* A PNG longer than this on a side (at 96 dpi) cannot be read at a size
 * where its labels are legible (the whole light_resnet50 comes out 837x11540
 * px, a 369-node detector 1957x16944): a tall one is cut into pages of at
 * most this (export_pages.c), a wide one refused, as is a tall one when
 * no_pages asks so. A picture of a part (--around, --rule) or SVG, which a
 * viewer zooms, is what else a reviewer reads. */
#define EXPORT_PNG_MAX_SIDE 10000

struct fd_estimate;
struct fd_session;

/* Paths written (for the caller to print). */
typedef struct fd_export_files {
	char **paths;
	size_t n, cap;
} fd_export_files;
void export_files_release(fd_export_files *f);

typedef struct fd_export_options {
	fd_export_format format;   /* export_format_from_path() picks it from -o */
	bool after;                /* collapse each fusion into its target op */
	bool near_misses;          /* mark the deepest failed attempts (dashed, reason code) */
	bool show_constants;       /* also draw weights and constant-only nodes */
	const char *around;        /* node name: draw only its neighbourhood, or NULL */
	int depth;                 /* hops around `around` (or around `rule`'s fusions) */
	const char *rule;          /* rule name: only its fusions as clusters, and their
	                            * neighbourhood (unless `around` is given), or NULL */
	int32_t fusion;            /* a fusion index: only it and its neighbourhood (depth
	                            * hops), or -1 (export_options_init) */
	int max_layout_nodes;      /* 0: EXPORT_MAX_LAYOUT_NODES; < 0: no limit */
	int max_side_px;           /* PNG: 0: EXPORT_PNG_MAX_SIDE; < 0: no limit */
	bool no_pages;             /* a PNG taller than max_side is refused, not cut into pages */
	fd_export_files *pages;    /* a PNG cut into pages: each page's path is appended (may be NULL) */
	const char *dots_dir;      /* export_fusion_dots: the directory every DOT stays in; NULL: "." */
	/* Estimates of the same run (estimate.h), or NULL: export_graph then runs
	 * the estimate itself. Speed-up, memory removed and the peak tensors come
	 * from here; export never computes them on its own. */
	const struct fd_estimate *estimate;
} fd_export_options;

void export_options_init(fd_export_options *o);   /* DOT, before view, depth 2 */

/* ".dot"/".gv", ".png", ".svg" (case-insensitive); -1 for anything else. */
int export_format_from_path(const char *path, fd_export_format *out);
const char *export_format_name(fd_export_format f);   /* "dot", "png", "svg" */

/* Draws r (the result of one match_run) and writes path atomically: a temp
 * file in the same directory, renamed over path on success, removed on
 * failure. Returns 0, or -1 with an error in d (unknown node / rule, a graph
 * too large to lay out, Graphviz errors, I/O). Graphviz warnings become
 * warnings in d. */
int export_graph(const fd_match_result *r, const fd_export_options *o, const char *path,
                 fd_diags *d);

/* The memory timeline of graph (0: the main graph) of e as a chart (live
 * bytes per step, before and after fusion, peaks marked and named; see
 * export_chart.c), to path (.svg, .png, or .dot), atomically. -1 + d when
 * the timeline has no numbers (symbols that do not scale alike: it says
 * which to bind), or on a write or Graphviz error. */
int export_memory_chart(const struct fd_estimate *e, int32_t graph, const char *path, fd_diags *d);
/* Whether that timeline has no numbers only because a symbol is unbound
 * (its steps do not scale alike): bound, it would have them. */
bool export_memory_chart_needs_binding(const struct fd_estimate *e, int32_t graph);
/* export_memory_chart with note (NULL: none) under the title: what the
 * chart was drawn at when the user did not bind it. */
int export_memory_chart_noted(const struct fd_estimate *e, int32_t graph, const char *path, const char *note,
                              fd_diags *d);
/* The main graph's memory chart of session s after its edits
 * (export_chart_bound.c): as export_memory_chart draws it, or, when its
 * steps do not scale alike by the symbols it leaves unbound, drawn with
 * each of those at 1 (a second session of the same model, rules and edits;
 * added rule files left out), a note under the title saying so. Then at is
 * what it was drawn at ("length=1"), bind how to draw another
 * (" --dim length=N") and *n_at how many symbols were set; else "", "", 0.
 * -1 + d as export_memory_chart, or when the second session fails. */
int export_session_memory_chart(const struct fd_session *s, const char *path, char *at, size_t at_size, char *bind,
                                size_t bind_size, int *n_at, fd_diags *d);
/* The same against a baseline (export --memory-chart --baseline FLOAT.onnx):
 * both main graphs after fusion on the baseline's computing steps
 * (estimate_compare), the baseline grey and e blue, both peaks marked, the
 * ratio in the title. -1 + d when the two cannot be compared. */
int export_memory_chart_compare(const struct fd_estimate *e, const struct fd_estimate *base, const char *path,
                                fd_diags *d);


/* output.gen_dot_graph: for every rule with gen_dot_graph: true
 * (and, when o->rule is set, only that rule), one DOT per fusion of it,
 * `<dot_graph_path>/<rule>_<n>.dot` (n counts that rule's fusions from 1,
 * in fusion order; "." when the rule gives none). Every file stays inside
 * one directory, o->dots_dir (the current one when NULL): a relative
 * dot_graph_path is taken under it and may not climb out of it with "..",
 * an absolute one must lie inside it, a symbolic link may not lead out of
 * it (a rule file nobody vetted must not write elsewhere); the directories
 * are made when missing. Each shows the fusion's
 * members as a cluster with their direct producers and consumers around it.
 * Appends every written path to written. Returns the number of files, or -1
 * with an error in d. */
int export_fusion_dots(const fd_match_result *r, const fd_export_options *o,
                       fd_export_files *written, fd_diags *d);
/* How many fusions export_fusion_dots would write (for a note when the
 * front end does not enable it). */
size_t export_fusion_dots_pending(const fd_match_result *r, const fd_export_options *o);

/* ---- choosing what to draw (export_select.c) -------------------------- */

typedef struct fd_export_selection {
	int32_t n_graphs;
	uint8_t **node_on;         /* [graph][node]: 1 when drawn */
	uint8_t *fusion_drawn;     /* [fusion]: drawn as a cluster / collapsed node */
	uint8_t *graph_on;         /* [graph]: any node drawn */
	int64_t n_nodes;           /* drawn nodes */
	int64_t n_hidden_consts;   /* constant-only nodes left out (not counting initializers) */
	int64_t n_initializers;    /* initializers of the drawn graphs (never nodes) */
	bool part;                 /* a part of the model (around, rule, fusion): edges
	                            * cut at its border end in stubs */
	int64_t n_left_out;        /* nodes a part leaves out (constants not counted) */
} fd_export_selection;

/* Fills sel per o->around / o->depth / o->rule / o->fusion / o->show_constants.
 * Unknown node, rule or fusion, or a rule with nothing to draw: -1 with an
 * error in d. */
int  export_select(const fd_match_result *r, const fd_export_options *o,
                   fd_export_selection *sel, fd_diags *d);
void export_selection_release(fd_export_selection *sel);
/* True when node n of graph g only computes constants (weights made with
 * ConstantOfShape, Unsqueeze of constants, …): hidden unless show_constants. */
bool export_node_is_constant(const fd_match_result *r, int32_t g, int32_t n);

#endif
