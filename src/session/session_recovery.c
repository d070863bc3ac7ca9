/* session_recovery.c — the recovery file: the unsaved values of one running
 * session, rewritten after every edit, offered back by a later one.
 *
 * One file per running session: recovery-<set-up>-<pid>.txt in
 * $XDG_STATE_HOME/fusiondbg (else ~/.local/state/fusiondbg, ~ from HOME or
 * the password database; never a shared directory), with a lock file
 * recovery-<set-up>-<pid>.lock that the session holds (flock) while it
 * runs. The set-up is a hash of the real paths of the model and the rule
 * files, so a session started elsewhere with the same relative names is
 * another set-up. A recovery file whose lock nobody holds is an earlier
 * session's (it ended, was killed, or crashed): that is what is offered.
 * Its header records each file's real path, size and content hash; when a
 * file is not the same any more the edits are not replayed.
 *
 * The format (version 2), one line each, foreign text escaped (session_yaml_escape: \\, \t, \n,
 * \r, \xNN) so a name never breaks a line:
 *   # fusiondbg recovery 2: …
 *   session PID
 *   model SIZE HASH REALPATH
 *   rules SIZE HASH REALPATH
 *   set RULE.PATH=VALUE          unset RULE.PATH
 * RULE is the longest rule name that prefixes the line and is followed by a
 * '.', so a name may hold '.' or '='. Version 1 files (no session line, no
 * hashes) still replay, unchecked. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/atomic_file.h"
#include "base/input_file.h"
#include "session/session_internal.h"

/* ---- text ------------------------------------------------------------------------ */

/* Undoes session_yaml_escape (without the quotes) in place. */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (*r != '\\' || !r[1]) {
			*w++ = *r;
			continue;
		}
		r++;
		switch (*r) {
		case 't': *w++ = '\t'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 'x':
			if (r[1] && r[2]) {
				char hex[3] = { r[1], r[2], 0 };
				*w++ = (char)strtol(hex, NULL, 16);
				r += 2;
			}
			break;
		default: *w++ = *r;
		}
	}
	*w = '\0';
}

/* FNV-1a, 64 bits. */
static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}
#define FNV_START 1469598103934665603ULL

/* The real path of path (heap), or a copy of it. */
static char *real_of(const char *path)
{
	char *r = path ? realpath(path, NULL) : NULL;
	char *copy = xstrdup(r ? r : path ? path : "");
	free(r);
	return copy;
}

/* A file's size and content hash now; false when it cannot be read. */
static bool file_facts(const char *path, int64_t *size, uint64_t *hash)
{
	/* the model's limit is the largest of the files named (a model, rule files) */
	fd_diags quiet;
	diags_init(&quiet);
	int fd;
	int64_t expected;
	bool opened = input_open(path, &INPUT_LIMIT_MODEL, &fd, &expected, &quiet) == 0;
	diags_release(&quiet);
	if (!opened)
		return false;
	uint64_t h = FNV_START;
	int64_t n = 0;
	char buf[65536];
	ssize_t got;
	while ((got = read(fd, buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR)) {
		if (got < 0)
			continue;
		h = fnv(h, buf, (size_t)got);
		n += (int64_t)got;
	}
	bool ok = got == 0;
	close(fd);
	*size = n;
	*hash = h;
	return ok;
}

/* ---- where ------------------------------------------------------------------------ */

/* $XDG_STATE_HOME/fusiondbg, else HOME's (or the password database's home)
 * .local/state/fusiondbg; NULL when there is none (no shared fallback). */
static char *state_dir(void)
{
	const char *state = getenv("XDG_STATE_HOME");
	strbuf b = { 0 };
	if (state && *state == '/') {
		sb_printf(&b, "%s/fusiondbg", state);
		return sb_take(&b);
	}
	const char *home = getenv("HOME");
	if (!home || *home != '/') {
		struct passwd *pw = getpwuid(geteuid());
		home = pw && pw->pw_dir && *pw->pw_dir == '/' ? pw->pw_dir : NULL;
	}
	if (!home)
		return NULL;
	sb_printf(&b, "%s/.local/state/fusiondbg", home);
	return sb_take(&b);
}

/* The set-up: a hash of the real paths of the model and the rule files. */
static uint64_t setup_hash(const fd_session *s)
{
	char *m = real_of(s->model.path);
	uint64_t h = fnv(FNV_START, m, strlen(m) + 1);
	free(m);
	for (int k = 0; k < s->rules.n_files; k++) {
		char *r = real_of(s->rules.files[k]->path);
		h = fnv(h, r, strlen(r) + 1);
		free(r);
	}
	return h;
}

char *session_recovery_path(const fd_session *s, char *buf, size_t size)
{
	char *dir = state_dir();
	if (!dir) {
		if (size)
			buf[0] = '\0';
		return buf;
	}
	snprintf(buf, size, "%s/recovery-%016llx-%ld.txt", dir, (unsigned long long)setup_hash(s), (long)getpid());
	free(dir);
	return buf;
}

/* Makes the directories of path (0700, ours); -1 + d when one is not private. */
static int private_dirs(const char *path, fd_diags *d)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	mkdir(dir, 0700);
	struct stat st;
	int rc = 0;
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		diag_error(d, srcpos_file(dir), "not a private directory of this user: no recovery file there");
		rc = -1;
	}
	free(dir);
	return rc;
}

/* "….txt" → "….lock" (heap). */
static char *lock_path_of(const char *path)
{
	size_t n = strlen(path);
	strbuf b = { 0 };
	sb_add(&b, path, n > 4 && !strcmp(path + n - 4, ".txt") ? n - 4 : n);
	sb_puts(&b, ".lock");
	return sb_take(&b);
}

int session_recovery_claim(fd_session *s, char *buf, size_t size, fd_diags *d)
{
	session_recovery_path(s, buf, size);
	if (!buf[0]) {
		diag_warning(d, (fd_srcpos){ 0 }, "no recovery file: neither XDG_STATE_HOME nor HOME names a home; "
		             "unsaved edits are not kept across a crash");
		return -1;
	}
	if (private_dirs(buf, d) < 0) {
		buf[0] = '\0';
		return -1;
	}
	char *lock = lock_path_of(buf);
	int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		diag_warning(d, srcpos_file(lock), "cannot hold the recovery lock: %s; no recovery file", strerror(errno));
		if (fd >= 0)
			close(fd);
		free(lock);
		buf[0] = '\0';
		return -1;
	}
	s->recovery_lock = fd + 1;   /* 0: none */
	free(lock);
	return 0;
}

void session_recovery_done(fd_session *s, const char *path, bool remove_file)
{
	if (path && *path) {
		if (remove_file)
			unlink(path);
		char *lock = lock_path_of(path);
		if (s->recovery_lock && (remove_file || access(path, F_OK) != 0))
			unlink(lock);
		free(lock);
	}
	if (s->recovery_lock) {
		close(s->recovery_lock - 1);   /* the lock goes with it */
		s->recovery_lock = 0;
	}
}

/* Whether the lock of recovery file path is free (its session is gone). */
static bool orphaned(const char *path)
{
	char *lock = lock_path_of(path);
	int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	bool free_lock = true;
	if (fd >= 0) {
		free_lock = flock(fd, LOCK_EX | LOCK_NB) == 0;
		close(fd);
	}
	free(lock);
	return free_lock;
}

int session_find_recovery(const fd_session *s, const char *own, char ***out)
{
	*out = NULL;
	char *dir = state_dir();
	if (!dir)
		return 0;
	char prefix[64];
	snprintf(prefix, sizeof prefix, "recovery-%016llx-", (unsigned long long)setup_hash(s));
	DIR *dp = opendir(dir);
	typedef struct { char *path; time_t when; } found;
	found *f = NULL;
	size_t n = 0;
	for (struct dirent *e; dp && (e = readdir(dp));) {
		size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, prefix, strlen(prefix)) || len < 4 || strcmp(e->d_name + len - 4, ".txt"))
			continue;
		strbuf p = { 0 };
		sb_printf(&p, "%s/%s", dir, e->d_name);
		struct stat st;
		if ((own && !strcmp(p.s, own)) || lstat(p.s, &st) < 0 || !S_ISREG(st.st_mode) || !orphaned(p.s)) {
			sb_release(&p);
			continue;
		}
		f = xrealloc(f, (n + 1) * sizeof *f);
		f[n++] = (found){ sb_take(&p), st.st_mtime };
	}
	if (dp)
		closedir(dp);
	free(dir);
	/* newest first */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && f[j].when > f[j - 1].when; j--) {
			found t = f[j];
			f[j] = f[j - 1];
			f[j - 1] = t;
		}
	*out = xcalloc(n + 1, sizeof **out);
	for (size_t i = 0; i < n; i++)
		(*out)[i] = f[i].path;
	free(f);
	return (int)n;
}

/* ---- writing ------------------------------------------------------------------------- */

static void put_file_line(strbuf *b, const char *kind, const char *path)
{
	char *real = real_of(path);
	int64_t size = -1;
	uint64_t hash = 0;
	file_facts(real, &size, &hash);
	sb_printf(b, "%s %lld %016llx ", kind, (long long)size, (unsigned long long)hash);
	session_yaml_escape(b, real, false);
	sb_add(b, "\n", 1);
	free(real);
}

int session_write_recovery(const fd_session *s, const char *path, fd_diags *d)
{
	strbuf b = { 0 };
	sb_puts(&b, "# fusiondbg recovery 2: unsaved what-if edits; the next session on these files offers them back\n");
	sb_printf(&b, "session %ld\n", (long)getpid());
	put_file_line(&b, "model", s->model.path);
	/* an added rule file not saved yet is not on disk: nothing to offer back */
	for (int k = 0; k < s->rules.n_files; k++)
		if (!session_file_pending(s, k))
			put_file_line(&b, "rules", s->rules.files[k]->path);
	for (size_t i = 0; i < s->n_slots; i++) {
		const struct fd_session_slot *sl = &s->slots[i];
		int fk = -1;
		if (!session_rule_doc(s, sl->rule, &fk) || session_file_pending(s, fk))
			continue;
		char *cur = session_current_text(s, sl->rule, sl->path);
		bool dirty = !(cur == sl->disk || (cur && sl->disk && !strcmp(cur, sl->disk)));
		if (dirty) {
			sb_puts(&b, cur ? "set " : "unset ");
			session_yaml_escape(&b, s->rules.rules[sl->rule].name, false);
			sb_add(&b, ".", 1);
			session_yaml_escape(&b, sl->path, false);
			if (cur) {
				sb_add(&b, "=", 1);
				session_yaml_escape(&b, cur, false);
			}
			sb_add(&b, "\n", 1);
		}
		free(cur);
	}
	int rc = private_dirs(path, d) < 0 ? -1 : atomic_write(path, b.s, b.n, 0600, d);
	sb_release(&b);
	return rc;
}

/* ---- reading ------------------------------------------------------------------------- */

void session_recovery_release(fd_recovery *rec)
{
	for (size_t i = 0; i < rec->n_files; i++)
		free(rec->files[i].path);
	for (size_t i = 0; i < rec->n_lines; i++)
		free(rec->lines[i]);
	free(rec->files);
	free(rec->lines);
	free(rec->path);
	memset(rec, 0, sizeof *rec);
}

int session_read_recovery(const fd_session *s, const char *path, fd_recovery *rec, fd_diags *d)
{
	memset(rec, 0, sizeof *rec);
	size_t size;
	char *text = input_read(path, &INPUT_LIMIT_RECOVERY, &size, d);
	if (!text)
		return -1;
	rec->path = xstrdup(path);
	rec->version = strncmp(text, "# fusiondbg recovery 2", 22) ? 1 : 2;
	int line_no = 0, rc = 0;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line_no++;
		if (!*line || *line == '#' || !strncmp(line, "session ", 8))
			continue;
		long long fsize;
		unsigned long long hash;
		int used = 0;
		bool model = !strncmp(line, "model ", 6);
		if (model || !strncmp(line, "rules ", 6)) {
			rec->files = xrealloc(rec->files, (rec->n_files + 1) * sizeof *rec->files);
			fd_recovery_file *f = &rec->files[rec->n_files++];
			memset(f, 0, sizeof *f);
			f->model = model;
			if (rec->version == 2 && sscanf(line + 6, "%lld %llx %n", &fsize, &hash, &used) == 2 && used) {
				f->path = xstrdup(line + 6 + used);
				unescape(f->path);
				f->size = fsize;
				f->hash = hash;
				int64_t now_size;
				uint64_t now_hash;
				f->changed = !file_facts(f->path, &now_size, &now_hash) || now_size != f->size || now_hash != f->hash;
			} else {
				f->path = xstrdup(line + 6);   /* version 1: the path as given, nothing to check */
			}
			continue;
		}
		if (strncmp(line, "set ", 4) && strncmp(line, "unset ", 6)) {
			diag_error(d, (fd_srcpos){ path, line_no, 1 }, "not a recovery line: '%.60s'", line);
			rc = -1;
			continue;
		}
		char *l = xstrdup(line);
		if (rec->version == 2)
			unescape(l);
		rec->lines = xrealloc(rec->lines, (rec->n_lines + 1) * sizeof *rec->lines);
		rec->lines[rec->n_lines++] = l;
	}
	free(text);
	(void)s;
	return rc;
}

/* The rule a "RULE.PATH…" text names: the longest name followed by '.'. */
static int32_t rule_prefix(const fd_session *s, const char *spec, size_t *len)
{
	int32_t best = -1;
	*len = 0;
	for (int32_t i = 0; i < s->rules.n_rules; i++) {
		size_t n = strlen(s->rules.rules[i].name);
		if (n > *len && !strncmp(spec, s->rules.rules[i].name, n) && spec[n] == '.') {
			best = i;
			*len = n;
		}
	}
	return best;
}

/* Whether real path p is the session's model or one of its rule files. */
static bool session_has_file(const fd_session *s, const char *p, bool model)
{
	bool found = false;
	if (model) {
		char *r = real_of(s->model.path);
		found = !strcmp(r, p);
		free(r);
	}
	for (int k = 0; !model && !found && k < s->rules.n_files; k++) {
		char *r = real_of(s->rules.files[k]->path);
		found = !strcmp(r, p);
		free(r);
	}
	return found;
}

/* Which of rec's files are not the session's, or changed: a message each. */
static int check_files(const fd_session *s, const fd_recovery *rec, fd_diags *d)
{
	int rc = 0;
	for (size_t i = 0; rec->version >= 2 && i < rec->n_files; i++) {
		const fd_recovery_file *f = &rec->files[i];
		if (!session_has_file(s, f->path, f->model)) {
			diag_error(d, srcpos_file(f->path), "is not a file of this session: the edits were made on other "
			           "files and are not restored");
			rc = -1;
		} else if (f->changed) {
			diag_error(d, srcpos_file(f->path), "changed since the edits were made (size or contents): "
			           "the edits are not restored");
			rc = -1;
		}
	}
	return rc;
}

int session_apply_recovery(fd_session *s, const fd_recovery *rec, fd_diags *d)
{
	if (check_files(s, rec, d) < 0)
		return -1;
	int applied = 0, rc = 0;
	bool run_was_deferred = s->opt.defer_run;
	s->opt.defer_run = true;
	for (size_t i = 0; i < rec->n_lines; i++) {
		const char *line = rec->lines[i];
		fd_srcpos pos = srcpos_file(rec->path);
		if (!strncmp(line, "set ", 4)) {
			fd_diags one;
			diags_init(&one);
			if (session_set_spec(s, line + 4, &one) < 0) {
				for (size_t k = 0; k < one.n; k++)
					diag_error(d, pos, "%s", one.items[k].message);
				rc = -1;
			} else {
				applied++;
			}
			diags_release(&one);
			continue;
		}
		size_t len;
		const char *spec = line + 6;
		int32_t best = rule_prefix(s, spec, &len);
		const char *p = spec + len + 1;
		char *old = best >= 0 ? session_current_text(s, best, p) : NULL;
		if (best < 0 || session_apply_value(s, best, p, NULL, false, d) < 0) {
			diag_error(d, pos, "cannot replay '%.200s'", line);
			rc = -1;
		} else {
			session_slot_before(s, best, p, old);
			session_record_edit(s, best, p, old, NULL);   /* undo puts the value back */
			applied++;
		}
		free(old);
	}
	s->opt.defer_run = run_was_deferred;
	if (applied)
		session_run(s);
	return rc < 0 ? -1 : applied;
}

int session_load_recovery(fd_session *s, const char *path, fd_diags *d)
{
	fd_recovery rec;
	int rc = session_read_recovery(s, path, &rec, d);
	if (rc == 0)
		rc = session_apply_recovery(s, &rec, d);
	session_recovery_release(&rec);
	return rc;
}
