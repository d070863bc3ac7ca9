/* loop.c — the main loop, in htop's manner: a key (or a script command, a
 * click) becomes an action, its handler says what must happen next as
 * combined RES_* flags, and the loop does it — re-derive from the session,
 * lay out, take the selection, rebuild the detail, draw — before the next
 * key. */
#include <stdio.h>
#include "base/clock.h"
#include "loop.h"
#include "signals.h"

static void apply(tui *t, unsigned res)
{
	if (res & (RES_RERUN | RES_SELECT))
		res |= RES_DETAIL;
	double t0 = clock_ms();
	if (res & RES_RERUN)
		tui_refresh(t);
	if (res & RES_LAYOUT)
		display_layout(t);
	if (res & RES_SELECT)
		tui_select_focus(t);
	if (res & RES_DETAIL)
		tui_detail_build(t);
	if ((res & RES_RERUN) && t->time_refresh) {
		t->refresh_ms = clock_ms() - t0;
		t->time_refresh = false;
	}
	if (res & RES_CLEAR)
		clearok(curscr, TRUE);
	if (res & ~(unsigned)(RES_QUIT | RES_UNHANDLED))
		display_draw(t);
}

/* A click selects the row under the pointer (and focuses its view); the
 * wheel scrolls the view under the pointer. wheel: -1 up, +1 down, 0 click.
 * The panes are laid out for the new focus before the click lands. */
static unsigned mouse_at(tui *t, int y, int x, int wheel)
{
	int line;
	int v = display_hit(t, y, x, &line);
	if (v < 0)
		return RES_OK;
	vs_list *l = &t->views[v].list;
	if (wheel) {
		vs_list_set_rows(l, t->views[v].ops->rows(t));
		vs_list_scroll(l, wheel * 3);
	} else {
		if (t->focus != (enum tui_view)v) {
			t->focus = (enum tui_view)v;
			display_layout(t);
		}
		vs_list_set_rows(l, t->views[v].ops->rows(t));
		vs_list_click(l, line);
	}
	return ((enum tui_view)v == t->focus ? RES_SELECT : RES_DETAIL) | RES_REDRAW;
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

static unsigned run_command(tui *t, const char *cmd)
{
	if (input_command(t, cmd))
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
		char hint[600];
		tui_message(t, ROLE_ERROR, "unknown script command ':%s'%s", cmd, action_hint(cmd, hint, sizeof hint));
		return RES_REDRAW;
	}
	return handle_action(t, a);
}

static unsigned key_pressed(tui *t, int key)
{
	enum tui_action a = keymap_lookup(&t->km, keymap_scope_of(t->focus), key);
	if (a == ACT_NONE) {
		char name[32];
		tui_message(t, ROLE_WARN, "%s is not bound in the %s view (? shows the keys)",
		            key_label(key, name, sizeof name), view_name(t->focus));
		return RES_REDRAW;
	}
	return handle_action(t, a);
}

/* A signal ended the script or the wait for a key: the unsaved edits go to
 * the recovery file. Returns the exit status. */
static int stopped(tui *t)
{
	int sig = signals_pending();
	if (!sig)
		return 0;
	if (session_unsaved(&t->s) && t->recovery[0]) {
		fd_diags d;
		diags_init(&d);
		session_write_recovery(&t->s, t->recovery, &d);
		diags_release(&d);
	}
	return 128 + sig;
}

int tui_loop(tui *t, unsigned first)
{
	unsigned res = first;
	for (;;) {
		apply(t, res);
		const char *cmd = NULL;
		int key = input_key(t, &cmd);
		if (key == KEY_SCRIPT_END)
			return stopped(t);
		bool had_msg = t->msg[0] != 0;
		t->msg[0] = 0;
		if (key == KEY_SCRIPT_CMD)
			res = run_command(t, cmd);
		else if (key == KEY_RESIZE)
			res = RES_LAYOUT;
		else if (key == KEY_MOUSE)
			res = mouse(t);
		else
			res = key_pressed(t, key);
		if (had_msg && !t->msg[0])
			res |= RES_REDRAW;   /* the old message must go */
		if (res & RES_QUIT)
			return 0;
	}
}
