/* input.c — where keys come from: the terminal (with signals noticed while
 * waiting), or a test script named by FUSIONDBG_TEST_SCRIPT, tig's way. A
 * script has one item per line: keys in the keys-file syntax (jj<Enter>,
 * 250<Enter>), or ":command" — ":save-display FILE", ":resize LINES COLS",
 * ":fail-writes N" (the session's next N file writes fail with ENOSPC),
 * ":write-switch FILE" (the rules' on/off as a fusion switch file),
 * ":click Y X", ":wheel-up Y X", ":wheel-down Y X" (the mouse), or any
 * action name (":undo"); ":type-ahead KEYS" queues KEYS as typed before the
 * program reads any (as while the model loads); ":hold-run" as the first line holds the first run
 * until ":release-run" (first_run.c). # starts a comment line. The script's end
 * quits without asking. The first three are done here, inside a prompt too
 * (input_command); the mouse and the actions by the main loop (loop.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "display.h"
#include "loop.h"
#include "signals.h"

static void push(tui_input *in, int key, size_t *cap)
{
	if (in->n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		in->keys = xrealloc(in->keys, *cap * sizeof *in->keys);
	}
	in->keys[in->n++] = key;
}

int input_open_script(tui_input *in, const char *path, fd_diags *d)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		diag_error(d, srcpos_file(path), "cannot open the test script");
		return -1;
	}
	memset(in, 0, sizeof *in);
	in->scripted = true;
	size_t cap = 0, cap_cmds = 0;
	char line[4096];
	int lineno = 0, rc = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (!strncmp(p, ":type-ahead ", 12)) {
			/* keys typed before the program reads any (while the model loads):
			 * queued now, as the terminal would hold them */
			for (p += 12; *p;) {
				int key;
				size_t k = key_parse(p, &key);
				if (!k || !input_type_ahead(in, key)) {
					fd_srcpos at = { path, lineno, (int)(p - line) + 1 };
					if (k)
						diag_error(d, at, "too many keys typed ahead");
					else
						diag_error(d, at, "not a key: '%s'", p);
					rc = -1;
					break;
				}
				p += k;
			}
			continue;
		}
		if (*p == ':') {
			if (in->n_cmds == cap_cmds) {
				cap_cmds = cap_cmds ? cap_cmds * 2 : 16;
				in->cmds = xrealloc(in->cmds, cap_cmds * sizeof *in->cmds);
			}
			in->cmds[in->n_cmds++] = xstrdup(p + 1);
			push(in, KEY_SCRIPT_CMD, &cap);
			continue;
		}
		while (*p) {
			int key;
			size_t k = key_parse(p, &key);
			if (!k) {
				diag_error(d, (fd_srcpos){ path, lineno, (int)(p - line) + 1 }, "not a key: '%s'", p);
				rc = -1;
				break;
			}
			push(in, key, &cap);
			p += k;
		}
	}
	fclose(f);
	return rc;
}

void input_release(tui_input *in)
{
	for (size_t i = 0; i < in->n_cmds; i++)
		free(in->cmds[i]);
	free(in->cmds);
	free(in->keys);
	memset(in, 0, sizeof *in);
}

bool input_type_ahead(tui_input *in, int key)
{
	if (in->n_ahead == sizeof in->ahead / sizeof *in->ahead)
		return false;
	in->ahead[in->n_ahead++] = key;
	return true;
}

/* A key typed ahead, or 0. */
static int typed_ahead(tui_input *in)
{
	if (in->ahead_pos == in->n_ahead)
		return 0;
	int key = in->ahead[in->ahead_pos++];
	if (in->ahead_pos == in->n_ahead)
		in->ahead_pos = in->n_ahead = 0;
	return key;
}

/* The script's next item. */
static int script_key(tui_input *in, const char **cmd)
{
	if (in->pos >= in->n)
		return KEY_SCRIPT_END;
	int key = in->keys[in->pos++];
	if (key == KEY_SCRIPT_CMD && cmd)
		*cmd = in->cmds[in->cmd_pos++];
	return key;
}

void input_flush(tui *t)
{
	t->in.n_ahead = t->in.ahead_pos = 0;
	if (!t->in.scripted)
		flushinp();
}

int input_key_poll(tui *t, const char **cmd)
{
	if (t->in.scripted)
		return script_key(&t->in, cmd);
	if (signals_pending())
		return KEY_SCRIPT_END;
	int key = getch();
	return key == ERR ? KEY_NONE : key_normalize(key);
}

int input_key(tui *t, const char **cmd)
{
	tui_input *in = &t->in;
	int ahead = typed_ahead(in);
	if (ahead)
		return ahead;
	if (in->scripted)
		return script_key(in, cmd);
	for (;;) {
		if (signals_pending())
			return KEY_SCRIPT_END;
		int key = getch();
		if (key == ERR)
			continue;
		return key_normalize(key);
	}
}

bool input_command(tui *t, const char *cmd)
{
	if (!strncmp(cmd, "save-display", 12)) {
		const char *p = cmd + 12;
		while (*p == ' ')
			p++;
		if (display_save(*p ? p : "fusiondbg.screen") < 0)
			tui_message(t, ROLE_ERROR, "save-display: %s: %s", p, strerror(errno));
		return true;
	}
	if (!strncmp(cmd, "write-switch ", 13)) {   /* the W key's, with the file named */
		tui_write_switch(t, cmd + 13);
		return true;
	}
	if (!strncmp(cmd, "shell ", 6)) {
		/* tests: what another program does meanwhile (an editor saving a rule file) */
		if (system(cmd + 6) != 0)
			tui_message(t, ROLE_ERROR, "shell: '%s' failed", cmd + 6);
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
