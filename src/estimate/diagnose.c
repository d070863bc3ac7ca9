/* diagnose.c — the checks of diagnose.h: each makes rows; the memory check
 * runs the rules a second time with their memory limits lifted to see what
 * the limits reject. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/text.h"
#include "base/dir_stats.h"
#include "base/json.h"
#include "base/strmap.h"
#include "estimate/diagnose.h"
#include "explain/explain.h"
#include "match/conditions.h"

void diagnose_init(fd_diagnosis *dg)
{
	memset(dg, 0, sizeof *dg);
	arena_init(&dg->arena);
}

void diagnose_release(fd_diagnosis *dg)
{
	vec_release(&dg->rows);
	arena_release(&dg->arena);
}

static fd_dg_row *add_row(fd_diagnosis *dg, const char *check, int32_t rule, fd_dg_status st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static fd_dg_row *add_row(fd_diagnosis *dg, const char *check, int32_t rule, fd_dg_status st, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fd_dg_row r = { .check = check, .rule = rule, .status = st, .message = arena_strdup(&dg->arena, msg),
	                .limit = -1, .needed = -1 };
	vec_push(&dg->rows, r);
	dg->n_warn += st == DG_WARN;
	return &dg->rows.items[dg->rows.n - 1];
}

static const char *bytes(char *buf, size_t size, int64_t b)
{
	return estimate_format_bytes(b, buf, size);
}

static const fd_constraint *constraint_of(const fd_rule *r, fd_cond_kind kind)
{
	for (int k = 0; k < r->n_constraints; k++)
		if ((fd_cond_kind)r->constraints[k].kind == kind)
			return &r->constraints[k];
	return NULL;
}

static const char *dtype_list(fd_arena *a, const fd_constraint *c)
{
	char buf[512];
	size_t at = 0;
	buf[0] = '\0';
	for (int k = 0; k < c->n_allowed_dtypes && at < sizeof buf; k++)
		at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", k ? ", " : "", dtype_name(c->allowed_dtypes[k]));
	return arena_strdup(a, buf);
}

/* ---- dtype ------------------------------------------------------------------------ */

/* The dtypes the rule's fusions carry (their first output's), in the run
 * with memory limits lifted when there is one (a match its memory limit
 * rejects still shows what it would fuse). */
static void carried_dtypes(const fd_rounds *rd, int32_t ri, bool *seen, int32_t *fusions)
{
	for (int32_t k = 0; k < rd->n; k++) {
		const fd_match_result *r = rd->items[k]->result;
		for (size_t f = 0; f < r->n_fusions; f++) {
			const fd_fusion *fu = &r->fusions[f];
			if (fu->rule != ri)
				continue;
			(*fusions)++;
			const fd_graph *g = r->ctx->graphs[fu->graph].g;
			int32_t dt = fu->n_outputs ? g->tensors[r->pool[fu->outputs]].dtype : DT_UNDEFINED;
			if (dt > 0 && dt < DT_COUNT)
				seen[dt] = true;
		}
	}
}

static void check_dtype(fd_diagnosis *dg, const fd_diagnose_input *in, const fd_rounds *relaxed, int32_t ri)
{
	const fd_rule *rule = &in->rules->rules[ri];
	const fd_constraint *c = constraint_of(rule, COND_DTYPE_MATCH);
	const char *allowed = c ? dtype_list(&dg->arena, c) : NULL;
	if (!in->rounds) {
		if (c)
			add_row(dg, "dtype", ri, DG_OK, "allowed_dtypes [%s]", allowed);
		else
			add_row(dg, "dtype", ri, DG_WARN, "no dtype_match constraint: the rule fuses tensors of any dtype");
		return;
	}
	int32_t rejected = 0, fusions = 0;
	char example[512] = "";
	bool seen[DT_COUNT] = { false };
	for (int32_t k = 0; k < in->rounds->n; k++) {
		const fd_match_result *r = in->rounds->items[k]->result;
		for (size_t a = 0; a < r->trace.n_attempts; a++) {
			const fd_attempt *at = &r->trace.attempts[a];
			if (at->rule != ri || at->reason != REASON_CF01_DTYPE)
				continue;
			if (!rejected++ && at->decisive < r->trace.n_events) {
				fd_event ev = trace_event(&r->trace, at->decisive);
				const fd_graph *g = r->ctx->graphs[at->graph].g;
				char lab[256];
				snprintf(example, sizeof example, "%s is %s, at %s", ev.other >= 0 ? g->tensors[ev.other].name : "?",
				         dtype_name((int32_t)ev.a), explain_unit_label(r->ctx, at->graph, at->anchor, lab, sizeof lab));
			}
		}
	}
	carried_dtypes(relaxed, ri, seen, &fusions);
	char carry[256] = "";
	for (int t = 1, at = 0; t < DT_COUNT; t++)
		if (seen[t])
			at += snprintf(carry + at, sizeof carry - (size_t)at, "%s%s", at ? ", " : "", dtype_name(t));
	fd_dg_row *row;
	if (!c && fusions)
		row = add_row(dg, "dtype", ri, DG_WARN, "no dtype_match constraint: its %d match%s carry %s; a model of "
		              "another dtype would fuse too", (int)fusions, fusions == 1 ? "" : "es", carry);
	else if (!c)
		row = add_row(dg, "dtype", ri, DG_WARN, "no dtype_match constraint (and no fusion in the model to show "
		              "which dtypes it meets)");
	else if (rejected)
		row = add_row(dg, "dtype", ri, DG_WARN, "allowed_dtypes [%s] rejects %d match%s of the model: %s",
		              allowed, (int)rejected, rejected == 1 ? "" : "es", example);
	else if (fusions)
		row = add_row(dg, "dtype", ri, DG_OK, "allowed_dtypes [%s]; its %d match%s carry %s", allowed,
		              (int)fusions, fusions == 1 ? "" : "es", carry);
	else
		row = add_row(dg, "dtype", ri, DG_INFO, "allowed_dtypes [%s]; the rule matches nothing in the model to "
		              "check against", allowed);
	row->rejected = rejected;
}

/* ---- memory ----------------------------------------------------------------------- */

/* A fusion's needs, as the memory constraints measure them. */
typedef struct needs {
	int64_t intermediate, output, workspace;
	int32_t t_intermediate, t_output;
} needs;

/* The largest of the tensors ids[0..n): its bytes and index (0 / FD_NONE). */
static void largest(const fd_graph *g, const int32_t *ids, int32_t n, int64_t *bytes, int32_t *tensor)
{
	*bytes = 0;
	*tensor = FD_NONE;
	for (int32_t k = 0; k < n; k++) {
		int64_t b;
		if (tensor_bytes(&g->tensors[ids[k]], &b) && b > *bytes) {
			*bytes = b;
			*tensor = ids[k];
		}
	}
}

static void fusion_needs(const fd_match_result *r, const fd_fusion *fu, needs *n)
{
	const fd_graph *g = r->ctx->graphs[fu->graph].g;
	n->workspace = fu->workspace_bytes;
	largest(g, r->pool + fu->intermediates, fu->n_intermediates, &n->intermediate, &n->t_intermediate);
	largest(g, r->pool + fu->outputs, fu->n_outputs, &n->output, &n->t_output);
}

/* "rule|graph|original nodes", the same fusion in two runs. */
static const char *fusion_key(fd_arena *a, const fd_rounds *rd, int32_t round, const fd_match_result *r, size_t f)
{
	const fd_fusion *fu = &r->fusions[f];
	fd_id_vec one = { 0 };
	char buf[8192];
	size_t at = (size_t)snprintf(buf, sizeof buf, "%d|%d|", (int)fu->rule, (int)fu->graph);
	for (int32_t k = 0; k < fu->n_nodes && at < sizeof buf; k++) {
		rounds_original_nodes(rd, round, fu->graph, r->pool[fu->nodes + k], &one);
		for (size_t j = 0; j < one.n && at < sizeof buf; j++)
			at += (size_t)snprintf(buf + at, sizeof buf - at, "%d,", (int)one.items[j]);
	}
	vec_release(&one);
	return arena_strdup(a, buf);
}

/* The rules with every memory and workspace limit lifted (a shallow copy:
 * release with relaxed_release, never ruleset_release). */
static void relax(const fd_ruleset *rs, fd_ruleset *out)
{
	*out = *rs;
	out->rules = xmalloc(((size_t)rs->n_rules + 1) * sizeof *out->rules);
	memcpy(out->rules, rs->rules, (size_t)rs->n_rules * sizeof *out->rules);
	for (int32_t i = 0; i < rs->n_rules; i++) {
		fd_rule *r = &out->rules[i];
		if (!r->n_constraints)
			continue;
		fd_constraint *cs = xmalloc((size_t)r->n_constraints * sizeof *cs);
		memcpy(cs, r->constraints, (size_t)r->n_constraints * sizeof *cs);
		for (int k = 0; k < r->n_constraints; k++)
			cs[k].max_intermediate_size = cs[k].max_output_size = cs[k].max_workspace = -1;
		r->constraints = cs;
	}
}

static void relaxed_release(fd_ruleset *rs)
{
	for (int32_t i = 0; i < rs->n_rules; i++)
		if (rs->rules[i].n_constraints)
			free(rs->rules[i].constraints);
	free(rs->rules);
}

/* The fusions of the run with limits lifted that the real run does not
 * make: those the limits reject. */
typedef struct gained {
	int32_t round;
	size_t fusion;
	needs n;
} gained;

typedef struct memory_run {
	fd_ruleset relaxed;
	fd_rounds rd;
	fd_match_result first;
	VEC(gained) gained;
} memory_run;

static void memory_run_make(memory_run *m, const fd_diagnose_input *in, fd_arena *a, fd_diags *d)
{
	const fd_rounds *rd = in->rounds;
	strmap have = { 0 };
	for (int32_t k = 0; k < rd->n; k++)
		for (size_t f = 0; f < rd->items[k]->result->n_fusions; f++)
			strmap_put(&have, fusion_key(a, rd, k + 1, rd->items[k]->result, f), 1);
	relax(in->rules, &m->relaxed);
	rounds_init(&m->rd);
	match_result_init(&m->first);
	fd_match_options mo = *in->mopt;
	mo.no_events = true;
	rounds_run(&m->rd, rd->items[0]->ctx, &m->relaxed, &mo, in->ropt, &m->first, d);
	for (int32_t k = 0; k < m->rd.n; k++) {
		const fd_match_result *r = m->rd.items[k]->result;
		for (size_t f = 0; f < r->n_fusions; f++) {
			if (strmap_get(&have, fusion_key(a, &m->rd, k + 1, r, f)) >= 0)
				continue;
			gained g = { k + 1, f, { 0 } };
			fusion_needs(r, &r->fusions[f], &g.n);
			vec_push(&m->gained, g);
		}
	}
	strmap_release(&have);
}

static void memory_run_release(memory_run *m)
{
	vec_release(&m->gained);
	rounds_release(&m->rd);
	match_result_release(&m->first);
	relaxed_release(&m->relaxed);
}

enum { F_INTERMEDIATE, F_OUTPUT, F_WORKSPACE };
static const char *const field_names[] = { "max_intermediate_size", "max_output_size", "max_workspace" };

static int64_t need_of(const needs *n, int field)
{
	return field == F_INTERMEDIATE ? n->intermediate : field == F_OUTPUT ? n->output : n->workspace;
}

static int32_t tensor_of(const needs *n, int field)
{
	return field == F_INTERMEDIATE ? n->t_intermediate : field == F_OUTPUT ? n->t_output : FD_NONE;
}

/* One limit of one rule, against the model. */
static void memory_row(fd_diagnosis *dg, const fd_diagnose_input *in, const memory_run *m, int32_t ri, int field,
                       int64_t limit)
{
	char lb[32], nb[32], pb[32], wb[32], lab[256];
	int32_t rejected = 0, own = 0;
	int64_t needed = -1, largest = -1;
	const gained *worst = NULL;
	for (size_t k = 0; k < m->gained.n; k++) {
		const gained *g = &m->gained.items[k];
		const fd_match_result *r = m->rd.items[g->round - 1]->result;
		if (r->fusions[g->fusion].rule != ri || need_of(&g->n, field) <= limit)
			continue;
		rejected++;
		if (need_of(&g->n, field) > needed) {
			needed = need_of(&g->n, field);
			worst = g;
		}
	}
	for (int32_t k = 0; k < in->rounds->n; k++) {
		const fd_match_result *r = in->rounds->items[k]->result;
		for (size_t f = 0; f < r->n_fusions; f++) {
			if (r->fusions[f].rule != ri)
				continue;
			needs n;
			fusion_needs(r, &r->fusions[f], &n);
			own++;
			if (need_of(&n, field) > largest)
				largest = need_of(&n, field);
		}
	}
	fd_dg_row *row;
	if (!worst && own) {
		row = add_row(dg, "memory", ri, DG_OK, "%s %s rejects nothing in the model; the largest of its %d fusion%s "
		              "needs %s", field_names[field], bytes(lb, sizeof lb, limit), (int)own, own == 1 ? "" : "s",
		              bytes(nb, sizeof nb, largest));
	} else if (!worst) {
		row = add_row(dg, "memory", ri, DG_INFO, "%s %s: the rule makes no fusion in the model to measure",
		              field_names[field], bytes(lb, sizeof lb, limit));
	} else {
		const fd_match_result *r = m->rd.items[worst->round - 1]->result;
		const fd_fusion *fu = &r->fusions[worst->fusion];
		const fd_graph *g = r->ctx->graphs[fu->graph].g;
		int32_t t = tensor_of(&worst->n, field);
		fd_fusion_est fe;
		estimate_fusion(r, worst->fusion, &in->est->opt, &fe);
		char advice[700] = "";
		if (fe.kernel_peak_bytes > in->est->opt.peak_warn)
			snprintf(advice, sizeof advice, "; but its kernel peak would then be %s, over %s: rather %s",
			         bytes(pb, sizeof pb, fe.kernel_peak_bytes), bytes(wb, sizeof wb, in->est->opt.peak_warn),
			         estimate_advice_text(fe.advice != ADVICE_NONE ? fe.advice : ADVICE_CHUNKED));
		row = add_row(dg, "memory", ri, DG_WARN, "%s %s rejects %d fusion%s of the model; the largest, at %s%s%s, "
		              "needs %s: a limit of %lld lets %s fire%s", field_names[field], bytes(lb, sizeof lb, limit),
		              (int)rejected, rejected == 1 ? "" : "s", explain_unit_label(r->ctx, fu->graph, fu->anchor, lab, sizeof lab),
		              t >= 0 ? ", tensor " : "", t >= 0 ? g->tensors[t].name : "", bytes(nb, sizeof nb, needed),
		              (long long)needed, rejected == 1 ? "it" : "them all", advice);
	}
	row->field = field_names[field];
	row->limit = limit;
	row->needed = needed;
	row->rejected = rejected;
}

static void check_memory(fd_diagnosis *dg, const fd_diagnose_input *in, const memory_run *m, int32_t ri)
{
	const fd_rule *rule = &in->rules->rules[ri];
	for (int k = 0; k < rule->n_constraints; k++) {
		const fd_constraint *c = &rule->constraints[k];
		int64_t limits[3] = { c->max_intermediate_size, c->max_output_size,
		                      c->spill_to_l2 ? -1 : c->max_workspace };
		bool mem = c->kind == COND_MEMORY_LIMIT, ws = c->kind == COND_WORKSPACE_SIZE;
		for (int field = 0; field < 3; field++) {
			if (limits[field] < 0 || (field < 2 ? !mem : !ws))
				continue;
			if (m) {
				memory_row(dg, in, m, ri, field, limits[field]);
				continue;
			}
			char lb[32];
			fd_dg_row *row = limits[field] >= DIAGNOSE_LARGE_LIMIT
			                 ? add_row(dg, "memory", ri, DG_WARN, "%s %s: large (64 MiB or more); give a model to see "
			                           "what it admits", field_names[field], bytes(lb, sizeof lb, limits[field]))
			                 : add_row(dg, "memory", ri, DG_OK, "%s %s (under 64 MiB)", field_names[field],
			                           bytes(lb, sizeof lb, limits[field]));
			row->field = field_names[field];
			row->limit = limits[field];
		}
		if (c->kind == COND_WORKSPACE_SIZE && c->spill_to_l2 && c->max_workspace >= 0) {
			char lb[32];
			add_row(dg, "memory", ri, DG_INFO, "max_workspace %s with spill_to_l2: a larger workspace spills to L2 "
			        "(FD-WN03) instead of stopping the fusion", bytes(lb, sizeof lb, c->max_workspace));
		}
	}
}

/* ---- kernel peak ------------------------------------------------------------------ */

static void check_peak(fd_diagnosis *dg, const fd_diagnose_input *in, int32_t ri)
{
	int32_t n = 0, over = 0;
	int64_t peak = -1;
	fd_fusion_est worst = { 0 };
	char at[256] = "", pb[32], wb[32];
	for (int32_t k = 0; k < in->rounds->n; k++) {
		const fd_match_result *r = in->rounds->items[k]->result;
		for (size_t f = 0; f < r->n_fusions; f++) {
			if (r->fusions[f].rule != ri)
				continue;
			fd_fusion_est fe;
			estimate_fusion(r, f, &in->est->opt, &fe);
			n++;
			over += fe.kernel_peak_bytes > in->est->opt.peak_warn;
			if (fe.kernel_peak_bytes > peak) {
				peak = fe.kernel_peak_bytes;
				worst = fe;
				explain_unit_label(r->ctx, r->fusions[f].graph, r->fusions[f].anchor, at, sizeof at);
			}
		}
	}
	if (!n)
		return;
	if (over)
		add_row(dg, "peak", ri, DG_WARN, "%d of %d fusion%s over %s kernel peak (the largest %s at %s): %s",
		        (int)over, (int)n, n == 1 ? "" : "s", bytes(wb, sizeof wb, in->est->opt.peak_warn),
		        bytes(pb, sizeof pb, peak), at, estimate_advice_text(worst.advice != ADVICE_NONE ? worst.advice : ADVICE_CHUNKED));
	else
		add_row(dg, "peak", ri, DG_OK, "kernel peak at most %s (at %s), under %s", bytes(pb, sizeof pb, peak), at,
		        bytes(wb, sizeof wb, in->est->opt.peak_warn));
}

/* ---- cache, numerical -------------------------------------------------------------- */

static int check_cache(fd_diagnosis *dg, const fd_diagnose_input *in, fd_diags *d)
{
	const char *path = in->cache_dir;
	if (!path) {
		const char *home = getenv("HOME");
		if (!home || !*home) {
			add_row(dg, "cache", -1, DG_WARN, "HOME is not set: cannot find %s (give --cache-dir)", DIAGNOSE_CACHE_DIR);
			return 0;
		}
		path = arena_printf(&dg->arena, "%s/.cann/kernel_cache", home);
	}
	fd_dir_stats st;
	if (dir_stats(path, DIAGNOSE_CACHE_AGE, in->now, &st, d) < 0) {
		add_row(dg, "cache", -1, DG_WARN, "%s is not a directory", path)->path = path;
		return -1;
	}
	char b[32], unread[256], bounds[280] = "";
	dir_stats_unread(&st, unread, sizeof unread);
	if (*unread)
		snprintf(bounds, sizeof bounds, "; the walk %s", unread);
	fd_dg_row *row;
	if (!st.exists)
		row = add_row(dg, "cache", -1, DG_WARN, "%s does not exist: every fused kernel is JIT-compiled on its first "
		              "run (200 ms to 5 s each)", path);
	else if (st.older)
		row = add_row(dg, "cache", -1, DG_WARN, "%s: %lld file%s, %s; %lld older than 7 days (the oldest %lld days): "
		              "stale kernels may make the JIT compile again%s", path, (long long)st.files,
		              st.files == 1 ? "" : "s", bytes(b, sizeof b, st.bytes), (long long)st.older,
		              (long long)(st.oldest_age / 86400), bounds);
	else if (!st.files && st.truncated)
		row = add_row(dg, "cache", -1, DG_WARN, "%s: no file where the walk read; it %s", path, unread);
	else if (!st.files)
		row = add_row(dg, "cache", -1, DG_WARN, "%s is empty: every fused kernel is JIT-compiled on its first run",
		              path);
	else
		row = add_row(dg, "cache", -1, DG_OK, "%s: %lld file%s, %s, none older than 7 days%s", path,
		              (long long)st.files, st.files == 1 ? "" : "s", bytes(b, sizeof b, st.bytes),
		              bounds);
	row->path = path;
	row->files = st.files;
	row->bytes = st.bytes;
	row->stale = st.older;
	return 0;
}

static void check_numerical(fd_diagnosis *dg, const fd_diagnose_input *in)
{
	fd_arena *a = &dg->arena;
	const char *model = in->model_path ? in->model_path : "./model.onnx";
	const char *base = strrchr(model, '/');
	base = base ? base + 1 : model;
	size_t stem = strcspn(base, ".");
	char rules[4096] = "";
	size_t at = 0;
	bool any_fired = in->rounds && rounds_n_fusions(in->rounds) > 0;   /* else every enabled rule */
	for (int32_t i = 0; i < in->rules->n_rules && at < sizeof rules; i++) {
		bool fired = false;
		for (int32_t k = 0; in->rounds && k < in->rounds->n && !fired; k++)
			fired = in->rounds->items[k]->result->stats[i].effect_times > 0;
		if (in->rules->rules[i].enabled && (!any_fired || fired))
			at += (size_t)snprintf(rules + at, sizeof rules - at, "%s%s", at ? "," : "", in->rules->rules[i].name);
	}
	const char **cmd = arena_array(a, 4, sizeof *cmd);
	cmd[0] = arena_printf(a, "GRAPH_AUTOFUSION_ENABLE=0 python3 ./cann_compile.py --model %s --output ./%.*s_baseline.om",
	                      model, (int)stem, base);
	cmd[1] = arena_printf(a, "GRAPH_AUTOFUSION_ENABLE=1 GRAPH_AUTOFUSION_RULES=\"%s\" python3 ./cann_compile.py "
	                      "--model %s --output ./%.*s_fused.om", rules, model, (int)stem, base);
	cmd[2] = arena_printf(a, "python3 ./verify_numerical.py --fused_model ./%.*s_fused.om --baseline_model "
	                      "./%.*s_baseline.om --rtol 0.01", (int)stem, base, (int)stem, base);
	fd_dg_row *row = add_row(dg, "numerical", -1, DG_INFO, "numerical consistency needs the device: compile with "
	                         "and without the rules, then compare (rtol 0.01), as below");
	row->commands = cmd;
	row->n_commands = 3;
}

int diagnose_run(fd_diagnosis *dg, const fd_diagnose_input *in, fd_diags *d)
{
	const fd_ruleset *rs = in->rules;
	memory_run m = { 0 };
	if (in->rounds)
		memory_run_make(&m, in, &dg->arena, d);
	for (int32_t i = 0; i < rs->n_rules; i++)
		check_dtype(dg, in, in->rounds ? &m.rd : NULL, i);
	for (int32_t i = 0; i < rs->n_rules; i++)
		check_memory(dg, in, in->rounds ? &m : NULL, i);
	for (int32_t i = 0; in->rounds && i < rs->n_rules; i++)
		check_peak(dg, in, i);
	if (in->rounds)
		memory_run_release(&m);
	int rc = check_cache(dg, in, d);
	check_numerical(dg, in);
	return rc;
}

/* ---- writing ------------------------------------------------------------------------ */

static const char *const status_names[] = {
#define NAME(id, name) [DG_##id] = name,
	FD_DG_STATUSES(NAME)
#undef NAME
};

void diagnose_write_text(FILE *f, const fd_diagnosis *dg, const fd_ruleset *rs)
{
	for (size_t k = 0; k < dg->rows.n; k++) {
		const fd_dg_row *r = &dg->rows.items[k];
		char st[16];
		snprintf(st, sizeof st, "[%s]", status_names[r->status]);
		txt_fprintf(f, "%-6s %-9s %s%s%s\n", st, r->check, r->rule >= 0 ? rs->rules[r->rule].name : "",
		        r->rule >= 0 ? ": " : "", r->message);
		for (int32_t c = 0; c < r->n_commands; c++)
			txt_fprintf(f, "      %s\n", r->commands[c]);
	}
	txt_fprintf(f, "\ndiagnose: %zu check%s, %d warning%s\n", dg->rows.n, dg->rows.n == 1 ? "" : "s", (int)dg->n_warn,
	        dg->n_warn == 1 ? "" : "s");
}

void diagnose_write_json(FILE *f, const fd_diagnosis *dg, const fd_ruleset *rs)
{
	fputs("{\n  \"checks\": [", f);
	for (size_t k = 0; k < dg->rows.n; k++) {
		const fd_dg_row *r = &dg->rows.items[k];
		fprintf(f, "%s\n    {\"check\": \"%s\", \"rule\": ", k ? "," : "", r->check);
		if (r->rule >= 0)
			json_write_string(f, rs->rules[r->rule].name);
		else
			fputs("null", f);
		fprintf(f, ", \"status\": \"%s\", \"message\": ", status_names[r->status]);
		json_write_string(f, r->message);
		if (r->field) {
			fputs(", \"field\": ", f);
			json_write_string(f, r->field);
			fprintf(f, ", \"limit_bytes\": %lld, \"needed_bytes\": %lld, \"rejected\": %d", (long long)r->limit,
			        (long long)r->needed, (int)r->rejected);
		} else if (!strcmp(r->check, "dtype")) {
			fprintf(f, ", \"rejected\": %d", (int)r->rejected);
		}
		if (r->path) {
			fputs(", \"path\": ", f);
			json_write_string(f, r->path);
			fprintf(f, ", \"files\": %lld, \"bytes\": %lld, \"stale_files\": %lld", (long long)r->files,
			        (long long)r->bytes, (long long)r->stale);
		}
		if (r->n_commands) {
			fputs(", \"commands\": [", f);
			for (int32_t c = 0; c < r->n_commands; c++) {
				fputs(c ? ", " : "", f);
				json_write_string(f, r->commands[c]);
			}
			fputc(']', f);
		}
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n  \"warnings\": %d\n}\n", (int)dg->n_warn);
}
