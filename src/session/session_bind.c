/* session_bind.c — the dims what-if: a symbol bound to another value (or
 * unbound), the model loaded again with it, the rules re-run as edited and
 * as loaded (the diff's baseline is always the rules as loaded, rebound),
 * and what changed, fusion by fusion, with the reason each attempt ends on
 * and the peak before -> after. The file is read again only while it is the
 * model that was opened (its stat: device, inode, size, times): a model
 * re-exported meanwhile is refused, never credited to the binding. It is
 * read as open read it (the rule set's shapes and initializers). The old
 * model goes away with its expressions and everything that points into it
 * (runs, rounds, their estimates, the transpose optimizer's rewrite), so
 * what the diff needs from it is copied out first (a snapshot of plain
 * data). The session holds its own copy of the bindings from the first
 * rebind on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "session/model_load.h"
#include "session/session_internal.h"

/* One fusion of a run, in plain data. */
typedef struct snap_fusion {
	int32_t rule, graph, anchor, node, n_nodes;
} snap_fusion;

typedef struct snapshot {
	snap_fusion *f;
	size_t n;
	char peak[2][160];
	int64_t peak_bytes;
} snapshot;

static int cmp_snap(const void *a, const void *b)
{
	const snap_fusion *x = a, *y = b;
	if (x->graph != y->graph)
		return x->graph < y->graph ? -1 : 1;
	return (x->anchor > y->anchor) - (x->anchor < y->anchor);
}

static void take(const fd_session *s, snapshot *sn)
{
	const fd_match_result *r = &s->current;
	const fd_estimate *e = &s->current_est;
	sn->n = r->n_fusions;
	sn->f = xmalloc((sn->n + 1) * sizeof *sn->f);
	for (size_t i = 0; i < sn->n; i++) {
		const fd_fusion *fu = &r->fusions[i];
		sn->f[i] = (snap_fusion){ fu->rule, fu->graph, fu->anchor,
		                          match_unit_node(&s->ctx, fu->graph, fu->anchor), fu->n_nodes };
	}
	qsort(sn->f, sn->n, sizeof *sn->f, cmp_snap);
	snprintf(sn->peak[0], sizeof sn->peak[0], "?");
	snprintf(sn->peak[1], sizeof sn->peak[1], "?");
	sn->peak_bytes = -1;
	if (e->n_graphs > 0) {
		estimate_format_peak(&s->model, &e->graphs[0].before, sn->peak[0], sizeof sn->peak[0]);
		estimate_format_peak(&s->model, &e->graphs[0].after, sn->peak[1], sizeof sn->peak[1]);
		sn->peak_bytes = e->graphs[0].after.peak_bytes;
	}
}

/* How the attempt of rule at (graph, anchor) ended in r. */
static fd_reason attempt_reason(const fd_match_result *r, int32_t rule, int32_t graph, int32_t anchor)
{
	for (size_t i = 0; i < r->trace.n_attempts; i++) {
		const fd_attempt *a = &r->trace.attempts[i];
		if (a->rule == rule && a->graph == graph && a->anchor == anchor)
			return (fd_reason)a->reason;
	}
	return REASON_NONE;
}

static void add_change(fd_binding_diff *df, size_t *cap, fd_binding_change c)
{
	if (df->n_changes == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		df->changes = xrealloc(df->changes, *cap * sizeof *df->changes);
	}
	df->changes[df->n_changes++] = c;
	df->n_gained += c.kind == CHANGE_GAINED;
	df->n_lost += c.kind == CHANGE_LOST;
	df->n_changed += c.kind == CHANGE_CHANGED;
}

/* Old fusions against the new ones, both by (graph, anchor). gained_why[j]
 * is how the attempt of the new fusion j's rule ended before. */
static void compare(fd_session *s, const snapshot *old, const snapshot *now, const fd_reason *gained_why,
                    fd_binding_diff *df)
{
	size_t cap = 0;
	const fd_match_result *r = &s->current;
	for (size_t i = 0, j = 0; i < old->n || j < now->n;) {
		int c = i == old->n ? 1 : j == now->n ? -1 : cmp_snap(&old->f[i], &now->f[j]);
		if (c < 0) {
			const snap_fusion *f = &old->f[i++];
			add_change(df, &cap, (fd_binding_change){ CHANGE_LOST, f->graph, f->node, f->rule, -1,
			                                          attempt_reason(r, f->rule, f->graph, f->anchor) });
		} else if (c > 0) {
			const snap_fusion *f = &now->f[j];
			add_change(df, &cap, (fd_binding_change){ CHANGE_GAINED, f->graph, f->node, -1, f->rule,
			                                          gained_why ? gained_why[j] : REASON_NONE });
			j++;
		} else {
			const snap_fusion *a = &old->f[i++], *b = &now->f[j++];
			if (a->rule != b->rule || a->n_nodes != b->n_nodes)
				add_change(df, &cap, (fd_binding_change){ CHANGE_CHANGED, b->graph, b->node, a->rule, b->rule,
				                                          REASON_NONE });
		}
	}
}

static bool session_binding(const fd_session *s, const char *name, int64_t *value)
{
	int32_t i = dimtab_find_symbol(s->model.dimtab, name);
	return i >= 0 && dimtab_symbol_bound(s->model.dimtab, i, value);
}

/* The session's own copy of the bindings, name set to value. */
static void set_binding(fd_session *s, const char *name, int64_t value)
{
	if (!s->binds) {
		const fd_load_options *lo = &s->opt.load;
		s->cap_binds = lo->n_dims + 8;
		s->binds = arena_array(&s->arena, (size_t)s->cap_binds, sizeof *s->binds);
		for (int k = 0; k < lo->n_dims; k++)
			s->binds[s->n_binds++] = (fd_dim_binding){ arena_strdup(&s->arena, lo->dims[k].name),
			                                           lo->dims[k].value };
	}
	for (int k = 0; k < s->n_binds; k++)
		if (s->binds[k].name && !strcmp(s->binds[k].name, name)) {
			s->binds[k].value = value;
			return;
		}
	if (s->n_binds == s->cap_binds) {
		fd_dim_binding *more = arena_array(&s->arena, (size_t)s->cap_binds * 2, sizeof *more);
		memcpy(more, s->binds, (size_t)s->n_binds * sizeof *more);
		s->binds = more;
		s->cap_binds *= 2;
	}
	s->binds[s->n_binds++] = (fd_dim_binding){ arena_strdup(&s->arena, name), value };
}

static int model_changed(const fd_session *s, fd_diags *d)
{
	diag_error(d, srcpos_file(s->opt.model_path),
	           "the model file changed since it was opened (size or contents): binding a dim would show another "
	           "model's fusions as the binding's; open it again to see the new model");
	return -1;
}

bool session_file_stamp(const char *path, fd_file_stamp *st)
{
	struct stat sb;
	*st = (fd_file_stamp){ 0 };
	if (stat(path, &sb) != 0)
		return false;
	*st = (fd_file_stamp){ .known = true, .dev = (uint64_t)sb.st_dev, .ino = (uint64_t)sb.st_ino,
	                       .size = (int64_t)sb.st_size,
	                       .mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec,
	                       .ctime_ns = (int64_t)sb.st_ctim.tv_sec * 1000000000 + sb.st_ctim.tv_nsec };
	return true;
}

bool session_same_stamp(const fd_file_stamp *a, const fd_file_stamp *b)
{
	return a->known && b->known && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

/* Still the file that was opened: -1 with a message when not. */
static int same_model_file(const fd_session *s, fd_diags *d)
{
	fd_file_stamp now;
	if (!s->model_stamp.known || !session_file_stamp(s->opt.model_path, &now))
		return 0;   /* unknown, or unreadable now: the load says why */
	return session_same_stamp(&now, &s->model_stamp) ? 0 : model_changed(s, d);
}

/* Everything that points into the model (runs of both rule sets, their
 * rounds and estimates, the match context), then the model and what the
 * transpose optimizer made of it. */
static void release_model_and_runs(fd_session *s)
{
	estimate_release(&s->baseline_est);
	estimate_release(&s->current_est);
	estimate_release(&s->baseline_final_est);
	estimate_release(&s->current_final_est);
	match_result_release(&s->baseline_final);
	match_result_release(&s->current_final);
	rounds_release(&s->baseline_rounds);
	rounds_release(&s->current_rounds);
	match_result_release(&s->baseline);
	match_result_release(&s->current);
	match_ctx_release(&s->ctx);
	model_release(&s->model);
	session_steps_release(s);
	match_result_init(&s->baseline);
	match_result_init(&s->current);
	match_result_init(&s->baseline_final);
	match_result_init(&s->current_final);
	rounds_init(&s->baseline_rounds);
	rounds_init(&s->current_rounds);
	estimate_init(&s->baseline_est);
	estimate_init(&s->current_est);
	estimate_init(&s->baseline_final_est);
	estimate_init(&s->current_final_est);
	transpose_result_init(&s->tpose);
	cse_result_init(&s->cse);
	cse_result_init(&s->cse_first);
}

/* The baseline under the new model is the rules as loaded, not as edited:
 * the applied edits are taken back (nothing runs), the baseline runs, and
 * they are put in again. An edit that will not go back (none should: each
 * was applied over the value it restores) stops the taking back there, and
 * the baseline is then the rules before the edits that did go back. */
static void baseline_as_loaded(fd_session *s)
{
	fd_diags quiet;
	diags_init(&quiet);
	bool defer = s->opt.defer_run;
	s->opt.defer_run = true;
	s->has_baseline = true;   /* an undo would otherwise run it with the edits */
	size_t undone = 0;
	while (s->n_applied && session_undo(s, &quiet) == 0)
		undone++;
	s->has_baseline = false;
	session_ensure_baseline(s);
	while (undone-- && session_redo(s, &quiet) == 0)
		;
	s->opt.defer_run = defer;
	diags_release(&quiet);
}

int session_rebind(fd_session *s, const char *name, int64_t value, fd_diags *d)
{
	int32_t sym = name ? dimtab_find_name_or_alias(s->model.dimtab, name) : -1;
	if (sym >= 0)
		/* an alias (d0) binds its symbol; the session keeps the name, the model it
		 * came from is released below */
		name = arena_strdup(&s->arena, dimtab_symbol_name(s->model.dimtab, sym));
	if (sym < 0) {
		char list[256] = "";
		size_t at = 0;
		for (int32_t i = 0; i < s->model.n_symdims && at < sizeof list; i++)
			if (s->model.symdims[i].used)
				at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", at ? ", " : "", s->model.symdims[i].name);
		diag_error(d, (fd_srcpos){ 0 }, "%s: the model has no symbol of that name (its symbols: %s)",
		           name ? name : "", at ? list : "none");
		return -1;
	}
	if (same_model_file(s, d) < 0)
		return -1;
	int64_t was;
	bool bound = session_binding(s, name, &was);
	fd_dim_binding *keep_binds = s->binds;
	int keep_n = s->n_binds, keep_cap = s->cap_binds;
	set_binding(s, name, value);
	fd_load_options lo = s->opt.load;
	lo.dims = s->binds;
	lo.n_dims = s->n_binds;
	lo.dims_win = true;
	/* the shapes the model as read has (the rule set may have asked for ONNX's) */
	lo.shapes_onnx = s->loaded.n_graphs ? s->loaded.shapes_onnx : s->model.shapes_onnx;
	fd_model nm;
	int loaded = session_load_model(&nm, s->opt.model_path, &lo, d);
	fd_file_stamp after;
	if (loaded == 0 && s->model_stamp.known &&
	    !(session_file_stamp(s->opt.model_path, &after) && session_same_stamp(&after, &s->model_stamp))) {
		model_release(&nm);   /* changed between the check and the read */
		loaded = model_changed(s, d);
	}
	if (loaded < 0) {
		/* put the bindings back as they were */
		if (keep_binds) {
			s->binds = keep_binds;
			s->n_binds = keep_n;
			s->cap_binds = keep_cap;
			for (int k = 0; k < s->n_binds; k++)
				if (!strcmp(s->binds[k].name, name))
					s->binds[k].value = bound ? was : -1;
		} else {
			s->binds = NULL;
			s->n_binds = s->cap_binds = 0;
		}
		return -1;
	}
	snapshot old = { 0 }, now = { 0 };
	take(s, &old);
	/* how each attempt ended before, for the fusions that will be gained */
	fd_reason *before;
	size_t n_att = s->current.trace.n_attempts;
	fd_attempt *att = n_att ? xmalloc(n_att * sizeof *att) : NULL;
	if (att)
		memcpy(att, s->current.trace.attempts, n_att * sizeof *att);

	/* the new model in place of the old: everything that points into it goes */
	release_model_and_runs(s);
	model_set_initializer_policy(&nm, session_initializers_constant(s));
	model_move(&s->model, &nm);
	s->opt.load = lo;
	if (session_steps(s, d) < 0) {
		free(old.f);
		free(att);
		return -1;
	}
	if (match_ctx_init(&s->ctx, &s->model, !s->opt.no_canonicalize, d) < 0) {
		free(old.f);
		free(att);
		return -1;
	}
	if (s->has_baseline)
		baseline_as_loaded(s);
	session_run(s);
	take(s, &now);
	before = xmalloc((now.n + 1) * sizeof *before);
	for (size_t j = 0; j < now.n; j++) {
		before[j] = REASON_NONE;
		for (size_t k = 0; k < n_att; k++)
			if (att[k].rule == now.f[j].rule && att[k].graph == now.f[j].graph && att[k].anchor == now.f[j].anchor)
				before[j] = (fd_reason)att[k].reason;
	}
	if (!s->bdiff)
		s->bdiff = arena_alloc(&s->arena, sizeof *s->bdiff);
	free(s->bdiff->changes);
	memset(s->bdiff, 0, sizeof *s->bdiff);
	char from[32] = "unbound", to[32] = "unbound";
	if (bound)
		snprintf(from, sizeof from, "%lld", (long long)was);
	if (value >= 0)
		snprintf(to, sizeof to, "%lld", (long long)value);
	snprintf(s->bdiff->what, sizeof s->bdiff->what, "%s: %s -> %s", name, from, to);
	compare(s, &old, &now, before, s->bdiff);
	memcpy(s->bdiff->peak_old, old.peak, sizeof old.peak);
	memcpy(s->bdiff->peak_new, now.peak, sizeof now.peak);
	s->bdiff->peak_old_bytes = old.peak_bytes;
	s->bdiff->peak_new_bytes = now.peak_bytes;
	free(before);
	free(att);
	free(old.f);
	free(now.f);
	return 0;
}
