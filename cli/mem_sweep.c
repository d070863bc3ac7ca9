/* mem_sweep.c — `fusiondbg mem MODEL -r RULES --sweep NAME=V,V,...`: the
 * rules run once per value of the symbol NAME (session_rebind, the other
 * bindings and --set edits as given). Per value: the main graph's peak
 * before and after fusion, the fusions, and the attempts a memory
 * constraint rejects (memory_limit, workspace_size; channel_divisibility
 * and FD-CF06 counted too). Per rule: its fusions at each value, and the
 * smallest value at which it loses a fusion and at which it stops firing
 * — between two swept values found exactly by bisection (each step one more
 * run), which assumes that a rule fires less as the value grows, as memory
 * limits do. JSON keys: fusiondbg(1), COMMANDS mem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/json.h"
#include "cli.h"
#include "base/text.h"
#include "session/session.h"

#define SWEEP_MAX 64
#define SWEEP_LISTED 10        /* rejected attempts listed per value */
#define BISECT_MAX 40

/* The codes a sweep counts, in its columns. */
static const fd_reason counted[] = { REASON_CF03_MEMORY, REASON_CF04_WORKSPACE, REASON_CF05_CHANNEL,
                                     REASON_CF06_UNBOUND };
#define N_COUNTED (sizeof counted / sizeof *counted)

typedef struct sweep_run {
	int64_t value;
	char peak[2][160];
	int64_t peak_bytes[2];
	size_t fusions;
	int64_t rejected[N_COUNTED];
	int64_t *effect;           /* per rule */
} sweep_run;

static int parse(const char *spec, char *name, size_t size, int64_t *v, int *n)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || (size_t)(eq - spec) >= size)
		return -1;
	snprintf(name, size, "%.*s", (int)(eq - spec), spec);
	*n = 0;
	for (const char *p = eq + 1; *p;) {
		char *end;
		long long x = strtoll(p, &end, 10);
		if (end == p || x < 0 || *n == SWEEP_MAX || (*end && *end != ','))
			return -1;
		v[(*n)++] = x;
		p = *end ? end + 1 : end;
	}
	return *n ? 0 : -1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int rebind(fd_session *s, const char *name, int64_t v)
{
	fd_diags d;
	diags_init(&d);
	int rc = session_rebind(s, name, v, &d);
	if (rc < 0)
		cli_print_diags(&d);
	diags_release(&d);
	return rc;
}

static void collect(const fd_session *s, int64_t v, sweep_run *run)
{
	const fd_match_result *r = session_result(s);
	const fd_estimate *e = session_final_estimate(s);   /* the graph after every round */
	run->value = v;
	run->fusions = session_final_result(s)->n_fusions;
	for (int k = 0; k < 2; k++) {
		const fd_liveness *lv = k ? &e->graphs[0].after : &e->graphs[0].before;
		estimate_format_peak(session_model(s), lv, run->peak[k], sizeof run->peak[k]);
		run->peak_bytes[k] = lv->peak_bytes;
	}
	run->effect = xcalloc((size_t)r->n_rules + 1, sizeof *run->effect);
	for (int32_t i = 0; i < r->n_rules; i++)
		run->effect[i] = r->stats[i].effect_times;
	memset(run->rejected, 0, sizeof run->rejected);
	for (size_t i = 0; i < r->trace.n_attempts; i++)
		for (size_t c = 0; c < N_COUNTED; c++)
			run->rejected[c] += r->trace.attempts[i].reason == counted[c];
}

static void list_rejected(FILE *f, const fd_session *s)
{
	const fd_match_result *r = session_result(s);
	int listed = 0, more = 0;
	for (size_t i = 0; i < r->trace.n_attempts; i++) {
		const fd_attempt *a = &r->trace.attempts[i];
		if (a->reason != REASON_CF03_MEMORY && a->reason != REASON_CF04_WORKSPACE)
			continue;
		if (listed++ == SWEEP_LISTED) {
			more++;
			continue;
		}
		if (listed > SWEEP_LISTED)
			continue;
		const fd_graph *g = r->ctx->graphs[a->graph].g;
		int32_t node = match_unit_node(r->ctx, a->graph, a->anchor);
		txt_fprintf(f, "      rejected %s @ %s [%s]\n", r->rules->rules[a->rule].name,
		        node >= 0 ? g->nodes[node].name : "?", reason_code((fd_reason)a->reason));
	}
	if (listed > SWEEP_LISTED)
		txt_fprintf(f, "      … and %d more\n", listed - SWEEP_LISTED);
}

/* The smallest value in (lo, hi] at which rule's fusions drop below full
 * (want: fires fewer than full times; or, zero: not at all): hi is known to
 * be such a value, lo not. */
static int64_t bisect(fd_session *s, const char *name, int32_t rule, int64_t lo, int64_t hi, int64_t full,
                      bool zero, int *steps)
{
	while (hi - lo > 1 && *steps < BISECT_MAX) {
		int64_t mid = lo + (hi - lo) / 2;
		(*steps)++;
		if (rebind(s, name, mid) < 0)
			return hi;
		int64_t e = session_result(s)->stats[rule].effect_times;
		if (zero ? e == 0 : e < full)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

typedef struct rule_threshold {
	int64_t loses, stops;      /* -1: not within the values */
} rule_threshold;

static void thresholds(fd_session *s, const char *name, const sweep_run *runs, int n, int32_t n_rules,
                       rule_threshold *out, int *steps)
{
	for (int32_t i = 0; i < n_rules; i++) {
		out[i].loses = out[i].stops = -1;
		int64_t full = runs[0].effect[i];
		if (full == 0)
			continue;
		for (int k = 1; k < n; k++) {
			if (out[i].loses < 0 && runs[k].effect[i] < full)
				out[i].loses = bisect(s, name, i, runs[k - 1].value, runs[k].value, full, false, steps);
			if (out[i].stops < 0 && runs[k].effect[i] == 0) {
				/* the last value that still fired (the first one does) */
				int64_t lo = runs[0].value;
				for (int j = k - 1; j >= 0; j--)
					if (runs[j].effect[i] > 0) {
						lo = runs[j].value;
						break;
					}
				out[i].stops = bisect(s, name, i, lo, runs[k].value, full, true, steps);
			}
		}
	}
}

static void print_text(FILE *f, const fd_session *s, const char *name, const sweep_run *runs, int n,
                       const rule_threshold *th, const char *const *listing)
{
	const fd_ruleset *rs = session_rules(s);
	txt_fprintf(f, "sweep %s over", name);
	for (int k = 0; k < n; k++)
		txt_fprintf(f, "%s %lld", k ? "," : "", (long long)runs[k].value);
	const fd_model *m = session_model(s);
	for (int32_t i = 0, k = 0; i < m->n_symdims; i++)
		if (m->symdims[i].bound && m->symdims[i].used && strcmp(m->symdims[i].name, name))
			txt_fprintf(f, "%s%s=%lld", k++ ? ", " : " with ", m->symdims[i].name, (long long)m->symdims[i].value);
	txt_fprintf(f, " (main graph; rejected: memory_limit FD-CF03, workspace_size FD-CF04, channel_divisibility "
	           "FD-CF05, unknown FD-CF06)\n");
	txt_fprintf(f, "  %10s  %-22s %-22s %7s  %6s %6s %6s %6s\n", name, "peak before fusion", "peak after fusion",
	        "fusions", "CF03", "CF04", "CF05", "CF06");
	for (int k = 0; k < n; k++) {
		const sweep_run *r = &runs[k];
		txt_fprintf(f, "  %10lld  %-22s %-22s %7zu  %6lld %6lld %6lld %6lld\n", (long long)r->value, r->peak[0],
		        r->peak[1], r->fusions, (long long)r->rejected[0], (long long)r->rejected[1],
		        (long long)r->rejected[2], (long long)r->rejected[3]);
		if (listing[k])
			fputs(listing[k], f);
	}
	txt_fprintf(f, "\nrules (fusions at each value; where each first loses one and where it stops firing)\n");
	for (int32_t i = 0; i < rs->n_rules; i++) {
		bool any = false;
		for (int k = 0; k < n; k++)
			any |= runs[k].effect[i] > 0;
		if (!any)
			continue;
		txt_fprintf(f, "  %-28s", rs->rules[i].name);
		for (int k = 0; k < n; k++)
			txt_fprintf(f, " %lld", (long long)runs[k].effect[i]);
		if (th[i].loses >= 0 && th[i].loses != th[i].stops)
			txt_fprintf(f, "   loses one at %s=%lld", name, (long long)th[i].loses);
		if (th[i].stops >= 0)
			txt_fprintf(f, "%s stops firing at %s=%lld", th[i].loses != th[i].stops ? "," : "  ", name,
			        (long long)th[i].stops);
		if (th[i].loses < 0 && th[i].stops < 0)
			txt_fprintf(f, "   fires at every value");
		fputc('\n', f);
	}
}

static void json_bytes(FILE *f, int64_t b)
{
	if (b >= 0)
		txt_fprintf(f, "%lld", (long long)b);
	else
		fputs("null", f);
}

static void print_json(FILE *f, const fd_session *s, const char *name, const sweep_run *runs, int n,
                       const rule_threshold *th)
{
	const fd_ruleset *rs = session_rules(s);
	fputs("{\n  \"model\": ", f);
	json_write_string(f, session_model(s)->path);
	fputs(",\n  \"sweep\": {\"symbol\": ", f);
	json_write_string(f, name);
	fputs(", \"runs\": [", f);
	for (int k = 0; k < n; k++) {
		const sweep_run *r = &runs[k];
		txt_fprintf(f, "%s\n    {\"value\": %lld, \"peak_before_bytes\": ", k ? "," : "", (long long)r->value);
		json_bytes(f, r->peak_bytes[0]);
		fputs(", \"peak_after_bytes\": ", f);
		json_bytes(f, r->peak_bytes[1]);
		fputs(", \"peak_before\": ", f);
		json_write_string(f, r->peak[0]);
		fputs(", \"peak_after\": ", f);
		json_write_string(f, r->peak[1]);
		txt_fprintf(f, ", \"fusions\": %zu, \"rejected\": {", r->fusions);
		for (size_t c = 0; c < N_COUNTED; c++)
			txt_fprintf(f, "%s\"%s\": %lld", c ? ", " : "", reason_code(counted[c]), (long long)r->rejected[c]);
		fputs("}}", f);
	}
	fputs("\n  ], \"rules\": [", f);
	bool first = true;
	for (int32_t i = 0; i < rs->n_rules; i++) {
		fputs(first ? "\n    {\"name\": " : ",\n    {\"name\": ", f);
		first = false;
		json_write_string(f, rs->rules[i].name);
		fputs(", \"effect_times\": [", f);
		for (int k = 0; k < n; k++)
			txt_fprintf(f, "%s%lld", k ? ", " : "", (long long)runs[k].effect[i]);
		fputs("], \"loses_at\": ", f);
		json_bytes(f, th[i].loses);
		fputs(", \"stops_at\": ", f);
		json_bytes(f, th[i].stops);
		fputc('}', f);
	}
	fputs("\n  ]}\n}\n", f);
}

int cli_mem_sweep(const cli_options *o, fd_session *s)
{
	char name[256];
	int64_t values[SWEEP_MAX];
	int n;
	if (parse(o->sweep, name, sizeof name, values, &n) < 0) {
		txt_fprintf(stderr, "fusiondbg: --sweep wants NAME=V,V,... with values >= 0 (at most %d), not '%s'\n",
		        SWEEP_MAX, o->sweep);
		return EXIT_BAD_INPUT;
	}
	if (dimtab_find_symbol(session_model(s)->dimtab, name) < 0) {
		txt_fprintf(stderr, "fusiondbg: --sweep %s: the model has no symbol of that name\n", name);
		return EXIT_BAD_INPUT;
	}
	qsort(values, (size_t)n, sizeof *values, cmp_i64);
	sweep_run runs[SWEEP_MAX];
	char *listing[SWEEP_MAX] = { 0 };
	int32_t n_rules = session_rules(s)->n_rules;
	for (int k = 0; k < n; k++) {
		if (rebind(s, name, values[k]) < 0) {
			for (int j = 0; j < k; j++) {
				free(runs[j].effect);
				free(listing[j]);
			}
			return EXIT_BAD_INPUT;
		}
		collect(s, values[k], &runs[k]);
		size_t len = 0;
		FILE *mf = open_memstream(&listing[k], &len);
		if (mf) {
			list_rejected(mf, s);
			fclose(mf);
		}
	}
	rule_threshold *th = xcalloc((size_t)n_rules + 1, sizeof *th);
	int steps = 0;
	thresholds(s, name, runs, n, n_rules, th, &steps);
	if (o->format == FORMAT_JSON)
		print_json(stdout, s, name, runs, n, th);
	else
		print_text(stdout, s, name, runs, n, th, (const char *const *)listing);
	for (int k = 0; k < n; k++) {
		free(runs[k].effect);
		free(listing[k]);
	}
	free(th);
	return EXIT_OK;
}
