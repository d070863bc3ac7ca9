/* export_chart_bound.c — a session's memory chart, also when the model is
 * partly bound: binding the length and keeping batch symbolic is the normal
 * workflow, but then the steps need not scale alike by batch and the
 * timeline has no numbers. Such a chart is drawn from a second session of
 * the same model, rules, bindings and applied edits with every symbol left
 * unbound at 1, the chart saying so under its title. `export
 * --memory-chart` and the TUI's memory view draw through here, so that
 * both draw the same chart with the same note. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "export.h"
#include "base/strbuf.h"
#include "session/session.h"

enum { MAX_UNBOUND = 8 };

/* The session's bindings (its own once a what-if changed one, else the
 * options') with every unbound symbol of its model added at 1; dims has
 * room for n_dims + MAX_UNBOUND. Fills at ("length=1") and bind
 * (" --dim length=N"); returns how many symbols were added. */
static int bind_unbound_at_one(const fd_session *s, fd_dim_binding *dims, int *n_dims, char *at, size_t at_size,
                               char *bind, size_t bind_size)
{
	const char *names[MAX_UNBOUND];
	int n = model_unbound_symbols(session_model(s), names, MAX_UNBOUND);
	size_t la = 0, lb = 0;
	at[0] = bind[0] = 0;
	for (int i = 0; i < n && i < MAX_UNBOUND; i++) {
		dims[(*n_dims)++] = (fd_dim_binding){ names[i], 1 };
		la += (size_t)snprintf(at + la, la < at_size ? at_size - la : 0, "%s%s=1", i ? ", " : "", names[i]);
		lb += (size_t)snprintf(bind + lb, lb < bind_size ? bind_size - lb : 0, " --dim %s=N", names[i]);
	}
	return n < MAX_UNBOUND ? n : MAX_UNBOUND;
}

/* s's applied value edits as recovery lines, replayed on s1: the rules of
 * the second session read as s's do now. Edits of rule files added as
 * what-ifs are not on disk and are left out. */
static int replay_edits(const fd_session *s, fd_session *s1, fd_diags *d)
{
	fd_recovery rec = { .version = 2 };
	rec.lines = calloc(s->n_applied + 1, sizeof *rec.lines);
	if (!rec.lines)
		return -1;
	for (size_t i = 0; i < s->n_applied; i++) {
		const fd_edit *e = &s->edits[i];
		if (e->added || e->rule < 0 || e->rule >= s1->rules.n_rules ||
		    strcmp(s->rules.rules[e->rule].name, s1->rules.rules[e->rule].name))
			continue;
		strbuf b = { 0 };
		sb_printf(&b, "%s %s.%s", e->new_text ? "set" : "unset", s->rules.rules[e->rule].name, e->path);
		if (e->new_text)
			sb_printf(&b, "=%s", e->new_text);
		rec.lines[rec.n_lines++] = sb_take(&b);
	}
	int rc = rec.n_lines ? session_apply_recovery(s1, &rec, d) : 0;
	for (size_t i = 0; i < rec.n_lines; i++)
		free(rec.lines[i]);
	free(rec.lines);
	return rc < 0 ? -1 : 0;
}

/* Opens s1 as s with every unbound symbol at 1 and s's edits; *dims is
 * its bindings, the caller's to free once s1 is closed. Its load warnings
 * are the ones s's opening gave: only its errors go to d. */
static int open_at_one(const fd_session *s, fd_session *s1, fd_dim_binding **dims_out, char *at, size_t at_size,
                       char *bind, size_t bind_size, int *n_at, fd_diags *d)
{
	const fd_load_options *lo = &s->opt.load;
	const fd_dim_binding *base = s->binds ? s->binds : lo->dims;
	int n_base = s->binds ? s->n_binds : lo->n_dims;
	fd_dim_binding *dims = *dims_out = calloc((size_t)n_base + MAX_UNBOUND, sizeof *dims);
	if (!dims)
		return -1;
	int n_dims = n_base;
	if (n_base)
		memcpy(dims, base, (size_t)n_base * sizeof *dims);
	*n_at = bind_unbound_at_one(s, dims, &n_dims, at, at_size, bind, bind_size);
	fd_session_options opt = s->opt;
	opt.load.dims = dims;
	opt.load.n_dims = n_dims;
	opt.load.dims_win = s->binds != NULL || lo->dims_win;
	opt.background = false;
	opt.no_events = true;
	opt.defer_run = false;
	fd_diags quiet;
	diags_init(&quiet);
	int rc = session_open(s1, &opt, &quiet);
	if (rc == 0 && replay_edits(s, s1, &quiet) < 0) {
		session_close(s1);
		rc = -1;
	}
	for (size_t i = 0; i < quiet.n; i++)
		if (quiet.items[i].severity == DIAG_ERROR)
			diag_error(d, quiet.items[i].pos, "%s", quiet.items[i].message);
	diags_release(&quiet);
	return rc;
}

int export_session_memory_chart(const fd_session *s, const char *path, char *at, size_t at_size, char *bind,
                                size_t bind_size, int *n_at, fd_diags *d)
{
	*n_at = 0;
	if (at_size)
		at[0] = 0;
	if (bind_size)
		bind[0] = 0;
	const fd_estimate *e = session_final_estimate(s);
	if (!export_memory_chart_needs_binding(e, 0))
		return export_memory_chart(e, 0, path, d);
	fd_session s1;
	fd_dim_binding *dims = NULL;
	if (open_at_one(s, &s1, &dims, at, at_size, bind, bind_size, n_at, d) < 0) {
		free(dims);
		return -1;
	}
	char note[700];
	snprintf(note, sizeof note, "drawn at %s: not bound, and the steps do not scale alike by %s;%s draws another", at,
	         *n_at > 1 ? "them" : "it", bind);
	int rc = export_memory_chart_noted(session_final_estimate(&s1), 0, path, note, d);
	session_close(&s1);
	free(dims);
	return rc;
}
