/* session_recovery.c — the recovery file: the unsaved values, written after
 * every edit, replayed by a later session. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/atomic_file.h"
#include "session/session_internal.h"

int session_write_recovery(const fd_session *s, const char *path, fd_diags *d)
{
	strbuf b = { 0 };
	sb_puts(&b, "# fusiondbg recovery 1: unsaved what-if edits, replayed with --set\n");
	sb_printf(&b, "model %s\n", s->model.path ? s->model.path : "");
	for (int k = 0; k < s->rules.n_files; k++)
		sb_printf(&b, "rules %s\n", s->rules.files[k]->path);
	for (size_t i = 0; i < s->n_slots; i++) {
		const struct fd_session_slot *sl = &s->slots[i];
		char *cur = session_current_text(s, sl->rule, sl->path);
		bool dirty = !(cur == sl->disk || (cur && sl->disk && !strcmp(cur, sl->disk)));
		if (dirty) {
			if (cur)
				sb_printf(&b, "set %s.%s=%s\n", s->rules.rules[sl->rule].name, sl->path, cur);
			else
				sb_printf(&b, "unset %s.%s\n", s->rules.rules[sl->rule].name, sl->path);
		}
		free(cur);
	}
	/* the directory may not exist yet ($XDG_STATE_HOME/fusiondbg) */
	char *dir = xstrdup(path);
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	free(dir);
	int rc = atomic_write(path, b.s ? b.s : "", b.n, 0600, d);
	sb_release(&b);
	return rc;
}

int session_load_recovery(fd_session *s, const char *path, fd_diags *d)
{
	size_t size;
	char *text = file_read_all(path, &size, d);
	if (!text)
		return -1;
	int applied = 0, rc = 0, line_no = 0;
	bool run_was_deferred = s->opt.defer_run;
	s->opt.defer_run = true;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line_no++;
		fd_srcpos pos = { path, line_no, 1 };
		if (!*line || *line == '#' || !strncmp(line, "model ", 6) || !strncmp(line, "rules ", 6))
			continue;
		if (!strncmp(line, "set ", 4)) {
			fd_diags one;
			diags_init(&one);
			if (session_set_spec(s, line + 4, &one) < 0) {
				for (size_t i = 0; i < one.n; i++)
					diag_error(d, pos, "%s", one.items[i].message);
				rc = -1;
			} else {
				applied++;
			}
			diags_release(&one);
		} else if (!strncmp(line, "unset ", 6)) {
			const char *spec = line + 6;
			int32_t best = -1;
			size_t best_len = 0;
			for (int32_t i = 0; i < s->rules.n_rules; i++) {
				size_t n = strlen(s->rules.rules[i].name);
				if (n > best_len && !strncmp(spec, s->rules.rules[i].name, n) && spec[n] == '.') {
					best = i;
					best_len = n;
				}
			}
			const char *p = spec + best_len + 1;
			char *old = best >= 0 ? session_current_text(s, best, p) : NULL;
			if (best < 0 || session_apply_value(s, best, p, NULL, false, d) < 0) {
				diag_error(d, pos, "cannot replay '%s'", line);
				rc = -1;
			} else {
				session_slot(s, best, p, true);
				/* record it so undo puts the value back */
				s->n_edits = s->n_applied;
				if (s->n_edits == s->cap_edits) {
					s->cap_edits = s->cap_edits ? 2 * s->cap_edits : 16;
					s->edits = xrealloc(s->edits, s->cap_edits * sizeof *s->edits);
				}
				s->edits[s->n_edits++] = (fd_edit){ best, arena_strdup(&s->arena, p),
				                                    old ? arena_strdup(&s->arena, old) : NULL, NULL };
				s->n_applied = s->n_edits;
				applied++;
			}
			free(old);
		} else {
			diag_error(d, pos, "not a recovery line: '%.60s'", line);
			rc = -1;
		}
	}
	free(text);
	s->opt.defer_run = run_was_deferred;
	if (applied)
		session_run(s);
	return rc < 0 ? -1 : applied;
}

char *session_recovery_path(const fd_session *s, char *buf, size_t size)
{
	/* FNV-1a over the model and rule paths: one recovery file per set-up */
	uint64_t h = 1469598103934665603ULL;
	const char *parts[1] = { s->model.path ? s->model.path : "" };
	for (const char *p = parts[0]; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (int k = 0; k < s->rules.n_files; k++)
		for (const char *p = s->rules.files[k]->path; p && *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	if (state && *state)
		snprintf(buf, size, "%s/fusiondbg/recovery-%016llx.txt", state, (unsigned long long)h);
	else
		snprintf(buf, size, "%s/.local/state/fusiondbg/recovery-%016llx.txt", home && *home ? home : "/tmp",
		         (unsigned long long)h);
	return buf;
}
