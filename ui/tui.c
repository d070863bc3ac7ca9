/* tui.c — the services on the tui state that views and handlers share:
 * messages, going to a view or an event, the rule under the cursor, list
 * moves, and the state derived from the session (the views' own, through
 * their before_run and after_run; the recovery file).
 * A view is reached only through its view_ops. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "explain/explain.h"
#include "loop.h"
#include "signals.h"
#include "base/text.h"

void tui_message(tui *t, int role, const char *fmt, ...)
{
	/* a long message keeps its head and its tail (what happened, and the
	 * counts after it) */
	strbuf b = { 0 };
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	text_cut(t->msg, sizeof t->msg, sb_str(&b));
	sb_release(&b);
	t->msg_role = role;
}

/* A node's or a tensor's name in the session's model. */
static bool model_name(void *ctx, const char *word)
{
	const fd_model *m = ctx;
	int32_t g, n;
	if (model_find_node(m, word, &g, &n))
		return true;
	for (int32_t k = 0; k < m->n_graphs; k++)
		if (graph_find_tensor(&m->graphs[k], word) >= 0)
			return true;
	return false;
}

char *tui_fit_names(tui *t, const char *s, int w, char *out, size_t size)
{
	return display_fit_names(t->disp, s, w, model_name, (void *)session_model(&t->s), out, size);
}

unsigned tui_toggle_breakpoint(tui *t, const vs_breakpoint *bp)
{
	const fd_match_result *r = session_result(&t->s);
	char what[256], why[400];
	vs_bp_describe(bp, r, what, sizeof what);
	if (!vs_bp_toggle(&t->bps, bp))
		tui_message(t, ROLE_BREAK, "breakpoint removed: %s", what);
	else if (!vs_bp_reachable(bp, r, why, sizeof why)) {
		if (bp->kind == BP_REASON)   /* the code is enough here, not its summary */
			what[strcspn(what + 7, " ") + 7] = '\0';
		tui_message(t, ROLE_WARN, "breakpoint set: %s, but %s", what, why);
	}
	else
		tui_message(t, ROLE_BREAK, "breakpoint set: %s (c runs to it, B lists them)", what);
	return RES_REDRAW;
}

/* ---- views and selection ------------------------------------------------- */

void tui_select_focus(tui *t)
{
	const view_ops *ops = t->views[t->focus].ops;
	if (ops->select)
		ops->select(t);
}

unsigned tui_show_view(tui *t, enum tui_view v)
{
	if (v == t->focus)
		return RES_REDRAW;
	if (t->depth < (int)(sizeof t->stack / sizeof *t->stack))
		t->stack[t->depth++] = t->focus;
	t->focus = v;
	display_layout(t);
	tui_select_focus(t);
	return RES_REDRAW | RES_DETAIL;
}

unsigned tui_show_node(tui *t, int32_t graph, int32_t node)
{
	const view_ops *graph_ops = t->views[VIEW_GRAPH].ops;
	size_t gr = graph_ops->node_row(t, graph, node);
	if (gr == VS_NONE)
		return RES_REDRAW;
	unsigned res = tui_show_view(t, VIEW_GRAPH);
	vs_list_set_rows(&t->views[VIEW_GRAPH].list, graph_ops->rows(t));
	vs_list_goto(&t->views[VIEW_GRAPH].list, gr);
	tui_set_detail_node(t, graph, node);
	return res | RES_DETAIL;
}

/* ---- the detail's subject ------------------------------------------------ */

void tui_set_detail_rule(tui *t, int32_t rule)
{
	t->views[VIEW_DETAIL].ops->set_subject(t, &(detail_subject){ .kind = DETAIL_RULE, .rule = rule });
}

void tui_set_detail_node(tui *t, int32_t graph, int32_t node)
{
	t->views[VIEW_DETAIL].ops->set_subject(t, &(detail_subject){ .kind = DETAIL_NODE, .graph = graph, .node = node });
}

detail_subject tui_detail_subject(tui *t)
{
	return t->views[VIEW_DETAIL].ops->subject(t);
}

void tui_detail_build(tui *t)
{
	t->views[VIEW_DETAIL].ops->rebuild(t);
}

/* ---- rounds --------------------------------------------------------------- */

int32_t tui_n_rounds(const tui *t)
{
	return session_rounds(&t->s)->n;
}

const fd_match_result *tui_result(const tui *t)
{
	const fd_round *r = rounds_get(session_rounds(&t->s), t->round);
	return r ? r->result : session_result(&t->s);
}

int32_t tui_original_node(const tui *t, int32_t graph, int32_t node)
{
	if (t->round <= 1 || node < 0)
		return node;
	fd_id_vec orig = { 0 };
	rounds_original_nodes(session_rounds(&t->s), t->round, graph, node, &orig);
	int32_t first = orig.n ? orig.items[0] : FD_NONE;
	vec_release(&orig);
	return first;
}

fd_rule_stats tui_rule_stats(const tui *t, int32_t rule)
{
	fd_rule_stats sum = { 0 };
	const fd_rounds *rd = session_rounds(&t->s);
	for (int32_t k = 0; k < rd->n; k++) {
		const fd_rule_stats *st = &rd->items[k]->result->stats[rule];
		sum.attempts += st->attempts;
		sum.match_times += st->match_times;
		sum.effect_times += st->effect_times;
		sum.declined += st->declined;
		sum.unchanged += st->unchanged;
		for (int g = 0; g < RUNG_COUNT; g++)
			sum.by_rung[g] += st->by_rung[g];
	}
	if (rd->n == 0)
		sum = session_result(&t->s)->stats[rule];
	return sum;
}

uint32_t tui_best_attempt(const tui *t, int32_t rule, bool miss, int32_t *round)
{
	const fd_rounds *rd = session_rounds(&t->s);
	uint32_t best = UINT32_MAX, best_score = 0;
	bool best_fired = false;
	*round = 1;
	for (int32_t k = 1; k <= rd->n; k++) {
		const fd_match_result *r = rd->items[k - 1]->result;
		uint32_t idx[256];
		size_t n = explain_rank_attempts(r, rule, idx, 256);
		for (size_t i = 0; i < n; i++) {
			const fd_attempt *a = &r->trace.attempts[idx[i]];
			bool fired = a->rung == RUNG_FIRED;
			if (miss && fired)
				continue;
			if (best == UINT32_MAX || (fired && !best_fired) || (fired == best_fired && a->score > best_score)) {
				best = idx[i];
				best_score = a->score;
				best_fired = fired;
				*round = k;
			}
			break;   /* ranked: the first that counts is this round's best */
		}
	}
	return best;
}

int32_t tui_node_fusion(const tui *t, int32_t graph, int32_t node, int32_t *round)
{
	const fd_rounds *rd = session_rounds(&t->s);
	int32_t f = -1;
	*round = 0;
	for (int32_t k = 1; k <= rd->n; k++) {
		int32_t u = rounds_node_in(rd, k, graph, node);
		const fd_match_result *r = rd->items[k - 1]->result;
		if (u >= 0 && r->claim[graph][u] >= 0) {
			f = r->claim[graph][u];
			*round = k;
		}
	}
	return f;
}

/* A node breakpoint stops where its node is in the stepped round. */
static void map_breakpoints(tui *t)
{
	for (size_t i = 0; i < t->bps.n; i++) {
		vs_breakpoint *bp = &t->bps.items[i];
		if (bp->kind != BP_NODE)
			continue;
		bp->mapped = t->round > 1;
		bp->at = bp->mapped ? rounds_node_in(session_rounds(&t->s), t->round, bp->graph, bp->node) : bp->node;
	}
}

void tui_use_round(tui *t, int32_t round)
{
	int32_t n = tui_n_rounds(t);
	t->round = round < 1 || round > n ? (n >= 1 ? (round > n ? n : 1) : 1) : round;
	map_breakpoints(t);
}

unsigned tui_set_round(tui *t, int32_t round)
{
	tui_use_round(t, round);
	vs_list_set_rows(&t->views[VIEW_TRACE].list, tui_result(t)->trace.n_events);
	vs_list_goto(&t->views[VIEW_TRACE].list, 0);
	if (t->focus == VIEW_TRACE)
		tui_select_focus(t);
	return RES_REDRAW | RES_DETAIL | RES_LAYOUT;
}

unsigned tui_goto_event(tui *t, uint32_t ev)
{
	if (t->focus != VIEW_TRACE)
		tui_show_view(t, VIEW_TRACE);
	vs_list_set_rows(&t->views[VIEW_TRACE].list, tui_result(t)->trace.n_events);
	vs_list_goto(&t->views[VIEW_TRACE].list, ev);
	tui_select_focus(t);
	return RES_REDRAW | RES_DETAIL;
}

unsigned tui_goto_round_event(tui *t, int32_t round, uint32_t ev)
{
	unsigned res = 0;
	if (round != t->round)
		res = tui_set_round(t, round);
	return res | tui_goto_event(t, ev);
}

int32_t tui_view_rule(tui *t, enum tui_view v)
{
	const view_ops *ops = t->views[v].ops;
	return ops->cursor_rule ? ops->cursor_rule(t) : -1;
}

int32_t tui_rule_under_cursor(tui *t)
{
	/* a view that points at no rule of its own: the rules view's */
	return tui_view_rule(t, t->views[t->focus].ops->cursor_rule ? t->focus : VIEW_RULES);
}

int32_t tui_run_order(const tui *t, size_t i)
{
	const fd_match_result *r = session_result(&t->s);
	return r->order ? r->order[i] : (int32_t)i;
}

char *tui_row_label(tui *t, enum tui_view v, size_t row, char *buf, size_t size)
{
	if (t->views[v].ops->row_label)
		return t->views[v].ops->row_label(t, row, buf, size);
	snprintf(buf, size, "line %zu", row + 1);
	return buf;
}

bool tui_list_move(vs_list *l, enum tui_action a)
{
	switch (a) {
	case ACT_MOVE_UP: vs_list_move(l, -1); return true;
	case ACT_MOVE_DOWN: vs_list_move(l, 1); return true;
	case ACT_MOVE_PAGE_UP: vs_list_page(l, -1); return true;
	case ACT_MOVE_PAGE_DOWN: vs_list_page(l, 1); return true;
	case ACT_MOVE_FIRST: vs_list_home(l); return true;
	case ACT_MOVE_LAST: vs_list_end(l); return true;
	default: return false;
	}
}

/* ---- state derived from the session -------------------------------------- */

/* The recovery file holds the unsaved edits, or is gone when there are none.
 * Its error does not replace what the action said. */
static void autosave_recovery(tui *t)
{
	if (!t->recovery[0])
		return;
	if (session_unsaved(&t->s)) {
		fd_diags d;
		diags_init(&d);
		if (session_write_recovery(&t->s, t->recovery, &d) < 0 && d.n && !t->msg[0]) {
			char line[512];
			tui_message(t, ROLE_ERROR, "recovery file: %s", diag_format(&d.items[0], line, sizeof line));
		}
		diags_release(&d);
		signals_recovery_note = t->recovery;
	} else {
		unlink(t->recovery);
		signals_recovery_note = NULL;
	}
}

void tui_before_run(tui *t)
{
	for (int v = 0; v < VIEW_COUNT; v++)
		if (t->views[v].ops->before_run)
			t->views[v].ops->before_run(t);
}

void tui_refresh(tui *t)
{
	t->run_gen++;
	for (int v = 0; v < VIEW_COUNT; v++)
		if (t->views[v].ops->after_run)
			t->views[v].ops->after_run(t);
	autosave_recovery(t);
}
