/* bench_stages.c — times fusiondbg's stages on one model for `make bench`
 * (tests/bench/run): prints "key value" lines, one figure a line, that the
 * script puts into its table. Peak RSS comes from getrusage (the process's
 * high-water mark after each stage), times from CLOCK_MONOTONIC.
 *
 *   bench_stages pipeline MODEL RULES [EXPORT.dot]
 *       load (no shape inference), onnx_infer_shapes, ruleset_load, match_ctx_init,
 *       match_run with events (the trace), estimate_compute (`mem`), and, with
 *       EXPORT.dot, export_graph of a ~1,000-node neighbourhood of the middle
 *       node. Trace figures: events, attempts, bytes, bytes per event. Then
 *       the writers into /dev/null, each timed: the `match` text, the text
 *       trace (`--trace`) and the match JSON (`--format json`).
 *   bench_stages whatif MODEL RULES [N]
 *       session_open, then N (default 6) what-if edits (priority bumps and an
 *       enable toggle on the rules, each undone), each timed as session_set +
 *       the re-run it triggers; prints the median and the worst.
 *   bench_stages run COMMAND [ARG...]
 *       runs COMMAND with its output to /dev/null, as /usr/bin/time would, but
 *       with the wall time to the microsecond (time's %e has 10 ms steps, too
 *       coarse for the small real exports): run_wall_ms, run_cpu_ms (user +
 *       system of the command and its threads), run_rss_kb, run_status.
 * */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "base/clock.h"
#include "estimate/estimate.h"
#include "explain/explain.h"
#include "export/export.h"
#include "ir/graph.h"
#include "match/match.h"
#include "ruleset/ruleset.h"
#include "session/session.h"
#include "onnx/onnx.h"

#define now_ms clock_ms

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static long peak_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Wall and CPU time since the last mark; the machine is shared, so CPU time
 * (user + system of this process) is the steadier figure. */
static double mark_wall, mark_cpu, mark_sys;
static long mark_faults;

static void sys_faults(double *sys_ms, long *faults)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	*sys_ms = ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
	*faults = ru.ru_minflt + ru.ru_majflt;
}

static void mark(void)
{
	mark_wall = now_ms();
	mark_cpu = cpu_ms();
	sys_faults(&mark_sys, &mark_faults);
}

/* Page faults and system time show what first-touching memory costs. */
static void stage(const char *name)
{
	double sys;
	long faults;
	sys_faults(&sys, &faults);
	printf("%s_ms %.1f\n%s_cpu_ms %.1f\n%s_sys_ms %.1f\n%s_faults %ld\n%s_rss_kb %ld\n",
	       name, now_ms() - mark_wall, name, cpu_ms() - mark_cpu, name, sys - mark_sys,
	       name, faults - mark_faults, name, peak_rss_kb());
	mark();
}

static int fail(const char *what, fd_diags *d)
{
	fprintf(stderr, "bench_stages: %s failed\n", what);
	for (size_t i = 0; d && i < d->n; i++)
		fprintf(stderr, "  %s\n", d->items[i].message);
	return 1;
}

/* The depth around node that draws closest to (and at least) want nodes. */
static int pick_depth(const fd_match_result *r, fd_export_options *o, int64_t want, int64_t *drawn)
{
	int lo = 1, hi = 4096, best = hi;
	*drawn = 0;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		fd_export_selection sel;
		fd_diags d;
		diags_init(&d);
		o->depth = mid;
		int rc = export_select(r, o, &sel, &d);
		diags_release(&d);
		if (rc < 0)
			return -1;
		int64_t n = sel.n_nodes;
		export_selection_release(&sel);
		if (n >= want) {
			best = mid;
			*drawn = n;
			hi = mid - 1;
		} else {
			lo = mid + 1;
		}
	}
	return best;
}

static int pipeline(const char *model, const char *rules, const char *export_path)
{
	fd_diags d;
	diags_init(&d);
	double t_all = now_ms(), c_all = cpu_ms();
	mark();
	fd_model m;
	fd_load_options lo = { .no_shape_inference = true };
	if (onnx_load_model(&m, model, &lo, &d) < 0)
		return fail("load", &d);
	stage("load");

	mark();
	onnx_infer_shapes(&m, &d);
	stage("infer");

	mark();
	fd_ruleset rs;
	ruleset_init(&rs);
	if (ruleset_load(&rs, rules, &d) < 0)
		return fail("rules", &d);
	stage("rules");

	mark();
	fd_match_ctx ctx;
	if (match_ctx_init(&ctx, &m, true, &d) < 0)
		return fail("match_ctx_init", &d);
	stage("index");

	mark();
	fd_match_result r;
	match_result_init(&r);
	fd_match_options mo = { 0 };
	match_run(&ctx, &rs, &mo, &r);
	stage("match");
	printf("pipeline_ms %.1f\npipeline_cpu_ms %.1f\n", now_ms() - t_all, cpu_ms() - c_all);
	printf("pipeline_rss_kb %ld\n", peak_rss_kb());

	const fd_graph *g = &m.graphs[0];
	size_t tb = trace_bytes(&r.trace);
	printf("nodes %d\ntensors %d\n", g->n_nodes, g->n_tensors);
	printf("fusions %zu\nevents %zu\nattempts %zu\ntrace_bytes %zu\n",
	       r.n_fusions, r.trace.n_events, r.trace.n_attempts, tb);
	printf("trace_bytes_per_event %.1f\n", r.trace.n_events ? (double)tb / r.trace.n_events : 0.0);
	/* what the recording fills: encoded events, checkpoints, attempts, paths
	 * (capacity beyond it is reserved, never touched) */
	size_t used = trace_used_bytes(&r.trace);
	printf("trace_used_bytes %zu\ntrace_used_per_event %.1f\n", used,
	       r.trace.n_events ? (double)used / r.trace.n_events : 0.0);
	printf("model_arena_bytes %zu\n", m.arena.used);

	mark();
	fd_estimate e;
	estimate_init(&e);
	estimate_compute(&e, &r, NULL);
	stage("mem");

	if (export_path) {
		fd_export_options o;
		export_options_init(&o);
		o.around = g->nodes[g->n_nodes / 2].name;
		o.estimate = &e;
		int64_t drawn;
		int depth = pick_depth(&r, &o, 1000, &drawn);
		if (depth < 0)
			return fail("export_select", NULL);
		o.depth = depth;
		mark();
		if (export_graph(&r, &o, export_path, &d) < 0)
			return fail("export", &d);
		stage("export");
		printf("export_nodes %lld\nexport_depth %d\n", (long long)drawn, depth);
	}

	FILE *null = fopen("/dev/null", "w");
	if (null) {
		mark();
		explain_match_text(null, &r);
		fflush(null);
		stage("write_text");
		explain_trace_text(null, &r);
		fflush(null);
		stage("write_trace");
		explain_match_json(null, &r);
		fflush(null);
		stage("write_json");
		fclose(null);
	}

	double t = now_ms();
	estimate_release(&e);
	match_result_release(&r);
	match_ctx_release(&ctx);
	ruleset_release(&rs);
	model_release(&m);
	diags_release(&d);
	printf("release_ms %.1f\n", now_ms() - t);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int whatif(const char *model, const char *rules, int n)
{
	fd_diags d;
	diags_init(&d);
	fd_session s;
	fd_session_options so = { .model_path = model, .rule_paths = &rules, .n_rule_paths = 1, .no_env = true };
	mark();
	if (session_open(&s, &so, &d) < 0)
		return fail("session_open", &d);
	stage("open");
	int32_t n_rules = s.rules.n_rules;
	if (n_rules == 0)
		return fail("no rules", NULL);
	double *ms = xcalloc((size_t)n, sizeof *ms), *cpu = xcalloc((size_t)n, sizeof *cpu);
	for (int i = 0; i < n; i++) {
		int32_t rule = i % n_rules;
		double t = now_ms(), c = cpu_ms();
		int rc = (i % 3 == 2) ? session_toggle_enabled(&s, rule, &d)
		                      : session_bump_priority(&s, rule, (i % 3 == 0) ? 100 : -100, &d);
		ms[i] = now_ms() - t;
		cpu[i] = cpu_ms() - c;
		if (rc < 0)
			return fail("what-if edit", &d);
		session_undo(&s, &d);
	}
	qsort(ms, (size_t)n, sizeof *ms, cmp_double);
	qsort(cpu, (size_t)n, sizeof *cpu, cmp_double);
	printf("whatif_edits %d\nwhatif_median_ms %.1f\nwhatif_max_ms %.1f\n", n, ms[n / 2], ms[n - 1]);
	printf("whatif_median_cpu_ms %.1f\nwhatif_max_cpu_ms %.1f\n", cpu[n / 2], cpu[n - 1]);
	printf("whatif_last_run_ms %.1f\n", s.last_run_ms);
	printf("whatif_rss_kb %ld\n", peak_rss_kb());
	free(ms);
	free(cpu);
	session_close(&s);
	diags_release(&d);
	return 0;
}

static int run_command(char **argv)
{
	double t0 = now_ms();
	pid_t pid = fork();
	if (pid < 0) {
		perror("bench_stages: fork");
		return 1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("bench_stages: wait4");
		return 1;
	}
	double wall = now_ms() - t0;
	double cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	             (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	printf("run_wall_ms %.1f\nrun_cpu_ms %.1f\nrun_rss_kb %ld\nrun_status %d\n", wall, cpu, ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "run"))
		return run_command(argv + 2);
	if (argc >= 4 && !strcmp(argv[1], "pipeline"))
		return pipeline(argv[2], argv[3], argc > 4 ? argv[4] : NULL);
	if (argc >= 4 && !strcmp(argv[1], "whatif"))
		return whatif(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 6);
	fprintf(stderr, "usage: bench_stages pipeline MODEL RULES [EXPORT.dot]\n"
	                "       bench_stages whatif MODEL RULES [N]\n"
	                "       bench_stages run COMMAND [ARG...]\n");
	return 2;
}
