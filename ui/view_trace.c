/* view_trace.c — the stepper: one row per trace event (rule starts,
 * attempts, every check), the cursor is the current event, and a box at the
 * bottom shows it in full: check, subject, expected, actual, reason, the
 * rule's file:line. Rows are formatted only when drawn (explain_event), so
 * a trace of millions of events opens at once.
 * The round it steps is the tui's (t->round: every view's title shows it).
 * State: its own trace_view (t->views[VIEW_TRACE].data): where its cursor
 * was across a re-run. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "view.h"
#include "explain/explain.h"

/* The view's own state (t->views[VIEW_TRACE].data): where its cursor was
 * before a re-run, by (round, rule, graph, anchor) and the offset in that
 * attempt, to find it again after. */
typedef struct trace_view {
	struct { int32_t round, rule, graph, anchor; uint32_t offset; bool valid; } spot;
} trace_view;

/* the round the view steps */
static const fd_match_result *res(tui *t)
{
	return tui_result(t);
}

static size_t rows(tui *t)
{
	return res(t)->trace.n_events;
}

static const char *outcome(const fd_attempt *a, char *buf, size_t size)
{
	if (a->rung == RUNG_FIRED)
		snprintf(buf, size, "fired");
	else
		snprintf(buf, size, "%s %s", rung_name((fd_rung)a->rung), reason_code((fd_reason)a->reason));
	return buf;
}

/* The row's words: lead (marks, kind) and body; name (may be NULL): the
 * node name the body shows, the part of its subject before " (". */
static void row_parts(tui *t, size_t row, char *lead, size_t lsize, char *body, size_t bsize, int *role, char *name,
                      size_t nsize)
{
	const fd_match_result *r = res(t);
	fd_event ev = trace_event(&r->trace, row);
	const fd_event *e = &ev;
	fd_event_text tx;
	explain_event(r, (uint32_t)row, &tx);
	if (name) {
		const char *paren = strstr(tx.subject, " (");
		snprintf(name, nsize, "%.*s", paren ? (int)(paren - tx.subject) : (int)strlen(tx.subject), tx.subject);
	}
	const char *rule = e->rule >= 0 ? r->rules->rules[e->rule].name : "";
	*role = ROLE_NORMAL;
	char oc[64];
	switch (e->kind) {
	case EV_RULE:
		*role = ROLE_HEADER;
		snprintf(lead, lsize, "rule");
		if (e->status == ST_FAIL)
			snprintf(body, bsize, "%s priority %lld: not run, %s [%s]", rule, (long long)e->a, tx.reason,
			         reason_code((fd_reason)e->reason));
		else
			snprintf(body, bsize, "%s priority %lld", rule, (long long)e->a);
		return;
	case EV_ANCHOR: {
		uint32_t ai = vs_attempt_of(&r->trace, (uint32_t)row);
		const fd_attempt *a = ai != UINT32_MAX ? &r->trace.attempts[ai] : NULL;
		*role = a && a->rung == RUNG_FIRED ? ROLE_FIRED : ROLE_HEADER;
		snprintf(lead, lsize, " attempt");
		snprintf(body, bsize, "%s @ %s %s %s", rule, tx.subject, t->disp->g->arrow, a ? outcome(a, oc, sizeof oc) : "?");
		return;
	}
	case EV_COMPOSITE:
		*role = ROLE_INFO;
		snprintf(lead, lsize, "canon");
		snprintf(body, bsize, "%s %s", tx.check, tx.subject);
		return;
	case EV_FIRE: case EV_REWRITE:
		*role = ROLE_FIRED;
		snprintf(lead, lsize, "   %s", e->kind == EV_FIRE ? "FIRED" : "rewrite");
		snprintf(body, bsize, "%s%s%s", tx.check, tx.expected[0] ? " " : "", tx.expected);
		return;
	default:
		break;
	}
	/* as shown: a type check another candidate made good is no failure (tx.status) */
	const char *mark = tx.status == ST_PASS ? t->disp->g->pass : tx.status == ST_FAIL ? t->disp->g->fail
	                 : tx.status == ST_WARN ? t->disp->g->warn : t->disp->g->info;
	*role = tx.status == ST_PASS ? ROLE_PASS : tx.status == ST_FAIL ? ROLE_FAIL
	      : tx.status == ST_WARN ? ROLE_WARN : ROLE_INFO;
	snprintf(lead, lsize, "   %s", mark);
	char at[180] = "";
	if (tx.subject[0])   /* subgraph and match-wide checks have no single subject */
		snprintf(at, sizeof at, " @ %s", tx.subject);
	if (tx.superseded)
		snprintf(body, bsize, "%s%s: %s", tx.check, at, tx.reason);
	else if (e->status == ST_FAIL || e->status == ST_WARN)
		snprintf(body, bsize, "%s%s: expected %s, actual %s [%s]", tx.check, at, tx.expected, tx.actual,
		         reason_code((fd_reason)e->reason));
	else if (tx.expected[0] || tx.actual[0])
		snprintf(body, bsize, "%s%s: %s", tx.check, at, tx.actual[0] ? tx.actual : tx.expected);
	else
		snprintf(body, bsize, "%s%s", tx.check, at);
}

/* For search: the event's number and words. */
static const char *row_text(tui *t, size_t row, char *buf, size_t size, int *role)
{
	char lead[32], body[768];
	row_parts(t, row, lead, sizeof lead, body, sizeof body, role, NULL, 0);
	snprintf(buf, size, "#%zu %s %s", row, lead, body);
	return buf;
}

static char *row_label(tui *t, size_t row, char *buf, size_t size)
{
	snprintf(buf, size, "event #%zu", row);
	return buf;
}

/* A row too wide for w columns: the node name it shows cut as every view
 * cuts names (display_cut_name: …/features.3.1/attn/Softmax) so that the
 * row fits, keeping at least a few columns of it: exporters' names share
 * their heads, the tail tells them apart. */
static void fit_name(tui *t, char *body, size_t bsize, const char *name, int w)
{
	enum { KEEP = 16 };
	int over = display_width(body) - w, nw = display_width(name), times = 0;
	size_t nl = strlen(name);
	for (const char *p = nl ? strstr(body, name) : NULL; p; p = strstr(p + nl, name))
		times++;   /* a canonical form names its node twice: "X (BiasAdd: … of X)" */
	if (over <= 0 || !times || nw <= KEEP)
		return;
	int share = (over + times - 1) / times, want = nw - share > KEEP ? nw - share : KEEP;
	/* and never past the right edge: its tail is what must show */
	char before[768];
	snprintf(before, sizeof before, "%.*s", (int)(strstr(body, name) - body), body);
	int room = w - display_width(before);
	if (room < want && room >= 8)
		want = room;
	char cut[512], out[768];
	display_cut_name(t->disp, name, want, cut, sizeof cut);
	size_t o = 0;
	for (const char *p = body; *p && o + 1 < sizeof out;) {
		if (!strncmp(p, name, nl)) {
			o += (size_t)snprintf(out + o, sizeof out - o, "%s", cut);
			p += nl;
		} else {
			out[o++] = *p++;
		}
	}
	out[o < sizeof out ? o : sizeof out - 1] = 0;
	snprintf(body, bsize, "%s", out);
}

static void keep_spot(tui *t);

static void draw_row(tui *t, size_t row, int y, int x, int w, bool cursor)
{
	/* the cursor's attempt, kept at every draw: a re-run that does not say
	 * so beforehand (@ binding a dim reloads the model) finds it too */
	if (cursor)
		keep_spot(t);
	const fd_match_result *r = res(t);
	char lead[32], body[768], num[32], name[512];
	int role;
	row_parts(t, row, lead, sizeof lead, body, sizeof body, &role, name, sizeof name);
	int end = x + w;
	attr_t cur = 0;
	if (cursor) {
		display_fill(t->disp, y, x, w, ROLE_CURSOR, 0);
		cur = A_BOLD;
	}
	int base = cursor ? ROLE_CURSOR : ROLE_DIM;
	bool bp = vs_bp_hit(&t->bps, r, (uint32_t)row);
	uint32_t ai = vs_attempt_of(&r->trace, (uint32_t)row);
	bool decisive = ai != UINT32_MAX && r->trace.attempts[ai].decisive == row &&
	                r->trace.attempts[ai].rung != RUNG_FIRED;
	x = display_text(t->disp, y, x, end - x, bp ? ROLE_BREAK : base, cur, bp ? t->disp->g->breakpoint : cursor ? t->disp->g->cursor : " ");
	x = display_text(t->disp, y, x, end - x, decisive ? ROLE_FAIL : base, cur, decisive ? ">" : " ");
	char id[24];
	snprintf(id, sizeof id, "#%zu", row);   /* events are numbered from #0, as every trace output has them */
	snprintf(num, sizeof num, "%7s ", id);
	x = display_text(t->disp, y, x, end - x, base, cur, num);
	x = display_text(t->disp, y, x, end - x, cursor ? ROLE_CURSOR : role, cur, lead);
	fit_name(t, body, sizeof body, name, end - x - 1);
	display_text(t->disp, y, x + 1, end - x - 1, cursor ? ROLE_CURSOR : (role == ROLE_PASS || role == ROLE_INFO)
	             ? ROLE_NORMAL : role, cur, body);
}

static int footer_lines(tui *t, int pane_h)
{
	int h = pane_h / 3;
	return h > 8 ? 8 : h < 3 ? (pane_h > 6 ? 3 : 0) : h;
}

static void field(tui *t, int y, int x, int w, const char *label, int role, const char *value)
{
	int vx = display_text(t->disp, y, x, w, ROLE_DIM, 0, label);
	char fit[1024];
	display_text(t->disp, y, vx, x + w - vx, role, 0, tui_fit_names(t, value, x + w - vx, fit, sizeof fit));
}

static void draw_footer(tui *t, int y, int x, int w, int h)
{
	const fd_match_result *r = res(t);
	attrset(theme_attr(&t->disp->theme, ROLE_BORDER));
	mvhline_set(y, x, WACS_HLINE, w);
	attrset(A_NORMAL);
	if (r->trace.n_events == 0) {
		display_text(t->disp, y + 1, x + 1, w - 1, ROLE_DIM, 0, "no events: no rule had an anchor in this model");
		return;
	}
	uint32_t ev = (uint32_t)t->views[VIEW_TRACE].list.cursor;
	fd_event cur = trace_event(&r->trace, ev);
	const fd_event *e = &cur;
	fd_event_text tx;
	explain_event(r, ev, &tx);
	char buf[1024];
	uint32_t ai = vs_attempt_of(&r->trace, ev);
	char oc[64] = "";
	if (ai != UINT32_MAX)
		snprintf(oc, sizeof oc, "  attempt %u: %s", ai, outcome(&r->trace.attempts[ai], buf, sizeof buf));
	bool code = e->reason && !tx.superseded;
	snprintf(buf, sizeof buf, " event #%u  %s %s%s%s%s", ev,
	         trace_event_kind_name((fd_event_kind)e->kind), trace_status_name((fd_ev_status)tx.status),
	         code ? " " : "", code ? reason_code((fd_reason)e->reason) : "", oc);
	int role = tx.status == ST_FAIL ? ROLE_FAIL : tx.status == ST_WARN ? ROLE_WARN
	         : e->kind == EV_FIRE ? ROLE_FIRED : ROLE_HEADER;
	display_text(t->disp, y, x + 1, w - 2, role, 0, buf);
	int line = 1;
	if (line < h) {
		snprintf(buf, sizeof buf, "%s%s%s", tx.check, tx.subject[0] ? " @ " : "", tx.subject);
		field(t, y + line++, x + 1, w - 1, "check    ", ROLE_NORMAL, buf);
	}
	if (line < h)
		field(t, y + line++, x + 1, w - 1, "expected ", ROLE_PASS, tx.expected[0] ? tx.expected : "-");
	if (line < h)
		field(t, y + line++, x + 1, w - 1, "actual   ", tx.status == ST_FAIL ? ROLE_FAIL : ROLE_NORMAL,
		      tx.actual[0] ? tx.actual : "-");
	if (line < h)
		field(t, y + line++, x + 1, w - 1, "reason   ", ROLE_NORMAL, tx.reason[0] ? tx.reason : "-");
	if (line < h) {
		if (tx.where.file && tx.where.line)
			snprintf(buf, sizeof buf, "%s:%d:%d", tx.where.file, tx.where.line, tx.where.col);
		else
			snprintf(buf, sizeof buf, "-");
		field(t, y + line++, x + 1, w - 1, "where    ", ROLE_KEY, buf);
	}
	if (line < h && e->rule >= 0) {
		snprintf(buf, sizeof buf, "%s (priority %lld)", r->rules->rules[e->rule].name,
		         (long long)r->rules->rules[e->rule].priority);
		field(t, y + line++, x + 1, w - 1, "rule     ", ROLE_NORMAL, buf);
	}
}

/* The event under the cursor; false when the trace is empty. */
static bool cursor_event(tui *t, fd_event *e)
{
	const fd_match_result *r = res(t);
	if (r->trace.n_events == 0)
		return false;
	*e = trace_event(&r->trace, t->views[VIEW_TRACE].list.cursor);
	return true;
}

/* Whether the event is about a unit of a graph (not a rule's start, not a
 * match-wide check); *node: that unit's node, or -1. */
static bool event_node(const fd_match_result *r, const fd_event *e, int32_t *node)
{
	if (e->kind == EV_RULE || e->graph < 0 || e->unit < 0 || e->graph >= r->ctx->n_graphs ||
	    e->unit >= r->ctx->graphs[e->graph].n_units)
		return false;
	*node = e->kind == EV_CONFLICT || e->kind == EV_CYCLE ? e->unit : match_unit_node(r->ctx, e->graph, e->unit);
	return true;
}

static void select_row(tui *t)
{
	fd_event e;
	int32_t node;
	if (!cursor_event(t, &e))
		return;
	if (!event_node(res(t), &e, &node)) {
		if (e.rule >= 0)
			tui_set_detail_rule(t, e.rule);
	} else if ((node = tui_original_node(t, e.graph, node)) >= 0) {
		tui_set_detail_node(t, e.graph, node);
	}
}

/* b in the trace view: what to break on, when the event offers a choice. */
static unsigned breakpoint_menu(tui *t)
{
	const fd_match_result *r = res(t);
	fd_event cur;
	if (!cursor_event(t, &cur))
		return RES_OK;
	const fd_event *e = &cur;
	vs_breakpoint choice[3];
	char text[3][256];
	const char *items[3];
	int n = 0;
	if (e->reason != REASON_NONE) {
		choice[n] = (vs_breakpoint){ .kind = BP_REASON, .reason = e->reason };
		n++;
	}
	if (e->rule >= 0) {
		choice[n] = (vs_breakpoint){ .kind = BP_RULE, .rule = e->rule };
		n++;
	}
	int32_t node, orig;
	if (event_node(r, e, &node) && node >= 0 && (orig = tui_original_node(t, e->graph, node)) >= 0) {
		/* on the node as loaded; it stops where that node is in each round */
		choice[n] = (vs_breakpoint){ .kind = BP_NODE, .graph = e->graph, .node = orig, .mapped = t->round > 1,
		                             .at = node };
		n++;
	}
	if (n == 0)
		return RES_OK;
	for (int i = 0; i < n; i++) {
		vs_bp_describe(&choice[i], session_result(&t->s), text[i], sizeof text[i]);
		items[i] = text[i];
	}
	int k = n == 1 ? 0 : prompt_menu(t, "toggle a breakpoint on", items, n, 0);
	if (k < 0)
		return RES_REDRAW;
	return tui_toggle_breakpoint(t, &choice[k]);
}

/* The edit path of the rule value an event checked, so that e on a failing
 * check edits what decided it; "" when the event names no single value, or
 * one the session cannot set. */
static void event_path(tui *t, uint32_t idx, const fd_event *e, char *buf, size_t size)
{
	if (explain_event_path(res(t), idx, buf, size) && !session_path_type(&t->s, e->rule, buf))
		buf[0] = 0;
}

static unsigned action(tui *t, enum tui_action a)
{
	switch (a) {
	case ACT_EDIT: {
		fd_event e = { 0 };
		char path[160] = "";
		if (cursor_event(t, &e))
			event_path(t, (uint32_t)t->views[VIEW_TRACE].list.cursor, &e, path, sizeof path);
		if (!path[0])
			return RES_UNHANDLED;   /* the generic PATH=VALUE prompt */
		return tui_edit_value(t, e.rule, path);
	}
	case ACT_BREAKPOINT: return breakpoint_menu(t);
	case ACT_ENTER:
		select_row(t);
		return tui_show_view(t, VIEW_DETAIL);
	default:
		return RES_UNHANDLED;
	}
}

static int32_t cursor_rule(tui *t)
{
	fd_event e;
	return cursor_event(t, &e) ? e.rule : -1;
}

static const enum tui_action hints[] = {
	ACT_STEP_NEXT, ACT_STEP_PREV, ACT_NEXT_ATTEMPT, ACT_PREV_ATTEMPT, ACT_NEXT_FIRE, ACT_NEXT_FAILURE,
	ACT_CONTINUE, ACT_BREAKPOINT, ACT_EDIT, ACT_VIEW_HELP, ACT_NONE
};

/* Before a re-run: the attempt under the cursor and the event's place in it. */
static void keep_spot(tui *t)
{
	trace_view *tv = t->views[VIEW_TRACE].data;
	const fd_match_result *r = res(t);
	uint32_t ev = (uint32_t)t->views[VIEW_TRACE].list.cursor;
	uint32_t a = vs_attempt_of(&r->trace, ev);
	tv->spot.valid = a != UINT32_MAX;
	tv->spot.round = t->round;
	if (tv->spot.valid) {
		tv->spot.rule = r->trace.attempts[a].rule;
		tv->spot.graph = r->trace.attempts[a].graph;
		tv->spot.anchor = r->trace.attempts[a].anchor;
		tv->spot.offset = ev - r->trace.attempts[a].first_event;
	}
}

static void before_run(tui *t)
{
	keep_spot(t);
}

/* After it: the same round, and the cursor on the same attempt when the
 * new run made it again (as near its old event as it has events). */
static void after_run(tui *t)
{
	trace_view *tv = t->views[VIEW_TRACE].data;
	tui_use_round(t, tv->spot.round);
	const fd_match_result *r = res(t);
	vs_list_set_rows(&t->views[VIEW_TRACE].list, r->trace.n_events);
	if (!tv->spot.valid)
		return;
	tv->spot.valid = false;
	for (size_t i = 0; i < r->trace.n_attempts; i++) {
		const fd_attempt *a = &r->trace.attempts[i];
		if (a->rule == tv->spot.rule && a->graph == tv->spot.graph && a->anchor == tv->spot.anchor) {
			uint32_t off = tv->spot.offset < a->n_events ? tv->spot.offset : (a->n_events ? a->n_events - 1 : 0);
			vs_list_goto(&t->views[VIEW_TRACE].list, a->first_event + off);
			return;
		}
	}
}

/* Its rows: round 1's events; no spot yet. */
static void *open_view(tui *t)
{
	vs_list_set_rows(&t->views[VIEW_TRACE].list, session_result(&t->s)->trace.n_events);
	return xcalloc(1, sizeof(trace_view));
}

static void close_view(void *data)
{
	free(data);
}

const view_ops view_trace_ops = {
	.rows = rows, .text = row_text, .draw_row = draw_row, .action = action,
	.select = select_row, .footer_lines = footer_lines, .draw_footer = draw_footer, .hints = hints,
	.row_label = row_label, .cursor_rule = cursor_rule,
	.open = open_view, .close = close_view, .before_run = before_run, .after_run = after_run,
};
