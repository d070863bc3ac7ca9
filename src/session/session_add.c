/* session_add.c — a rule file added as a what-if (session.h,
 * session_add_rule_file): its rules appended to the set as one edit, taken
 * out by undo and put back by redo, and written by save as a new file that
 * is created only where nothing is. The added rules always sit after every
 * rule loaded, and undo is linear, so the adds undone are the last records
 * and their rules the entries past the set's end. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "session/session_internal.h"

static int refuse(fd_diags *d, const char *path, const char *fmt, const char *arg)
{
	diag_error(d, srcpos_file(path), fmt, arg);
	return -1;
}

/* The per-rule arrays the session and the set keep beside the rules, grown
 * to n: as loaded, an added rule was not there (disabled, its own priority). */
static void grow_rule_arrays(fd_session *s, int32_t from, int32_t n)
{
	s->prio0 = xrealloc(s->prio0, (size_t)n * sizeof *s->prio0);
	s->enabled0 = xrealloc(s->enabled0, (size_t)n * sizeof *s->enabled0);
	if (s->rules.enabled_by)
		s->rules.enabled_by = xrealloc(s->rules.enabled_by, (size_t)n * sizeof *s->rules.enabled_by);
	for (int32_t i = from; i < n; i++) {
		s->prio0[i] = s->rules.rules[i].priority;
		s->enabled0[i] = false;
		if (s->rules.enabled_by)   /* the environment and the switch file named rules that were there */
			s->rules.enabled_by[i] = ENABLED_BY_FILE;
	}
}

static void put_in_set(fd_session *s, struct fd_session_added *a, const fd_rule *rules)
{
	fd_ruleset *rs = &s->rules;
	rs->rules = xrealloc(rs->rules, (size_t)(rs->n_rules + a->n_rules) * sizeof *rs->rules);
	memcpy(&rs->rules[rs->n_rules], rules, (size_t)a->n_rules * sizeof *rules);
	a->first_rule = rs->n_rules;
	rs->n_rules += a->n_rules;
	rs->files = xrealloc(rs->files, (size_t)(rs->n_files + 1) * sizeof *rs->files);
	rs->files[rs->n_files++] = a->file;
	a->in_set = true;
	ruleset_resolve_types(rs);
}

void session_added_drop_tail(fd_session *s)
{
	while (s->n_added && !s->added[s->n_added - 1].in_set) {
		struct fd_session_added *a = &s->added[--s->n_added];
		yfile_release(a->file);
		free(a->file);
		free(a->rules);
		free(a->path);
	}
	size_t k = 0;
	for (size_t i = 0; i < s->n_slots; i++) {
		if (s->slots[i].rule >= s->rules.n_rules) {
			free(s->slots[i].path);
			free(s->slots[i].disk);
			continue;
		}
		s->slots[k++] = s->slots[i];
	}
	s->n_slots = k;
}

char *session_new_rule_path(const fd_session *s, const char *name, char *buf, size_t size)
{
	const char *first = s->opt.n_rule_paths > 0 ? s->opt.rule_paths[0] : ruleset_default_path(NULL);
	char dir[4096];
	struct stat st;
	if (!first || !*first)
		snprintf(dir, sizeof dir, ".");
	else if (stat(first, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(dir, sizeof dir, "%s", first);
	else {
		const char *slash = strrchr(first, '/');
		if (!slash)
			snprintf(dir, sizeof dir, ".");
		else
			snprintf(dir, sizeof dir, "%.*s", slash == first ? 1 : (int)(slash - first), first);
	}
	size_t n = strlen(dir);
	snprintf(buf, size, "%s%s%s.yaml", dir, n && dir[n - 1] == '/' ? "" : "/", name);
	return buf;
}

int session_add_rule_file(fd_session *s, const char *path, const char *text, fd_diags *d)
{
	struct stat st;
	if (!path || !*path)
		return refuse(d, NULL, "a new rule file needs a path%s", "");
	if (lstat(path, &st) == 0)
		return refuse(d, path, "exists: not overwritten (%s)", "a new rule file is written only where nothing is");
	for (int k = 0; k < s->rules.n_files; k++)
		if (!strcmp(s->rules.files[k]->path, path))
			return refuse(d, path, "is a rule file of this session already%s", "");
	fd_yfile *f = xmalloc(sizeof *f);
	if (yfile_load_buffer(f, path, text, strlen(text), d) < 0) {
		free(f);
		return -1;
	}
	int32_t n = 0;
	fd_rule *rules = xcalloc((size_t)f->n_docs + 1, sizeof *rules);
	int rc = 0;
	for (int i = 0; i < f->n_docs && rc == 0; i++) {
		if (yval_is_null(f->docs[i].root))
			continue;
		if (ruleset_settings_doc(&f->docs[i]))
			rc = refuse(d, path, "a settings document cannot be added as a what-if%s", "");
		else if (rule_from_yaml(&s->rules, &rules[n], &f->docs[i], d) < 0)
			rc = -1;
		else if (ruleset_find(&s->rules, rules[n].name) >= 0)
			rc = refuse(d, path, "a rule named '%s' is in the set already", rules[n].name);
		else
			n++;
	}
	if (rc == 0 && n == 0)
		rc = refuse(d, path, "no rule in this file%s", "");
	if (rc < 0) {
		yfile_release(f);
		free(f);
		free(rules);
		return -1;
	}
	session_ensure_baseline(s);   /* the rules as loaded run without it */
	session_added_drop_tail(s);
	s->added = xrealloc(s->added, (s->n_added + 1) * sizeof *s->added);
	struct fd_session_added *a = &s->added[s->n_added++];
	*a = (struct fd_session_added){ .path = xstrdup(path), .file = f, .n_rules = n };
	int32_t from = s->rules.n_rules;
	put_in_set(s, a, rules);
	free(rules);
	grow_rule_arrays(s, from, s->rules.n_rules);
	for (int32_t i = from; i < s->rules.n_rules; i++)
		ruleset_lint_rule(&s->rules, i, d);
	session_record_edit(s, a->first_rule, "file", NULL, path);
	s->edits[s->n_edits - 1].added = (int32_t)s->n_added;
	return s->opt.defer_run ? 0 : session_run(s);
}

void session_added_undo(fd_session *s, const fd_edit *e)
{
	struct fd_session_added *a = &s->added[e->added - 1];
	fd_ruleset *rs = &s->rules;
	free(a->rules);
	a->rules = xmalloc((size_t)a->n_rules * sizeof *a->rules);
	memcpy(a->rules, &rs->rules[a->first_rule], (size_t)a->n_rules * sizeof *a->rules);
	rs->n_rules -= a->n_rules;
	for (int k = 0; k < rs->n_files; k++)
		if (!strcmp(rs->files[k]->path, a->path)) {   /* a save of its values put a new tree in */
			a->file = rs->files[k];
			memmove(&rs->files[k], &rs->files[k + 1], (size_t)(rs->n_files - k - 1) * sizeof *rs->files);
			rs->n_files--;
			break;
		}
	a->in_set = false;
	ruleset_resolve_types(rs);
}

void session_added_redo(fd_session *s, const fd_edit *e)
{
	struct fd_session_added *a = &s->added[e->added - 1];
	put_in_set(s, a, a->rules);
	free(a->rules);
	a->rules = NULL;
}

size_t session_added_unsaved(const fd_session *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_added; i++)
		n += s->added[i].in_set && !s->added[i].written;
	return n;
}

bool session_file_pending(const fd_session *s, int k)
{
	for (size_t i = 0; i < s->n_added; i++)
		if (s->added[i].in_set && !s->added[i].written && s->added[i].file == s->rules.files[k])
			return true;
	return false;
}

/* Creates path with the bytes, never over anything: a temporary file in
 * its directory, written and synced, then linked to path (which fails when
 * path exists) and removed. Readers see nothing or the whole file. */
static int create_new(const char *path, const char *data, size_t size, fd_diags *d)
{
	size_t n = strlen(path) + 16;
	char *tmp = xmalloc(n);
	snprintf(tmp, n, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		diag_error(d, srcpos_file(path), "cannot write: %s", strerror(errno));
		free(tmp);
		return -1;
	}
	mode_t mask = umask(0);
	umask(mask);
	bool ok = fchmod(fd, 0666 & ~mask) == 0;
	for (size_t done = 0; ok && done < size;) {
		ssize_t w = write(fd, data + done, size - done);
		if (w < 0 && errno == EINTR)
			continue;
		ok = w > 0;
		done += ok ? (size_t)w : 0;
	}
	ok = ok && fsync(fd) == 0;
	int err = errno;
	ok = close(fd) == 0 && ok;
	if (ok && link(tmp, path) < 0) {
		ok = false;
		err = errno;
	}
	unlink(tmp);
	free(tmp);
	if (!ok) {
		if (err == EEXIST)
			diag_error(d, srcpos_file(path), "exists: not overwritten (the added rules stay in memory, unsaved)");
		else
			diag_error(d, srcpos_file(path), "cannot write: %s", strerror(err));
		return -1;
	}
	return 0;
}

void session_save_added(fd_session *s, fd_save_report *rep, fd_diags *d)
{
	for (size_t i = 0; i < s->n_added; i++) {
		struct fd_session_added *a = &s->added[i];
		if (!a->in_set || a->written)
			continue;
		if (create_new(a->path, a->file->text, a->file->size, d) < 0) {
			rep->files_refused++;
			rep->values_refused++;
			continue;
		}
		a->written = true;
		rep->files_written++;
		rep->values_saved++;
		diag_add(d, DIAG_NOTE, srcpos_file(a->path), "written (a new file, %d rule%s)", (int)a->n_rules,
		         a->n_rules == 1 ? "" : "s");
	}
}

void session_added_release(fd_session *s)
{
	for (size_t i = 0; i < s->n_added; i++) {
		struct fd_session_added *a = &s->added[i];
		if (!a->in_set) {   /* else the set's files own it */
			yfile_release(a->file);
			free(a->file);
		}
		free(a->rules);
		free(a->path);
	}
	free(s->added);
	s->added = NULL;
	s->n_added = 0;
}
