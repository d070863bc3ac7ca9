/* first_run.c — the first screen while the first run is behind it
 * (session.h, opt.background): the model and the rules as loaded, their
 * counts still to come, and a status line saying the rules are being
 * matched. Keys wait for the finished run: they are typed ahead (the status
 * line lists them) and run once it is done; a script command or a mouse
 * click that cannot wait says so; q, a signal or the end
 * of a script wait for the run and then quit; script commands that need no
 * run (save-display, resize, shell) work. A script's keys wait for the run
 * (its screens must not depend on the machine's speed) unless the run is
 * held by the test hook (the script's first line ":hold-run", until its
 * ":release-run"), which shows a run in progress whatever the speed. Reads only what session.h lets the caller read meanwhile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/clock.h"
#include "base/text.h"
#include "display.h"
#include "first_run.h"
#include "signals.h"

/* The rules as loaded, highest priority first (the order they run in). */
static int32_t *by_priority(const fd_ruleset *rs)
{
	int32_t n = rs->n_rules, *ix = xcalloc(n ? (size_t)n : 1, sizeof *ix);
	for (int32_t i = 0; i < n; i++) {
		int32_t k = i;
		for (; k > 0 && rs->rules[ix[k - 1]].priority < rs->rules[i].priority; k--)
			ix[k] = ix[k - 1];
		ix[k] = i;
	}
	return ix;
}

static void draw(tui *t, const char *status, bool scripted)
{
	const fd_model *m = &t->s.model;
	const fd_ruleset *rs = &t->s.rules;
	char line[1024], name[256];
	erase();
	display_fill(t->disp, 0, 0, COLS, ROLE_TITLE, 0);
	txt_cutf(line, sizeof line, " fusiondbg  %s", t->model_path);
	display_text(t->disp, 0, 0, COLS, ROLE_TITLE, 0, line);
	int64_t nodes = 0;
	for (int32_t g = 0; g < m->n_graphs; g++)
		nodes += m->graphs[g].n_nodes;
	snprintf(line, sizeof line, " model: %lld nodes in %d graph%s, %d tensors in the main graph",
	         (long long)nodes, (int)m->n_graphs, m->n_graphs == 1 ? "" : "s",
	         m->n_graphs ? (int)m->graphs[0].n_tensors : 0);
	display_text(t->disp, 2, 0, COLS, ROLE_NORMAL, 0, line);
	snprintf(line, sizeof line, " %-30s %8s %9s %12s %13s", "rules (as loaded)", "priority", "attempts",
	         "match_times", "effect_times");
	display_text(t->disp, 4, 0, COLS, ROLE_HEADER, 0, line);
	int32_t *ix = by_priority(rs);
	int y = 5;
	for (int32_t i = 0; i < rs->n_rules && y < LINES - 2; i++, y++) {
		const fd_rule *r = &rs->rules[ix[i]];
		txt_cutf(name, 31, "%s", r->name);
		snprintf(line, sizeof line, " %-30s %8lld %9s %12s %13s%s", name, (long long)r->priority, "…", "…", "…",
		         r->enabled ? "" : "  (disabled)");
		display_text(t->disp, y, 0, COLS, r->enabled ? ROLE_NORMAL : ROLE_DIM, 0, line);
	}
	if (rs->n_rules > LINES - 7 && LINES > 8) {
		snprintf(line, sizeof line, " … and %d more", (int)(rs->n_rules - (LINES - 7)));
		display_text(t->disp, LINES - 2, 0, COLS, ROLE_DIM, 0, line);
	}
	free(ix);
	display_fill(t->disp, LINES - 1, 0, COLS, ROLE_STATUS, 0);
	if (status) {
		display_text(t->disp, LINES - 1, 0, COLS, ROLE_STATUS, 0, status);
	} else {
		char took[48] = "";
		if (!scripted)   /* a script's screens must not depend on the machine's speed */
			snprintf(took, sizeof took, ", %.1f s", session_first_run_ms(&t->s) / 1e3);
		snprintf(line, sizeof line, " still matching: %d rules on %lld nodes, then the estimates%s  (q quits once done)",
		         (int)rs->n_rules, (long long)nodes, took);
		display_text(t->disp, LINES - 1, 0, COLS, ROLE_STATUS, 0, line);
	}
	refresh();
}

bool first_run_hold(tui *t)
{
	tui_input *in = &t->in;
	bool hold = in->scripted && in->n && in->keys[0] == KEY_SCRIPT_CMD && !strcmp(in->cmds[0], "hold-run");
	if (hold)
		in->pos = in->cmd_pos = 1;
	session_test_hold_first_run(hold);
	return hold;
}

first_run_end first_run_wait(tui *t, bool held, fd_diags *d, double t0, double *first_ms)
{
	bool scripted = t->in.scripted;
	char status[512] = "";
	bool quit = false;
	draw(t, NULL, scripted);
	*first_ms = clock_ms() - t0;
	while (!quit && !session_first_run_done(&t->s) && (!scripted || held)) {
		const char *cmd = NULL;
		int key = input_key_poll(t, &cmd);
		if (key == KEY_NONE) {
			if (!status[0])
				draw(t, NULL, scripted);   /* the time so far */
			continue;
		}
		if (key == KEY_SCRIPT_END || key == 'q') {
			quit = true;
			break;
		}
		if (key == KEY_SCRIPT_CMD && !strcmp(cmd, "release-run")) {
			held = false;
			session_test_release_first_run(&t->s);
			break;
		}
		if (key == KEY_SCRIPT_CMD && input_command(t, cmd)) {
			draw(t, status[0] ? status : NULL, scripted);
			continue;
		}
		if (key == KEY_RESIZE) {
			draw(t, status[0] ? status : NULL, scripted);
			continue;
		}
		/* the rest waits for the run: typed ahead (a command or the mouse cannot wait) */
		if (key == KEY_SCRIPT_CMD || key == KEY_MOUSE || !input_type_ahead(&t->in, key)) {
			txt_cutf(status, sizeof status, " still matching: %s%s needs the finished run (q quits once done)",
			         key == KEY_SCRIPT_CMD ? ":" : "", key == KEY_SCRIPT_CMD ? cmd
			         : key == KEY_MOUSE ? "the mouse" : keyname(key) ? keyname(key) : "that key");
		} else {
			size_t at = (size_t)snprintf(status, sizeof status, " still matching; typed ahead, to run once done:");
			for (size_t k = 0; k < t->in.n_ahead && at + 16 < sizeof status; k++) {
				const char *kn = keyname(t->in.ahead[k]);
				at += (size_t)snprintf(status + at, sizeof status - at, " %s", kn ? kn : "?");
			}
		}
		draw(t, status, scripted);
	}
	if (quit) {
		draw(t, " quitting once the run is done ...", scripted);
		session_test_release_first_run(&t->s);
	}
	int rc = session_first_run_wait(&t->s, d);
	if (rc < 0)
		return FIRST_RUN_FAILED;
	return quit ? FIRST_RUN_QUIT : FIRST_RUN_READY;
}
