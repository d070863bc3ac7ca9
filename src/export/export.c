/* export.c — the matched graph as DOT / PNG / SVG through Graphviz: the graph
 * is built with cgraph (agopen, agnode, agedge, "cluster_<n>" subgraphs,
 * attributes) and laid out and rendered in-process with gvc (dot layout;
 * cairo PNG, core SVG). DOT is written by cgraph's agwrite without layout, so
 * it is byte-identical for the same input and works at any size. This is the
 * only file that includes Graphviz.
 *
 * Determinism: cgraph orders subgraphs by object id, and its default id
 * discipline uses string addresses as ids; ours (below) numbers names in
 * creation order, and we create clusters in fusion order and nodes in
 * topological order, so both the DOT text and dot's layout input never
 * depend on memory addresses.
 *
 * Graphviz's messages are caught with agseterrf and returned as diagnostics;
 * nothing is printed. Estimates (speed-up, memory, the peak tensors) come from
 * estimate.h, never computed here. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cgraph.h>
#include <gvc.h>
#include "base/atomic_file.h"
#include "base/strbuf.h"
#include "estimate/estimate.h"
#include "export/export.h"
#include "trace/reason.h"
#include "base/strmap.h"
#include "trace/trace.h"
#include "base/vec.h"
#include "explain/explain.h"

/* ---- formats ------------------------------------------------------------ */

static const struct format_def {
	fd_export_format format;
	const char *name;        /* gvc renderer */
	const char *const ext[3];
} formats[] = {
	{ EXPORT_DOT, "dot", { ".dot", ".gv", NULL } },
	{ EXPORT_PNG, "png", { ".png", NULL } },
	{ EXPORT_SVG, "svg", { ".svg", NULL } },
};

int export_format_from_path(const char *path, fd_export_format *out)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	const char *slash = path ? strrchr(path, '/') : NULL;
	if (!dot || (slash && dot < slash))
		return -1;
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
		for (int k = 0; formats[i].ext[k]; k++)
			if (!strcasecmp(dot, formats[i].ext[k])) {
				*out = formats[i].format;
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
}

void export_files_release(fd_export_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->paths[i]);
	free(f->paths);
	memset(f, 0, sizeof *f);
}

/* ---- look: colours per rule (by run order), node styles ------------------ */

/* Border and fill per rule, assigned in the order rules ran (first fired rule
 * blue, like CANN's fusion visualiser). Red is kept for the peak. */
static const struct palette_entry {
	const char *border, *fill;
} palette[] = {
	{ "#1f77b4", "#e3eef8" },   /* blue */
	{ "#ff7f0e", "#fff0e0" },   /* orange */
	{ "#2ca02c", "#e2f4e2" },   /* green */
	{ "#9467bd", "#eee6f6" },   /* purple */
	{ "#8c564b", "#f1e6e2" },   /* brown */
	{ "#e377c2", "#fbe8f5" },   /* pink */
	{ "#7f7f7f", "#eeeeee" },   /* grey */
	{ "#bcbd22", "#f5f5d6" },   /* olive */
	{ "#17becf", "#dcf5f8" },   /* cyan */
};
#define PALETTE_N ((int)(sizeof palette / sizeof *palette))
#define PEAK_COLOR "#d62728"
#define FONT "Helvetica,Arial,sans-serif"
#define NAME_MAX_SHOWN 24          /* longer node names are elided in the middle */
#define NEAR_MISS_MAX_PER_RULE 16  /* marks per rule; the legend counts the rest */

/* Default attributes, declared on the root before anything is made. */
static const struct attr_default {
	int kind;
	const char *name, *value;
} attr_defaults[] = {
	{ AGRAPH, "fontname", FONT },  { AGRAPH, "fontsize", "11" },
	{ AGRAPH, "rankdir", "TB" },   { AGRAPH, "newrank", "true" },
	{ AGRAPH, "nodesep", "0.2" },  { AGRAPH, "ranksep", "0.25" },
	{ AGRAPH, "label", "" },       { AGRAPH, "labeljust", "l" },
	{ AGRAPH, "style", "" },       { AGRAPH, "color", "" },
	{ AGRAPH, "fillcolor", "" },   { AGRAPH, "fontcolor", "" },
	{ AGRAPH, "penwidth", "1" },   { AGRAPH, "tooltip", "" },
	{ AGNODE, "shape", "box" },    { AGNODE, "style", "rounded,filled" },
	{ AGNODE, "fillcolor", "white" }, { AGNODE, "color", "#555555" },
	{ AGNODE, "fontname", FONT },  { AGNODE, "fontsize", "10" },
	{ AGNODE, "margin", "0.08,0.02" }, { AGNODE, "height", "0.3" },
	{ AGNODE, "label", "\\N" },    { AGNODE, "penwidth", "1" },
	{ AGNODE, "tooltip", "" },     { AGNODE, "fontcolor", "black" },
	{ AGEDGE, "color", "#666666" }, { AGEDGE, "arrowsize", "0.6" },
	{ AGEDGE, "penwidth", "1" },   { AGEDGE, "tooltip", "" },
	{ AGEDGE, "style", "" },       { AGEDGE, "label", "" },
	{ AGEDGE, "fontname", FONT },  { AGEDGE, "fontsize", "9" },
	{ AGEDGE, "fontcolor", "black" },
};

/* ---- deterministic ids (see the header comment) ------------------------- */

/* Names are kept as cgraph reference strings (agstrdup): agwrite asks
 * aghtmlstr() of every printed name, which reads the refstr header. */
typedef struct id_state {
	Agraph_t *g;
	strmap map;             /* name → index */
	VEC(char *) names;
	IDTYPE anon;            /* next odd id */
} id_state;

static void *id_open(Agraph_t *g, Agdisc_t *disc)
{
	id_state *s = xcalloc(1, sizeof *s);
	s->g = g;
	strmap_init(&s->map);
	s->anon = 1;
	return s;
}

static long id_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
	id_state *s = state;
	if (!str) {
		*id = s->anon;
		s->anon += 2;
		return 1;
	}
	int32_t k = strmap_get(&s->map, str);
	if (k < 0) {
		if (!createflag)
			return 0;
		char *copy = agstrdup(s->g, str);
		vec_push(&s->names, copy);
		k = (int32_t)s->names.n - 1;
		strmap_put(&s->map, copy, k);
	}
	*id = (IDTYPE)k * 2;
	return 1;
}

static long id_alloc(void *state, int objtype, IDTYPE id)
{
	return (id & 1) != 0;   /* only anonymous ids may be asked for by number */
}

static void id_free(void *state, int objtype, IDTYPE id) {}

static char *id_print(void *state, int objtype, IDTYPE id)
{
	id_state *s = state;
	if (id & 1 || id / 2 >= s->names.n)
		return NULL;
	return s->names.items[id / 2];
}

static void id_close(void *state)
{
	id_state *s = state;
	/* agclose calls this before it closes the string dictionary */
	for (size_t i = 0; i < s->names.n; i++)
		agstrfree(s->g, s->names.items[i]);
	vec_release(&s->names);
	strmap_release(&s->map);
	free(s);
}

static void id_register(void *state, int objtype, void *obj) {}

static Agiddisc_t id_disc = { id_open, id_map, id_alloc, id_free, id_print, id_close, id_register };

/* ---- Graphviz messages → diagnostics ------------------------------------ */

static fd_diags *gv_diags;
static const char *gv_where;
static char gv_line[1024];
static size_t gv_len;
static fd_severity gv_sev = DIAG_WARNING;

static void gv_flush(void)
{
	while (gv_len && (gv_line[gv_len - 1] == '\n' || gv_line[gv_len - 1] == ' '))
		gv_len--;
	gv_line[gv_len] = '\0';
	const char *msg = gv_line;
	if (!strncmp(msg, "Error: ", 7)) {
		gv_sev = DIAG_ERROR;
		msg += 7;
	} else if (!strncmp(msg, "Warning: ", 9)) {
		gv_sev = DIAG_WARNING;
		msg += 9;
	}
	if (*msg && gv_diags)
		diag_add(gv_diags, gv_sev, srcpos_file(gv_where), "graphviz: %s", msg);
	gv_len = 0;
}

static int gv_errf(char *text)
{
	for (const char *p = text; *p; p++) {
		if (gv_len < sizeof gv_line - 1)
			gv_line[gv_len++] = *p;
		if (*p == '\n')
			gv_flush();
	}
	return 0;
}

/* Some Graphviz plugins write to stderr directly (cairo's "graph is too
 * large for cairo-renderer bitmaps"), which would land on the TUI's screen:
 * while Graphviz runs, file descriptor 2 points at a temp file, read back
 * into diagnostics afterwards. */
typedef struct gv_capture {
	agusererrf old_f;
	agerrlevel_t old_level;
	int saved_fd2;
	FILE *stderr_file;
} gv_capture;

static void gv_stderr_begin(gv_capture *c)
{
	fflush(stderr);
	c->stderr_file = tmpfile();
	c->saved_fd2 = c->stderr_file ? dup(2) : -1;
	if (c->saved_fd2 < 0 || dup2(fileno(c->stderr_file), 2) < 0) {
		if (c->saved_fd2 >= 0)
			close(c->saved_fd2);
		if (c->stderr_file)
			fclose(c->stderr_file);
		c->saved_fd2 = -1;
		c->stderr_file = NULL;
	}
}

static void gv_stderr_end(gv_capture *c)
{
	if (!c->stderr_file)
		return;
	fflush(stderr);
	dup2(c->saved_fd2, 2);
	close(c->saved_fd2);
	rewind(c->stderr_file);
	char line[1024];
	while (fgets(line, sizeof line, c->stderr_file)) {
		char *msg = line;
		if (!strncmp(msg, "(null): ", 8))   /* the plugin names the command, which is us */
			msg += 8;
		gv_errf(msg);
		if (!strchr(msg, '\n'))
			gv_errf("\n");
	}
	fclose(c->stderr_file);
	c->stderr_file = NULL;
}

static void gv_capture_begin(gv_capture *c, fd_diags *d, const char *where)
{
	gv_diags = d;
	gv_where = where;
	gv_len = 0;
	gv_sev = DIAG_WARNING;
	c->old_f = agseterrf(gv_errf);
	c->old_level = agseterr(AGWARN);
	agreseterrors();
	gv_stderr_begin(c);
}

static void gv_capture_end(gv_capture *c)
{
	gv_stderr_end(c);
	if (gv_len)
		gv_flush();
	agseterrf(c->old_f);
	agseterr(c->old_level);
	gv_diags = NULL;
}

/* ---- text helpers --------------------------------------------------------- */

/* Text for an escString attribute (label, tooltip): a backslash would start
 * an escape (\N, \l), so it is doubled; a newline becomes "\n". */
static void sb_esc(strbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			sb_puts(b, "\\\\");
		else if (*s == '\n')
			sb_puts(b, "\\n");
		else
			sb_add(b, s, 1);
	}
}

/* Text inside an HTML-like label. */
static void sb_html(strbuf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': sb_puts(b, "&amp;"); break;
		case '<': sb_puts(b, "&lt;"); break;
		case '>': sb_puts(b, "&gt;"); break;
		case '"': sb_puts(b, "&quot;"); break;
		default: sb_add(b, s, 1);
		}
	}
}

/* "res2a_branch2a_bn_…_output_0": the head and tail of a long name, cut on
 * UTF-8 character boundaries. */
static void sb_elided(strbuf *b, const char *s, void (*esc)(strbuf *, const char *))
{
	size_t n = strlen(s);
	if (n <= NAME_MAX_SHOWN) {
		esc(b, s);
		return;
	}
	size_t head = NAME_MAX_SHOWN / 2 - 1, tail = n - (NAME_MAX_SHOWN - head - 1);
	while (head > 0 && ((unsigned char)s[head] & 0xC0) == 0x80)
		head--;
	while (tail < n && ((unsigned char)s[tail] & 0xC0) == 0x80)
		tail++;
	char *h = xmalloc(head + 1);
	memcpy(h, s, head);
	h[head] = '\0';
	esc(b, h);
	free(h);
	sb_puts(b, "…");
	esc(b, s + tail);
}

static void sb_tensor_facts(strbuf *b, const fd_tensor *t)
{
	char shape[128];
	shape_format(&t->shape, shape, sizeof shape);
	sb_printf(b, "%s %s", shape, dtype_name(t->dtype));
}

static void sb_bytes(strbuf *b, int64_t bytes)
{
	char buf[32];
	sb_puts(b, estimate_format_bytes(bytes, buf, sizeof buf));
}

/* "×2.1 (est.)", or "speed-up n/a (est.)" when the estimate knows nothing. */
static void sb_speedup(strbuf *b, double s)
{
	if (s > 0)
		sb_printf(b, "×%.*f (est.)", s < 10 ? 2 : 1, s);
	else
		sb_puts(b, "speed-up n/a (est.)");
}

static const char *basename_of(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "";
}

/* ---- the builder -------------------------------------------------------- */

typedef struct near_mark {
	uint32_t attempt;
	int32_t next;              /* next mark on the same node, -1 */
} near_mark;

typedef struct builder {
	const fd_match_result *r;
	const fd_model *m;
	const fd_export_options *o;
	const fd_estimate *est;
	const fd_export_selection *sel;
	bool after;
	bool near;                 /* near-miss marks drawn */
	Agraph_t *root;
	Agraph_t **gcont;          /* [graph] container (root, or the body's cluster) */
	Agraph_t **fcluster;       /* [fusion] cluster (before view) */
	Agnode_t **fnode;          /* [fusion] collapsed node (after view) */
	Agnode_t ***obj;           /* [graph][node] what stands for the node */
	Agnode_t ***tobj;          /* [graph][tensor] graph input / output node */
	uint8_t **peak;            /* [graph][tensor] 1: a tensor at the peak */
	int32_t *rule_color;       /* [rule] palette index, -1: none */
	int32_t *rule_seq;         /* [fusion] 1-based index among its rule's fusions */
	int64_t *rule_drawn;       /* [rule] clusters drawn */
	int64_t *rule_marks, *rule_marks_left;
	int32_t **mark_head;       /* [graph][node] first near_mark, -1 */
	VEC(near_mark) marks;
	strmap ids;                /* object ids used (uniqueness) */
	strmap edges;              /* "tail head tensor" seen */
	fd_arena arena;
	int64_t n_objects;         /* nodes made, for the layout limit */
} builder;

/* A unique object id: the name, or "name#2", "name#3", … */
static const char *unique_id(builder *b, const char *want)
{
	if (strmap_get(&b->ids, want) < 0) {
		const char *s = arena_strdup(&b->arena, want);
		strmap_put(&b->ids, s, 1);
		return s;
	}
	for (int k = 2;; k++) {
		char *s = arena_printf(&b->arena, "%s#%d", want, k);
		if (strmap_get(&b->ids, s) < 0) {
			strmap_put(&b->ids, s, 1);
			return s;
		}
	}
}

static void set(void *obj, const char *name, const char *value)
{
	agsafeset(obj, (char *)name, (char *)value, "");
}

static void set_html(builder *b, void *obj, const char *name, const char *html)
{
	Agsym_t *sym = agattr(b->root, agobjkind(obj), (char *)name, NULL);
	if (!sym)
		sym = agattr(b->root, agobjkind(obj), (char *)name, "");
	char *s = agstrdup_html(b->root, (char *)html);
	agxset(obj, sym, s);
	agstrfree(b->root, s);
}

static const struct palette_entry *rule_palette(const builder *b, int32_t rule)
{
	int32_t c = b->rule_color[rule];
	return &palette[(c < 0 ? 0 : c) % PALETTE_N];
}

static const char *graph_prefix(builder *b, int32_t g, char *buf, size_t size)
{
	if (g == 0)
		buf[0] = '\0';
	else
		snprintf(buf, size, "g%d/", (int)g);
	return buf;
}

/* ---- near misses ------------------------------------------------------- */

static bool attempt_failed(const fd_attempt *at)
{
	return at->anchor != FD_NONE && at->rung > RUNG_NOT_RUN && at->rung < RUNG_FIRED;
}

/* Per rule (run order), the failed attempts that got furthest: the highest
 * score among its failures, at most NEAR_MISS_MAX_PER_RULE marks on drawn
 * nodes, in the matcher's ranking (depth, then topological order). */
static void collect_near_misses(builder *b)
{
	const fd_match_result *r = b->r;
	uint32_t *idx = xmalloc((r->trace.n_attempts + 1) * sizeof *idx);
	for (int32_t oi = 0; oi < r->n_rules; oi++) {
		int32_t rule = r->order[oi];
		if (b->o->rule && strcmp(r->rules->rules[rule].name, b->o->rule))
			continue;
		size_t n = explain_rank_attempts(r, rule, idx, r->trace.n_attempts);
		uint32_t best = 0;
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			const fd_attempt *at = &r->trace.attempts[idx[i]];
			if (attempt_failed(at) && (!any || at->score > best)) {
				best = at->score;
				any = true;
			}
		}
		for (size_t i = 0; any && i < n; i++) {
			const fd_attempt *at = &r->trace.attempts[idx[i]];
			if (!attempt_failed(at) || at->score != best)
				continue;
			int32_t node = match_unit_node(r->ctx, at->graph, at->anchor);
			if (node < 0 || !b->sel->node_on[at->graph][node])
				continue;
			if (b->rule_marks[rule] == NEAR_MISS_MAX_PER_RULE) {
				b->rule_marks_left[rule]++;
				continue;
			}
			/* appended at the node's tail: marks read in run order */
			near_mark mk = { idx[i], -1 };
			vec_push(&b->marks, mk);
			int32_t *link = &b->mark_head[at->graph][node];
			while (*link >= 0)
				link = &b->marks.items[*link].next;
			*link = (int32_t)b->marks.n - 1;
			b->rule_marks[rule]++;
		}
	}
	free(idx);
}

/* ---- labels ------------------------------------------------------------ */

static const fd_tensor *first_output(const fd_graph *g, const fd_node *n)
{
	for (int32_t k = 0; k < n->n_outputs; k++)
		if (n->outputs[k] != FD_NONE)
			return &g->tensors[n->outputs[k]];
	return NULL;
}

/* Node labels are HTML-like: the op type bold, the name, then the output's
 * shape and dtype small and grey, then one line per near-miss mark. */
#define HTML_SMALL "<FONT POINT-SIZE=\"8\" COLOR=\"#555555\">"

static void node_label(builder *b, strbuf *s, int32_t g, int32_t n)
{
	const fd_graph *gr = &b->m->graphs[g];
	const fd_node *node = &gr->nodes[n];
	sb_puts(s, "<B>");
	if (node->domain && *node->domain)
		sb_html(s, node->domain), sb_puts(s, ".");
	sb_html(s, node->op_type);
	sb_puts(s, "</B> ");
	sb_elided(s, node->name, sb_html);
	const fd_tensor *t = first_output(gr, node);
	if (t) {
		sb_puts(s, "<BR/>" HTML_SMALL);
		strbuf facts = { 0 };
		sb_tensor_facts(&facts, t);
		sb_html(s, sb_str(&facts));
		sb_release(&facts);
		int extra = 0;
		for (int32_t k = 0; k < node->n_outputs; k++)
			extra += node->outputs[k] != FD_NONE;
		if (extra > 1)
			sb_printf(s, " (+%d)", extra - 1);
		sb_puts(s, "</FONT>");
	}
	for (int32_t k = b->mark_head ? b->mark_head[g][n] : -1; k >= 0; k = b->marks.items[k].next) {
		const fd_attempt *at = &b->r->trace.attempts[b->marks.items[k].attempt];
		sb_printf(s, "<BR/><FONT POINT-SIZE=\"8\" COLOR=\"%s\">✗ %s ",
		          rule_palette(b, at->rule)->border, reason_code(at->reason));
		sb_elided(s, b->r->rules->rules[at->rule].name, sb_html);
		sb_puts(s, "</FONT>");
	}
}

static void node_tooltip(builder *b, strbuf *s, int32_t g, int32_t n)
{
	const fd_graph *gr = &b->m->graphs[g];
	const fd_node *node = &gr->nodes[n];
	sb_esc(s, node->name);
	sb_puts(s, " (");
	sb_esc(s, node->op_type);
	sb_puts(s, ")");
	for (int32_t k = 0; k < node->n_outputs; k++) {
		if (node->outputs[k] == FD_NONE)
			continue;
		const fd_tensor *t = &gr->tensors[node->outputs[k]];
		sb_puts(s, "\\nout ");
		sb_esc(s, t->name);
		sb_puts(s, ": ");
		sb_tensor_facts(s, t);
	}
	for (int32_t k = b->mark_head ? b->mark_head[g][n] : -1; k >= 0; k = b->marks.items[k].next) {
		char why[1024];
		explain_why_line(b->r, b->marks.items[k].attempt, why, sizeof why);
		sb_puts(s, "\\n");
		sb_esc(s, why);
	}
}

/* "Conv_BN_Relu_Fusion · 3 ops → conv_bn_relu_fusion\n×2.10 (est.) · removes 1.5 MiB" */
static void cluster_label(builder *b, strbuf *s, size_t f)
{
	const fd_fusion *fu = &b->r->fusions[f];
	const fd_rule *rule = &b->r->rules->rules[fu->rule];
	const fd_fusion_est *fe = &b->est->fusions[f];
	const char *kernel = rule->kernel_name ? rule->kernel_name
	                   : rule->target_op ? rule->target_op : "?";
	sb_esc(s, rule->name);
	sb_printf(s, " · %d ops → ", (int)fu->n_nodes);
	sb_esc(s, kernel);
	sb_puts(s, "\\l");
	sb_speedup(s, fe->speedup);
	sb_puts(s, " · removes ");
	sb_bytes(s, fe->intermediate_bytes_removed);
	if (fe->advice != ADVICE_NONE) {
		sb_puts(s, "\\l⚠ kernel peak ");
		sb_bytes(s, fe->kernel_peak_bytes);
		sb_puts(s, ": ");
		sb_esc(s, mem_advice_text(fe->advice));
	}
	sb_puts(s, "\\l");   /* left-justified, as the cluster's labeljust says */
}

static void fusion_tooltip(builder *b, strbuf *s, size_t f)
{
	const fd_fusion *fu = &b->r->fusions[f];
	const fd_rule *rule = &b->r->rules->rules[fu->rule];
	const fd_fusion_est *fe = &b->est->fusions[f];
	const fd_graph *gr = &b->m->graphs[fu->graph];
	sb_esc(s, rule->name);
	sb_printf(s, " (priority %lld) fusion %d of the rule → ", (long long)rule->priority,
	          (int)b->rule_seq[f]);
	sb_esc(s, rule->target_op ? rule->target_op : "?");
	sb_puts(s, "\\nnodes:");
	const int32_t *nodes = fusion_ids(b->r, fu->nodes);
	for (int32_t i = 0; i < fu->n_nodes; i++) {
		sb_puts(s, " ");
		sb_esc(s, gr->nodes[nodes[i]].name);
	}
	sb_puts(s, "\\ninputs ");
	sb_bytes(s, fe->inputs_bytes);
	sb_puts(s, ", outputs ");
	sb_bytes(s, fe->outputs_bytes);
	sb_puts(s, ", intermediates removed ");
	sb_bytes(s, fe->intermediate_bytes_removed);
	sb_puts(s, ", workspace ");
	if (fe->workspace_known)
		sb_bytes(s, fe->workspace_bytes);
	else
		sb_puts(s, "unknown");
	sb_puts(s, ", kernel peak ");
	sb_bytes(s, fe->kernel_peak_bytes);
	sb_puts(s, "\\nspeed-up ");
	sb_speedup(s, fe->speedup);
	sb_puts(s, " on ");
	sb_esc(s, b->est->opt.hw ? b->est->opt.hw->name : "?");
	sb_puts(s, " (roofline estimate)");
}

/* ---- making objects ---------------------------------------------------- */

static Agraph_t *container_of(builder *b, int32_t g, int32_t n)
{
	int32_t f = b->r->claim[g][n];
	if (!b->after && f >= 0 && b->sel->fusion_drawn[f])
		return b->fcluster[f];
	return b->gcont[g];
}

static void make_containers(builder *b)
{
	const fd_model *m = b->m;
	strbuf s = { 0 };
	b->gcont[0] = b->root;
	for (int32_t g = 1; g < m->n_graphs; g++) {
		const fd_graph *gr = &m->graphs[g];
		if (!b->sel->graph_on[g])
			continue;
		Agraph_t *parent = gr->parent >= 0 && b->gcont[gr->parent] ? b->gcont[gr->parent] : b->root;
		char name[48];
		snprintf(name, sizeof name, "cluster_g%d", (int)g);
		Agraph_t *c = agsubg(parent, name, 1);
		b->gcont[g] = c;
		sb_clear(&s);
		const fd_graph *pg = &m->graphs[gr->parent >= 0 ? gr->parent : 0];
		sb_puts(&s, "body ");
		sb_esc(&s, gr->owner_attr ? gr->owner_attr : "?");
		sb_puts(&s, " of ");
		if (gr->owner_node >= 0)
			sb_esc(&s, pg->nodes[gr->owner_node].name);
		else
			sb_puts(&s, "?");
		set(c, "label", sb_str(&s));
		set(c, "style", "dotted,rounded");
		set(c, "color", "#888888");
	}
	if (b->after) {
		sb_release(&s);
		return;
	}
	for (size_t f = 0; f < b->r->n_fusions; f++) {
		if (!b->sel->fusion_drawn[f])
			continue;
		const fd_fusion *fu = &b->r->fusions[f];
		const struct palette_entry *pe = rule_palette(b, fu->rule);
		char name[48];
		snprintf(name, sizeof name, "cluster_%zu", f);
		Agraph_t *c = agsubg(b->gcont[fu->graph], name, 1);
		b->fcluster[f] = c;
		sb_clear(&s);
		cluster_label(b, &s, f);
		set(c, "label", sb_str(&s));
		set(c, "style", "dashed,rounded,filled");
		set(c, "color", pe->border);
		set(c, "fillcolor", pe->fill);
		set(c, "fontcolor", b->est->fusions[f].advice != ADVICE_NONE ? PEAK_COLOR : pe->border);
		set(c, "penwidth", "1.6");
		sb_clear(&s);
		fusion_tooltip(b, &s, f);
		set(c, "tooltip", sb_str(&s));
	}
	sb_release(&s);
}

static Agnode_t *make_op_node(builder *b, int32_t g, int32_t n, strbuf *s)
{
	const fd_node *node = &b->m->graphs[g].nodes[n];
	char pre[24];
	s->n = 0;
	sb_puts(s, graph_prefix(b, g, pre, sizeof pre));
	sb_puts(s, node->name);
	Agnode_t *an = agnode(container_of(b, g, n), (char *)unique_id(b, sb_str(s)), 1);
	b->n_objects++;
	s->n = 0;
	node_label(b, s, g, n);
	set_html(b, an, "label", sb_str(s));
	s->n = 0;
	node_tooltip(b, s, g, n);
	set(an, "tooltip", sb_str(s));
	int32_t k = b->mark_head ? b->mark_head[g][n] : -1;
	if (k >= 0) {
		const fd_attempt *at = &b->r->trace.attempts[b->marks.items[k].attempt];
		set(an, "style", "rounded,filled,dashed");
		set(an, "color", rule_palette(b, at->rule)->border);
		set(an, "penwidth", "2");
	}
	return an;
}

static Agnode_t *make_fusion_node(builder *b, size_t f, strbuf *s)
{
	const fd_fusion *fu = &b->r->fusions[f];
	const fd_rule *rule = &b->r->rules->rules[fu->rule];
	const fd_graph *gr = &b->m->graphs[fu->graph];
	const struct palette_entry *pe = rule_palette(b, fu->rule);
	char pre[24];
	s->n = 0;
	sb_puts(s, graph_prefix(b, fu->graph, pre, sizeof pre));
	sb_printf(s, "%s_%d", rule->name, (int)b->rule_seq[f]);
	Agnode_t *an = agnode(b->gcont[fu->graph], (char *)unique_id(b, sb_str(s)), 1);
	b->n_objects++;
	s->n = 0;
	sb_puts(s, "<B>");
	sb_html(s, rule->target_op ? rule->target_op : "?");
	sb_puts(s, "</B><BR/>");
	sb_html(s, rule->name);
	sb_printf(s, " · %d ops<BR/>", (int)fu->n_nodes);
	sb_speedup(s, b->est->fusions[f].speedup);
	/* the first and last member, to find the cluster of the before view */
	const int32_t *members = fusion_ids(b->r, fu->nodes);
	sb_puts(s, "<BR/>" HTML_SMALL);
	sb_elided(s, gr->nodes[members[0]].name, sb_html);
	if (fu->n_nodes > 1) {
		sb_puts(s, fu->n_nodes > 2 ? " … " : ", ");
		sb_elided(s, gr->nodes[members[fu->n_nodes - 1]].name, sb_html);
	}
	sb_puts(s, "</FONT>");
	const int32_t *outs = fusion_ids(b->r, fu->outputs);
	if (fu->n_outputs > 0) {
		strbuf facts = { 0 };
		sb_tensor_facts(&facts, &gr->tensors[outs[0]]);
		sb_puts(s, "<BR/>" HTML_SMALL);
		sb_html(s, sb_str(&facts));
		if (fu->n_outputs > 1)
			sb_printf(s, " (+%d)", (int)fu->n_outputs - 1);
		sb_puts(s, "</FONT>");
		sb_release(&facts);
	}
	set_html(b, an, "label", sb_str(s));
	set(an, "style", "rounded,filled,bold");
	set(an, "color", pe->border);
	set(an, "fillcolor", pe->fill);
	set(an, "penwidth", "2");
	s->n = 0;
	fusion_tooltip(b, s, f);
	set(an, "tooltip", sb_str(s));
	return an;
}

static Agnode_t *make_io_node(builder *b, int32_t g, int32_t t, bool output, strbuf *s)
{
	const fd_tensor *ten = &b->m->graphs[g].tensors[t];
	char pre[24];
	s->n = 0;
	sb_puts(s, graph_prefix(b, g, pre, sizeof pre));
	sb_puts(s, output ? "output:" : "input:");
	sb_puts(s, ten->name);
	Agnode_t *an = agnode(b->gcont[g], (char *)unique_id(b, sb_str(s)), 1);
	b->n_objects++;
	s->n = 0;
	sb_puts(s, output ? "<B>output</B> " : "<B>input</B> ");
	sb_elided(s, ten->name, sb_html);
	strbuf facts = { 0 };
	sb_tensor_facts(&facts, ten);
	sb_puts(s, "<BR/>" HTML_SMALL);
	sb_html(s, sb_str(&facts));
	sb_puts(s, "</FONT>");
	sb_release(&facts);
	set_html(b, an, "label", sb_str(s));
	set(an, "shape", output ? "house" : "invhouse");
	set(an, "style", "filled");
	set(an, "fillcolor", output ? "#fde9d4" : "#e4f3e4");
	s->n = 0;
	sb_esc(s, ten->name);
	set(an, "tooltip", sb_str(s));
	if (b->peak[g][t]) {
		set(an, "color", PEAK_COLOR);
		set(an, "penwidth", "2.5");
	}
	return an;
}

/* The drawn object that produces tensor t of graph g (following outer-scope
 * reads up to the graph that makes it), or NULL. *outer says it crossed. */
static Agnode_t *producer_obj(builder *b, int32_t g, int32_t t, bool *outer, int32_t *pg, int32_t *pt,
                              strbuf *s)
{
	*outer = false;
	for (int guard = 0; guard < 64; guard++) {
		const fd_graph *gr = &b->m->graphs[g];
		const fd_tensor *ten = &gr->tensors[t];
		*pg = g;
		*pt = t;
		if (ten->kind == TENSOR_OUTER_SCOPE && gr->parent >= 0 && ten->outer >= 0) {
			g = gr->parent;
			t = ten->outer;
			*outer = true;
			continue;
		}
		if (ten->producer >= 0)
			return b->sel->node_on[g][ten->producer] ? b->obj[g][ten->producer] : NULL;
		if (ten->kind == TENSOR_GRAPH_INPUT && b->gcont[g]) {
			if (!b->tobj[g][t])
				b->tobj[g][t] = make_io_node(b, g, t, false, s);
			return b->tobj[g][t];
		}
		return NULL;
	}
	return NULL;
}

static void make_edge(builder *b, Agnode_t *tail, Agnode_t *head, int32_t g, int32_t t, bool outer,
                      strbuf *s)
{
	if (!tail || !head || tail == head)
		return;
	char key[96];
	snprintf(key, sizeof key, "%u %u %d %d", (unsigned)AGSEQ(tail), (unsigned)AGSEQ(head), (int)g, (int)t);
	if (strmap_get(&b->edges, key) >= 0)
		return;
	strmap_put(&b->edges, arena_strdup(&b->arena, key), 1);
	Agedge_t *e = agedge(b->root, tail, head, NULL, 1);
	const fd_tensor *ten = &b->m->graphs[g].tensors[t];
	s->n = 0;
	sb_esc(s, ten->name);
	sb_puts(s, ": ");
	sb_tensor_facts(s, ten);
	int64_t bytes;
	if (tensor_bytes(ten, &bytes)) {
		sb_puts(s, ", ");
		sb_bytes(s, bytes);
	}
	if (b->peak[g][t])
		sb_puts(s, " (at the memory peak)");
	set(e, "tooltip", sb_str(s));
	if (outer)
		set(e, "style", "dotted");
	if (b->peak[g][t]) {
		set(e, "color", PEAK_COLOR);
		set(e, "penwidth", "3");
		s->n = 0;
		sb_bytes(s, tensor_bytes(ten, &bytes) ? bytes : 0);
		set(e, "label", sb_str(s));
		set(e, "fontcolor", PEAK_COLOR);
	}
}

static void make_nodes_and_edges(builder *b)
{
	const fd_model *m = b->m;
	strbuf s = { 0 };
	for (int32_t g = 0; g < m->n_graphs; g++) {
		if (!b->sel->graph_on[g])
			continue;
		const fd_graph *gr = &m->graphs[g];
		/* graph inputs first, in the model's order, when something drawn reads them */
		for (int32_t k = 0; k < gr->n_inputs; k++) {
			const fd_tensor *t = &gr->tensors[gr->inputs[k]];
			bool read = false;
			for (int32_t c = 0; c < t->n_consumers && !read; c++)
				read = b->sel->node_on[g][t->consumers[c]];
			if (read && !b->tobj[g][gr->inputs[k]])
				b->tobj[g][gr->inputs[k]] = make_io_node(b, g, gr->inputs[k], false, &s);
		}
		for (int32_t i = 0; i < gr->n_nodes; i++) {
			int32_t n = gr->topo_order[i];
			if (!b->sel->node_on[g][n])
				continue;
			int32_t f = b->r->claim[g][n];
			if (b->after && f >= 0 && b->sel->fusion_drawn[f]) {
				if (!b->fnode[f])
					b->fnode[f] = make_fusion_node(b, (size_t)f, &s);
				b->obj[g][n] = b->fnode[f];
			} else {
				b->obj[g][n] = make_op_node(b, g, n, &s);
			}
		}
	}
	/* edges in the consumers' topological order, inputs in slot order */
	for (int32_t g = 0; g < m->n_graphs; g++) {
		if (!b->sel->graph_on[g])
			continue;
		const fd_graph *gr = &m->graphs[g];
		Agnode_t **oobj = xcalloc((size_t)gr->n_tensors + 1, sizeof *oobj);
		for (int32_t i = 0; i < gr->n_nodes; i++) {
			int32_t n = gr->topo_order[i];
			if (!b->sel->node_on[g][n])
				continue;
			const fd_node *node = &gr->nodes[n];
			for (int32_t k = 0; k < node->n_inputs; k++) {
				int32_t t = node->inputs[k];
				if (t == FD_NONE)
					continue;
				bool outer;
				int32_t pg, pt;
				Agnode_t *tail = producer_obj(b, g, t, &outer, &pg, &pt, &s);
				make_edge(b, tail, b->obj[g][n], pg, pt, outer, &s);
			}
		}
		for (int32_t k = 0; k < gr->n_outputs; k++) {
			int32_t t = gr->outputs[k];
			bool outer;
			int32_t pg, pt;
			Agnode_t *tail = producer_obj(b, g, t, &outer, &pg, &pt, &s);
			if (!tail || oobj[t])
				continue;
			oobj[t] = make_io_node(b, g, t, true, &s);
			make_edge(b, tail, oobj[t], pg, pt, outer, &s);
		}
		free(oobj);
	}
	sb_release(&s);
}

/* ---- the legend ----------------------------------------------------------- */

static void make_legend(builder *b)
{
	const fd_match_result *r = b->r;
	const fd_export_selection *sel = b->sel;
	strbuf h = { 0 };
	size_t drawn = 0;
	for (size_t f = 0; f < r->n_fusions; f++)
		drawn += sel->fusion_drawn[f];
	sb_puts(&h, "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\">");
	sb_puts(&h, "<TR><TD COLSPAN=\"3\" ALIGN=\"LEFT\"><B>");
	sb_html(&h, basename_of(b->m->path));
	sb_printf(&h, "</B> · %s fusion · %zu fusion%s drawn</TD></TR>",
	          b->after ? "after" : "before", drawn, drawn == 1 ? "" : "s");
	if (b->o->around || b->o->rule) {
		sb_puts(&h, "<TR><TD COLSPAN=\"3\" ALIGN=\"LEFT\">");
		if (b->o->rule) {
			sb_puts(&h, "rule ");
			sb_html(&h, b->o->rule);
		}
		if (b->o->around) {
			sb_puts(&h, b->o->rule ? ", around " : "around ");
			sb_html(&h, b->o->around);
		}
		sb_printf(&h, ", depth %d</TD></TR>", b->o->depth);
	}
	for (int32_t oi = 0; oi < r->n_rules; oi++) {
		int32_t rule = r->order[oi];
		if (!b->rule_drawn[rule] && !b->rule_marks[rule])
			continue;
		const struct palette_entry *pe = rule_palette(b, rule);
		sb_printf(&h, "<TR><TD BGCOLOR=\"%s\"><FONT COLOR=\"%s\">■■</FONT></TD>", pe->fill, pe->border);
		sb_puts(&h, "<TD ALIGN=\"LEFT\">");
		sb_html(&h, r->rules->rules[rule].name);
		sb_printf(&h, " (%lld)</TD><TD ALIGN=\"RIGHT\">%lld fusion%s",
		          (long long)r->rules->rules[rule].priority, (long long)b->rule_drawn[rule],
		          b->rule_drawn[rule] == 1 ? "" : "s");
		if (b->rule_marks[rule])
			sb_printf(&h, ", %lld near miss%s", (long long)b->rule_marks[rule],
			          b->rule_marks[rule] == 1 ? "" : "es");
		if (b->rule_marks_left[rule])
			sb_printf(&h, " (+%lld not marked)", (long long)b->rule_marks_left[rule]);
		sb_puts(&h, "</TD></TR>");
	}
	const fd_graph_est *ge = &b->est->graphs[0];
	char pb[32], pa[32];
	sb_printf(&h, "<TR><TD COLSPAN=\"3\" ALIGN=\"LEFT\">peak %s → %s (est.); "
	          "<FONT COLOR=\"%s\">red</FONT>: tensors at the %s peak</TD></TR>",
	          estimate_format_bytes(ge->before.peak_bytes, pb, sizeof pb),
	          estimate_format_bytes(ge->after.peak_bytes, pa, sizeof pa), PEAK_COLOR,
	          b->after ? "after-fusion" : "before-fusion");
	if (b->near)
		sb_puts(&h, "<TR><TD COLSPAN=\"3\" ALIGN=\"LEFT\">dashed node: near miss "
		        "(✗ reason code; hover for why)</TD></TR>");
	if (!b->o->show_constants)
		sb_printf(&h, "<TR><TD COLSPAN=\"3\" ALIGN=\"LEFT\">not drawn: %lld weight/constant "
		          "node%s, %lld initializer%s</TD></TR>",
		          (long long)sel->n_hidden_consts, sel->n_hidden_consts == 1 ? "" : "s",
		          (long long)sel->n_initializers, sel->n_initializers == 1 ? "" : "s");
	sb_puts(&h, "</TABLE>");
	Agnode_t *n = agnode(b->root, (char *)unique_id(b, "legend"), 1);
	b->n_objects++;
	set(n, "shape", "plaintext");
	set(n, "margin", "0");
	set(n, "style", "");
	set(n, "tooltip", "legend");
	set_html(b, n, "label", sb_str(&h));
	sb_release(&h);
}

/* ---- build / release ---------------------------------------------------- */

static void builder_release(builder *b)
{
	const fd_model *m = b->m;
	for (int32_t g = 0; m && g < m->n_graphs; g++) {
		if (b->obj)
			free(b->obj[g]);
		if (b->tobj)
			free(b->tobj[g]);
		if (b->peak)
			free(b->peak[g]);
		if (b->mark_head)
			free(b->mark_head[g]);
	}
	free(b->obj);
	free(b->tobj);
	free(b->peak);
	free(b->mark_head);
	free(b->gcont);
	free(b->fcluster);
	free(b->fnode);
	free(b->rule_color);
	free(b->rule_seq);
	free(b->rule_drawn);
	free(b->rule_marks);
	free(b->rule_marks_left);
	vec_release(&b->marks);
	strmap_release(&b->ids);
	strmap_release(&b->edges);
	arena_release(&b->arena);
	if (b->root)
		agclose(b->root);
	memset(b, 0, sizeof *b);
}

static Agdisc_t graph_disc;

static void builder_init(builder *b, const fd_match_result *r, const fd_export_options *o,
                         const fd_estimate *est, const fd_export_selection *sel)
{
	memset(b, 0, sizeof *b);
	b->r = r;
	b->m = r->ctx->model;
	b->o = o;
	b->est = est;
	b->sel = sel;
	b->after = o->after;
	b->near = o->near_misses && !o->after;
	strmap_init(&b->ids);
	strmap_init(&b->edges);
	arena_init(&b->arena);
	const fd_model *m = b->m;
	size_t ng = (size_t)m->n_graphs + 1, nf = r->n_fusions + 1, nr = (size_t)r->n_rules + 1;
	b->gcont = xcalloc(ng, sizeof *b->gcont);
	b->obj = xcalloc(ng, sizeof *b->obj);
	b->tobj = xcalloc(ng, sizeof *b->tobj);
	b->peak = xcalloc(ng, sizeof *b->peak);
	b->mark_head = xcalloc(ng, sizeof *b->mark_head);
	for (int32_t g = 0; g < m->n_graphs; g++) {
		const fd_graph *gr = &m->graphs[g];
		b->obj[g] = xcalloc((size_t)gr->n_nodes + 1, sizeof **b->obj);
		b->tobj[g] = xcalloc((size_t)gr->n_tensors + 1, sizeof **b->tobj);
		b->peak[g] = xcalloc((size_t)gr->n_tensors + 1, 1);
		b->mark_head[g] = xmalloc(((size_t)gr->n_nodes + 1) * sizeof **b->mark_head);
		for (int32_t n = 0; n < gr->n_nodes; n++)
			b->mark_head[g][n] = -1;
		if (g < est->n_graphs) {
			const fd_liveness *lv = o->after ? &est->graphs[g].after : &est->graphs[g].before;
			for (int32_t k = 0; k < lv->n_peak_tensors; k++)
				if (lv->peak_tensors[k].tensor >= 0 && lv->peak_tensors[k].tensor < gr->n_tensors)
					b->peak[g][lv->peak_tensors[k].tensor] = 1;
		}
	}
	b->fcluster = xcalloc(nf, sizeof *b->fcluster);
	b->fnode = xcalloc(nf, sizeof *b->fnode);
	b->rule_seq = xcalloc(nf, sizeof *b->rule_seq);
	b->rule_color = xmalloc(nr * sizeof *b->rule_color);
	b->rule_drawn = xcalloc(nr, sizeof *b->rule_drawn);
	b->rule_marks = xcalloc(nr, sizeof *b->rule_marks);
	b->rule_marks_left = xcalloc(nr, sizeof *b->rule_marks_left);
	int64_t *seq = xcalloc(nr, sizeof *seq);
	for (size_t f = 0; f < r->n_fusions; f++) {
		b->rule_seq[f] = (int32_t)++seq[r->fusions[f].rule];
		if (sel->fusion_drawn[f])
			b->rule_drawn[r->fusions[f].rule]++;
	}
	free(seq);
	if (b->near)
		collect_near_misses(b);
	/* colours: rules with drawn fusions first, then rules with only marks,
	 * each in run order */
	for (int32_t i = 0; i < r->n_rules; i++)
		b->rule_color[i] = -1;
	int32_t next = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int32_t oi = 0; oi < r->n_rules; oi++) {
			int32_t rule = r->order[oi];
			if (b->rule_color[rule] < 0 && (pass ? b->rule_marks[rule] > 0 : b->rule_drawn[rule] > 0))
				b->rule_color[rule] = next++;
		}

	graph_disc = (Agdisc_t){ &AgMemDisc, &id_disc, &AgIoDisc };
	b->root = agopen("fusiondbg", Agdirected, &graph_disc);
	for (size_t i = 0; i < sizeof attr_defaults / sizeof *attr_defaults; i++)
		agattr(b->root, attr_defaults[i].kind, (char *)attr_defaults[i].name,
		       (char *)attr_defaults[i].value);
}

static void build(builder *b)
{
	make_legend(b);
	make_containers(b);
	make_nodes_and_edges(b);
}

/* ---- writing ------------------------------------------------------------ */

/* cgraph writes DOT to a FILE*: into memory, then one atomic write. */
static int write_dot(Agraph_t *g, const char *path, fd_diags *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		diag_error(d, srcpos_file(path), "cannot write: out of memory");
		return -1;
	}
	bool ok = agwrite(g, f) == 0 && fputc('\n', f) != EOF;
	ok = fclose(f) == 0 && ok;
	int rc = ok ? atomic_write(path, text, len, -1, d) : -1;
	if (!ok)
		diag_error(d, srcpos_file(path), "cannot write: graphviz could not write the DOT text");
	free(text);
	return rc;
}

/* Lays out and renders b->root into path. */
static int render(builder *b, fd_export_format format, const char *path, fd_diags *d)
{
	if (format == EXPORT_DOT)
		return write_dot(b->root, path, d);
	GVC_t *gvc = gvContext();
	int rc = -1;
	size_t errors0 = d->errors;
	if (gvLayout(gvc, b->root, "dot") != 0 || d->errors > errors0) {
		if (d->errors == errors0)
			diag_error(d, srcpos_file(path), "graphviz could not lay the graph out");
		gvFreeContext(gvc);
		return -1;
	}
	/* cairo bitmaps stop at 32767 px a side and are scaled down past it */
	double llx, lly, urx, ury;
	const char *bb = agget(b->root, "bb");
	if (format == EXPORT_PNG && bb && (sscanf(bb, "%lf,%lf,%lf,%lf", &llx, &lly, &urx, &ury) == 4 ||
	                                   sscanf(bb, "%lf %lf %lf %lf", &llx, &lly, &urx, &ury) == 4) &&
	    ((urx - llx) * 96 / 72 > 32767 || (ury - lly) * 96 / 72 > 32767))
		diag_warning(d, srcpos_file(path), "the picture would be %.0fx%.0f px, more than a PNG holds "
		             "(32767 a side), so it is scaled down; .svg keeps it sharp, or draw a part "
		             "with --around NODE --depth K / --rule NAME",
		             (urx - llx) * 96 / 72, (ury - lly) * 96 / 72);
	char *data = NULL;
	unsigned int len = 0;
	if (gvRenderData(gvc, b->root, export_format_name(format), &data, &len) != 0 || !data) {
		if (d->errors == errors0)
			diag_error(d, srcpos_file(path), "graphviz could not render %s (is its %s plugin installed?)",
			           export_format_name(format), export_format_name(format));
	} else {
		rc = atomic_write(path, data, len, -1, d);
	}
	if (data)
		gvFreeRenderData(data);
	gvFreeLayout(gvc, b->root);
	gvFreeContext(gvc);
	return rc;
}

/* ---- entry points --------------------------------------------------------- */

static const fd_estimate *estimate_for(const fd_match_result *r, const fd_export_options *o,
                                       fd_estimate *own)
{
	if (o->estimate)
		return o->estimate;
	estimate_init(own);
	estimate_compute(own, r, NULL);
	return own;
}

int export_graph(const fd_match_result *r, const fd_export_options *o, const char *path, fd_diags *d)
{
	fd_export_selection sel;
	if (export_select(r, o, &sel, d) < 0)
		return -1;
	const fd_model *m = r->ctx->model;
	int64_t objects = sel.n_nodes;
	if (o->after)   /* a collapsed fusion is one node */
		for (size_t f = 0; f < r->n_fusions; f++)
			if (sel.fusion_drawn[f])
				objects -= r->fusions[f].n_nodes - 1;
	int limit = o->max_layout_nodes ? o->max_layout_nodes : EXPORT_MAX_LAYOUT_NODES;
	if (o->format != EXPORT_DOT && limit > 0 && objects > limit) {
		diag_error(d, srcpos_file(m->path),
		           "%lld nodes to draw is more than %s layout handles in reasonable time "
		           "(limit %d); draw a part with --around NODE --depth K or --rule NAME, "
		           "or write .dot", (long long)objects, export_format_name(o->format), limit);
		export_selection_release(&sel);
		return -1;
	}
	fd_estimate own;
	const fd_estimate *est = estimate_for(r, o, &own);
	gv_capture cap;
	gv_capture_begin(&cap, d, path);
	builder b;
	builder_init(&b, r, o, est, &sel);
	build(&b);
	int rc = render(&b, o->format, path, d);
	builder_release(&b);
	gv_capture_end(&cap);
	if (est == &own)
		estimate_release(&own);
	export_selection_release(&sel);
	return rc;
}

/* ---- per-fusion DOTs (output.gen_dot_graph) ------------------------------ */

static bool wants_dots(const fd_match_result *r, const fd_export_options *o, int32_t rule)
{
	const fd_rule *ru = &r->rules->rules[rule];
	return ru->gen_dot_graph && (!o->rule || !strcmp(o->rule, ru->name));
}

size_t export_fusion_dots_pending(const fd_match_result *r, const fd_export_options *o)
{
	size_t n = 0;
	for (size_t f = 0; f < r->n_fusions; f++)
		n += wants_dots(r, o, r->fusions[f].rule);
	return n;
}

/* mkdir -p, relative to the current directory. */
static int make_dirs(const char *dir, fd_diags *d)
{
	char *p = xstrdup(dir);
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			diag_error(d, srcpos_file(p), "cannot create the directory (dot_graph_path): %s",
			           strerror(errno));
			rc = -1;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

/* One fusion and the nodes right around it. */
static void select_one(const fd_match_result *r, size_t f, const fd_export_selection *all,
                       fd_export_selection *sel)
{
	const fd_fusion *fu = &r->fusions[f];
	const fd_graph *gr = &r->ctx->model->graphs[fu->graph];
	for (int32_t g = 0; g < sel->n_graphs; g++) {
		memset(sel->node_on[g], 0, (size_t)r->ctx->model->graphs[g].n_nodes);
		sel->graph_on[g] = g == fu->graph;
	}
	memset(sel->fusion_drawn, 0, r->n_fusions);
	sel->fusion_drawn[f] = 1;
	uint8_t *on = sel->node_on[fu->graph];
	const int32_t *nodes = fusion_ids(r, fu->nodes);
	for (int32_t i = 0; i < fu->n_nodes; i++)
		on[nodes[i]] = 1;
	for (int32_t i = 0; i < fu->n_nodes; i++) {
		const fd_node *node = &gr->nodes[nodes[i]];
		for (int32_t k = 0; k < node->n_inputs; k++) {
			int32_t t = node->inputs[k];
			int32_t p = t == FD_NONE ? FD_NONE : gr->tensors[t].producer;
			if (p >= 0 && all->node_on[fu->graph][p])
				on[p] = 1;
		}
		for (int32_t k = 0; k < node->n_outputs; k++) {
			int32_t t = node->outputs[k];
			if (t == FD_NONE)
				continue;
			for (int32_t c = 0; c < gr->tensors[t].n_consumers; c++)
				if (all->node_on[fu->graph][gr->tensors[t].consumers[c]])
					on[gr->tensors[t].consumers[c]] = 1;
		}
	}
	sel->n_nodes = 0;
	for (int32_t n = 0; n < gr->n_nodes; n++)
		sel->n_nodes += on[n];
	sel->n_hidden_consts = all->n_hidden_consts;
	sel->n_initializers = gr->n_initializers;
}

int export_fusion_dots(const fd_match_result *r, const fd_export_options *o, fd_export_files *written,
                       fd_diags *d)
{
	if (!export_fusion_dots_pending(r, o))
		return 0;
	fd_export_options whole = *o;
	whole.around = NULL;
	whole.rule = NULL;
	whole.after = false;
	whole.near_misses = false;
	whole.format = EXPORT_DOT;
	fd_export_selection all, one;
	if (export_select(r, &whole, &all, d) < 0)
		return -1;
	if (export_select(r, &whole, &one, d) < 0) {
		export_selection_release(&all);
		return -1;
	}
	fd_estimate own;
	const fd_estimate *est = estimate_for(r, o, &own);
	int32_t *seq = xcalloc((size_t)r->n_rules + 1, sizeof *seq);
	int count = 0, rc = 0;
	for (size_t f = 0; f < r->n_fusions && rc == 0; f++) {
		const fd_fusion *fu = &r->fusions[f];
		seq[fu->rule]++;
		if (!wants_dots(r, o, fu->rule))
			continue;
		const fd_rule *ru = &r->rules->rules[fu->rule];
		const char *dir = ru->dot_graph_path && *ru->dot_graph_path ? ru->dot_graph_path : ".";
		if (make_dirs(dir, d) < 0) {
			rc = -1;
			break;
		}
		size_t dl = strlen(dir);
		char *path = xmalloc(dl + strlen(ru->name) + 32);
		sprintf(path, "%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/");
		/* the rule name is a file name here: nothing that leaves the directory */
		char *start = path + strlen(path), *p = start;
		for (const char *c = ru->name; *c; c++)
			*p++ = *c == '/' || *c == '\\' || (unsigned char)*c < 0x20 ? '_' : *c;
		if (*start == '.')
			*start = '_';
		sprintf(p, "_%d.dot", (int)seq[fu->rule]);
		select_one(r, f, &all, &one);
		gv_capture cap;
		gv_capture_begin(&cap, d, path);
		builder b;
		builder_init(&b, r, &whole, est, &one);
		build(&b);
		rc = render(&b, EXPORT_DOT, path, d);
		builder_release(&b);
		gv_capture_end(&cap);
		if (rc == 0) {
			if (written->n == written->cap) {
				written->cap = written->cap ? written->cap * 2 : 8;
				written->paths = xrealloc(written->paths, written->cap * sizeof *written->paths);
			}
			written->paths[written->n++] = path;
			count++;
		} else {
			free(path);
		}
	}
	free(seq);
	if (est == &own)
		estimate_release(&own);
	export_selection_release(&all);
	export_selection_release(&one);
	return rc < 0 ? -1 : count;
}
