/* session_save.c — write-back of edited values to their YAML files, and the
 * recovery file. A save reads the file again (it must still hold the bytes
 * the session read), parses that text to find each edited value's bytes
 * [start, end), replaces only those (adds or removes one line for a key that
 * was absent or is now absent), parses the result to prove that every edited
 * value reads back, then writes it atomically with a one-time FILE.orig
 * backup and adopts the new text so later edits stay exact. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/atomic_file.h"
#include "session/session_internal.h"

typedef struct splice {
	size_t start, end;     /* bytes of the old text replaced */
	char *text;            /* heap */
} splice;

static int cmp_splice(const void *x, const void *y)
{
	const splice *a = x, *b = y;
	return a->start < b->start ? 1 : a->start > b->start ? -1 : 0;   /* last first */
}

/* Column (0-based) of offset p in text. */
static size_t column_of(const char *text, size_t p)
{
	size_t c = 0;
	while (p > 0 && text[p - 1] != '\n') {
		p--;
		c++;
	}
	return c;
}

static size_t line_start(const char *text, size_t p)
{
	while (p > 0 && text[p - 1] != '\n')
		p--;
	return p;
}

/* After the end of the line holding p (just past '\n', or the end). */
static size_t line_end(const char *text, size_t size, size_t p)
{
	while (p < size && text[p] != '\n')
		p++;
	return p < size ? p + 1 : p;
}

static bool starts_quoted(const fd_yval *v, const char *text)
{
	return v && v->kind == YV_SCALAR && v->end > v->start && (text[v->start] == '"' || text[v->start] == '\'');
}

/* The value as written in the file: style follows the disk value (quoted
 * strings stay quoted, in lists too). */
static void render_quoted(strbuf *b, const fd_yval *v, const fd_yval *disk, const char *text, bool quote_strings)
{
	if (v->kind == YV_SCALAR) {
		bool quote = v->quoted || !scalar_plain_safe(v->text) ||
		             ((starts_quoted(disk, text) || quote_strings) && !plain_is_typed(v->text));
		if (quote)
			yaml_quote(b, v->text);
		else
			sb_puts(b, v->text);
		return;
	}
	bool items_quoted = false;
	for (size_t i = 0; disk && disk->kind == YV_SEQ && i < disk->n; i++)
		items_quoted = items_quoted || starts_quoted(disk->items[i], text);
	if (v->kind == YV_SEQ && !(disk && disk->kind == YV_SEQ && disk->end > disk->start && text[disk->start] == '-')) {
		bool scalars = true;
		for (size_t i = 0; i < v->n; i++)
			scalars = scalars && v->items[i]->kind == YV_SCALAR;
		if (scalars) {
			sb_add(b, "[", 1);
			for (size_t i = 0; i < v->n; i++) {
				if (i)
					sb_add(b, ", ", 2);
				render_quoted(b, v->items[i], NULL, text, items_quoted);
			}
			sb_add(b, "]", 1);
			return;
		}
	}
	/* a block list of scalars stays a block list, items at the same column */
	bool block_seq = disk && disk->kind == YV_SEQ && disk->end > disk->start && text[disk->start] == '-';
	if (v->kind == YV_SEQ && block_seq && v->n > 0) {
		size_t col = column_of(text, disk->start);
		bool scalars = true;
		for (size_t i = 0; i < v->n; i++)
			scalars = scalars && v->items[i]->kind == YV_SCALAR;
		if (scalars) {
			for (size_t i = 0; i < v->n; i++) {
				if (i) {
					sb_add(b, "\n", 1);
					for (size_t c = 0; c < col; c++)
						sb_add(b, " ", 1);
				}
				sb_add(b, "- ", 2);
				render_quoted(b, v->items[i], NULL, text, items_quoted);
			}
			return;
		}
	}
	yval_canon(b, v);
}

static void render(strbuf *b, const fd_yval *v, const fd_yval *disk, const char *text)
{
	render_quoted(b, v, disk, text, false);
}

/* One slot's change to the file text, or a refusal in err. */
static int plan_slot(const fd_session *s, const struct fd_session_slot *sl, fd_yval *fresh_root, const char *text,
                     size_t size, splice *out, char *err, size_t errsize)
{
	memset(out, 0, sizeof *out);
	ypath_ref disk, mem;
	const fd_ydoc *doc = session_rule_doc(s, sl->rule, NULL);
	if (ypath_resolve(fresh_root, sl->path, &disk) < 0) {
		snprintf(err, errsize, "%s", disk.err);
		return -1;
	}
	fd_yval *cur = NULL;
	if (doc && ypath_resolve(doc->root, sl->path, &mem) == 0)
		cur = mem.value;
	strbuf b = { 0 };
	if (disk.value && cur) {
		/* replace the value's bytes */
		out->start = disk.value->start;
		out->end = disk.value->end;
		if (out->start == out->end)
			sb_add(&b, " ", 1);   /* "key:" with no value */
		render(&b, cur, disk.value, text);
	} else if (!disk.value && cur) {
		/* add "key: value" as a line of the parent map */
		fd_yval *p = disk.parent;
		if (p->kind != YV_MAP || (p->end > p->start && text[p->start] == '{') || p->n == 0) {
			snprintf(err, errsize, "cannot add '%s' to a flow or empty map in place; add it to the file by hand",
			         disk.key);
			return -1;
		}
		size_t after = p->n - 1;
		if (p == fresh_root)
			for (size_t i = 0; i < p->n; i++)
				if (!strcmp(p->keys[i]->text, "priority") ||
				    (!strcmp(p->keys[i]->text, "name") && !yval_get(p, "priority")))
					after = i;
		size_t indent = column_of(text, p->keys[0]->start);
		size_t at = p->items[after]->end > p->keys[after]->end ? p->items[after]->end : p->keys[after]->end;
		if (at > 0 && text[at - 1] == '\n') {
			out->start = out->end = at;
		} else {
			at = line_end(text, size, at);
			out->start = out->end = at;
			if (at == size && (size == 0 || text[size - 1] != '\n'))
				sb_add(&b, "\n", 1);
		}
		for (size_t c = 0; c < indent; c++)
			sb_add(&b, " ", 1);
		sb_puts(&b, disk.key);
		sb_add(&b, ": ", 2);
		render(&b, cur, NULL, text);
		if (at < size || (size && text[size - 1] == '\n'))
			sb_add(&b, "\n", 1);
	} else if (disk.value && !cur) {
		/* remove the key's line(s) */
		const fd_yval *k = disk.parent->keys[disk.index];
		size_t ls = line_start(text, k->start);
		for (size_t i = ls; i < k->start; i++)
			if (text[i] != ' ') {
				snprintf(err, errsize, "cannot remove '%s' in place (it shares its line); edit the file by hand",
				         disk.key);
				return -1;
			}
		out->start = ls;
		out->end = line_end(text, size, disk.value->end > k->end ? disk.value->end : k->end);
	} else {
		return 1;   /* absent on both sides */
	}
	out->text = sb_take(&b);
	return 0;
}

static const fd_yfile *file_of_slot(const fd_session *s, const struct fd_session_slot *sl, int *k)
{
	return session_rule_doc(s, sl->rule, k) ? s->rules.files[*k] : NULL;
}

/* Saves one file; returns 1 when written, 0 when nothing to do, -1 on error. */
static int save_file(fd_session *s, int k, fd_diags *d)
{
	fd_yfile *f = s->rules.files[k];
	size_t n_dirty = 0;
	for (size_t i = 0; i < s->n_slots; i++) {
		int fk = -1;
		if (file_of_slot(s, &s->slots[i], &fk) && fk == k && slot_dirty(s, &s->slots[i]))
			n_dirty++;
	}
	if (!n_dirty)
		return 0;
	fd_srcpos here = srcpos_file(f->path);
	size_t size = 0;
	char *disk = file_read_all(f->path, &size, d);
	if (!disk)
		return -1;
	if (size != f->size || memcmp(disk, f->text, size)) {
		diag_error(d, here, "changed on disk since it was read: not overwritten (the edits stay in memory)");
		free(disk);
		return -1;
	}
	fd_diags pd;
	diags_init(&pd);
	fd_yfile fresh;
	if (yfile_load_buffer(&fresh, f->path, disk, size, &pd) < 0) {
		diag_error(d, here, "cannot parse the file on disk again; not saved");
		diags_release(&pd);
		free(disk);
		return -1;
	}
	splice *sp = xcalloc(n_dirty, sizeof *sp);
	size_t n_sp = 0;
	int rc = 0;
	char err[300];
	for (size_t i = 0; i < s->n_slots && rc == 0; i++) {
		const struct fd_session_slot *sl = &s->slots[i];
		int fk = -1;
		if (!file_of_slot(s, sl, &fk) || fk != k || !slot_dirty(s, sl))
			continue;
		int doc = s->rules.rules[sl->rule].doc_index;
		if (doc < 0 || doc >= fresh.n_docs) {
			diag_error(d, here, "rule %s: its document is gone", s->rules.rules[sl->rule].name);
			rc = -1;
			break;
		}
		int p = plan_slot(s, sl, fresh.docs[doc].root, disk, size, &sp[n_sp], err, sizeof err);
		if (p < 0) {
			diag_error(d, here, "%s.%s: %s", s->rules.rules[sl->rule].name, sl->path, err);
			rc = -1;
		} else if (p == 0) {
			n_sp++;
		}
	}
	yfile_release(&fresh);
	char *out = NULL;
	size_t out_size = size;
	if (rc == 0) {
		qsort(sp, n_sp, sizeof *sp, cmp_splice);
		for (size_t i = 1; i < n_sp; i++)
			if (sp[i].end > sp[i - 1].start) {
				diag_error(d, here, "two edited values overlap; not saved");
				rc = -1;
			}
	}
	if (rc == 0) {
		strbuf b = { 0 };
		sb_add(&b, "", 0);
		/* splices sorted last-first: build forwards by walking them in reverse */
		size_t pos = 0;
		for (size_t i = n_sp; i-- > 0;) {
			sb_add(&b, disk + pos, sp[i].start - pos);
			sb_puts(&b, sp[i].text);
			pos = sp[i].end;
		}
		sb_add(&b, disk + pos, size - pos);
		out_size = b.n;
		out = sb_take(&b);
	}
	for (size_t i = 0; i < n_sp; i++)
		free(sp[i].text);
	free(sp);

	/* the new text must parse and every edited value must read back */
	fd_yfile *nf = NULL;
	if (rc == 0) {
		nf = xcalloc(1, sizeof *nf);
		diags_clear(&pd);
		if (yfile_load_buffer(nf, f->path, out, out_size, &pd) < 0 || nf->n_docs != f->n_docs) {
			diag_error(d, here, "the edited text would not parse as the same documents; not saved");
			rc = -1;
		}
		for (size_t i = 0; i < s->n_slots && rc == 0; i++) {
			const struct fd_session_slot *sl = &s->slots[i];
			int fk = -1;
			if (!file_of_slot(s, sl, &fk) || fk != k)
				continue;
			ypath_ref ref;
			char *want = session_current_text(s, sl->rule, sl->path);
			char *got = NULL;
			if (ypath_resolve(nf->docs[s->rules.rules[sl->rule].doc_index].root, sl->path, &ref) == 0 && ref.value)
				got = yval_canon_dup(ref.value);
			if (!(want == got || (want && got && !strcmp(want, got)))) {
				diag_error(d, here, "%s.%s: the value would read back as %s, not %s; not saved",
				           s->rules.rules[sl->rule].name, sl->path, got ? got : "absent", want ? want : "absent");
				rc = -1;
			}
			free(want);
			free(got);
		}
	}
	if (rc == 0) {
		char *orig = xmalloc(strlen(f->path) + 8);
		sprintf(orig, "%s.orig", f->path);
		if (atomic_write_once(orig, disk, size, -1, d) < 0 || atomic_write(f->path, out, out_size, -1, d) < 0)
			rc = -1;
		free(orig);
	}
	if (rc < 0) {
		if (nf) {
			yfile_release(nf);
			free(nf);
		}
		diags_release(&pd);
		free(disk);
		free(out);
		return -1;
	}
	/* adopt the new text: later edits and saves work on its offsets */
	s->retired = xrealloc(s->retired, (s->n_retired + 1) * sizeof *s->retired);
	s->retired[s->n_retired++] = f;
	s->rules.files[k] = nf;
	session_rederive_file(s, k, f->path, d);
	for (size_t i = 0; i < s->n_slots; i++) {
		struct fd_session_slot *sl = &s->slots[i];
		int fk = -1;
		if (!file_of_slot(s, sl, &fk) || fk != k)
			continue;
		free(sl->disk);
		sl->disk = session_current_text(s, sl->rule, sl->path);
	}
	diags_release(&pd);
	free(disk);
	free(out);
	return 1;
}

int session_save(fd_session *s, fd_diags *d)
{
	int written = 0, rc = 0;
	for (int k = 0; k < s->rules.n_files; k++) {
		int r = save_file(s, k, d);
		if (r < 0)
			rc = -1;
		else
			written += r;
	}
	return rc < 0 ? -1 : written;
}

/* ---- recovery ------------------------------------------------------------------- */

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
