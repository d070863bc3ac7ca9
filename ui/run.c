/* run.c — `fusiondbg MODEL`: start-up and the end. The terminal comes first
 * (a large model shows a loading line at once), then the session, the
 * keymap, the views' table and the first screen; an earlier session's
 * unsaved edits are offered back; then the main loop (loop.c), and on the
 * way out the terminal restored, a word on unsaved edits and everything
 * freed. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/clock.h"
#include "base/strbuf.h"
#include "explain/explain.h"
#include "rounds/rounds.h"
#include "first_run.h"
#include "loop.h"
#include "signals.h"
#include "ui.h"

#define VIEW_OPS_ROW(X, id, ops, name, title, tab, help) [VIEW_##id] = &view_##ops##_ops,
static const view_ops *const views[] = { TUI_VIEWS(VIEW_OPS_ROW, ) };
#undef VIEW_OPS_ROW
static_assert(sizeof views / sizeof *views == VIEW_COUNT, "one view_ops per view");

static void print_diags(const fd_diags *d)
{
	char line[1024];
	for (size_t i = 0; i < d->n; i++)
		fprintf(stderr, "%s\n", diag_format(&d->items[i], line, sizeof line));
}

/* On a fatal signal, or out of memory: the terminal back, nothing freed. */
static void restore_terminal(void *ctx)
{
	tui *t = ctx;
	if (t->disp)
		display_restore(t->disp);
}

static void tui_oom(size_t wanted)
{
	if (signals_fatal_hook)
		signals_fatal_hook(signals_fatal_ctx);
	const char *doing = fd_doing_now();
	fprintf(stderr, "fusiondbg: out of memory (%zu bytes wanted)%s%s\n", wanted, *doing ? " while " : "", doing);
	_exit(2);
}

/* The lock file of an earlier session's recovery file, no longer needed. */
static void drop_lock(const char *path)
{
	size_t n = strlen(path);
	if (n > 4) {
		char lock[4200];
		snprintf(lock, sizeof lock, "%.*s.lock", (int)(n - 4), path);
		unlink(lock);
	}
}

/* A recovery file declined or refused is kept as FILE.old, out of the way. */
static void keep_as_old(const char *path, char *old, size_t size)
{
	snprintf(old, size, "%s.old", path);
	rename(path, old);
	drop_lock(path);
}

/* One earlier session's recovery file: the files and edits listed, y
 * replays them (unless a file changed since), n keeps it as FILE.old.
 * Returns the number of edits restored, -1 when none. */
static int offer_one(tui *t, const char *path)
{
	fd_diags d;
	diags_init(&d);
	fd_recovery rec;
	char line[1024], old[4200];
	if (session_read_recovery(&t->s, path, &rec, &d) < 0 || !rec.n_lines) {
		session_recovery_release(&rec);
		diags_release(&d);
		return -1;
	}
	/* what is in it, before the question */
	size_t n = rec.n_files + rec.n_lines + 1;
	char **lines = xcalloc(n, sizeof *lines);
	size_t k = 0;
	bool changed = false;
	char cwd[4096];
	size_t cl = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
	for (size_t i = 0; i < rec.n_files; i++) {
		strbuf b = { 0 };
		const char *p = rec.files[i].path;   /* below the current directory: relative */
		if (cl > 1 && !strncmp(p, cwd, cl) && p[cl] == '/')
			p += cl + 1;
		sb_printf(&b, "%s %s%s", rec.files[i].model ? "model" : "rules", p,
		          rec.files[i].changed ? "  (changed since: cannot restore)" : "");
		lines[k++] = sb_take(&b);
		changed = changed || rec.files[i].changed;
	}
	for (size_t i = 0; i < rec.n_lines; i++)
		lines[k++] = xstrdup(rec.lines[i]);
	char title[128];
	snprintf(title, sizeof title, "unsaved edits of an earlier session (%zu)", rec.n_lines);
	int key = prompt_list_yes_no(t, title, (const char *const *)lines, (int)k,
	                             changed ? "a file changed since: keep the edits aside as FILE.old?"
	                                     : "restore these edits?");
	for (size_t i = 0; i < k; i++)
		free(lines[i]);
	free(lines);
	int restored = -1;
	if (key == 'y' && !changed) {
		tui_before_run(t);
		restored = session_apply_recovery(&t->s, &rec, &d);
		if (restored < 0) {
			tui_message(t, ROLE_ERROR, "recovery failed: %s", d.n ? diag_format(&d.items[0], line, sizeof line) : "?");
		} else {
			unlink(path);   /* its edits are this session's now */
			drop_lock(path);
			tui_message(t, ROLE_EDITED, "restored %d unsaved edit%s (s saves, u undoes)", restored,
			            restored == 1 ? "" : "s");
		}
	} else {
		keep_as_old(path, old, sizeof old);
		if (changed)
			tui_message(t, ROLE_WARN, "not restored: a file changed since the edits were made; kept as %s", old);
		else
			tui_message(t, ROLE_NORMAL, "not restored; the file was kept as %s", old);
	}
	session_recovery_release(&rec);
	diags_release(&d);
	return restored;
}

/* The unsaved edits of earlier sessions on the same files (by real path),
 * that no running session holds, newest first. */
static unsigned offer_recovery(tui *t)
{
	char **found = NULL;
	int n = session_find_recovery(&t->s, t->recovery, &found);
	int restored = 0;
	for (int i = 0; i < n; i++) {
		int r = offer_one(t, found[i]);
		restored += r > 0 ? r : 0;
		free(found[i]);
	}
	free(found);
	return restored ? RES_RERUN : RES_OK;
}

static void rules_label(tui *t, const tui_options *o)
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

/* No rule fired anywhere: the first screen points at the nearest misses
 * (the trace beside the rules at the deciding check of the first) and the
 * status line names all three, then the count of load_warnings. False when a rule fired, or
 * when no rule reached an anchor at all. */
static bool point_at_nearest_misses(tui *t, size_t load_warnings)
{
	if (rounds_n_fusions(session_rounds(&t->s)))
		return false;
	const fd_match_result *r = session_result(&t->s);
	uint32_t idx[3];
	size_t n = explain_nearest_misses(r, idx, 3);
	if (!n) {
		tui_message(t, ROLE_WARN, "no rule fired, and none found an anchor in this model: w on a rule says "
		            "which nodes come nearest");
		return true;
	}
	strbuf b = { 0 };
	sb_printf(&b, "no rule fired. Nearest misses:");
	for (size_t i = 0; i < n; i++) {
		const fd_attempt *a = &r->trace.attempts[idx[i]];
		char node[160];
		explain_unit_label(r->ctx, a->graph, a->anchor, node, sizeof node);
		sb_printf(&b, "%s %s at %s (%s)", i ? "," : "", session_rules(&t->s)->rules[a->rule].name, node,
		          reason_code((fd_reason)a->reason));
	}
	sb_puts(&b, ". The trace is at the first; w on a rule says why.");
	if (load_warnings)   /* after the misses: a warning must not hide them */
		sb_printf(&b, " And %zu warning%s on loading.", load_warnings, load_warnings == 1 ? "" : "s");
	tui_message(t, ROLE_WARN, "%s", sb_str(&b));
	sb_release(&b);
	vs_list_goto(&t->views[VIEW_TRACE].list, vs_attempt_focus(&r->trace, idx[0]));
	return true;
}

/* The first line of the status bar: a bad keys file, else, when nothing
 * fired, the nearest misses (and how many warnings loading gave), else the
 * model's first warning, else a greeting. d: what loading the keymap said. */
static void first_message(tui *t, const fd_diags *d, size_t load_warnings, const char *first_warning)
{
	char line[512];
	if (d->n)
		tui_message(t, ROLE_ERROR, "%s (ignored%s)", diag_format(&d->items[0], line, sizeof line),
		            d->n > 1 ? "; more errors in that file" : "");
	else if (point_at_nearest_misses(t, load_warnings))
		return;
	else if (load_warnings)
		tui_message(t, ROLE_WARN, "%s%s", first_warning, load_warnings > 1 ? " (and more warnings)" : "");
	else if (tui_n_rounds(t) > 1)   /* every round's, as the title counts them, and round 1's */
		tui_message(t, ROLE_NORMAL, "%zu fusions in %d rounds (round 1: %zu) by %d rules.  ? help  Tab views  "
		            "Enter open  w why-not  q quit", rounds_n_fusions(session_rounds(&t->s)), (int)tui_n_rounds(t),
		            session_result(&t->s)->n_fusions, (int)session_rules(&t->s)->n_rules);
	else
		tui_message(t, ROLE_NORMAL, "%zu fusions by %d rules.  ? help  Tab views  Enter open  w why-not  q quit",
		            session_result(&t->s)->n_fusions, (int)session_rules(&t->s)->n_rules);
}

/* Each view's own state, once the session is open. */
static void views_open(tui *t)
{
	for (int v = 0; v < VIEW_COUNT; v++)
		if (t->views[v].ops->open)
			t->views[v].data = t->views[v].ops->open(t);
}

static void views_close(tui *t)
{
	for (int v = 0; v < VIEW_COUNT; v++)
		if (t->views[v].ops->close && t->views[v].data)
			t->views[v].ops->close(t->views[v].data);
}

static void tui_release(tui *t)
{
	views_close(t);
	vs_bp_release(&t->bps);
	keymap_release(&t->km);
	input_release(&t->in);
	session_close(&t->s);
}

static int run(tui *t, const tui_options *o)
{
	double t0 = clock_ms();
	for (int v = 0; v < VIEW_COUNT; v++)
		t->views[v].ops = views[v];
	t->model_path = o->model;
	t->compare_with = o->compare_with;
	t->round = 1;
	t->edit_ms = -1;
	fd_diags d;
	diags_init(&d);

	const char *script = getenv("FUSIONDBG_TEST_SCRIPT");
	if (script && *script && input_open_script(&t->in, script, &d) < 0) {
		print_diags(&d);
		diags_release(&d);
		return TUI_EXIT_CANNOT_START;
	}
	if (!t->in.scripted && (!isatty(0) || !isatty(1))) {
		fprintf(stderr, "fusiondbg: the TUI needs a terminal; for batch use see `fusiondbg match`, `why`, `mem`\n");
		return TUI_EXIT_CANNOT_START;
	}

	/* the terminal first, so that a large model shows a loading line at once */
	signals_fatal_ctx = t;
	signals_fatal_hook = restore_terminal;
	fd_oom = tui_oom;
	signals_install();
	if (display_init(t, t->in.scripted) < 0) {
		fprintf(stderr, "fusiondbg: cannot start the terminal (TERM=%s)\n", getenv("TERM") ? getenv("TERM") : "");
		input_release(&t->in);
		return TUI_EXIT_CANNOT_START;
	}
	display_splash(t->disp, o->model);

	fd_session_options so = { 0 };
	so.model_path = o->model;
	so.load.dims = o->dims;
	so.load.n_dims = o->n_dims;
	so.load.values = o->values;
	so.load.n_values = o->n_values;
	so.load.input_shapes = o->input_shapes;
	so.load.n_input_shapes = o->n_input_shapes;
	so.shapes = (fd_shapes_mode)o->shapes;
	so.rule_paths = o->rules;
	so.n_rule_paths = o->n_rules;
	so.target = o->target;
	so.no_canonicalize = o->no_canonicalize;
	so.initializers = (fd_init_policy)o->initializers;
	so.rounds.max_rounds = o->max_rounds;
	so.rounds.pass_file = o->passes;
	so.fusion_switch = o->fusion_switch;
	so.background = true;   /* the model and the rules on screen while the rules run */
	bool held = first_run_hold(t);
	if (session_open(&t->s, &so, &d) < 0) {
		display_done(t);
		print_diags(&d);
		diags_release(&d);
		input_release(&t->in);
		return TUI_EXIT_CANNOT_START;
	}
	double t_loaded = clock_ms() - t0, t_first = 0;
	first_run_end fr = first_run_wait(t, held, &d, t0, &t_first);
	if (fr != FIRST_RUN_READY) {
		display_done(t);
		if (getenv("FUSIONDBG_TIMING"))
			fprintf(stderr, "fusiondbg: first screen %.1f ms (the model and the rules loaded %.1f ms, then drawn); "
			        "run finished %.1f ms; quit before the full screen\n", t_first, t_loaded, clock_ms() - t0);
		print_diags(&d);
		diags_release(&d);
		int sig = signals_pending();
		session_close(&t->s);
		input_release(&t->in);
		return fr == FIRST_RUN_FAILED ? TUI_EXIT_CANNOT_START : sig ? 128 + sig : 0;
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

	views_open(t);
	keymap_init(&t->km);
	keymap_load(&t->km, &d);
	fd_diags rd;
	diags_init(&rd);
	session_recovery_claim(&t->s, t->recovery, sizeof t->recovery, &rd);
	vs_bp_init(&t->bps);
	rules_label(t, o);
	t->focus = VIEW_RULES;
	t->main_view = VIEW_TRACE;

	display_layout(t);
	tui_select_focus(t);
	tui_detail_build(t);
	first_message(t, &d, load_warnings, first_warning);
	diags_release(&d);
	char rline[1024];
	if (rd.n)   /* no recovery file: the user must know that a crash would lose edits */
		tui_message(t, ROLE_WARN, "%s", diag_format(&rd.items[0], rline, sizeof rline));
	diags_release(&rd);
	display_draw(t);
	t->first_screen_ms = clock_ms() - t0;
	unsigned first = offer_recovery(t);

	int rc = tui_loop(t, first | RES_REDRAW);
	display_done(t);
	int sig = signals_pending();
	if (sig && session_unsaved(&t->s))
		fprintf(stderr, "fusiondbg: signal %d: %zu unsaved edit%s written to %s; the next start offers to restore them\n",
		        sig, session_unsaved(&t->s), session_unsaved(&t->s) == 1 ? "" : "s", t->recovery);
	if (getenv("FUSIONDBG_TIMING"))
		fprintf(stderr, "fusiondbg: first screen %.1f ms (the model and the rules loaded %.1f ms, then drawn); "
		        "run finished %.1f ms (the index, the rules and the estimates behind it); the full screen %.1f ms "
		        "(the TUI's own set-up and draw %.1f ms)\n", t_first, t_loaded, t_open, t->first_screen_ms,
		        t->first_screen_ms - t_open);
	if (getenv("FUSIONDBG_TIMING") && t->edit_ms >= 0)
		fprintf(stderr, "fusiondbg: last +/-/t edit %.1f ms (re-run %.1f ms by the session), then the TUI's "
		        "refresh %.1f ms\n", t->edit_ms, t->s.last_run_ms, t->refresh_ms);
	session_recovery_done(&t->s, t->recovery, !session_unsaved(&t->s));
	tui_release(t);
	return rc;
}

int tui_run(const tui_options *o)
{
	tui *t = xcalloc(1, sizeof *t);
	int rc = run(t, o);
	signals_fatal_hook = NULL;   /* nothing left to restore */
	signals_fatal_ctx = NULL;
	display_done(t);
	free(t);
	return rc;
}
