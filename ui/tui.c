/* tui.c — `fusiondbg MODEL [-r RULES]...`: opens the session, runs the key
 * loop and decides what each handler's result bitmask asks for (redraw,
 * re-run, quit), as htop does. Generic actions (moving, searching, views,
 * the stepper from any view, what-if edits, save, export) live here; views
 * take the ones that depend on what is under their cursor. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../cli/cli.h"
#include "display.h"
#include "export/export.h"
#include "base/clock.h"

static const char usage[] =
	"fusiondbg MODEL [-r RULES]... [--target T] [--dim N=V] [--no-canonicalize]";

static const view_ops *const views[VIEW_COUNT] = {
	[VIEW_RULES] = &view_rules_ops, [VIEW_GRAPH] = &view_graph_ops, [VIEW_TRACE] = &view_trace_ops,
	[VIEW_DETAIL] = &view_detail_ops, [VIEW_DIFF] = &view_diff_ops, [VIEW_BREAKS] = &view_breaks_ops,
	[VIEW_HELP] = &view_help_ops,
};

static const char *const view_titles[VIEW_COUNT] = {
	"rules", "graph", "trace", "detail", "diff vs rules as loaded", "breakpoints", "help",
};

const view_ops *tui_view_ops(enum tui_view v)
{
	return views[v];
}

const char *tui_view_title(enum tui_view v)
{
	return view_titles[v];
}

void tui_message(tui *t, int role, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof t->msg, fmt, ap);
	va_end(ap);
	t->msg_role = role;
}

/* ---- state derived from the session -------------------------------------- */

static void rebuild_rule_rows(tui *t)
{
	const fd_match_result *r = session_result(&t->s);
	int32_t keep = t->list[VIEW_RULES].cursor < t->n_rule_rows ? t->rule_rows[t->list[VIEW_RULES].cursor] : -1;
	free(t->rule_rows);
	t->n_rule_rows = (size_t)r->n_rules;
	t->rule_rows = xcalloc(t->n_rule_rows + 1, sizeof *t->rule_rows);
	for (size_t i = 0; i < t->n_rule_rows; i++)
		t->rule_rows[i] = r->order ? r->order[i] : (int32_t)i;
	vs_list_set_rows(&t->list[VIEW_RULES], t->n_rule_rows);
	for (size_t i = 0; i < t->n_rule_rows; i++)
		if (t->rule_rows[i] == keep) {
			vs_list_goto(&t->list[VIEW_RULES], i);
			break;
		}
}

static void autosave_recovery(tui *t)
{
	if (!t->recovery[0])
		return;
	if (session_unsaved(&t->s)) {
		fd_diags d;
		diags_init(&d);
		if (session_write_recovery(&t->s, t->recovery, &d) < 0 && d.n) {
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

/* where the trace cursor was, by (rule, graph, anchor), to find it again after a re-run */
static struct { int32_t rule, graph, anchor; bool valid; uint32_t offset; } spot;

static void remember_spot(tui *t)
{
	const fd_match_result *r = session_result(&t->s);
	uint32_t ev = (uint32_t)t->list[VIEW_TRACE].cursor;
	uint32_t a = vs_attempt_of(&r->trace, ev);
	spot.valid = a != UINT32_MAX;
	if (spot.valid) {
		spot.rule = r->trace.attempts[a].rule;
		spot.graph = r->trace.attempts[a].graph;
		spot.anchor = r->trace.attempts[a].anchor;
		spot.offset = ev - r->trace.attempts[a].first_event;
	}
}

static void restore_spot(tui *t)
{
	const fd_match_result *r = session_result(&t->s);
	vs_list_set_rows(&t->list[VIEW_TRACE], r->trace.n_events);
	if (!spot.valid)
		return;
	spot.valid = false;
	for (size_t i = 0; i < r->trace.n_attempts; i++) {
		const fd_attempt *a = &r->trace.attempts[i];
		if (a->rule == spot.rule && a->graph == spot.graph && a->anchor == spot.anchor) {
			uint32_t off = spot.offset < a->n_events ? spot.offset : (a->n_events ? a->n_events - 1 : 0);
			vs_list_goto(&t->list[VIEW_TRACE], a->first_event + off);
			return;
		}
	}
}

void tui_refresh(tui *t)
{
	rebuild_rule_rows(t);
	restore_spot(t);
	if (t->diff_valid) {
		session_diff_release(&t->diff);
		t->diff_valid = false;
	}
	autosave_recovery(t);
	tui_detail_build(t);
}

unsigned tui_after_edit(tui *t, int rc, fd_diags *d, const char *what)
{
	char line[1024];
	if (rc < 0) {
		if (d->n)
			tui_message(t, ROLE_ERROR, "%s (not applied)", diag_format(&d->items[0], line, sizeof line));
		else
			tui_message(t, ROLE_ERROR, "%s: not applied", what);
		return RES_REDRAW;
	}
	tui_refresh(t);
	const fd_match_result *r = session_result(&t->s), *b = session_baseline(&t->s);
	char ms[48] = "";
	if (!t->in.scripted)   /* scripted screens must not depend on timing */
		snprintf(ms, sizeof ms, " in %.1f ms", t->s.last_run_ms);
	tui_message(t, ROLE_EDITED, "%s; re-ran%s: %zu fusions (as loaded %zu), %zu unsaved; D shows the diff",
	            what, ms, r->n_fusions, b->n_fusions, session_unsaved(&t->s));
	return RES_RERUN | RES_REDRAW | RES_DETAIL;
}

/* ---- views and selection ------------------------------------------------- */

static void select_focus(tui *t)
{
	const view_ops *ops = views[t->focus];
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
	if (v != VIEW_DETAIL && v != VIEW_HELP && v != VIEW_DIFF && v != VIEW_BREAKS)
		select_focus(t);
	return RES_REDRAW | RES_DETAIL;
}

unsigned tui_goto_event(tui *t, uint32_t ev)
{
	if (t->focus != VIEW_TRACE)
		tui_show_view(t, VIEW_TRACE);
	vs_list_set_rows(&t->list[VIEW_TRACE], session_result(&t->s)->trace.n_events);
	vs_list_goto(&t->list[VIEW_TRACE], ev);
	select_focus(t);
	return RES_REDRAW | RES_DETAIL;
}

int32_t tui_rule_under_cursor(tui *t)
{
	const fd_match_result *r = session_result(&t->s);
	switch (t->focus) {
	case VIEW_RULES:
		return t->list[VIEW_RULES].cursor < t->n_rule_rows ? t->rule_rows[t->list[VIEW_RULES].cursor] : -1;
	case VIEW_TRACE:
		if (r->trace.n_events)
			return trace_event(&r->trace, t->list[VIEW_TRACE].cursor).rule;
		return -1;
	case VIEW_DETAIL:
		if (t->list[VIEW_DETAIL].cursor < t->n_drows && t->drows[t->list[VIEW_DETAIL].cursor].rule >= 0)
			return t->drows[t->list[VIEW_DETAIL].cursor].rule;
		return t->dkind == DETAIL_RULE ? t->drule : -1;
	case VIEW_GRAPH: {
		int32_t g, n;
		vs_graph_row_node(&t->grows, session_model(&t->s), t->list[VIEW_GRAPH].cursor, &g, &n);
		if (g >= 0 && n >= 0 && r->claim[g][n] >= 0)
			return r->fusions[r->claim[g][n]].rule;
		/* else the rule of the rules view */
		return t->list[VIEW_RULES].cursor < t->n_rule_rows ? t->rule_rows[t->list[VIEW_RULES].cursor] : -1;
	}
	default:
		return t->list[VIEW_RULES].cursor < t->n_rule_rows ? t->rule_rows[t->list[VIEW_RULES].cursor] : -1;
	}
}

/* ---- generic actions ----------------------------------------------------- */

static unsigned search(tui *t, int dir, bool ask)
{
	const view_ops *ops = views[t->focus];
	char *needle = t->search[t->focus];
	if (ask) {
		char buf[128];
		if (!prompt_line(t, dir > 0 ? "/" : "?", "", buf, sizeof buf) || !buf[0])
			return RES_REDRAW;
		snprintf(needle, sizeof t->search[0], "%s", buf);
	}
	if (!needle[0]) {
		tui_message(t, ROLE_WARN, "no search yet: / searches");
		return RES_REDRAW;
	}
	if (!ops->row_text)
		return RES_REDRAW;
	vs_list *l = &t->list[t->focus];
	vs_list_set_rows(l, ops->rows(t));
	bool wrapped;
	size_t row = vs_search(l->n, l->cursor, dir, needle, ops->row_text, t, &wrapped);
	if (row == VS_NONE) {
		tui_message(t, ROLE_WARN, "pattern not found: %s", needle);
		return RES_REDRAW;
	}
	vs_list_goto(l, row);
	select_focus(t);
	tui_message(t, ROLE_MATCH, "/%s: line %zu%s", needle, row + 1, wrapped ? " (search wrapped)" : "");
	return RES_REDRAW | RES_DETAIL;
}

static unsigned stepper(tui *t, vs_step how, const char *none)
{
	const fd_match_result *r = session_result(&t->s);
	if (t->focus != VIEW_TRACE)
		tui_show_view(t, VIEW_TRACE);
	bool moved;
	uint32_t cur = (uint32_t)t->list[VIEW_TRACE].cursor;
	if ((how == STEP_CONTINUE || how == STEP_REVERSE_CONTINUE) && t->bps.n == 0) {
		tui_message(t, ROLE_WARN, "no breakpoints: b sets one on the rule, node or reason under the cursor");
		return RES_REDRAW;
	}
	uint32_t to = vs_stepper_move(r, &t->bps, cur, how, &moved);
	if (!moved) {
		tui_message(t, ROLE_WARN, "%s", none);
		return RES_REDRAW;
	}
	unsigned res = tui_goto_event(t, to);
	if (how == STEP_CONTINUE || how == STEP_REVERSE_CONTINUE)
		tui_message(t, ROLE_BREAK, "breakpoint hit at event %u", to);
	return res;
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
		int rc = session_save(&t->s, &d);
		if (rc < 0) {
			char line[512];
			tui_message(t, ROLE_ERROR, "save failed, not quitting: %s",
			            d.n ? diag_format(&d.items[0], line, sizeof line) : "?");
			diags_release(&d);
			return RES_REDRAW;
		}
		diags_release(&d);
	}
	if (t->recovery[0])
		unlink(t->recovery);
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
	int rc = session_save(&t->s, &d);
	char line[1024];
	if (rc < 0) {
		tui_message(t, ROLE_ERROR, "save failed, files left as they were, edits kept: %s",
		            d.n ? diag_format(&d.items[0], line, sizeof line) : "?");
	} else {
		tui_refresh(t);
		tui_message(t, ROLE_FIRED, "saved %d file%s (the original kept once as FILE.orig)", rc, rc == 1 ? "" : "s");
	}
	diags_release(&d);
	return RES_REDRAW | RES_RERUN | RES_DETAIL;
}

static unsigned export(tui *t)
{
	static const char *const items[] = {
		"before fusion: every fusion a labelled cluster",
		"after fusion: every fusion collapsed into its target op",
	};
	int k = prompt_menu(t, "export the graph", items, 2, t->export_after ? 1 : 0);
	if (k < 0)
		return RES_REDRAW;
	t->export_after = k == 1;
	const char *base = strrchr(t->model_path, '/') ? strrchr(t->model_path, '/') + 1 : t->model_path;
	char stem[256], def[300], path[1024];
	snprintf(stem, sizeof stem, "%s", base);
	char *dot = strrchr(stem, '.');
	if (dot)
		*dot = 0;
	snprintf(def, sizeof def, "%s%s.dot", stem, t->export_after ? "-after" : "");
	if (!prompt_line(t, "export to (.dot, .png, .svg): ", def, path, sizeof path) || !path[0])
		return RES_REDRAW;
	fd_export_options o;
	export_options_init(&o);
	if (export_format_from_path(path, &o.format) < 0) {
		tui_message(t, ROLE_ERROR, "%s: the name must end in .dot, .gv, .png or .svg", path);
		return RES_REDRAW;
	}
	o.after = t->export_after;
	o.estimate = session_estimate(&t->s);
	fd_diags d;
	diags_init(&d);
	char line[1024];
	if (export_graph(session_result(&t->s), &o, path, &d) < 0)
		tui_message(t, ROLE_ERROR, "export failed: %s", d.n ? diag_format(&d.items[0], line, sizeof line) : "?");
	else
		tui_message(t, ROLE_FIRED, "exported %s (%s, %s fusion)", path, export_format_name(o.format),
		            o.after ? "after" : "before");
	diags_release(&d);
	return RES_REDRAW;
}

unsigned tui_edit_value(tui *t, int32_t rule, const char *path)
{
	const fd_ruleset *rs = session_rules(&t->s);
	if (rule < 0 || rule >= rs->n_rules) {
		tui_message(t, ROLE_WARN, "no rule here: move to a rule (rules view) or an event first");
		return RES_REDRAW;
	}
	const char *name = rs->rules[rule].name;
	char label[1600], cur[512] = "", buf[1024];
	fd_diags d;
	diags_init(&d);
	int rc;
	if (path && *path) {
		const char *why = NULL;
		const char *type = session_path_type(&t->s, rule, path, &why);
		session_get(&t->s, rule, path, cur, sizeof cur);
		snprintf(label, sizeof label, "%s.%s (%s) = ", name, path, type ? type : "?");
		if (!prompt_line(t, label, cur, buf, sizeof buf)) {
			diags_release(&d);
			tui_message(t, ROLE_NORMAL, "edit cancelled");
			return RES_REDRAW;
		}
		remember_spot(t);
		rc = session_set(&t->s, rule, path, buf, &d);
		snprintf(label, sizeof label, "%s.%s = %s", name, path, buf);
	} else {
		session_get(&t->s, rule, "priority", cur, sizeof cur);
		char init[600];
		snprintf(init, sizeof init, "priority=%s", cur);
		snprintf(label, sizeof label, "set %s.", name);
		if (!prompt_line(t, label, init, buf, sizeof buf)) {
			diags_release(&d);
			tui_message(t, ROLE_NORMAL, "edit cancelled");
			return RES_REDRAW;
		}
		char *eq = strchr(buf, '=');
		if (!eq) {
			diags_release(&d);
			tui_message(t, ROLE_ERROR, "%s: write PATH=VALUE, e.g. priority=250 (not applied)", buf);
			return RES_REDRAW;
		}
		*eq = 0;
		remember_spot(t);
		rc = session_set(&t->s, rule, buf, eq + 1, &d);
		snprintf(label, sizeof label, "%s.%s = %s", name, buf, eq + 1);
	}
	unsigned res = tui_after_edit(t, rc, &d, label);
	diags_release(&d);
	return res;
}

static double edit_ms = -1;   /* wall time of the last +/-/t edit: session call and re-run */
static double refresh_ms;     /* and of the TUI's refresh after it (rows, recovery file, detail) */

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
	remember_spot(t);
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
		snprintf(what, sizeof what, "%s priority %lld %s %lld", rs->rules[rule].name, (long long)before, G.arrow,
		         (long long)(before + delta));
	}
	edit_ms = clock_ms() - t0;
	double t1 = clock_ms();
	unsigned res = tui_after_edit(t, rc, &d, what);
	refresh_ms = clock_ms() - t1;
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
	remember_spot(t);
	int rc = redo ? session_redo(&t->s, &d) : session_undo(&t->s, &d);
	unsigned res = tui_after_edit(t, rc, &d, what);
	diags_release(&d);
	return res;
}

static const enum tui_view cycle[] = { VIEW_RULES, VIEW_GRAPH, VIEW_TRACE, VIEW_DETAIL, VIEW_DIFF };

static unsigned view_cycle(tui *t, int dir)
{
	int n = (int)(sizeof cycle / sizeof *cycle), at = 0;
	for (int i = 0; i < n; i++)
		if (cycle[i] == t->focus)
			at = i;
	enum tui_view v = cycle[(at + dir + n) % n];
	t->focus = v;   /* Tab does not stack: q still goes back to where Enter came from */
	display_layout(t);
	if (v != VIEW_DETAIL && v != VIEW_DIFF)
		select_focus(t);
	return RES_REDRAW | RES_DETAIL;
}

static unsigned back(tui *t)
{
	if (t->depth == 0)
		return quit(t);
	t->focus = t->stack[--t->depth];
	display_layout(t);
	return RES_REDRAW;
}

bool tui_script_command(tui *t, const char *cmd)
{
	if (!strncmp(cmd, "save-display", 12)) {
		const char *p = cmd + 12;
		while (*p == ' ')
			p++;
		if (display_save(*p ? p : "fusiondbg.screen") < 0)
			tui_message(t, ROLE_ERROR, "save-display: %s: %s", p, strerror(errno));
		return true;
	}
	int lines, cols, n;
	if (sscanf(cmd, "fail-writes %d", &n) == 1) {
		/* tests: the next n file writes of the session fail as on a full disk */
		session_test_fail_writes(n, ENOSPC);
		return true;
	}
	if (sscanf(cmd, "resize %d %d", &lines, &cols) == 2) {
		resizeterm(lines, cols);
		display_layout(t);
		return true;
	}
	return false;
}

static unsigned do_action(tui *t, enum tui_action a);

static unsigned mouse_at(tui *t, int y, int x, int wheel);

static unsigned run_command(tui *t, const char *cmd)
{
	if (tui_script_command(t, cmd))
		return RES_REDRAW;
	int y, x;   /* the mouse, for scripts: what a terminal's click or wheel does */
	if (sscanf(cmd, "click %d %d", &y, &x) == 2)
		return mouse_at(t, y, x, 0);
	if (sscanf(cmd, "wheel-up %d %d", &y, &x) == 2)
		return mouse_at(t, y, x, -1);
	if (sscanf(cmd, "wheel-down %d %d", &y, &x) == 2)
		return mouse_at(t, y, x, 1);
	enum tui_action a = action_from_name(cmd);
	if (a == ACT_NONE) {
		tui_message(t, ROLE_ERROR, "unknown script command ':%s'", cmd);
		return RES_REDRAW;
	}
	return do_action(t, a);
}

static unsigned do_action(tui *t, enum tui_action a)
{
	const view_ops *ops = views[t->focus];
	if (ops->action) {
		unsigned r = ops->action(t, a);
		if (!(r & RES_UNHANDLED))
			return r;
	}
	vs_list *l = &t->list[t->focus];
	vs_list_set_rows(l, ops->rows(t));
	switch (a) {
	case ACT_MOVE_UP: vs_list_move(l, -1); break;
	case ACT_MOVE_DOWN: vs_list_move(l, 1); break;
	case ACT_MOVE_PAGE_UP: vs_list_page(l, -1); break;
	case ACT_MOVE_PAGE_DOWN: vs_list_page(l, 1); break;
	case ACT_MOVE_FIRST: vs_list_home(l); break;
	case ACT_MOVE_LAST: vs_list_end(l); break;
	case ACT_SEARCH: return search(t, 1, true);
	case ACT_SEARCH_BACK: return search(t, -1, true);
	case ACT_FIND_NEXT: return search(t, 1, false);
	case ACT_FIND_PREV: return search(t, -1, false);
	case ACT_ENTER: return RES_REDRAW;
	case ACT_BACK: return back(t);
	case ACT_QUIT: return quit(t);
	case ACT_VIEW_NEXT: return view_cycle(t, 1);
	case ACT_VIEW_PREV: return view_cycle(t, -1);
	case ACT_VIEW_RULES: return tui_show_view(t, VIEW_RULES);
	case ACT_VIEW_GRAPH: return tui_show_view(t, VIEW_GRAPH);
	case ACT_VIEW_TRACE: return tui_show_view(t, VIEW_TRACE);
	case ACT_VIEW_DETAIL: return tui_show_view(t, VIEW_DETAIL);
	case ACT_VIEW_DIFF: return tui_show_view(t, VIEW_DIFF);
	case ACT_VIEW_BREAKS: return tui_show_view(t, VIEW_BREAKS);
	case ACT_VIEW_HELP: return tui_show_view(t, VIEW_HELP);
	case ACT_REDRAW: clearok(curscr, TRUE); return RES_REDRAW;
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
	case ACT_BREAKPOINT:
		tui_message(t, ROLE_WARN, "nothing to break on here: rules, graph and trace rows take breakpoints");
		return RES_REDRAW;
	case ACT_WHY_NOT:
		tui_message(t, ROLE_WARN, "why-not works on a node (graph view), a rule (rules view) or an event");
		return RES_REDRAW;
	case ACT_PRIORITY_UP: case ACT_PRIORITY_DOWN: case ACT_TOGGLE_ENABLED:
		return rule_edit(t, a);
	case ACT_EDIT: return tui_edit_value(t, tui_rule_under_cursor(t), NULL);
	case ACT_UNDO: return undo_redo(t, false);
	case ACT_REDO: return undo_redo(t, true);
	case ACT_SAVE: return save(t);
	case ACT_EXPORT: return export(t);
	case ACT_SAVE_DISPLAY: {
		char path[1024], cmd[1100];
		if (prompt_line(t, "save the screen to: ", "fusiondbg.screen", path, sizeof path) && path[0]) {
			snprintf(cmd, sizeof cmd, "save-display %s", path);
			tui_script_command(t, cmd);
		}
		return RES_REDRAW;
	}
	case ACT_NONE: case ACT_COUNT: return RES_OK;
	}
	select_focus(t);
	return RES_REDRAW | RES_DETAIL;
}

/* A click selects the row under the pointer (and focuses its view); the
 * wheel scrolls the view under the pointer. wheel: -1 up, +1 down, 0 click. */
static unsigned mouse_at(tui *t, int y, int x, int wheel)
{
	int line;
	int v = display_hit(t, y, x, &line);
	if (v < 0)
		return RES_OK;
	if (wheel) {
		vs_list_set_rows(&t->list[v], views[v]->rows(t));
		vs_list_scroll(&t->list[v], wheel * 3);
	} else {
		if (t->focus != (enum tui_view)v) {
			t->focus = (enum tui_view)v;
			display_layout(t);
		}
		vs_list_set_rows(&t->list[v], views[v]->rows(t));
		vs_list_click(&t->list[v], line);
	}
	if ((enum tui_view)v == t->focus)
		select_focus(t);
	return RES_REDRAW | RES_DETAIL;
}

static unsigned mouse(tui *t)
{
	MEVENT me;
	if (getmouse(&me) != OK)
		return RES_OK;
	if (me.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED))
		return mouse_at(t, me.y, me.x, me.bstate & BUTTON4_PRESSED ? -1 : 1);
	if (me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED))
		return mouse_at(t, me.y, me.x, 0);
	return RES_OK;
}

/* ---- start and end ------------------------------------------------------- */

static void print_diags(const fd_diags *d)
{
	char line[1024];
	for (size_t i = 0; i < d->n; i++)
		fprintf(stderr, "%s\n", diag_format(&d->items[i], line, sizeof line));
}

static void restore_terminal(void)
{
	display_done();
}

static void tui_oom(size_t wanted)
{
	display_done();
	fprintf(stderr, "fusiondbg: out of memory (%zu bytes)\n", wanted);
	_exit(2);
}

static void offer_recovery(tui *t)
{
	if (!t->recovery[0] || access(t->recovery, R_OK) != 0)
		return;
	char q[4200];
	snprintf(q, sizeof q, "restore the unsaved edits of an earlier session?");
	int k = prompt_yes_no(t, q, false);
	if (k != 'y') {
		char old[4200];
		snprintf(old, sizeof old, "%s.old", t->recovery);
		rename(t->recovery, old);
		tui_message(t, ROLE_NORMAL, "not restored; the file was kept as %s", old);
		return;
	}
	fd_diags d;
	diags_init(&d);
	remember_spot(t);
	int n = session_load_recovery(&t->s, t->recovery, &d);
	char line[1024];
	if (n < 0) {
		tui_message(t, ROLE_ERROR, "recovery failed: %s", d.n ? diag_format(&d.items[0], line, sizeof line) : "?");
	} else {
		tui_refresh(t);
		tui_message(t, ROLE_EDITED, "restored %d unsaved edit%s from %s (s saves, u undoes)", n, n == 1 ? "" : "s",
		            t->recovery);
	}
	diags_release(&d);
}

/* Text for roff: minus signs and backslashes escaped, no line starting with a dot. */
static const char *roff_escape(const char *s, char *buf, size_t size)
{
	size_t n = 0;
	if (*s == '.' || *s == '\'')
		n += (size_t)snprintf(buf, size, "\\&");
	for (; *s && n + 3 < size; s++) {
		if (*s == '-' || *s == '\\')
			buf[n++] = '\\';
		buf[n++] = *s == '\\' ? 'e' : *s;
	}
	buf[n] = 0;
	return buf;
}

static void print_keys_roff(void)
{
	char esc[512];
	keymap km;
	keymap_init(&km);
	keymap_parse(&km, keys_default_text, "ui/keys.default", NULL);
	printf(".\\\" generated by `fusiondbg --print-keys-roff` from ui/actions.h and ui/keys.default\n");
	for (int s = 0; s < SEC_COUNT; s++) {
		bool any = false;
		for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
			const tui_action_def *d = action_get((enum tui_action)a);
			if (d->section != (enum tui_section)s)
				continue;
			if (!any)
				printf(".SS %s\n", section_title((enum tui_section)s));
			any = true;
			char keys[256] = "";
			int scope = SCOPE_GENERIC;
			if (!keymap_keys_for(&km, SCOPE_GENERIC, d->action, keys, sizeof keys))
				for (scope = SCOPE_RULES; scope < SCOPE_COUNT; scope++)
					if (keymap_keys_for(&km, scope, d->action, keys, sizeof keys))
						break;
			printf(".TP\n.B %s\n", roff_escape(d->name, esc, sizeof esc));
			if (keys[0])
				printf("Keys: \\fB%s\\fR%s%s%s.\n", roff_escape(keys, esc, sizeof esc),
				       scope != SCOPE_GENERIC && scope < SCOPE_COUNT ? " (" : "",
				       scope != SCOPE_GENERIC && scope < SCOPE_COUNT ? scope_name(scope) : "",
				       scope != SCOPE_GENERIC && scope < SCOPE_COUNT ? " view)" : "");
			else
				printf("No default key.\n");
			printf("%s.\n", roff_escape(d->help, esc, sizeof esc));
		}
	}
	keymap_release(&km);
}

static void rules_label(tui *t, const cli_options *o)
{
	size_t n = (size_t)session_rules(&t->s)->n_rules;
	char paths[200] = "";
	const char *origin = "";
	if (o->n_rules == 0) {
		const char *dir = ruleset_default_path(&origin);
		snprintf(paths, sizeof paths, "%s", !strcmp(origin, "installed rules") ? "installed rules" : dir ? dir : "");
	}
	for (int i = 0; i < o->n_rules; i++) {
		size_t used = strlen(paths);
		snprintf(paths + used, sizeof paths - used, "%s%s", i ? "," : "", o->rules[i]);
	}
	if (strlen(paths) > 32)
		strcpy(paths + 29, "...");
	snprintf(t->rules_label, sizeof t->rules_label, "%s (%zu)", paths, n);
}

int tui_main(int argc, char **argv)
{
	double t0 = clock_ms();
	if (argc >= 2 && !strcmp(argv[1], "--print-keys-roff")) {
		print_keys_roff();
		return EXIT_OK;
	}
	if (argc >= 2 && !strcmp(argv[1], "--print-default-keys")) {
		fputs(keys_default_text, stdout);
		return EXIT_OK;
	}
	cli_options o;
	if (cli_parse(argc - 1, argv + 1, OPT_RULES | OPT_MODEL_COMMON, usage, &o) < 0)
		return EXIT_BAD_INPUT;
	if (!o.model || o.n_positional != 1) {
		fprintf(stderr, "fusiondbg: the TUI takes one MODEL\nusage: %s\n", usage);
		return EXIT_BAD_INPUT;
	}
	static tui tt;
	tui *t = &tt;
	memset(t, 0, sizeof *t);
	t->model_path = o.model;
	fd_diags d;
	diags_init(&d);

	const char *script = getenv("FUSIONDBG_TEST_SCRIPT");
	if (script && *script && input_open_script(&t->in, script, &d) < 0) {
		print_diags(&d);
		diags_release(&d);
		return EXIT_BAD_INPUT;
	}
	if (!t->in.scripted && (!isatty(0) || !isatty(1))) {
		fprintf(stderr, "fusiondbg: the TUI needs a terminal; for batch use see `fusiondbg match`, `why`, `mem`\n");
		return EXIT_BAD_INPUT;
	}

	/* the terminal first, so that a large model shows a loading line at once */
	signals_fatal_hook = restore_terminal;
	fd_oom = tui_oom;
	signals_install();
	if (display_init(t, t->in.scripted) < 0) {
		fprintf(stderr, "fusiondbg: cannot start the terminal (TERM=%s)\n", getenv("TERM") ? getenv("TERM") : "");
		input_release(&t->in);
		return EXIT_BAD_INPUT;
	}
	display_splash(t, o.model);

	fd_session_options so = { 0 };
	so.model_path = o.model;
	so.load.dims = o.dims;
	so.load.n_dims = o.n_dims;
	so.rule_paths = o.rules;
	so.n_rule_paths = o.n_rules;
	so.target = o.target;
	so.no_canonicalize = o.no_canonicalize;
	if (session_open(&t->s, &so, &d) < 0) {
		display_done();
		print_diags(&d);
		diags_release(&d);
		input_release(&t->in);
		return EXIT_BAD_INPUT;
	}
	double t_open = clock_ms() - t0;
	size_t load_warnings = d.warnings;
	char first_warning[512] = "";
	for (size_t i = 0; i < d.n; i++)
		if (d.items[i].severity == DIAG_WARNING) {
			diag_format(&d.items[i], first_warning, sizeof first_warning);
			break;
		}
	diags_clear(&d);

	keymap_init(&t->km);
	keymap_load(&t->km, &d);
	char keys_error[512] = "";
	if (d.n)
		diag_format(&d.items[0], keys_error, sizeof keys_error);
	size_t keys_errors = d.n;
	diags_release(&d);

	session_recovery_path(&t->s, t->recovery, sizeof t->recovery);
	vs_bp_init(&t->bps);
	vs_graph_rows_init(&t->grows, session_model(&t->s));
	rules_label(t, &o);
	t->focus = VIEW_RULES;
	t->main_view = VIEW_TRACE;
	rebuild_rule_rows(t);
	vs_list_set_rows(&t->list[VIEW_TRACE], session_result(&t->s)->trace.n_events);

	display_layout(t);
	select_focus(t);
	tui_detail_build(t);
	if (keys_errors)
		tui_message(t, ROLE_ERROR, "%s (ignored%s)", keys_error, keys_errors > 1 ? "; more errors in that file" : "");
	else if (load_warnings)
		tui_message(t, ROLE_WARN, "%s%s", first_warning, load_warnings > 1 ? " (and more warnings)" : "");
	else
		tui_message(t, ROLE_NORMAL, "%zu fusions by %d rules.  ? help  Tab views  Enter open  w why-not  q quit",
		            session_result(&t->s)->n_fusions, (int)session_rules(&t->s)->n_rules);
	display_draw(t);
	t->first_screen_ms = clock_ms() - t0;
	offer_recovery(t);

	int rc = EXIT_OK;
	unsigned res = RES_REDRAW;
	for (;;) {
		if (res & RES_DETAIL)
			tui_detail_build(t);
		if (res & (RES_REDRAW | RES_DETAIL | RES_RERUN))
			display_draw(t);
		const char *cmd = NULL;
		int key = input_key(t, &cmd);
		if (key == KEY_SCRIPT_END) {
			int sig = signals_pending();
			if (sig) {
				if (session_unsaved(&t->s) && t->recovery[0]) {
					fd_diags dd;
					diags_init(&dd);
					session_write_recovery(&t->s, t->recovery, &dd);
					diags_release(&dd);
				}
				rc = 128 + sig;
			}
			break;
		}
		bool had_msg = t->msg[0] != 0;
		t->msg[0] = 0;
		if (key == KEY_SCRIPT_CMD) {
			res = run_command(t, cmd);
		} else if (key == KEY_RESIZE) {
			display_layout(t);
			res = RES_REDRAW;
		} else if (key == KEY_MOUSE) {
			res = mouse(t);
		} else {
			enum tui_action a = keymap_lookup(&t->km, t->focus + 1, key);
			if (a == ACT_NONE) {
				char name[32];
				tui_message(t, ROLE_WARN, "%s is not bound in the %s view (? shows the keys)",
				            key_label(key, name, sizeof name), views[t->focus]->name);
				res = RES_REDRAW;
			} else {
				res = do_action(t, a);
			}
		}
		if (had_msg && !t->msg[0])
			res |= RES_REDRAW;
		if (res & RES_QUIT)
			break;
	}
	display_done();
	int sig = signals_pending();
	if (sig && session_unsaved(&t->s))
		fprintf(stderr, "fusiondbg: signal %d: %zu unsaved edit%s written to %s; the next start offers to restore them\n",
		        sig, session_unsaved(&t->s), session_unsaved(&t->s) == 1 ? "" : "s", t->recovery);
	if (getenv("FUSIONDBG_TIMING"))
		fprintf(stderr, "fusiondbg: first screen %.1f ms (session open: load, match, estimates %.1f ms; "
		        "the TUI's own set-up and first draw %.1f ms)\n", t->first_screen_ms, t_open,
		        t->first_screen_ms - t_open);
	if (getenv("FUSIONDBG_TIMING") && edit_ms >= 0)
		fprintf(stderr, "fusiondbg: last +/-/t edit %.1f ms (re-run %.1f ms by the session), then the TUI's "
		        "refresh %.1f ms\n", edit_ms, t->s.last_run_ms, refresh_ms);
	if (t->diff_valid)
		session_diff_release(&t->diff);
	vs_bp_release(&t->bps);
	vs_graph_rows_release(&t->grows);
	keymap_release(&t->km);
	input_release(&t->in);
	free(t->rule_rows);
	free(t->drows);
	session_close(&t->s);
	return rc;
}
