/* suggest_write.c — rules that suggest makes, added to the session: the
 * rule of a suggested pattern (the suggest view's w) or of a chain marked
 * in the graph view (m on its start, m on its end, then w), each as a new
 * rule file beside the rule set (session_new_rule_path: NAME.yaml in the
 * first rules directory), a what-if like any edit. The marks live in the
 * suggest view's state (tui.h, suggest_view). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "loop.h"
#include "view.h"

/* The file a rule goes to: its name in lower case ("Suggested_Conv_Relu"
 * -> suggested_conv_relu.yaml), in the first rules directory. */
static void rule_path(tui *t, const char *name, char *buf, size_t size)
{
	char low[256];
	size_t i = 0;
	for (; name[i] && i + 1 < sizeof low; i++)
		low[i] = isalnum((unsigned char)name[i]) ? (char)tolower((unsigned char)name[i]) : '_';
	low[i] = '\0';
	session_new_rule_path(&t->s, low, buf, size);
}

unsigned tui_write_pattern_rule(tui *t, const fd_suggest_pattern *p)
{
	char path[4096], what[sizeof path + 512];
	rule_path(t, p->rule_name, path, sizeof path);
	fd_diags d;
	diags_init(&d);
	tui_remember_spot(t);
	int rc = session_add_rule_file(&t->s, path, p->rule_yaml, &d);
	snprintf(what, sizeof what, "added rule %s as %s (it fires on %d chain%s)", p->rule_name, path,
	         p->n_instances, p->n_instances == 1 ? "" : "s");
	unsigned res = tui_after_edit(t, rc, &d, what);
	diags_release(&d);
	return res;
}

static void clear_mark(suggest_view *sv)
{
	sv->mark.graph = sv->mark.first = sv->mark.last = -1;
}

const char *tui_chain_mark(const tui *t, int32_t graph, int32_t node)
{
	const suggest_view *sv = tui_suggest(t);
	if (!sv || sv->mark.graph != graph)
		return NULL;
	return node == sv->mark.first ? "chain start" : node == sv->mark.last ? "chain end" : NULL;
}

unsigned tui_mark_chain(tui *t, int32_t graph, int32_t node)
{
	suggest_view *sv = tui_suggest(t);
	const char *name = session_model(&t->s)->graphs[graph].nodes[node].name;
	if (sv->mark.graph >= 0 && sv->mark.last >= 0) {
		clear_mark(sv);
		tui_message(t, ROLE_INFO, "chain marks cleared");
	} else if (sv->mark.graph == graph && sv->mark.first != node) {
		sv->mark.last = node;
		tui_message(t, ROLE_INFO, "chain end: %s; w adds the rule of this chain alone, m clears", name);
	} else {
		clear_mark(sv);
		sv->mark.graph = graph;
		sv->mark.first = node;
		tui_message(t, ROLE_INFO, "chain start: %s; m on its last node marks the end", name);
	}
	return RES_REDRAW;
}

unsigned tui_write_chain_rule(tui *t, int32_t graph, int32_t node)
{
	suggest_view *sv = tui_suggest(t);
	if (sv->mark.graph < 0)
		return tui_why_not_node(t, graph, node);
	if (sv->mark.last < 0) {
		tui_message(t, ROLE_WARN, "mark the chain's end too: m on its last node");
		return RES_REDRAW;
	}
	fd_suggest sg;
	suggest_init(&sg);
	fd_diags d;
	diags_init(&d);
	fd_suggest_options so = { .target = t->s.opt.target };
	unsigned res;
	if (suggest_chain(&sg, &t->s.current_rounds, &t->s.rules, &so, sv->mark.graph, sv->mark.first, sv->mark.last,
	                  &d) < 0) {
		char line[1024];
		tui_message(t, ROLE_ERROR, "no rule for this chain: %s",
		            d.n ? diag_format(&d.items[0], line, sizeof line) : "it cannot be fused");
		res = RES_REDRAW;
	} else {
		clear_mark(sv);
		res = tui_write_pattern_rule(t, &sg.patterns[0]);
	}
	diags_release(&d);
	suggest_release(&sg);
	return res;
}
