/* detail.c — what the detail view shows, as rows (detail.h): for a node,
 * its fusion with the memory and speed-up estimates, the compiler's record
 * of it when the model is a GE dump (its UB group, the originals it
 * absorbed, the passes that made it), its attributes and its
 * tensors (shape, dtype, bytes, where they come from / go); for a rule, its
 * file:line, counts and every editable value with its edit path. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "detail.h"
#include "loop.h"
#include "base/text.h"
#include "estimate/estimate.h"
#include "ir/node_origin.h"

/* The rows being built, for the subject. */
typedef struct build {
	tui *t;
	const detail_subject *s;
	detail_rows *rows;
} build;

/* Names in a row are cut to this many bytes (head…tail), so that one long
 * name leaves room for the rest of the row. */
#define NAME_SHOWN 72

static void add(build *b, int role, int32_t rule, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void add(build *b, int role, int32_t rule, const char *path, const char *fmt, ...)
{
	vec_grow(b->rows, b->rows->n + 1);
	detail_row *r = &b->rows->items[b->rows->n++];
	strbuf text = { 0 };
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&text, fmt, ap);
	va_end(ap);
	/* a path that does not fit is not offered for editing (a cut one would
	 * name another value) */
	bool editable = !path || strlen(path) < sizeof r->path;
	if (!editable)
		sb_puts(&text, "  (path too long to edit here: use --set)");
	text_cut(r->text, sizeof r->text, sb_str(&text));
	sb_release(&text);
	r->role = role;
	r->rule = rule;
	snprintf(r->path, sizeof r->path, "%s", path && editable ? path : "");
}

/* A name as a row shows it: at most NAME_SHOWN bytes, head…tail. */
static const char *shown(char *buf, size_t size, const char *name)
{
	return text_cut(buf, size < NAME_SHOWN + 1 ? size : NAME_SHOWN + 1, name ? name : "");
}

/* A figure: "784 KiB", "256 KiB × batch", "unknown". */
static const char *size_text(fd_sint s, char *buf, size_t size)
{
	return estimate_format_size(s, buf, size);
}

static void tensor_row(build *b, const fd_graph *g, int32_t ti, const char *dir)
{
	tui *t = b->t;
	if (ti < 0) {
		add(b, ROLE_DIM, -1, NULL, "  %s (omitted)", dir);
		return;
	}
	const fd_tensor *tt = &g->tensors[ti];
	char sb[96], bb[160], from[NAME_SHOWN + 40] = "", name[NAME_SHOWN + 1], other[NAME_SHOWN + 1];
	size_text(tt->dtype == DT_UNDEFINED ? sint_unknown() : tensor_bytes_sym(tt), bb, sizeof bb);
	static const char *const kinds[] = { "activation", "graph input", "weight", "constant", "outer scope" };
	if (!strcmp(dir, "in") && tt->producer >= 0)
		snprintf(from, sizeof from, " from %s", shown(other, sizeof other, g->nodes[tt->producer].name));
	else if (!strcmp(dir, "in"))
		snprintf(from, sizeof from, " (%s)", kinds[tt->kind]);
	else if (tt->n_consumers > 0)
		snprintf(from, sizeof from, " to %s%s", shown(other, sizeof other, g->nodes[tt->consumers[0]].name),
		         tt->n_consumers > 1 ? " +more" : "");
	add(b, ROLE_NORMAL, -1, NULL, "  %-3s %-22s %s %s  %s%s%s", dir, shown(name, sizeof name, tt->name),
	    shape_format(&tt->shape, sb, sizeof sb), dtype_name(tt->dtype), bb, from,
	    tt->is_graph_output ? " (graph output)" : "");
	/* on a row of its own, so that a narrow panel does not cut it off */
	if (tt->kind == TENSOR_INITIALIZER && tt->listed_input)
		add(b, ROLE_DIM, -1, NULL, "      %s", tensor_initializer_words(session_model(&t->s), tt));
}

/* The value as text, cut head…tail to size (a long list shows its first
 * and last values). */
static void attr_value(const fd_attr *a, char *buf, size_t size)
{
	strbuf b = { 0 };
	switch (a->type) {
	case ATTR_FLOAT: sb_printf(&b, "%g", a->u.f); break;
	case ATTR_INT: sb_printf(&b, "%lld", (long long)a->u.i); break;
	case ATTR_STRING: sb_printf(&b, "\"%s\"", a->u.s ? a->u.s : ""); break;
	case ATTR_INTS: case ATTR_FLOATS:
		sb_puts(&b, "[");
		/* no more than a row can show: the first values and the last ones */
		for (int64_t i = 0; i < a->count; i++) {
			if (i == 64 && a->count > 128) {
				sb_puts(&b, ", …");
				i = a->count - 64;
			}
			if (a->type == ATTR_INTS)
				sb_printf(&b, "%s%lld", i ? ", " : "", (long long)a->u.ints[i]);
			else
				sb_printf(&b, "%s%g", i ? ", " : "", a->u.floats[i]);
		}
		sb_puts(&b, "]");
		break;
	case ATTR_GRAPH: sb_puts(&b, "(graph)"); break;
	case ATTR_TENSOR: sb_puts(&b, "(tensor)"); break;
	default: sb_printf(&b, "(%lld values)", (long long)a->count); break;
	}
	text_cut(buf, size, sb_str(&b));
	sb_release(&b);
}

/* With rounds: every round whose fusion took the node (as it was then). */
static void round_rows(build *b, int32_t g, int32_t node)
{
	tui *t = b->t;
	const fd_rounds *rd = session_rounds(&t->s);
	for (int32_t k = 1; k <= rd->n; k++) {
		const fd_round *rr = rd->items[k - 1];
		int32_t u = rounds_node_in(rd, k, g, node);
		int32_t f = u >= 0 ? rr->result->claim[g][u] : -1;
		if (f < 0)
			continue;
		const fd_fusion *fu = &rr->result->fusions[f];
		const fd_rule *rule = &rr->result->rules->rules[fu->rule];
		char members[600] = "", one[300];
		for (int32_t i = 0; i < fu->n_nodes && strlen(members) < sizeof members - 40; i++) {
			strcat(members, i ? ", " : "");
			strncat(members, explain_rounds_node(rd, k, g, rr->result->pool[fu->nodes + i], one, sizeof one),
			        sizeof members - strlen(members) - 1);
		}
		add(b, ROLE_RULE0 + fu->rule % ROLE_RULE_COLOURS, fu->rule, NULL, "round %d: fusion #%d by %s %s %s: %s",
		    (int)k, (int)f, rule->name, t->disp->g->arrow, rule->target_op ? rule->target_op : "?", members);
	}
}

/* The UB group of id (failed: the fusion_failed id) node belongs to: its
 * pass, whether it compiled, the other members. */
static void ub_group_row(build *b, const fd_graph *g, int32_t node, bool failed, int64_t id)
{
	strbuf others = { 0 };
	int32_t n_others = 0;
	for (int32_t i = 0; i < g->n_nodes; i++) {
		const fd_node_origin *o = g->nodes[i].origin;
		bool same = o && (failed ? o->has_fusion_failed && o->fusion_failed == id :
		                           o->has_fusion_scope && o->fusion_scope == id);
		if (!same || i == node)
			continue;
		char one[NAME_SHOWN + 1];
		sb_printf(&others, "%s%s", n_others++ ? ", " : "", shown(one, sizeof one, g->nodes[i].name));
	}
	const char *pass = g->nodes[node].origin->pass_name_ub;
	char p[NAME_SHOWN + 1];
	add(b, failed ? ROLE_WARN : ROLE_NORMAL, -1, NULL, "  UB group %lld %s", (long long)id,
	    failed ? "matched, failed to compile" : "compiled");
	add(b, ROLE_NORMAL, -1, NULL, "    by %s", pass ? shown(p, sizeof p, pass) : "(no pass_name_ub)");
	add(b, ROLE_NORMAL, -1, NULL, "    with %s", n_others ? sb_str(&others) : "no other node");
	sb_release(&others);
}

/* What the compiler recorded of a node of a GE dump (ir/node_origin.h). */
static void origin_rows(build *b, const fd_graph *g, int32_t node)
{
	const fd_node_origin *o = g->nodes[node].origin;
	bool scope = o && o->has_fusion_scope && o->fusion_scope >= 0;
	bool failed = o && o->has_fusion_failed && o->fusion_failed >= 0;
	if (!o || (!scope && !failed && !o->original_names.n && !o->pass_names.n))
		return;
	add(b, ROLE_HEADER, -1, NULL, "origin (the compiler's record)");
	if (scope)
		ub_group_row(b, g, node, false, o->fusion_scope);
	if (failed)
		ub_group_row(b, g, node, true, o->fusion_failed);
	if (o->original_names.n)
		add(b, ROLE_NORMAL, -1, NULL, "  absorbed %d original node%s:", (int)o->original_names.n,
		    o->original_names.n == 1 ? "" : "s");
	for (int32_t i = 0; i < o->original_names.n; i++) {
		char one[NAME_SHOWN + 1], ty[NAME_SHOWN + 1];
		bool typed = i < o->original_types.n;
		add(b, ROLE_NORMAL, -1, NULL, "    %s%s%s%s", shown(one, sizeof one, o->original_names.items[i]),
		    typed ? " (" : "", typed ? shown(ty, sizeof ty, o->original_types.items[i]) : "", typed ? ")" : "");
	}
	if (o->pass_names.n)
		add(b, ROLE_NORMAL, -1, NULL, "  made by the passes, in order:");
	for (int32_t i = 0; i < o->pass_names.n; i++) {
		char one[NAME_SHOWN + 1];
		add(b, ROLE_NORMAL, -1, NULL, "    %s", shown(one, sizeof one, o->pass_names.items[i]));
	}
}

static void build_node(build *b)
{
	tui *t = b->t;
	const fd_model *m = session_model(&t->s);
	if (b->s->graph < 0 || b->s->graph >= m->n_graphs || b->s->node < 0 || b->s->node >= m->graphs[b->s->graph].n_nodes)
		return;
	const fd_graph *g = &m->graphs[b->s->graph];
	const fd_node *n = &g->nodes[b->s->node];
	const fd_match_result *r = session_result(&t->s);
	const fd_estimate *e = session_estimate(&t->s);
	add(b, ROLE_HEADER, -1, NULL, "node %s (%s%s%s)", n->name, n->domain && *n->domain ? n->domain : "",
	    n->domain && *n->domain ? "." : "", n->op_type);
	char gname[NAME_SHOWN + 1];
	add(b, ROLE_DIM, -1, NULL, "graph %s, step %d of %d", b->s->graph ? shown(gname, sizeof gname, g->name) : "main",
	    n->topo + 1, g->n_nodes);
	if (tui_n_rounds(t) > 1)
		round_rows(b, b->s->graph, b->s->node);
	int32_t f = r->claim[b->s->graph][b->s->node];
	if (f >= 0) {
		const fd_fusion *fu = &r->fusions[f];
		const fd_rule *rule = &r->rules->rules[fu->rule];
		char b1[160], b2[160], b3[160], b4[160], b5[160];
		add(b, ROLE_RULE0 + fu->rule % ROLE_RULE_COLOURS, fu->rule, NULL, "fusion #%d by %s: %d nodes %s %s", f,
		    rule->name, fu->n_nodes, t->disp->g->arrow, rule->target_op ? rule->target_op : "?");
		/* every member, each name cut; the row cuts the list (head…tail) */
		strbuf members = { 0 };
		const int32_t *ids = fusion_ids(r, fu->nodes);
		for (int32_t i = 0; i < fu->n_nodes; i++) {
			char one[NAME_SHOWN + 1];
			sb_printf(&members, "%s%s", i ? ", " : "", shown(one, sizeof one, g->nodes[ids[i]].name));
		}
		add(b, ROLE_NORMAL, -1, NULL, "  nodes %s", sb_str(&members));
		sb_release(&members);
		if ((size_t)f < e->n_fusions) {
			const fd_fusion_est *fe = &e->fusions[f];
			add(b, ROLE_NORMAL, -1, NULL, "  in %s (act %s, const %s)  out %s", size_text(fe->inputs_f, b1, sizeof b1),
			    size_text(fe->input_act_f, b2, sizeof b2), size_text(fe->input_const_f, b3, sizeof b3),
			    size_text(fe->outputs_f, b4, sizeof b4));
			add(b, ROLE_NORMAL, -1, NULL, "  removed %s  ws %s", size_text(fe->removed_f, b1, sizeof b1),
			    size_text(fe->workspace_f, b2, sizeof b2));
			char sp[48];
			if (fe->speedup > 0)
				add(b, ROLE_FIRED, -1, NULL, "  kernel peak %s%s  %s (%s)", size_text(fe->kernel_peak_f, b5, sizeof b5),
				    fe->chunk_ratio < 1 ? " chunked" : "", estimate_format_speedup(fe->speedup, sp, sizeof sp),
				    fe->compute_bound ? "compute bound" : "memory bound");
			else
				add(b, ROLE_FIRED, -1, NULL, "  kernel peak %s%s  speed-up unknown", size_text(fe->kernel_peak_f, b5,
				    sizeof b5), fe->chunk_ratio < 1 ? " chunked" : "");
			if (fe->advice != ADVICE_NONE)
				add(b, ROLE_WARN, -1, NULL, "  advice: %s", estimate_advice_text(fe->advice));
			if (fe->symbolic)
				add(b, ROLE_DIM, -1, NULL, "  sizes are formulas in the unbound symbols (bind them for numbers)");
			else if (fe->n_unknown)
				add(b, ROLE_WARN, -1, NULL, "  %d tensor%s of unknown size", fe->n_unknown,
				    fe->n_unknown == 1 ? "" : "s");
		}
	} else {
		add(b, ROLE_DIM, -1, NULL, "not fused (w: why-not)");
	}
	origin_rows(b, g, b->s->node);
	if (n->n_attrs) {
		add(b, ROLE_HEADER, -1, NULL, "attributes");
		for (int32_t i = 0; i < n->n_attrs; i++) {
			char v[200], an[NAME_SHOWN + 1];
			attr_value(&n->attrs[i], v, sizeof v);
			add(b, ROLE_NORMAL, -1, NULL, "  %s = %s", shown(an, sizeof an, n->attrs[i].name), v);
		}
	}
	add(b, ROLE_HEADER, -1, NULL, "tensors (shape dtype bytes)");
	for (int32_t i = 0; i < n->n_inputs; i++)
		tensor_row(b, g, n->inputs[i], "in");
	for (int32_t i = 0; i < n->n_outputs; i++)
		tensor_row(b, g, n->outputs[i], "out");
}

/* Editable values: every scalar (or list of scalars) of the rule's document
 * whose path the session accepts. Constraints are named by type. */
static void walk(build *b, int32_t rule, const fd_yval *v, strbuf *path, int depth)
{
	tui *t = b->t;
	if (!v || depth > 8)
		return;
	bool leaf = v->kind == YV_SCALAR || v->kind == YV_NULL;
	if (v->kind == YV_SEQ) {
		leaf = true;
		for (size_t i = 0; i < v->n; i++)
			if (v->items[i]->kind != YV_SCALAR)
				leaf = false;
	}
	/* a field whose value is a structure (a list of shapes, same_as) is one value */
	if (!leaf && path->n && session_path_type(&t->s, rule, path->s))
		leaf = true;
	if (leaf) {
		if (!path->n)
			return;
		if (!session_path_type(&t->s, rule, path->s))
			return;
		char *val = session_get_text(&t->s, rule, path->s);
		char shown_val[160];
		add(b, ROLE_NORMAL, rule, path->s, "  %s = %s", path->s, text_cut(shown_val, sizeof shown_val, val ? val : ""));
		free(val);
		return;
	}
	size_t len = path->n;
	for (size_t i = 0; i < v->n; i++) {
		if (v->kind == YV_MAP) {
			const char *k = v->keys[i]->text ? v->keys[i]->text : "";
			if (depth == 0 && (!strcmp(k, "name") || !strcmp(k, "version") || !strcmp(k, "description")))
				continue;
			sb_printf(path, "%s%s", len ? "." : "", k);
		} else {
			const fd_yval *type = len == 11 && !strncmp(path->s, "constraints", 11) ? yval_get(v->items[i], "type") : NULL;
			/* by type when the name reads as one (the session's canonical path) */
			bool by_type = type && type->kind == YV_SCALAR && *type->text && !strchr(type->text, '.') &&
			               !(type->text[0] >= '0' && type->text[0] <= '9');
			for (size_t j = 0; by_type && j < i; j++) {
				const fd_yval *tj = yval_get(v->items[j], "type");
				by_type = !(tj && tj->kind == YV_SCALAR && !strcmp(tj->text, type->text));
			}
			if (by_type)
				sb_printf(path, ".%s", type->text);
			else
				sb_printf(path, "%s%zu", len ? "." : "", i);
		}
		walk(b, rule, v->items[i], path, depth + 1);
		path->n = len;
		path->s[len] = 0;
	}
}

static void build_rule(build *b)
{
	tui *t = b->t;
	const fd_ruleset *rs = session_rules(&t->s);
	if (b->s->rule < 0 || b->s->rule >= rs->n_rules)
		return;
	const fd_rule *r = &rs->rules[b->s->rule];
	fd_rule_stats sum = tui_rule_stats(t, b->s->rule);   /* over every round */
	const fd_rule_stats *st = &sum;
	fd_srcpos p = yval_pos(r->root);
	add(b, ROLE_HEADER, b->s->rule, NULL, "rule %s", r->name);
	add(b, ROLE_KEY, b->s->rule, NULL, "%s:%d (document %d)", r->file ? r->file : "?", p.line, r->doc_index + 1);
	/* what the lint says of the rule as it is now: the reason a rule shows ! */
	fd_diags lint;
	diags_init(&lint);
	session_rule_lint(&t->s, b->s->rule, &lint);
	for (size_t i = 0; i < lint.n; i++)
		add(b, ROLE_WARN, b->s->rule, NULL, "%s %d:%d %s", t->disp->g->warn, lint.items[i].pos.line, lint.items[i].pos.col,
		    lint.items[i].message);
	diags_release(&lint);
	char all[32] = "";
	if (tui_n_rounds(t) > 1)   /* the figures add up every round: say so */
		snprintf(all, sizeof all, "all %d rounds: ", (int)tui_n_rounds(t));
	add(b, st->effect_times ? ROLE_FIRED : ROLE_NORMAL, b->s->rule, NULL,
	    "%sattempts %lld  match_times %lld  effect_times %lld", all, (long long)st->attempts,
	    (long long)st->match_times, (long long)st->effect_times);
	if (st->declined || st->unchanged)   /* its conditions after the match decided these */
		add(b, ROLE_NORMAL, b->s->rule, NULL, "matched, then declined %lld  took effect without change %lld",
		    (long long)st->declined, (long long)st->unchanged);
	char rungs[256] = "";
	for (int k = 0; k < RUNG_COUNT; k++)
		if (st->by_rung[k]) {
			char one[64];
			snprintf(one, sizeof one, "%s%s %lld", rungs[0] ? ", " : "", rung_name((fd_rung)k),
			         (long long)st->by_rung[k]);
			strncat(rungs, one, sizeof rungs - strlen(rungs) - 1);
		}
	if (rungs[0])
		add(b, ROLE_DIM, b->s->rule, NULL, "%s", rungs);
	if (r->target_op)
		add(b, ROLE_NORMAL, b->s->rule, NULL, "%s %s%s%s", t->disp->g->arrow, r->target_op, r->kernel_name ? ", kernel " : "",
		    r->kernel_name ? r->kernel_name : "");
	add(b, ROLE_HEADER, b->s->rule, NULL, "values (e edits the one under the cursor)");
	char val[64] = "";
	session_get(&t->s, b->s->rule, "enabled", val, sizeof val);
	add(b, r->enabled ? ROLE_NORMAL : ROLE_FAIL, b->s->rule, "enabled", "  enabled = %s", val);
	strbuf path = { 0 };
	sb_add(&path, "", 0);
	size_t before = b->rows->n;
	walk(b, b->s->rule, r->root, &path, 0);
	sb_release(&path);
	/* "enabled" may also be written in the document: keep one row */
	for (size_t i = before; i < b->rows->n; i++)
		if (!strcmp(b->rows->items[i].path, "enabled")) {
			memmove(&b->rows->items[i], &b->rows->items[i + 1], (b->rows->n - i - 1) * sizeof *b->rows->items);
			b->rows->n--;
			break;
		}
	/* edited values stand out */
	for (size_t i = before; i < b->rows->n; i++)
		for (size_t k = 0; k < t->s.n_applied; k++)
			if (t->s.edits[k].rule == b->s->rule && !strcmp(t->s.edits[k].path, b->rows->items[i].path))
				b->rows->items[i].role = ROLE_EDITED;
}

void tui_detail_rows(tui *t, const detail_subject *s, detail_rows *rows)
{
	build b = { t, s, rows };
	rows->n = 0;
	if (s->kind == DETAIL_NODE)
		build_node(&b);
	else if (s->kind == DETAIL_RULE)
		build_rule(&b);
	else
		add(&b, ROLE_DIM, -1, NULL, "move to a rule, a node or an event");
}
