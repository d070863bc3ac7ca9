/* view_state.c — the TUI's curses-free view logic: list cursor and scroll,
 * smartcase search, graph rows, breakpoints, the trace stepper and the
 * why-not landing. See view_state.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "ruleset/ruleset.h"
#include "trace/reason.h"
#include "view_state.h"
#include "explain/explain.h"

/* ---- list ---------------------------------------------------------------- */

static void list_fix(vs_list *l)
{
	if (l->n == 0) {
		l->cursor = l->top = 0;
		return;
	}
	if (l->cursor >= l->n)
		l->cursor = l->n - 1;
	size_t h = l->height > 0 ? (size_t)l->height : 1;
	if (l->cursor < l->top)
		l->top = l->cursor;
	if (l->cursor >= l->top + h)
		l->top = l->cursor - h + 1;
	/* no empty space below the last row when the list is longer than the view */
	if (l->n > h && l->top > l->n - h)
		l->top = l->n - h;
	if (l->n <= h)
		l->top = 0;
}

void vs_list_set_rows(vs_list *l, size_t n)
{
	l->n = n;
	list_fix(l);
}

void vs_list_set_height(vs_list *l, int height)
{
	l->height = height;
	list_fix(l);
}

void vs_list_move(vs_list *l, long delta)
{
	if (l->n == 0)
		return;
	if (delta < 0 && (size_t)-delta > l->cursor)
		l->cursor = 0;
	else if (delta > 0 && l->cursor + (size_t)delta >= l->n)
		l->cursor = l->n - 1;
	else
		l->cursor = (size_t)((long)l->cursor + delta);
	list_fix(l);
}

void vs_list_page(vs_list *l, int dir)
{
	long h = l->height > 1 ? l->height - 1 : 1;
	/* move the window and the cursor together, as less does */
	if (dir > 0) {
		size_t max_top = l->n > (size_t)l->height ? l->n - (size_t)l->height : 0;
		l->top = l->top + (size_t)h > max_top ? max_top : l->top + (size_t)h;
	} else {
		l->top = l->top > (size_t)h ? l->top - (size_t)h : 0;
	}
	vs_list_move(l, dir > 0 ? h : -h);
}

void vs_list_home(vs_list *l)
{
	l->cursor = l->top = 0;
	list_fix(l);
}

void vs_list_end(vs_list *l)
{
	l->cursor = l->n ? l->n - 1 : 0;
	list_fix(l);
}

void vs_list_goto(vs_list *l, size_t row)
{
	if (l->n == 0)
		return;
	if (row >= l->n)
		row = l->n - 1;
	size_t h = l->height > 0 ? (size_t)l->height : 1;
	l->cursor = row;
	if (row < l->top || row >= l->top + h)
		l->top = row > h / 3 ? row - h / 3 : 0;
	list_fix(l);
}

void vs_list_scroll(vs_list *l, long delta)
{
	size_t h = l->height > 0 ? (size_t)l->height : 1;
	size_t max_top = l->n > h ? l->n - h : 0;
	if (delta < 0)
		l->top = (size_t)-delta > l->top ? 0 : l->top - (size_t)-delta;
	else
		l->top = l->top + (size_t)delta > max_top ? max_top : l->top + (size_t)delta;
	if (l->cursor < l->top)
		l->cursor = l->top;
	if (l->cursor >= l->top + h)
		l->cursor = l->top + h - 1;
	list_fix(l);
}

bool vs_list_click(vs_list *l, int y)
{
	if (y < 0 || y >= l->height || l->top + (size_t)y >= l->n)
		return false;
	l->cursor = l->top + (size_t)y;
	list_fix(l);
	return true;
}

/* ---- search -------------------------------------------------------------- */

bool vs_text_matches(const char *hay, const char *needle)
{
	if (!needle || !*needle)
		return false;
	bool fold = true;
	for (const char *p = needle; *p; p++)
		if (isupper((unsigned char)*p))
			fold = false;
	if (!fold)
		return strstr(hay, needle) != NULL;
	size_t nl = strlen(needle);
	for (const char *h = hay; *h; h++) {
		size_t i = 0;
		while (i < nl && h[i] && tolower((unsigned char)h[i]) == (unsigned char)needle[i])
			i++;
		if (i == nl)
			return true;
	}
	return false;
}

size_t vs_search(size_t n, size_t from, int dir, const char *needle, vs_row_text_fn row_text, void *ctx,
                 bool *wrapped)
{
	char buf[1024];
	if (wrapped)
		*wrapped = false;
	if (n == 0 || !needle || !*needle)
		return VS_NONE;
	if (from >= n)
		from = dir > 0 ? n - 1 : 0;
	size_t row = from;
	for (size_t k = 0; k < n; k++) {
		if (dir > 0) {
			row = row + 1 < n ? row + 1 : 0;
			if (row == 0 && wrapped)
				*wrapped = true;
		} else {
			if (row == 0 && wrapped)
				*wrapped = true;
			row = row ? row - 1 : n - 1;
		}
		buf[0] = 0;
		const char *t = row_text(ctx, row, buf, sizeof buf);
		if (t && vs_text_matches(t, needle))
			return row;
	}
	return VS_NONE;
}

/* ---- graph rows ---------------------------------------------------------- */

/* An Identity whose input is a weight: it computes nothing, and listed in
 * topological order it would come before every real op. */
static bool weight_only(const fd_graph *g, const fd_node *n)
{
	if (strcmp(n->op_type, "Identity") || n->n_inputs != 1 || n->inputs[0] < 0)
		return false;
	uint8_t kind = g->tensors[n->inputs[0]].kind;
	return kind == TENSOR_INITIALIZER || kind == TENSOR_CONSTANT;
}

void vs_graph_rows_init(vs_graph_rows *gr, const fd_model *m)
{
	gr->n_graphs = m->n_graphs;
	gr->offset = xcalloc((size_t)m->n_graphs + 1, sizeof *gr->offset);
	for (int32_t g = 0; g < m->n_graphs; g++)
		gr->offset[g + 1] = gr->offset[g] + (size_t)m->graphs[g].n_nodes;
	size_t n_rows = gr->offset[m->n_graphs];
	gr->node_at = xcalloc(n_rows + 1, sizeof *gr->node_at);
	gr->row_of = xcalloc(n_rows + 1, sizeof *gr->row_of);
	for (int32_t g = 0; g < m->n_graphs; g++) {
		const fd_graph *gg = &m->graphs[g];
		int32_t k = 0;
		for (int pass = 0; pass < 2; pass++)   /* the real ops, then the weights' Identities */
			for (int32_t i = 0; i < gg->n_nodes; i++) {
				int32_t n = gg->topo_order[i];
				if (weight_only(gg, &gg->nodes[n]) != (pass == 1))
					continue;
				gr->node_at[gr->offset[g] + (size_t)k] = n;
				gr->row_of[gr->offset[g] + (size_t)n] = k++;
			}
	}
}

void vs_graph_rows_release(vs_graph_rows *gr)
{
	free(gr->offset);
	free(gr->node_at);
	free(gr->row_of);
	gr->offset = NULL;
	gr->node_at = gr->row_of = NULL;
	gr->n_graphs = 0;
}

size_t vs_graph_rows_count(const vs_graph_rows *gr)
{
	return gr->offset ? gr->offset[gr->n_graphs] : 0;
}

void vs_graph_row_node(const vs_graph_rows *gr, const fd_model *m, size_t row, int32_t *graph, int32_t *node)
{
	*graph = *node = FD_NONE;
	if (row >= vs_graph_rows_count(gr))
		return;
	int32_t lo = 0, hi = gr->n_graphs - 1;
	while (lo < hi) {  /* last graph whose offset <= row */
		int32_t mid = (lo + hi + 1) / 2;
		if (gr->offset[mid] <= row)
			lo = mid;
		else
			hi = mid - 1;
	}
	*graph = lo;
	*node = gr->node_at[row];
	(void)m;
}

size_t vs_graph_node_row(const vs_graph_rows *gr, const fd_model *m, int32_t graph, int32_t node)
{
	if (graph < 0 || graph >= gr->n_graphs || node < 0 || node >= m->graphs[graph].n_nodes)
		return VS_NONE;
	return gr->offset[graph] + (size_t)gr->row_of[gr->offset[graph] + (size_t)node];
}

bool vs_cut_name_tail(const char *name, int w, const char *ellipsis, int (*width)(const char *), char *out,
                      size_t size)
{
	enum { SNAP = 8 };   /* columns given up to start the tail at a scope */
	if (!strchr(name + (name[0] == '/'), '/') || width(name) <= w)
		return false;
	int room = w - width(ellipsis);
	/* the longest tail that fits, started at a character (not inside one) */
	const char *p = name + 1;
	while (*p && (width(p) > room || ((unsigned char)*p & 0xc0) == 0x80))
		p++;
	if (!*p)
		return false;
	/* at a '/' when one is near: whole scopes read best */
	const char *slash = strchr(p, '/');
	if (slash && slash - p <= SNAP)
		p = slash;
	snprintf(out, size, "%s%s", ellipsis, p);
	return true;
}

/* ---- breakpoints --------------------------------------------------------- */

void vs_bp_init(vs_breakpoints *b)
{
	*b = (vs_breakpoints){ 0 };
}

void vs_bp_release(vs_breakpoints *b)
{
	vec_release(b);
}

static bool bp_equal(const vs_breakpoint *a, const vs_breakpoint *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case BP_RULE: return a->rule == b->rule;
	case BP_NODE: return a->graph == b->graph && a->node == b->node;
	case BP_REASON: return a->reason == b->reason;
	}
	return false;
}

bool vs_bp_toggle(vs_breakpoints *b, const vs_breakpoint *bp)
{
	for (size_t i = 0; i < b->n; i++)
		if (bp_equal(&b->items[i], bp)) {
			vs_bp_remove(b, i);
			return false;
		}
	vec_push(b, *bp);
	return true;
}

void vs_bp_remove(vs_breakpoints *b, size_t i)
{
	if (i >= b->n)
		return;
	memmove(&b->items[i], &b->items[i + 1], (b->n - i - 1) * sizeof *b->items);
	b->n--;
}

bool vs_event_touches(const fd_match_result *r, uint32_t ev, int32_t graph, int32_t node)
{
	if (ev >= r->trace.n_events)
		return false;
	fd_event cur = trace_event(&r->trace, ev);
	const fd_event *e = &cur;
	if (e->graph != graph)
		return false;
	switch (e->kind) {
	case EV_ANCHOR: case EV_TYPE: case EV_ORDER: case EV_ARITY: case EV_PARAM: case EV_SOURCE:
	case EV_ESCAPE: case EV_CONSTRAINT: case EV_FIRE: case EV_REWRITE: case EV_COMPOSITE:
	case EV_OPERAND: case EV_OUTPUT: case EV_WHERE:
		return explain_unit_covers(r->ctx, graph, e->unit, node);
	case EV_SIBLINGS:   /* the candidate, and the member that decided */
		return explain_unit_covers(r->ctx, graph, e->unit, node) || e->other == node;
	case EV_CONFLICT: case EV_CYCLE:
		return e->unit == node;
	default:
		return false;
	}
}

static bool bp_hits(const vs_breakpoint *bp, const fd_match_result *r, const fd_event *e, uint32_t idx)
{
	switch (bp->kind) {
	case BP_RULE:
		return e->rule == bp->rule && (e->kind == EV_RULE || e->kind == EV_ANCHOR);
	case BP_NODE:
		return e->graph == bp->graph && (e->kind == EV_ANCHOR || e->kind == EV_TYPE) &&
		       explain_unit_covers(r->ctx, e->graph, e->unit, bp->mapped ? bp->at : bp->node);
	case BP_REASON:   /* a type check another candidate made good carries no failure */
		return e->reason == bp->reason && bp->reason != REASON_NONE &&
		       (e->kind != EV_TYPE || e->status != ST_FAIL || explain_superseded_by(r, idx) == UINT32_MAX);
	}
	return false;
}

/* The kinds of event bp_hits can stop at (the stepper skips blocks of others). */
static uint32_t bp_kinds(const vs_breakpoints *b)
{
	uint32_t k = 0;
	for (size_t i = 0; b && i < b->n; i++)
		switch (b->items[i].kind) {
		case BP_RULE: k |= EV_BIT(EV_RULE) | EV_BIT(EV_ANCHOR); break;
		case BP_NODE: k |= EV_BIT(EV_ANCHOR) | EV_BIT(EV_TYPE); break;
		case BP_REASON: k = UINT32_MAX; break;
		}
	return k;
}

static bool any_bp_hits(const vs_breakpoints *b, const fd_match_result *r, const fd_event *e, uint32_t idx)
{
	for (size_t i = 0; b && i < b->n; i++)
		if (bp_hits(&b->items[i], r, e, idx))
			return true;
	return false;
}

bool vs_bp_hit(const vs_breakpoints *b, const fd_match_result *r, uint32_t ev)
{
	if (!b || ev >= r->trace.n_events)
		return false;
	fd_event e = trace_event(&r->trace, ev);
	return any_bp_hits(b, r, &e, ev);
}

char *vs_bp_describe(const vs_breakpoint *bp, const fd_match_result *r, char *buf, size_t size)
{
	switch (bp->kind) {
	case BP_RULE:
		snprintf(buf, size, "rule %s", bp->rule >= 0 && bp->rule < r->rules->n_rules
		         ? r->rules->rules[bp->rule].name : "?");
		break;
	case BP_NODE: {
		const fd_model *m = r->ctx->model;
		const char *name = bp->graph >= 0 && bp->graph < m->n_graphs && bp->node >= 0 &&
		                   bp->node < m->graphs[bp->graph].n_nodes
		                   ? m->graphs[bp->graph].nodes[bp->node].name : "?";
		snprintf(buf, size, "node %s", name);
		break;
	}
	case BP_REASON: {
		const fd_reason_def *d = reason_get((fd_reason)bp->reason);
		snprintf(buf, size, "reason %s%s%s", d ? d->code : "?", d ? " " : "", d ? d->summary : "");
		break;
	}
	}
	return buf;
}

char *vs_bp_hits_at(const vs_breakpoints *b, const fd_match_result *r, uint32_t ev, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	if (ev >= r->trace.n_events)
		return buf;
	fd_event e = trace_event(&r->trace, ev);
	for (size_t i = 0; b && i < b->n && used + 4 < size; i++) {
		if (!bp_hits(&b->items[i], r, &e, ev))
			continue;
		char one[256];
		vs_bp_describe(&b->items[i], r, one, sizeof one);
		if (b->items[i].kind == BP_REASON)   /* the code without its summary */
			one[strcspn(one + 7, " ") + 7] = '\0';
		used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", one);
	}
	return buf;
}

bool vs_bp_reachable(const vs_breakpoint *bp, const fd_match_result *r, char *why, size_t size)
{
	if (bp->kind == BP_RULE) {
		const fd_rule_stats *st = &r->stats[bp->rule];
		if (st->attempts > st->by_rung[RUNG_NOT_RUN])
			return true;
		snprintf(why, size, "it %s: only its start stops", st->by_rung[RUNG_NOT_RUN] ? "does not run"
		         : "has no anchor in this run");
		return false;
	}
	vs_breakpoints one = { (vs_breakpoint *)bp, 1, 1 };
	fd_trace_iter it;
	fd_event ev;
	trace_iter_init(&it, &r->trace, 0);
	while (trace_iter_next_of(&it, bp_kinds(&one), &ev))
		if (bp_hits(bp, r, &ev, (uint32_t)(it.i - 1)))
			return true;
	snprintf(why, size, bp->kind == BP_NODE ? "no attempt of any rule reaches it in this run"
	         : "no event of this run carries that code");
	return false;
}

bool vs_bp_parse(const char *text, const fd_match_result *r, vs_breakpoint *bp, char *err, size_t size)
{
	while (*text == ' ')
		text++;
	char kind[16] = "", name[512];
	const char *sp = strchr(text, ' ');
	if (sp && (size_t)(sp - text) < sizeof kind) {
		snprintf(kind, sizeof kind, "%.*s", (int)(sp - text), text);
		if (!strcmp(kind, "rule") || !strcmp(kind, "node") || !strcmp(kind, "reason") || !strcmp(kind, "code"))
			text = sp + 1;
		else
			kind[0] = '\0';
	}
	while (*text == ' ')
		text++;
	snprintf(name, sizeof name, "%s", text);
	for (size_t n = strlen(name); n && name[n - 1] == ' '; n--)
		name[n - 1] = '\0';
	if (!name[0]) {
		snprintf(err, size, "break on what? rule NAME, node NAME or reason CODE");
		return false;
	}
	const fd_model *m = r->ctx->model;
	int32_t ri = ruleset_find(r->rules, name), g, n;
	fd_reason code = reason_from_code(name);
	bool any = !kind[0];
	if ((any || !strcmp(kind, "rule")) && ri >= 0) {
		*bp = (vs_breakpoint){ .kind = BP_RULE, .rule = ri };
		return true;
	}
	if ((any || !strcmp(kind, "node")) && model_find_node(m, name, &g, &n)) {
		*bp = (vs_breakpoint){ .kind = BP_NODE, .graph = g, .node = n };
		return true;
	}
	if ((any || kind[0] == 'r' || kind[0] == 'c') && strcmp(kind, "rule") && code != REASON_NONE) {
		*bp = (vs_breakpoint){ .kind = BP_REASON, .reason = code };
		return true;
	}
	/* did you mean: among the kind asked for, else among all three */
	char hint[600] = "";
	if (any || !strcmp(kind, "rule"))
		explain_rule_hint(r->rules, name, hint, sizeof hint);
	if (!hint[0] && (any || !strcmp(kind, "node")))
		explain_node_hint(m, name, hint, sizeof hint);
	if (!hint[0] && (any || kind[0] == 'r' || kind[0] == 'c') && strcmp(kind, "rule"))
		explain_reason_hint(name, hint, sizeof hint);
	snprintf(err, size, "no %s named '%s'%s", any ? "rule, node or reason code" : !strcmp(kind, "code") ? "reason"
	         : kind, name, hint);
	return false;
}

/* ---- stepper ------------------------------------------------------------- */

static size_t attempt_after(const fd_trace *t, uint32_t ev)
{
	return explain_attempt_after(t, ev);
}

uint32_t vs_attempt_of(const fd_trace *t, uint32_t ev)
{
	size_t lo = attempt_after(t, ev);
	if (lo == 0)
		return UINT32_MAX;
	const fd_attempt *a = &t->attempts[lo - 1];
	return ev < a->first_event + a->n_events ? (uint32_t)(lo - 1) : UINT32_MAX;
}

uint32_t vs_attempt_focus(const fd_trace *t, uint32_t attempt)
{
	if (attempt >= t->n_attempts)
		return 0;
	const fd_attempt *a = &t->attempts[attempt];
	if (a->decisive != UINT32_MAX && a->decisive < t->n_events)
		return a->decisive;
	return a->first_event;
}

static bool is_failure(const fd_trace *t, size_t ai)
{
	const fd_attempt *a = &t->attempts[ai];
	return a->rung != RUNG_FIRED && a->n_events > 0;
}

static uint32_t failure_event(const fd_trace *t, size_t ai)
{
	const fd_attempt *a = &t->attempts[ai];
	if (a->decisive != UINT32_MAX && a->decisive < t->n_events)
		return a->decisive;
	return a->first_event + a->n_events - 1;
}

uint32_t vs_stepper_move(const fd_match_result *r, const vs_breakpoints *bp, uint32_t cur, vs_step how,
                         bool *moved)
{
	const fd_trace *t = &r->trace;
	size_t n = t->n_events;
	uint32_t to = cur;
	fd_trace_iter it;        /* the scans below read events in order, not one by one */
	fd_trace_riter rit;
	fd_event ev;
	if (moved)
		*moved = false;
	if (n == 0)
		return 0;
	if (cur >= n)
		cur = to = (uint32_t)(n - 1);
	switch (how) {
	case STEP_NEXT_EVENT:
		if (cur + 1 < n)
			to = cur + 1;
		break;
	case STEP_PREV_EVENT:
		if (cur > 0)
			to = cur - 1;
		break;
	case STEP_START:
		to = 0;
		break;
	case STEP_END:
		to = (uint32_t)(n - 1);
		break;
	case STEP_NEXT_ATTEMPT: {
		size_t a = attempt_after(t, cur);
		while (a < t->n_attempts && t->attempts[a].n_events == 0)
			a++;
		if (a < t->n_attempts)
			to = t->attempts[a].first_event;
		break;
	}
	case STEP_PREV_ATTEMPT: {
		/* the start of the attempt we are in, when we are past it; else the one before */
		size_t a = attempt_after(t, cur);
		while (a > 0) {
			a--;
			if (t->attempts[a].n_events && t->attempts[a].first_event < cur) {
				to = t->attempts[a].first_event;
				break;
			}
		}
		break;
	}
	case STEP_NEXT_FIRE:
		trace_iter_init(&it, t, (size_t)cur + 1);
		if (trace_iter_next_of(&it, EV_BIT(EV_FIRE), &ev))
			to = (uint32_t)(it.i - 1);
		break;
	case STEP_PREV_FIRE:
		trace_riter_init(&rit, t, cur);
		if (trace_riter_prev_of(&rit, EV_BIT(EV_FIRE), &ev))
			to = (uint32_t)rit.i;
		break;
	case STEP_NEXT_FAILURE: {
		uint32_t in = vs_attempt_of(t, cur);
		size_t a = in != UINT32_MAX ? in : attempt_after(t, cur);
		for (; a < t->n_attempts; a++)
			if (is_failure(t, a) && failure_event(t, a) > cur) {
				to = failure_event(t, a);
				break;
			}
		break;
	}
	case STEP_PREV_FAILURE: {
		size_t a = attempt_after(t, cur);
		while (a-- > 0)
			if (is_failure(t, a) && failure_event(t, a) < cur) {
				to = failure_event(t, a);
				break;
			}
		break;
	}
	case STEP_CONTINUE:
		trace_iter_init(&it, t, (size_t)cur + 1);
		while (trace_iter_next_of(&it, bp_kinds(bp), &ev))
			if (any_bp_hits(bp, r, &ev, (uint32_t)(it.i - 1))) {
				to = (uint32_t)(it.i - 1);
				break;
			}
		break;
	case STEP_REVERSE_CONTINUE:
		trace_riter_init(&rit, t, cur);
		while (trace_riter_prev_of(&rit, bp_kinds(bp), &ev))
			if (any_bp_hits(bp, r, &ev, (uint32_t)rit.i)) {
				to = (uint32_t)rit.i;
				break;
			}
		break;
	case STEP_COUNT:
		break;
	}
	if (moved)
		*moved = to != cur;
	return to;
}

/* ---- why-not ------------------------------------------------------------- */

uint32_t vs_why_not(const fd_match_result *r, int32_t rule, int32_t graph, int32_t node)
{
	fd_why w;
	explain_why(r, rule, graph, node, &w);
	return w.attempt;
}
