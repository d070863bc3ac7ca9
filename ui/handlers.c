/* handlers.c — the generic actions, taken when the focused view does not
 * take an action itself: moving and searching, switching views, the stepper
 * from any view, what-if edits of the rule under the cursor, undo, save,
 * export and quit. Each returns what the main loop must do next (tui.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "base/clock.h"
#include "base/strbuf.h"
#include "loop.h"

/* The focused view's row as text, for vs_search. */
static const char *focused_row_text(void *ctx, size_t row, char *buf, size_t size)
{
	tui *t = ctx;
	int role;
	return t->views[t->focus].ops->text(t, row, buf, size, &role);
}

static unsigned search(tui *t, int dir, bool ask)
{
	const view_ops *ops = t->views[t->focus].ops;
	char *needle = t->views[t->focus].search;
	if (ask) {
		char buf[128];
		if (!prompt_line(t, dir > 0 ? "/" : "?", "", buf, sizeof buf) || !buf[0])
			return RES_REDRAW;
		snprintf(needle, sizeof t->views[0].search, "%s", buf);
	}
	if (!needle[0]) {
		tui_message(t, ROLE_WARN, "no search yet: / searches");
		return RES_REDRAW;
	}
	if (!ops->text)
		return RES_REDRAW;
	vs_list *l = &t->views[t->focus].list;
	vs_list_set_rows(l, ops->rows(t));
	bool wrapped;
	size_t row = vs_search(l->n, l->cursor, dir, needle, focused_row_text, t, &wrapped);
	if (row == VS_NONE) {
		tui_message(t, ROLE_WARN, "pattern not found: %s", needle);
		return RES_REDRAW;
	}
	vs_list_goto(l, row);
	char at[64];
	tui_message(t, ROLE_MATCH, "/%s: %s%s", needle, tui_row_label(t, t->focus, row, at, sizeof at),
	            wrapped ? " (search wrapped)" : "");
	return RES_SELECT | RES_REDRAW;
}

/* Off the end of a round, a step goes on in the next (backwards: the
 * previous) round that has somewhere to stop; false when none has. */
static bool step_across(tui *t, vs_step how, int32_t *round, uint32_t *to)
{
	bool back = how == STEP_PREV_EVENT || how == STEP_PREV_ATTEMPT || how == STEP_PREV_FIRE ||
	            how == STEP_PREV_FAILURE || how == STEP_REVERSE_CONTINUE;
	if (how == STEP_START || how == STEP_END)
		return false;
	int32_t keep = t->round;
	for (int32_t k = t->round + (back ? -1 : 1); k >= 1 && k <= tui_n_rounds(t); k += back ? -1 : 1) {
		tui_set_round(t, k);   /* maps the node breakpoints into round k */
		const fd_match_result *r = tui_result(t);
		if (!r->trace.n_events)
			continue;
		uint32_t edge = back ? (uint32_t)r->trace.n_events - 1 : 0;
		bool moved = true;
		*to = how == STEP_NEXT_EVENT || how == STEP_PREV_EVENT ? edge
		    : vs_stepper_move(r, &t->bps, edge, how, &moved);
		if (moved) {
			*round = k;
			return true;
		}
	}
	tui_set_round(t, keep);
	return false;
}

static unsigned stepper(tui *t, vs_step how, const char *none)
{
	const fd_match_result *r = tui_result(t);
	if (t->focus != VIEW_TRACE)
		tui_show_view(t, VIEW_TRACE);
	bool moved;
	uint32_t cur = (uint32_t)t->views[VIEW_TRACE].list.cursor;
	if ((how == STEP_CONTINUE || how == STEP_REVERSE_CONTINUE) && t->bps.n == 0) {
		tui_message(t, ROLE_WARN, "no breakpoints: b sets one on the rule, node or reason under the cursor");
		return RES_REDRAW;
	}
	int32_t was = t->round, round = t->round;
	uint32_t to = vs_stepper_move(r, &t->bps, cur, how, &moved);
	if (!moved && !(moved = step_across(t, how, &round, &to))) {
		tui_message(t, ROLE_WARN, "%s", none);
		return RES_REDRAW;
	}
	unsigned res = tui_goto_round_event(t, round, to);
	if (round != was)
		tui_message(t, ROLE_INFO, "round %d of %d", (int)round, (int)tui_n_rounds(t));
	if (how == STEP_CONTINUE || how == STEP_REVERSE_CONTINUE) {
		char which[512];
		tui_message(t, ROLE_BREAK, "breakpoint %s hit at event #%u",
		            vs_bp_hits_at(&t->bps, tui_result(t), to, which, sizeof which), to);
	}
	return res;
}

/* Left / Right: the focused view by a quarter of its width (at least 8
 * columns), no further right than its rows need (view_ops content_width,
 * else the widest text on screen). */
static unsigned hscroll(tui *t, int dir)
{
	enum tui_view v = t->focus;
	const view_ops *ops = t->views[v].ops;
	int w = display_pane_width(t, v), step = w / 4 > 8 ? w / 4 : 8;
	if (dir < 0) {
		if (t->views[v].hoff == 0) {
			tui_message(t, ROLE_WARN, "at the left edge (Right scrolls)");
			return RES_REDRAW;
		}
		t->views[v].hoff = t->views[v].hoff > step ? t->views[v].hoff - step : 0;
		return RES_REDRAW;
	}
	int need = 0;
	if (ops->content_width) {
		need = ops->content_width(t);
	} else if (ops->text) {
		const vs_list *l = &t->views[v].list;
		for (int i = 0; i < l->height && l->top + (size_t)i < ops->rows(t); i++) {
			char buf[2048];
			int role;
			const char *s = ops->text(t, l->top + (size_t)i, buf, sizeof buf, &role);
			int dw = s ? display_width(s) + 12 : 0;   /* + the marks and numbers text leaves out */
			need = dw > need ? dw : need;
		}
	}
	if (t->views[v].hoff + w >= need) {
		tui_message(t, ROLE_WARN, "at the right edge: nothing on screen is wider (Left scrolls back)");
		return RES_REDRAW;
	}
	t->views[v].hoff += step;
	if (t->views[v].hoff + w > need)
		t->views[v].hoff = need - w;
	return RES_REDRAW;
}

/* What a save did, truthfully: which files were written and which values
 * were not saved (the first reason); the rest is in the files' notes. */
static void save_message(tui *t, const fd_save_report *rep, const fd_diags *d)
{
	strbuf b = { 0 };
	const fd_diag *first_error = NULL, *first_note = NULL;
	for (size_t i = 0; i < d->n; i++) {
		if (d->items[i].severity == DIAG_ERROR && !first_error)
			first_error = &d->items[i];
		if (d->items[i].severity == DIAG_NOTE && strcmp(d->items[i].message, "written") &&
		    strncmp(d->items[i].message, "written (", 9) && !first_note)
			first_note = &d->items[i];
	}
	if (rep->files_written) {
		sb_puts(&b, "saved ");
		int shown = 0, fresh = 0;
		const char *one = "?";
		for (size_t i = 0; i < d->n; i++)
			if (d->items[i].severity == DIAG_NOTE && !strncmp(d->items[i].message, "written (", 9)) {
				const char *f = d->items[i].pos.file ? d->items[i].pos.file : "?";
				const char *slash = strrchr(f, '/');
				one = slash ? slash + 1 : f;
				sb_printf(&b, "%s%s", shown++ ? ", " : "", one);
				/* a rule file a what-if added (session_add.c): no old file to keep */
				fresh += !strncmp(d->items[i].message, "written (a new file", 19);
			}
		/* FILE.orig is written by the first save of an existing file only: it
		 * holds the file as loaded, whatever later saves change */
		sb_printf(&b, " (%zu value%s", rep->values_saved, rep->values_saved == 1 ? "" : "s");
		if (rep->values_refused)
			sb_puts(&b, ")");
		else if (fresh == shown)
			sb_printf(&b, "; %s, no .orig)", shown == 1 ? "a new file" : "new files");
		else if (shown == 1)
			sb_printf(&b, "; %s.orig keeps the file as it was before the first save)", one);
		else
			sb_puts(&b, "; each FILE.orig keeps an existing file as it was before the first save)");
	}
	if (rep->values_refused && first_error) {
		const char *f = first_error->pos.file, *slash = f ? strrchr(f, '/') : NULL;
		sb_printf(&b, "%sNOT saved: %s%s%s", rep->files_written ? "; " : "", f ? slash ? slash + 1 : f : "",
		          f ? ": " : "", first_error->message);
	} else if (rep->values_refused) {
		sb_printf(&b, "%sNOT saved: %zu value%s (kept in memory)", rep->files_written ? "; " : "",
		          rep->values_refused, rep->values_refused == 1 ? "" : "s");
	} else if (first_note) {
		sb_printf(&b, "; note: %s", first_note->message);
	}
	tui_message(t, rep->values_refused ? ROLE_ERROR : ROLE_FIRED, "%s", sb_str(&b));
	sb_release(&b);
}

static unsigned quit(tui *t)
{
	size_t unsaved = session_unsaved(&t->s);
	if (!unsaved)
		return RES_QUIT;
	char q[256];
	snprintf(q, sizeof q, "%zu unsaved edit%s: save before quitting?", unsaved, unsaved == 1 ? "" : "s");
	int k = prompt_yes_no(t, q, true);
	if (k == 'c') {
		tui_message(t, ROLE_NORMAL, "quit cancelled");
		return RES_REDRAW;
	}
	if (k == 'y') {
		fd_diags d;
		diags_init(&d);
		fd_save_report rep;
		if (session_save_report(&t->s, &rep, &d) < 0) {
			save_message(t, &rep, &d);
			diags_release(&d);
			return RES_REDRAW;   /* not quitting: something is still unsaved */
		}
		diags_release(&d);
	}
	if (t->recovery[0])
		unlink(t->recovery);   /* quitting without saving is the user's word: nothing to recover */
	return RES_QUIT;
}

static unsigned save(tui *t)
{
	if (!session_unsaved(&t->s)) {
		tui_message(t, ROLE_NORMAL, "nothing to save: the rule files hold every value");
		return RES_REDRAW;
	}
	fd_diags d;
	diags_init(&d);
	fd_save_report rep;
	session_save_report(&t->s, &rep, &d);
	save_message(t, &rep, &d);
	diags_release(&d);
	return rep.files_written ? RES_RERUN | RES_REDRAW : RES_REDRAW;
}

static unsigned rule_edit(tui *t, enum tui_action a)
{
	int32_t rule = tui_rule_under_cursor(t);
	const fd_ruleset *rs = session_rules(&t->s);
	if (rule < 0 || rule >= rs->n_rules) {
		tui_message(t, ROLE_WARN, "no rule here: move to a rule (rules view) or an event first");
		return RES_REDRAW;
	}
	fd_diags d;
	diags_init(&d);
	tui_before_run(t);
	int rc;
	char what[256];
	const fd_rule *r = &rs->rules[rule];
	double t0 = clock_ms();
	if (a == ACT_TOGGLE_ENABLED) {
		bool was = r->enabled;
		rc = session_toggle_enabled(&t->s, rule, &d);
		snprintf(what, sizeof what, "%s %s", rs->rules[rule].name, was ? "disabled" : "enabled");
	} else {
		int64_t delta = a == ACT_PRIORITY_UP ? 10 : -10;
		int64_t before = r->priority;
		rc = session_bump_priority(&t->s, rule, delta, &d);
		snprintf(what, sizeof what, "%s priority %lld %s %lld", rs->rules[rule].name, (long long)before, t->disp->g->arrow,
		         (long long)rs->rules[rule].priority);
	}
	t->edit_ms = clock_ms() - t0;
	t->refresh_ms = 0;
	t->time_refresh = rc >= 0;   /* the loop times the refresh that follows */
	unsigned res = tui_after_edit(t, rc, &d, what);
	diags_release(&d);
	return res;
}

static unsigned undo_redo(tui *t, bool redo)
{
	if (redo ? !session_can_redo(&t->s) : !session_can_undo(&t->s)) {
		tui_message(t, ROLE_WARN, redo ? "nothing to redo" : "nothing to undo");
		return RES_REDRAW;
	}
	const fd_edit *e = &t->s.edits[redo ? t->s.n_applied : t->s.n_applied - 1];
	char what[512];
	snprintf(what, sizeof what, "%s %s.%s = %s", redo ? "redo" : "undo", session_rules(&t->s)->rules[e->rule].name,
	         e->path, redo ? (e->new_text ? e->new_text : "(absent)") : (e->old_text ? e->old_text : "(absent)"));
	fd_diags d;
	diags_init(&d);
	tui_before_run(t);
	int rc = redo ? session_redo(&t->s, &d) : session_undo(&t->s, &d);
	unsigned res = tui_after_edit(t, rc, &d, what);
	diags_release(&d);
	return res;
}

/* Tab and BackTab: the next view of the cycle (from a view outside it, as
 * from the first). Tab does not stack: q still goes back to where Enter came
 * from. */
static unsigned view_cycle(tui *t, int dir)
{
	enum tui_view v = t->focus;
	if (!view_in_tab_cycle(v))
		for (v = 0; !view_in_tab_cycle(v); v++)
			;
	do
		v = (enum tui_view)((v + dir + VIEW_COUNT) % VIEW_COUNT);
	while (!view_in_tab_cycle(v));
	t->focus = v;
	return RES_LAYOUT | RES_SELECT;
}

static unsigned back(tui *t)
{
	if (t->depth == 0)
		return quit(t);
	t->focus = t->stack[--t->depth];
	return RES_LAYOUT;
}

#define SHOW_VIEW(X, id, ops, name, title, tab, help) case ACT_VIEW_##id: return tui_show_view(t, VIEW_##id);

unsigned handle_action(tui *t, enum tui_action a)
{
	const view_ops *ops = t->views[t->focus].ops;
	if (ops->action) {
		unsigned r = ops->action(t, a);
		if (!(r & RES_UNHANDLED))
			return r;
	}
	vs_list *l = &t->views[t->focus].list;
	vs_list_set_rows(l, ops->rows(t));
	switch (a) {
	case ACT_MOVE_UP: case ACT_MOVE_DOWN: case ACT_MOVE_PAGE_UP: case ACT_MOVE_PAGE_DOWN:
	case ACT_MOVE_FIRST: case ACT_MOVE_LAST:
		tui_list_move(l, a);
		return RES_SELECT | RES_REDRAW;
	case ACT_SCROLL_LEFT: return hscroll(t, -1);
	case ACT_SCROLL_RIGHT: return hscroll(t, 1);
	case ACT_SEARCH: return search(t, 1, true);
	case ACT_SEARCH_BACK: return search(t, -1, true);
	case ACT_FIND_NEXT: return search(t, 1, false);
	case ACT_FIND_PREV: return search(t, -1, false);
	case ACT_ENTER: return RES_REDRAW;
	case ACT_BACK: return back(t);
	case ACT_QUIT: return quit(t);
	case ACT_VIEW_NEXT: return view_cycle(t, 1);
	case ACT_VIEW_PREV: return view_cycle(t, -1);
	TUI_VIEWS(SHOW_VIEW, )
	case ACT_REDRAW: return RES_CLEAR | RES_REDRAW;
	case ACT_STEP_NEXT: return stepper(t, STEP_NEXT_EVENT, "at the last event");
	case ACT_STEP_PREV: return stepper(t, STEP_PREV_EVENT, "at the first event");
	case ACT_NEXT_ATTEMPT: return stepper(t, STEP_NEXT_ATTEMPT, "no attempt after this one");
	case ACT_PREV_ATTEMPT: return stepper(t, STEP_PREV_ATTEMPT, "no attempt before this one");
	case ACT_NEXT_FIRE: return stepper(t, STEP_NEXT_FIRE, "no rule fires after this event");
	case ACT_PREV_FIRE: return stepper(t, STEP_PREV_FIRE, "no rule fired before this event");
	case ACT_NEXT_FAILURE: return stepper(t, STEP_NEXT_FAILURE, "no failed attempt after this event");
	case ACT_PREV_FAILURE: return stepper(t, STEP_PREV_FAILURE, "no failed attempt before this event");
	case ACT_CONTINUE: return stepper(t, STEP_CONTINUE, "no breakpoint hit after this event");
	case ACT_REVERSE_CONTINUE: return stepper(t, STEP_REVERSE_CONTINUE, "no breakpoint hit before this event");
	case ACT_STEP_START: return stepper(t, STEP_START, "at the first event");
	case ACT_STEP_END: return stepper(t, STEP_END, "at the last event");
	case ACT_NEXT_ROUND:
	case ACT_PREV_ROUND: {
		int32_t k = t->round + (a == ACT_NEXT_ROUND ? 1 : -1);
		if (k < 1 || k > tui_n_rounds(t)) {
			tui_message(t, ROLE_WARN, tui_n_rounds(t) == 1 ? "the rules ran one round (no rule names another's "
			            "target_op)" : a == ACT_NEXT_ROUND ? "at the last round" : "at the first round");
			return RES_REDRAW;
		}
		unsigned res = tui_show_view(t, VIEW_TRACE) | tui_set_round(t, k);
		tui_message(t, ROLE_INFO, "round %d of %d", (int)k, (int)tui_n_rounds(t));
		return res;
	}
	case ACT_BREAKPOINT:
		tui_message(t, ROLE_WARN, "nothing to break on here: rules, graph and trace rows take breakpoints");
		return RES_REDRAW;
	case ACT_ADD_BREAKPOINT:   /* the breakpoints view's; from elsewhere, there */
		tui_show_view(t, VIEW_BREAKS);
		return t->views[VIEW_BREAKS].ops->action(t, a) | RES_REDRAW;
	case ACT_WHY_NOT:
		tui_message(t, ROLE_WARN, "why-not works on a node (graph view), a rule (rules view) or an event");
		return RES_REDRAW;
	case ACT_WRITE_RULE: case ACT_MARK_CHAIN:
		tui_message(t, ROLE_WARN, "rules are written from the suggest view (a pattern) or the graph (a marked chain)");
		return RES_REDRAW;
	case ACT_PRIORITY_UP: case ACT_PRIORITY_DOWN: case ACT_TOGGLE_ENABLED:
		return rule_edit(t, a);
	case ACT_EDIT: return tui_edit_value(t, tui_rule_under_cursor(t), NULL);
	case ACT_UNDO: return undo_redo(t, false);
	case ACT_REDO: return undo_redo(t, true);
	case ACT_SAVE: return save(t);
	case ACT_EXPORT: return tui_export(t);
	case ACT_WRITE_SWITCH: return tui_write_switch(t, NULL);
	case ACT_BIND_DIM: return tui_bind_dim(t, NULL);
	case ACT_SAVE_DISPLAY: {
		char path[1024], cmd[1100];
		if (prompt_line(t, "save the screen to: ", "fusiondbg.screen", path, sizeof path) && path[0]) {
			snprintf(cmd, sizeof cmd, "save-display %s", path);
			input_command(t, cmd);
		}
		return RES_REDRAW;
	}
	case ACT_NONE: case ACT_COUNT: return RES_OK;
	}
	return RES_OK;
}
#undef SHOW_VIEW
