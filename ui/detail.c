/* detail.c — what the detail view shows, as rows: for a node, its fusion
 * with the memory and speed-up estimates, its attributes and its tensors
 * (shape, dtype, bytes, where they come from / go); for a rule, its
 * file:line, counts and every editable value with its edit path. The rows
 * are rebuilt when the subject or the session changes (RES_DETAIL,
 * RES_RERUN), never per frame. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "loop.h"
#include "estimate/estimate.h"

static void add(tui *t, int role, int32_t rule, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void add(tui *t, int role, int32_t rule, const char *path, const char *fmt, ...)
{
	vec_grow(&t->drows, t->drows.n + 1);
	detail_row *r = &t->drows.items[t->drows.n++];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->text, sizeof r->text, fmt, ap);
	va_end(ap);
	r->role = role;
	r->rule = rule;
	snprintf(r->path, sizeof r->path, "%s", path ? path : "");
}

void tui_set_detail_rule(tui *t, int32_t rule)
{
	if (t->dkind != DETAIL_RULE || t->drule != rule)
		t->list[VIEW_DETAIL].cursor = t->list[VIEW_DETAIL].top = 0;
	t->dkind = DETAIL_RULE;
	t->drule = rule;
}

void tui_set_detail_node(tui *t, int32_t graph, int32_t node)
{
	if (t->dkind != DETAIL_NODE || t->dgraph != graph || t->dnode != node)
		t->list[VIEW_DETAIL].cursor = t->list[VIEW_DETAIL].top = 0;
	t->dkind = DETAIL_NODE;
	t->dgraph = graph;
	t->dnode = node;
}

static const char *bytes(int64_t b, char *buf, size_t size)
{
	return estimate_format_bytes(b, buf, size);
}

static void tensor_row(tui *t, const fd_graph *g, int32_t ti, const char *dir)
{
	if (ti < 0) {
		add(t, ROLE_DIM, -1, NULL, "  %s (omitted)", dir);
		return;
	}
	const fd_tensor *tt = &g->tensors[ti];
	char sb[96], bb[32] = "?", from[160] = "";
	int64_t b;
	if (tensor_bytes(tt, &b))
		bytes(b, bb, sizeof bb);
	static const char *const kinds[] = { "activation", "graph input", "weight", "constant", "outer scope" };
	if (!strcmp(dir, "in") && tt->producer >= 0)
		snprintf(from, sizeof from, " from %s", g->nodes[tt->producer].name);
	else if (!strcmp(dir, "in"))
		snprintf(from, sizeof from, " (%s)", kinds[tt->kind]);
	else if (tt->n_consumers > 0)
		snprintf(from, sizeof from, " to %s%s", g->nodes[tt->consumers[0]].name,
		         tt->n_consumers > 1 ? " +more" : "");
	if (tt->is_graph_output)
		strncat(from, " (graph output)", sizeof from - strlen(from) - 1);
	add(t, ROLE_NORMAL, -1, NULL, "  %-3s %-22s %s %s  %s%s", dir, tt->name, shape_format(&tt->shape, sb, sizeof sb),
	    dtype_name(tt->dtype), bb, from);
}

static void attr_value(const fd_attr *a, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = 0;
	switch (a->type) {
	case ATTR_FLOAT: snprintf(buf, size, "%g", a->u.f); return;
	case ATTR_INT: snprintf(buf, size, "%lld", (long long)a->u.i); return;
	case ATTR_STRING: snprintf(buf, size, "\"%s\"", a->u.s ? a->u.s : ""); return;
	case ATTR_INTS: case ATTR_FLOATS:
		used += (size_t)snprintf(buf, size, "[");
		for (int64_t i = 0; i < a->count && used + 24 < size; i++) {
			if (a->type == ATTR_INTS)
				used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "", (long long)a->u.ints[i]);
			else
				used += (size_t)snprintf(buf + used, size - used, "%s%g", i ? ", " : "", a->u.floats[i]);
		}
		snprintf(buf + used, size - used, "]");
		return;
	case ATTR_GRAPH: snprintf(buf, size, "(graph)"); return;
	case ATTR_TENSOR: snprintf(buf, size, "(tensor)"); return;
	default: snprintf(buf, size, "(%lld values)", (long long)a->count); return;
	}
}

static void build_node(tui *t)
{
	const fd_model *m = session_model(&t->s);
	if (t->dgraph < 0 || t->dgraph >= m->n_graphs || t->dnode < 0 || t->dnode >= m->graphs[t->dgraph].n_nodes)
		return;
	const fd_graph *g = &m->graphs[t->dgraph];
	const fd_node *n = &g->nodes[t->dnode];
	const fd_match_result *r = session_result(&t->s);
	const fd_estimate *e = session_estimate(&t->s);
	add(t, ROLE_HEADER, -1, NULL, "node %s (%s%s%s)", n->name, n->domain && *n->domain ? n->domain : "",
	    n->domain && *n->domain ? "." : "", n->op_type);
	add(t, ROLE_DIM, -1, NULL, "graph %s, step %d of %d", t->dgraph ? g->name : "main", n->topo + 1, g->n_nodes);
	int32_t f = r->claim[t->dgraph][t->dnode];
	if (f >= 0) {
		const fd_fusion *fu = &r->fusions[f];
		const fd_rule *rule = &r->rules->rules[fu->rule];
		char b1[32], b2[32], b3[32], b4[32], b5[32];
		add(t, ROLE_RULE0 + fu->rule % ROLE_RULE_COLOURS, fu->rule, NULL, "fusion #%d by %s: %d nodes %s %s", f,
		    rule->name, fu->n_nodes, G.arrow, rule->target_op ? rule->target_op : "?");
		char members[240] = "";
		const int32_t *ids = fusion_ids(r, fu->nodes);
		for (int32_t i = 0; i < fu->n_nodes && strlen(members) < sizeof members - 40; i++) {
			strcat(members, i ? ", " : "");
			strcat(members, g->nodes[ids[i]].name);
		}
		add(t, ROLE_NORMAL, -1, NULL, "  nodes %s", members);
		if ((size_t)f < e->n_fusions) {
			const fd_fusion_est *fe = &e->fusions[f];
			add(t, ROLE_NORMAL, -1, NULL, "  in %s (act %s, const %s)  out %s", bytes(fe->inputs_bytes, b1, sizeof b1),
			    bytes(fe->input_act_bytes, b2, sizeof b2), bytes(fe->input_const_bytes, b3, sizeof b3),
			    bytes(fe->outputs_bytes, b4, sizeof b4));
			add(t, ROLE_NORMAL, -1, NULL, "  removed %s  ws %s%s", bytes(fe->intermediate_bytes_removed, b1, sizeof b1),
			    bytes(fe->workspace_bytes, b2, sizeof b2), fe->workspace_known ? "" : " (unknown)");
			char sp[48];
			add(t, ROLE_FIRED, -1, NULL, "  kernel peak %s%s  %s (%s)", bytes(fe->kernel_peak_bytes, b5, sizeof b5),
			    fe->chunk_ratio < 1 ? " chunked" : "", estimate_format_speedup(fe->speedup, sp, sizeof sp),
			    fe->compute_bound ? "compute bound" : "memory bound");
			if (fe->advice != ADVICE_NONE)
				add(t, ROLE_WARN, -1, NULL, "  advice: %s", mem_advice_text(fe->advice));
			if (fe->n_unknown)
				add(t, ROLE_WARN, -1, NULL, "  %d tensor%s of unknown size counted as 0", fe->n_unknown,
				    fe->n_unknown == 1 ? "" : "s");
		}
	} else {
		add(t, ROLE_DIM, -1, NULL, "not fused (w: why-not)");
	}
	if (n->n_attrs) {
		add(t, ROLE_HEADER, -1, NULL, "attributes");
		for (int32_t i = 0; i < n->n_attrs; i++) {
			char v[200];
			attr_value(&n->attrs[i], v, sizeof v);
			add(t, ROLE_NORMAL, -1, NULL, "  %s = %s", n->attrs[i].name, v);
		}
	}
	add(t, ROLE_HEADER, -1, NULL, "tensors (shape dtype bytes)");
	for (int32_t i = 0; i < n->n_inputs; i++)
		tensor_row(t, g, n->inputs[i], "in");
	for (int32_t i = 0; i < n->n_outputs; i++)
		tensor_row(t, g, n->outputs[i], "out");
}

/* Editable values: every scalar (or list of scalars) of the rule's document
 * whose path the session accepts. Constraints are named by type. */
static void walk(tui *t, int32_t rule, const fd_yval *v, char *path, size_t len, size_t size, int depth)
{
	if (!v || depth > 8)
		return;
	bool leaf = v->kind == YV_SCALAR || v->kind == YV_NULL;
	if (v->kind == YV_SEQ) {
		leaf = true;
		for (size_t i = 0; i < v->n; i++)
			if (v->items[i]->kind != YV_SCALAR)
				leaf = false;
	}
	const char *why;
	/* a field whose value is a structure (a list of shapes, same_as) is one value */
	if (!leaf && len && session_path_type(&t->s, rule, path, &why))
		leaf = true;
	if (leaf) {
		if (!len)
			return;
		if (!session_path_type(&t->s, rule, path, &why))
			return;
		char val[160] = "";
		session_get(&t->s, rule, path, val, sizeof val);
		add(t, ROLE_NORMAL, rule, path, "  %s = %s", path, val);
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		char seg[96];
		if (v->kind == YV_MAP) {
			const char *k = v->keys[i]->text ? v->keys[i]->text : "";
			if (depth == 0 && (!strcmp(k, "name") || !strcmp(k, "version") || !strcmp(k, "description")))
				continue;
			snprintf(seg, sizeof seg, "%s", k);
		} else {
			const fd_yval *type = len == 11 && !strncmp(path, "constraints", 11) ? yval_get(v->items[i], "type") : NULL;
			if (type && type->kind == YV_SCALAR)
				snprintf(seg, sizeof seg, "%s", type->text);
			else
				snprintf(seg, sizeof seg, "%zu", i);
		}
		int w = snprintf(path + len, size - len, "%s%s", len ? "." : "", seg);
		if (w > 0 && (size_t)w < size - len)
			walk(t, rule, v->items[i], path, len + (size_t)w, size, depth + 1);
		path[len] = 0;
	}
}

static void build_rule(tui *t)
{
	const fd_ruleset *rs = session_rules(&t->s);
	if (t->drule < 0 || t->drule >= rs->n_rules)
		return;
	const fd_rule *r = &rs->rules[t->drule];
	const fd_rule_stats *st = &session_result(&t->s)->stats[t->drule];
	fd_srcpos p = yval_pos(r->root);
	add(t, ROLE_HEADER, t->drule, NULL, "rule %s", r->name);
	add(t, ROLE_KEY, t->drule, NULL, "%s:%d (document %d)", r->file ? r->file : "?", p.line, r->doc_index + 1);
	add(t, st->effect_times ? ROLE_FIRED : ROLE_NORMAL, t->drule, NULL,
	    "attempts %lld  match_times %lld  effect_times %lld", (long long)st->attempts, (long long)st->match_times,
	    (long long)st->effect_times);
	char rungs[256] = "";
	for (int k = 0; k < RUNG_COUNT; k++)
		if (st->by_rung[k]) {
			char one[64];
			snprintf(one, sizeof one, "%s%s %lld", rungs[0] ? ", " : "", rung_name((fd_rung)k),
			         (long long)st->by_rung[k]);
			strncat(rungs, one, sizeof rungs - strlen(rungs) - 1);
		}
	if (rungs[0])
		add(t, ROLE_DIM, t->drule, NULL, "%s", rungs);
	if (r->target_op)
		add(t, ROLE_NORMAL, t->drule, NULL, "%s %s%s%s", G.arrow, r->target_op, r->kernel_name ? ", kernel " : "",
		    r->kernel_name ? r->kernel_name : "");
	add(t, ROLE_HEADER, t->drule, NULL, "values (e edits the one under the cursor)");
	char val[64] = "";
	session_get(&t->s, t->drule, "enabled", val, sizeof val);
	add(t, r->enabled ? ROLE_NORMAL : ROLE_FAIL, t->drule, "enabled", "  enabled = %s", val);
	char path[256] = "";
	size_t before = t->drows.n;
	walk(t, t->drule, r->root, path, 0, sizeof path, 0);
	/* "enabled" may also be written in the document: keep one row */
	for (size_t i = before; i < t->drows.n; i++)
		if (!strcmp(t->drows.items[i].path, "enabled")) {
			memmove(&t->drows.items[i], &t->drows.items[i + 1], (t->drows.n - i - 1) * sizeof *t->drows.items);
			t->drows.n--;
			break;
		}
	/* edited values stand out */
	for (size_t i = before; i < t->drows.n; i++)
		for (size_t k = 0; k < t->s.n_applied; k++)
			if (t->s.edits[k].rule == t->drule && !strcmp(t->s.edits[k].path, t->drows.items[i].path))
				t->drows.items[i].role = ROLE_EDITED;
}

void tui_detail_build(tui *t)
{
	t->drows.n = 0;
	if (t->dkind == DETAIL_NODE)
		build_node(t);
	else if (t->dkind == DETAIL_RULE)
		build_rule(t);
	else
		add(t, ROLE_DIM, -1, NULL, "move to a rule, a node or an event");
	vs_list_set_rows(&t->list[VIEW_DETAIL], t->drows.n);
}
