/* session_save.c — write-back of edited values to their YAML files.
 *
 * A save changes nothing but the edited values. Per file: the bytes on disk
 * must still be those the session read; each edited value (a slot) is
 * planned against a fresh parse of them as one splice — its value's bytes
 * replaced, one line added (a key the file lacks) or its lines removed —
 * in the file's own style and line ends (session_render.c). Text the value
 * shares with other places is never rewritten under them: a value that is
 * an alias ("key: *a") is written out as a value of its own (detached), a
 * pair that came from a merge ("<<: *base") becomes a key of the map that
 * merged it (which overrides the merge), and each of those says so in a
 * note. Then the proof: the new text is parsed again and every document
 * must read exactly as the file did with the saved values put in — every
 * other value of every document the same, an anchor's other users
 * included. A slot that cannot be planned or proved is refused with a
 * message naming it, and the file keeps its bytes for it; the others are
 * saved. The text is written with the file's identity kept
 * (base/atomic_file.h), the original bytes kept once as FILE.orig, and the
 * session adopts the new text (the refused values stay in memory, unsaved). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/atomic_file.h"
#include "base/input_file.h"
#include "ruleset/rule_format.h"
#include "session/session_internal.h"
#include "base/arena.h"

typedef struct splice {
	size_t start, end;     /* bytes of the old text replaced */
	char *text;            /* heap */
	size_t seq;            /* lines added at one place keep the edits' order */
} splice;

/* ---- positions in the text ----------------------------------------------------- */

/* Column (0-based, bytes) of offset p. */
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

/* After the end of the line holding p (just past '\n'), or the end. */
static size_t line_end(const char *text, size_t size, size_t p)
{
	while (p < size && text[p] != '\n')
		p++;
	return p < size ? p + 1 : p;
}

/* Where pair i of map p ends as written in this map (its key, and its value
 * or the alias standing for it, with a block scalar's trailing lines). */
static size_t pair_end(const fd_yval *p, size_t i)
{
	fd_yplace pl = yval_place(p, i);
	size_t v = pl.kind == YP_ALIAS ? pl.end : p->items[i]->tail;
	return v > p->keys[i]->end ? v : p->keys[i]->end;
}

/* ---- one slot ------------------------------------------------------------------ */

typedef struct planner {
	const fd_session *s;
	const struct fd_session_slot *sl;
	const char *text;
	size_t size;
	render_ctx rc;
	strbuf note;           /* what the save did beyond the value itself (detached an alias, …) */
	char err[512];
} planner;

static int refuse(planner *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(planner *pl, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pl->err, sizeof pl->err, fmt, ap);
	va_end(ap);
	return -1;
}

/* The value at path in the session's (edited) document, or NULL. */
static const fd_yval *memory_value(const planner *pl, const char *path)
{
	const fd_ydoc *doc = session_rule_doc(pl->s, pl->sl->rule, NULL);
	ypath_ref ref;
	return doc && session_ypath_resolve(doc->root, path, &ref) == 0 ? ref.value : NULL;
}

/* "key: value" as a new line of map p (after the pair the layout wants:
 * the root's priority, else the last pair the map writes itself). */
static int plan_add(planner *pl, const fd_yval *p, bool is_root, const char *key, const fd_yval *v, const char *path,
                    splice *out)
{
	const char *text = pl->text;
	if (p->kind != YV_MAP)
		return refuse(pl, "cannot add '%s' here: not a map", key);
	if (p->end > p->start && text[p->start] == '{' && text[p->end - 1] == '}') {
		/* a flow map: ", key: value" before its '}' */
		strbuf b = { 0 };
		bool empty = true;
		for (size_t i = 0; i < p->n; i++)
			empty = empty && yval_place(p, i).kind == YP_MERGED;
		size_t at = p->end - 1;
		while (at > p->start + 1 && (text[at - 1] == ' ' || text[at - 1] == '\t'))
			at--;
		if (!empty && text[at - 1] != ',')
			sb_puts(&b, ", ");
		session_render_key(&b, key);
		sb_add(&b, ": ", 2);
		session_render_value(&b, v, NULL, path, &pl->rc);
		out->start = out->end = at;
		out->text = sb_take(&b);
		return 0;
	}
	if (p->end > p->start && text[p->start] == '{')
		return refuse(pl, "cannot add '%s' to that flow map in place; add it to the file by hand", key);
	long after = -1, first_local = -1;
	size_t merge_at = 0;
	bool merged = false;
	for (size_t i = 0; i < p->n; i++) {
		fd_yplace place = yval_place(p, i);
		if (place.kind == YP_MERGED) {
			if (!merged || place.start < merge_at)
				merge_at = place.start;
			merged = true;
			continue;
		}
		if (first_local < 0)
			first_local = (long)i;
		after = (long)i;
	}
	if (is_root)
		for (size_t i = 0; i < p->n; i++)
			if (yval_place(p, i).kind != YP_MERGED &&
			    (!strcmp(p->keys[i]->text, "priority") || (!strcmp(p->keys[i]->text, "name") && !yval_get(p, "priority"))))
				after = (long)i;
	size_t at, indent;
	if (after >= 0) {
		at = pair_end(p, (size_t)after);
		indent = column_of(text, p->keys[first_local]->start);
	} else if (merged) {
		at = p->tail;   /* the "<<: *base" line(s) end the map's own text */
		indent = column_of(text, merge_at);
	} else {
		return refuse(pl, "cannot add '%s' to an empty map in place; add it to the file by hand", key);
	}
	strbuf b = { 0 };
	if (!(at > 0 && text[at - 1] == '\n')) {
		at = line_end(pl->text, pl->size, at);
		if (at == pl->size && (pl->size == 0 || text[pl->size - 1] != '\n'))
			sb_puts(&b, session_eol_at(text, pl->size, at ? at - 1 : 0));
	}
	const char *eol = session_eol_at(text, pl->size, at ? at - 1 : 0);
	pl->rc.eol = eol;
	for (size_t c = 0; c < indent; c++)
		sb_add(&b, " ", 1);
	session_render_key(&b, key);
	sb_add(&b, ": ", 2);
	session_render_value(&b, v, NULL, path, &pl->rc);
	if (at < pl->size || (pl->size && text[pl->size - 1] == '\n'))
		sb_puts(&b, eol);
	out->start = out->end = at;
	out->text = sb_take(&b);
	return 0;
}

/* The lines of pair i of map p, removed. */
static int plan_remove(planner *pl, const fd_yval *p, size_t i, splice *out)
{
	const fd_yval *k = p->keys[i];
	size_t ls = line_start(pl->text, k->start);
	for (size_t c = ls; c < k->start; c++)
		if (pl->text[c] != ' ' && pl->text[c] != '-')
			return refuse(pl, "cannot remove '%s' in place (it shares its line); edit the file by hand", k->text);
	if (ls < k->start && memchr(pl->text + ls, '-', k->start - ls))
		return refuse(pl, "cannot remove '%s' in place (it starts a list item); edit the file by hand", k->text);
	out->start = ls;
	out->end = line_end(pl->text, pl->size, pair_end(p, i) > 0 ? pair_end(p, i) - 1 : 0);
	if (pair_end(p, i) > 0 && pl->text[pair_end(p, i) - 1] == '\n')
		out->end = pair_end(p, i);
	out->text = xstrdup("");
	return 0;
}

/* The first segments of path, up to and including segment n (0-based). */
static char *path_prefix(const char *path, int n)
{
	const char *p = path;
	for (int i = 0; i <= n && p; i++) {
		p = strchr(p, '.');
		if (p && i < n)
			p++;
	}
	if (!p)
		return xstrdup(path);
	strbuf b = { 0 };
	sb_add(&b, path, (size_t)(p - path));
	return sb_take(&b);
}

/* One slot's change to the file text, or a refusal (pl->err). 1: nothing to
 * do (absent on both sides). */
static int plan_slot(planner *pl, fd_yval *fresh_root, splice *out)
{
	memset(out, 0, sizeof *out);
	const char *path = pl->sl->path;
	ypath_ref disk;
	if (session_ypath_resolve(fresh_root, path, &disk) < 0)
		return refuse(pl, "%s", disk.err);
	const fd_yval *cur = memory_value(pl, path);
	/* the first step whose item is not written in place: shared text */
	for (int k = 0; k < disk.n_steps; k++) {
		const fd_yval *parent = disk.steps[k].parent;
		size_t idx = disk.steps[k].index;
		fd_yplace place = yval_place(parent, idx);
		if (place.kind == YP_HERE)
			continue;
		char *at = path_prefix(path, k);
		const fd_yval *mem = memory_value(pl, at);
		const char *key = parent->kind == YV_MAP ? parent->keys[idx]->text : NULL;
		int rc = 0;
		if (place.kind == YP_ALIAS && !mem) {
			rc = parent->kind == YV_MAP ? plan_remove(pl, parent, idx, out)
			                            : refuse(pl, "cannot remove a list item in place; edit the file by hand");
		} else if (place.kind == YP_ALIAS) {
			strbuf b = { 0 };
			pl->rc.eol = session_eol_at(pl->text, pl->size, place.start);
			session_render_value(&b, mem, NULL, at, &pl->rc);
			out->start = place.start;
			out->end = place.end;
			out->text = sb_take(&b);
			sb_printf(&pl->note, "%s was the alias %.*s: now written as a value of its own",
			          strcmp(at, path) ? at : "it",
			          (int)(place.end - place.start), pl->text + place.start);
		} else if (!mem) {
			rc = refuse(pl, "'%s' comes from a merge ('<<'): it cannot be removed in the map; edit the file by hand",
			            key ? key : at);
		} else {
			rc = plan_add(pl, parent, parent == fresh_root, key, mem, at, out);
			if (rc == 0)
				sb_printf(&pl->note, "%s came from a merge ('<<'): now a key of its own map, which overrides the merge",
				          strcmp(at, path) ? at : "it");
		}
		free(at);
		return rc;
	}
	if (disk.value && cur) {
		strbuf b = { 0 };
		out->start = disk.value->start;
		out->end = disk.value->end;
		if (out->start == out->end)
			sb_add(&b, " ", 1);   /* "key:" with no value */
		pl->rc.eol = session_eol_at(pl->text, pl->size, out->start);
		session_render_value(&b, cur, disk.value, path, &pl->rc);
		out->text = sb_take(&b);
		return 0;
	}
	if (!disk.value && cur)
		return plan_add(pl, disk.parent, disk.parent == fresh_root, disk.key, cur, path, out);
	if (disk.value && !cur) {
		if (disk.parent->kind != YV_MAP)
			return refuse(pl, "cannot remove a list item in place; edit the file by hand");
		return plan_remove(pl, disk.parent, disk.index, out);
	}
	return 1;
}

/* ---- the file ------------------------------------------------------------------- */

static int cmp_splice(const void *x, const void *y)
{
	const splice *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The text with the splices (sorted, not overlapping) put in. */
static char *apply_splices(const char *text, size_t size, splice *sp, size_t n, size_t *out_size)
{
	qsort(sp, n, sizeof *sp, cmp_splice);
	strbuf b = { 0 };
	sb_add(&b, "", 0);
	size_t pos = 0;
	for (size_t i = 0; i < n; i++) {
		sb_add(&b, text + pos, sp[i].start - pos);
		sb_puts(&b, sp[i].text);
		pos = sp[i].end;
	}
	sb_add(&b, text + pos, size - pos);
	*out_size = b.n;
	return sb_take(&b);
}

/* Two splices that cannot both be made: they overlap (lines added at one
 * place do not: they go in the edits' order). The same splice twice (two
 * edits under one detached alias) is made once. */
static bool conflicts(const splice *a, const splice *b, bool *same)
{
	*same = a->start == b->start && a->end == b->end && !strcmp(a->text, b->text);
	if (*same || (a->start == a->end && b->start == b->end))
		return false;
	return a->start < b->end && b->start < a->end;
}

typedef struct file_save {
	fd_session *s;
	int k;
	const fd_yfile *f;
	const char *disk;
	size_t size;
	const struct fd_session_slot **slots;   /* the dirty slots of this file */
	size_t n_slots;
} file_save;

/* Whether text (the disk bytes with the accepted splices) reads as the disk
 * file with the values of the accepted slots put in, document by document;
 * else why, in err. The proof that nothing else changed. */
static bool proves(const file_save *fs, const char *text, size_t size, const bool *accepted, fd_yfile *out,
                   char *err, size_t errsize)
{
	fd_diags pd;
	diags_init(&pd);
	fd_yfile want;
	bool ok = false;
	if (yfile_load_buffer(out, fs->f->path, text, size, &pd) < 0) {
		char line[400];
		snprintf(err, errsize, "the edited text would not parse (%s)",
		         pd.n ? diag_format(&pd.items[0], line, sizeof line) : "?");
		diags_release(&pd);
		return false;
	}
	if (yfile_load_buffer(&want, fs->f->path, fs->disk, fs->size, &pd) < 0) {
		snprintf(err, errsize, "cannot parse the file on disk again");
		yfile_release(out);
		diags_release(&pd);
		return false;
	}
	if (out->n_docs != want.n_docs) {
		snprintf(err, errsize, "the edited text would hold %d documents, not %d", out->n_docs, want.n_docs);
		goto done;
	}
	for (size_t i = 0; i < fs->n_slots; i++) {
		if (!accepted[i])
			continue;
		const struct fd_session_slot *sl = fs->slots[i];
		const fd_ydoc *doc = session_rule_doc(fs->s, sl->rule, NULL);
		ypath_ref ref;
		const fd_yval *v = doc && session_ypath_resolve(doc->root, sl->path, &ref) == 0 ? ref.value : NULL;
		int d = fs->s->rules.rules[sl->rule].doc_index;
		if (session_ytree_set(&want.arena, want.docs[d].root, sl->path, (fd_yval *)v) < 0) {
			snprintf(err, errsize, "%s: the path no longer resolves in the file", sl->path);
			goto done;
		}
	}
	for (int d = 0; d < want.n_docs; d++) {
		strbuf where = { 0 };
		if (session_yval_differ_at(want.docs[d].root, out->docs[d].root, "", &where)) {
			snprintf(err, errsize, "saving it would also change %s of document %d (text it shares through an anchor "
			         "or a merge)", where.s, d + 1);
			sb_release(&where);
			goto done;
		}
		sb_release(&where);
	}
	ok = true;
done:
	yfile_release(&want);
	if (!ok)
		yfile_release(out);
	diags_release(&pd);
	return ok;
}

static const char *rule_name(const fd_session *s, const struct fd_session_slot *sl)
{
	return s->rules.rules[sl->rule].name;
}

/* One slot's plan. */
typedef struct slot_plan {
	int state;             /* -1 refused, 0 a splice, 1 nothing to write */
	splice sp;
	char *note;            /* heap or NULL */
	char err[600];
} slot_plan;

/* The text with the splices of the chosen plans; NULL when two overlap
 * (*clash: the later one). */
static char *text_of(const file_save *fs, const slot_plan *plans, const bool *chosen, size_t *size, size_t *clash)
{
	splice *sp = xcalloc(fs->n_slots + 1, sizeof *sp);
	size_t n = 0;
	for (size_t i = 0; i < fs->n_slots; i++) {
		if (!chosen[i] || plans[i].state != 0)
			continue;
		bool dup = false;
		for (size_t j = 0; j < n; j++) {
			bool same;
			if (conflicts(&plans[i].sp, &sp[j], &same)) {
				*clash = i;
				free(sp);
				return NULL;
			}
			dup = dup || same;
		}
		if (!dup)
			sp[n++] = plans[i].sp;
	}
	char *text = apply_splices(fs->disk, fs->size, sp, n, size);
	free(sp);
	return text;
}

/* Whether the chosen plans together make a text that proves; then the text
 * and its parse. err: why not. */
static char *try_plans(const file_save *fs, const slot_plan *plans, const bool *chosen, fd_yfile *nf,
                       size_t *size, char *err, size_t errsize)
{
	size_t clash = 0;
	char *text = text_of(fs, plans, chosen, size, &clash);
	if (!text) {
		snprintf(err, errsize, "its text overlaps another edited value's; save it on its own");
		return NULL;
	}
	if (!proves(fs, text, *size, chosen, nf, err, errsize)) {
		free(text);
		return NULL;
	}
	return text;
}

/* The slots to save: each planned against the disk tree; all of them when
 * their text proves, else as many as prove, added one by one until no more
 * can be (a value may prove only once another is in: an anchor and its
 * alias set alike). A slot left out is refused (d names it). Returns the
 * new text (NULL when no slot was accepted) and its parse. */
static char *plan_file(file_save *fs, bool *accepted, fd_yfile *nf, size_t *out_size, size_t *n_accepted,
                       fd_diags *d)
{
	fd_srcpos here = srcpos_file(fs->f->path);
	fd_diags pd;
	diags_init(&pd);
	fd_yfile fresh;
	*n_accepted = 0;
	if (yfile_load_buffer(&fresh, fs->f->path, fs->disk, fs->size, &pd) < 0) {
		diag_error(d, here, "cannot parse the file on disk again; not saved");
		diags_release(&pd);
		return NULL;
	}
	diags_release(&pd);
	slot_plan *plans = xcalloc(fs->n_slots, sizeof *plans);
	bool *chosen = xcalloc(fs->n_slots, sizeof *chosen);
	for (size_t i = 0; i < fs->n_slots; i++) {
		const struct fd_session_slot *sl = fs->slots[i];
		planner pl = { .s = fs->s, .sl = sl, .text = fs->disk, .size = fs->size, .rc = { fs->disk, "\n" } };
		int doc = fs->s->rules.rules[sl->rule].doc_index;
		plans[i].state = doc >= 0 && doc < fresh.n_docs ? plan_slot(&pl, fresh.docs[doc].root, &plans[i].sp)
		                                                 : refuse(&pl, "its document is gone from the file");
		plans[i].sp.seq = i;
		plans[i].note = pl.note.n ? sb_take(&pl.note) : NULL;
		sb_release(&pl.note);
		snprintf(plans[i].err, sizeof plans[i].err, "%s", pl.err);
		chosen[i] = plans[i].state >= 0;
	}
	yfile_release(&fresh);
	char err[600] = "";
	char *best = try_plans(fs, plans, chosen, nf, out_size, err, sizeof err);
	if (!best) {
		/* one by one, until a pass adds none */
		memset(chosen, 0, fs->n_slots * sizeof *chosen);
		for (bool added = true; added;) {
			added = false;
			for (size_t i = 0; i < fs->n_slots; i++) {
				if (chosen[i] || plans[i].state < 0)
					continue;
				chosen[i] = true;
				fd_yfile parsed;
				size_t size;
				char *text = try_plans(fs, plans, chosen, &parsed, &size, plans[i].err, sizeof plans[i].err);
				if (!text) {
					chosen[i] = false;
					continue;
				}
				if (best)
					yfile_release(nf);
				free(best);
				best = text;
				*nf = parsed;
				*out_size = size;
				added = true;
			}
		}
	}
	for (size_t i = 0; i < fs->n_slots; i++) {
		const struct fd_session_slot *sl = fs->slots[i];
		accepted[i] = chosen[i] && best;
		if (accepted[i]) {
			(*n_accepted)++;
			if (plans[i].note)
				diag_add(d, DIAG_NOTE, here, "%s.%s: %s", rule_name(fs->s, sl), sl->path, plans[i].note);
		} else {
			diag_error(d, here, "%s.%s: not saved: %s", rule_name(fs->s, sl), sl->path,
			           plans[i].err[0] ? plans[i].err : err);
		}
		free(plans[i].sp.text);
		free(plans[i].note);
	}
	free(plans);
	free(chosen);
	return best;
}

/* Saves one file; returns the number of values written (0: none), -1 when
 * the file could not be read or written. rep counts the refusals. */
static int save_file(fd_session *s, int k, fd_save_report *rep, fd_diags *d)
{
	fd_yfile *f = s->rules.files[k];
	file_save fs = { .s = s, .k = k, .f = f };
	fs.slots = xcalloc(s->n_slots + 1, sizeof *fs.slots);
	for (size_t i = 0; i < s->n_slots; i++) {
		int fk = -1;
		if (session_rule_doc(s, s->slots[i].rule, &fk) && fk == k && session_slot_dirty(s, &s->slots[i]))
			fs.slots[fs.n_slots++] = &s->slots[i];
	}
	if (!fs.n_slots) {
		free(fs.slots);
		return 0;
	}
	fd_srcpos here = srcpos_file(f->path);
	size_t size = 0;
	char *disk = input_read(f->path, &INPUT_LIMIT_RULES, &size, d);
	if (!disk) {
		rep->values_refused += fs.n_slots;
		rep->files_refused++;
		free(fs.slots);
		return -1;
	}
	if (size != f->size || memcmp(disk, f->text, size)) {
		diag_error(d, here, "changed on disk since it was read: not overwritten (%zu edit%s kept in memory)",
		           fs.n_slots, fs.n_slots == 1 ? "" : "s");
		rep->values_refused += fs.n_slots;
		rep->files_refused++;
		free(disk);
		free(fs.slots);
		return -1;
	}
	fs.disk = disk;
	fs.size = size;
	bool *accepted = xcalloc(fs.n_slots, sizeof *accepted);
	fd_yfile *nf = xcalloc(1, sizeof *nf);
	size_t out_size = 0, n_ok = 0;
	char *out = plan_file(&fs, accepted, nf, &out_size, &n_ok, d);
	rep->values_refused += fs.n_slots - n_ok;
	if (n_ok < fs.n_slots)
		rep->files_refused++;
	int rc = (int)n_ok;
	if (out) {
		char *orig = xmalloc(strlen(f->path) + 8);
		sprintf(orig, "%s.orig", f->path);
		if (file_backup_once(f->path, orig, disk, size, d) < 0 || file_replace(f->path, out, out_size, d) < 0) {
			rc = -1;
			rep->values_refused += n_ok;
			if (n_ok == fs.n_slots)
				rep->files_refused++;
		}
		free(orig);
	}
	if (rc <= 0) {
		if (out)
			yfile_release(nf);
		free(nf);
		free(out);
		free(disk);
		free(accepted);
		free(fs.slots);
		return rc;
	}
	/* the values not saved, as they read in memory: put back after the switch */
	char **kept = xcalloc(fs.n_slots, sizeof *kept);
	for (size_t i = 0; i < fs.n_slots; i++)
		if (!accepted[i])
			kept[i] = session_current_text(s, fs.slots[i]->rule, fs.slots[i]->path);
	/* adopt the new text: later edits and saves work on its offsets */
	s->retired = xrealloc(s->retired, (s->n_retired + 1) * sizeof *s->retired);
	s->retired[s->n_retired++] = f;
	s->rules.files[k] = nf;
	session_rederive_file(s, k, f->path, d);
	for (size_t i = 0; i < s->n_slots; i++) {
		struct fd_session_slot *sl = &s->slots[i];
		int fk = -1;
		if (!session_rule_doc(s, sl->rule, &fk) || fk != k)
			continue;
		free(sl->disk);
		sl->disk = session_current_text(s, sl->rule, sl->path);
	}
	for (size_t i = 0; i < fs.n_slots; i++)
		if (!accepted[i]) {
			fd_diags ad;
			diags_init(&ad);
			session_apply_value(s, fs.slots[i]->rule, fs.slots[i]->path, kept[i], false, &ad);
			diags_release(&ad);
			free(kept[i]);
		}
	free(kept);
	diag_add(d, DIAG_NOTE, here, "written (%d value%s)", rc, rc == 1 ? "" : "s");
	rep->files_written++;
	rep->values_saved += (size_t)rc;
	free(disk);
	free(out);
	free(accepted);
	free(fs.slots);
	return rc;
}

int session_save_report(fd_session *s, fd_save_report *rep, fd_diags *d)
{
	fd_doing("saving the edited rules");
	memset(rep, 0, sizeof *rep);
	session_save_added(s, rep, d);   /* first: edits of their values then save as any file's */
	for (int k = 0; k < s->rules.n_files; k++)
		save_file(s, k, rep, d);
	if (rep->values_saved)
		s->stale = true;
	return rep->values_refused ? -1 : rep->files_written;
}

int session_save(fd_session *s, fd_diags *d)
{
	fd_save_report rep;
	return session_save_report(s, &rep, d);
}
