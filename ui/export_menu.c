/* export_menu.c — E: what to draw, then where. The whole graph before or
 * after fusion, or a part a reviewer can read: the neighbourhood of the node
 * under the cursor (depth K), its fusion, or every fusion of the rule under
 * the cursor; only what the cursor offers is listed. The picture is the
 * batch export's (export.h), parts with their cut edges as stubs. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "export/export.h"
#include "loop.h"

enum export_kind { PIC_BEFORE, PIC_AFTER, PIC_AROUND, PIC_FUSION, PIC_RULE };

/* What the cursor is on: the detail's node (the graph and trace views make
 * their row's node the detail's subject), its fusion, a rule that fired. */
typedef struct cursor_subject {
	int32_t graph, node, fusion, rule;
} cursor_subject;

static cursor_subject subject(tui *t)
{
	const fd_match_result *r = session_result(&t->s);
	cursor_subject c = { -1, -1, -1, -1 };
	detail_subject s = tui_detail_subject(t);
	if (s.kind == DETAIL_NODE && t->focus != VIEW_RULES) {
		c.graph = s.graph;
		c.node = s.node;
		c.fusion = r->claim[c.graph][c.node];
	}
	int32_t rule = c.fusion >= 0 ? r->fusions[c.fusion].rule : tui_rule_under_cursor(t);
	if (rule >= 0 && rule < r->n_rules && r->stats[rule].effect_times > 0)
		c.rule = rule;
	return c;
}

/* A file name part from a node or rule name: letters, digits, - . _ kept. */
static void name_part(const char *s, char *buf, size_t size)
{
	size_t n = 0;
	for (; *s && n + 1 < size && n < 48; s++)
		buf[n++] = isalnum((unsigned char)*s) || *s == '-' || *s == '.' || *s == '_' ? *s : '_';
	buf[n] = '\0';
}

unsigned tui_export(tui *t)
{
	const fd_match_result *r = session_result(&t->s);
	const fd_model *m = session_model(&t->s);
	cursor_subject c = subject(t);
	char text[5][320];
	const char *items[5];
	int kind[5], n = 0, initial = 0;
	snprintf(text[n], sizeof text[n], "before fusion: every fusion a labelled cluster");
	kind[n++] = PIC_BEFORE;
	snprintf(text[n], sizeof text[n], "after fusion: every fusion collapsed into its target op");
	kind[n++] = PIC_AFTER;
	if (c.node >= 0) {
		snprintf(text[n], sizeof text[n], "around %s: its neighbourhood, K steps (asks K)",
		         m->graphs[c.graph].nodes[c.node].name);
		kind[n++] = PIC_AROUND;
	}
	if (c.fusion >= 0) {
		snprintf(text[n], sizeof text[n], "this fusion: #%d %s and its neighbours", (int)c.fusion,
		         r->rules->rules[r->fusions[c.fusion].rule].name);
		kind[n++] = PIC_FUSION;
	}
	if (c.rule >= 0) {
		snprintf(text[n], sizeof text[n], "this rule's fusions: %s (%lld), and their neighbours",
		         r->rules->rules[c.rule].name, (long long)r->stats[c.rule].effect_times);
		kind[n++] = PIC_RULE;
	}
	for (int i = 0; i < n; i++) {
		items[i] = text[i];
		if (kind[i] == t->export_kind)
			initial = i;
	}
	int k = prompt_menu(t, "export the graph", items, n, initial);
	if (k < 0)
		return RES_REDRAW;
	t->export_kind = kind[k];

	fd_export_options o;
	export_options_init(&o);
	o.after = kind[k] == PIC_AFTER;
	o.depth = kind[k] == PIC_AROUND ? (t->export_depth ? t->export_depth : 2) : 1;
	char part[80] = "", buf[64], what[160];
	snprintf(what, sizeof what, "%s fusion", o.after ? "after" : "before");
	if (kind[k] == PIC_AROUND) {
		char init[16], ans[32];
		snprintf(init, sizeof init, "%d", o.depth);
		if (!prompt_line(t, "steps around the node (depth K): ", init, ans, sizeof ans) || !ans[0])
			return RES_REDRAW;
		char *end;
		long depth = strtol(ans, &end, 10);
		if (*end || depth < 0 || depth > 1000) {
			tui_message(t, ROLE_ERROR, "%s: the depth is a number of steps, 0 to 1000", ans);
			return RES_REDRAW;
		}
		o.depth = t->export_depth = (int)depth;
		o.around = m->graphs[c.graph].nodes[c.node].name;
		name_part(o.around, buf, sizeof buf);
		snprintf(part, sizeof part, "-around-%s", buf);
		snprintf(what, sizeof what, "around %s, depth %d", o.around, o.depth);
	} else if (kind[k] == PIC_FUSION) {
		o.fusion = c.fusion;
		snprintf(part, sizeof part, "-fusion-%d", (int)c.fusion);
		snprintf(what, sizeof what, "fusion #%d", (int)c.fusion);
	} else if (kind[k] == PIC_RULE) {
		o.rule = r->rules->rules[c.rule].name;
		name_part(o.rule, buf, sizeof buf);
		snprintf(part, sizeof part, "-%s", buf);
		snprintf(what, sizeof what, "the fusions of %s", o.rule);
	} else if (o.after) {
		snprintf(part, sizeof part, "-after");
	}
	const char *base = strrchr(t->model_path, '/') ? strrchr(t->model_path, '/') + 1 : t->model_path;
	char stem[256], def[400], path[1024];
	snprintf(stem, sizeof stem, "%s", base);
	char *dot = strrchr(stem, '.');
	if (dot)
		*dot = 0;
	snprintf(def, sizeof def, "%s%s.dot", stem, part);
	if (!prompt_line(t, "export to (.dot, .png, .svg): ", def, path, sizeof path) || !path[0])
		return RES_REDRAW;
	if (export_format_from_path(path, &o.format) < 0) {
		tui_message(t, ROLE_ERROR, "%s: the name must end in .dot, .gv, .png or .svg", path);
		return RES_REDRAW;
	}
	o.estimate = session_estimate(&t->s);
	fd_diags d;
	diags_init(&d);
	char line[1024];
	fd_export_files pages = { 0 };   /* a PNG too tall comes out as pages */
	o.pages = &pages;
	if (export_graph(r, &o, path, &d) < 0)
		tui_message(t, ROLE_ERROR, "export failed: %s", d.n ? diag_format(&d.items[0], line, sizeof line) : "?");
	else if (pages.n)
		tui_message(t, ROLE_FIRED, "exported %s (%s, %s) as %zu pages, %s to %s: it is taller than %d px",
		            path, export_format_name(o.format), what, pages.n, pages.paths[0], pages.paths[pages.n - 1],
		            EXPORT_PNG_MAX_SIDE);
	else
		tui_message(t, ROLE_FIRED, "exported %s (%s, %s)", path, export_format_name(o.format), what);
	export_files_release(&pages);
	diags_release(&d);
	return RES_REDRAW;
}
