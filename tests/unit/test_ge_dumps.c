/* test_ge_dumps.c — ge/ge.h on the real GE graph dumps in
 * $FUSIONDBG_CANN/ge_dumps (default ../shared/cann; skipped when absent):
 * each loads without a diagnostic, and its op count, UB groups and
 * absorbing nodes agree with an independent count made here from the
 * dump's lines as GE indents them (no tokenizer, no tree). On
 * ge_proto_00026_afterUBMatch.txt those are 399 ops, 49 UB groups and 53
 * nodes with absorbed originals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "ge/ge.h"
#include "ge/ge_record.h"
#include "ir/node_origin.h"

static bool skipped;

static const char *dump_path(char *buf, size_t n, const char *name)
{
	const char *dir = getenv("FUSIONDBG_CANN");
	snprintf(buf, n, "%s/ge_dumps/%s", dir && dir[0] ? dir : "../shared/cann", name);
	return buf;
}

typedef struct line_counts {
	int64_t ops, scopes, absorbing;
} line_counts;

/* Counts from the lines alone: an op is "  op {"; its own attributes are
 * at indent 4, their key at 6 and a scalar or a list's entries below. A
 * scope is a distinct fusion_scope value >= 0; an absorbing op has an
 * _datadump_original_op_names list with an "s:" entry. */
static line_counts count_lines(const char *path)
{
	line_counts c = { 0 };
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[4096];
	enum { NONE, SCOPE, ORIGINALS } in = NONE;
	bool absorbed = false;
	int64_t seen[4096];
	int n_seen = 0;
	while (fgets(line, sizeof line, f)) {
		if (!strcmp(line, "  op {\n")) {
			c.ops++;
			c.absorbing += absorbed;
			absorbed = false;
			in = NONE;
		} else if (!strncmp(line, "      key: ", 11)) {
			in = strstr(line, "\"fusion_scope\"") ? SCOPE
			   : strstr(line, "\"_datadump_original_op_names\"") ? ORIGINALS : NONE;
		} else if (!strncmp(line, "    attr {", 10) || !strncmp(line, "    output_desc", 15)) {
			in = NONE;
		} else if (in == SCOPE && !strncmp(line, "        i: ", 11)) {
			int64_t v = strtoll(line + 11, NULL, 10);
			bool again = v < 0;
			for (int k = 0; k < n_seen && !again; k++)
				again = seen[k] == v;
			if (!again && n_seen < 4096)
				seen[n_seen++] = v;
		} else if (in == ORIGINALS && !strncmp(line, "          s: ", 13)) {
			absorbed = true;
		}
	}
	c.absorbing += absorbed;
	c.scopes = n_seen;
	fclose(f);
	return c;
}

static void check_dump(const char *name, int64_t want_ops, int64_t want_groups, int64_t want_absorbing)
{
	char path[1024];
	dump_path(path, sizeof path, name);
	if (access(path, R_OK) != 0) {
		skipped = true;
		skip();
	}
	fd_model m;
	fd_diags d;
	diags_init(&d);
	int rc = ge_load_model(&m, path, NULL, &d);
	char msg[512];
	for (size_t k = 0; k < d.n; k++)
		fprintf(stderr, "%s\n", diag_format(&d.items[k], msg, sizeof msg));
	assert_int_equal(rc, 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(ge_detect_file(path), GE_FORMAT_MODELDEF);
	ge_record r;
	ge_record_compute(&m, &r);
	int64_t ops = 0, typed = 0, outputs = 0;
	for (int32_t gi = 0; gi < m.n_graphs; gi++) {
		const fd_graph *g = &m.graphs[gi];
		ops += g->n_nodes;
		for (int32_t i = 0; i < g->n_nodes; i++) {
			assert_non_null(g->nodes[i].origin);
			assert_true(g->nodes[i].op_type[0] != '\0');
			for (int32_t k = 0; k < g->nodes[i].n_outputs; k++) {
				outputs++;
				typed += g->tensors[g->nodes[i].outputs[k]].dtype != DT_UNDEFINED;
			}
		}
	}
	line_counts c = count_lines(path);
	fprintf(stderr, "%s: %lld ops, %d UB groups (%d failed), %d absorbing nodes; lines: %lld, %lld, %lld\n", name,
	        (long long)ops, r.n_groups, r.n_failed, r.n_absorbing, (long long)c.ops, (long long)c.scopes,
	        (long long)c.absorbing);
	assert_int_equal(ops, c.ops);
	assert_int_equal(r.n_groups - r.n_failed, c.scopes);
	assert_int_equal(r.n_absorbing, c.absorbing);
	assert_int_equal(typed, outputs);   /* every output of these dumps has its dtype */
	if (want_ops >= 0) {
		assert_int_equal(ops, want_ops);
		assert_int_equal(r.n_groups, want_groups);
		assert_int_equal(r.n_absorbing, want_absorbing);
	}
	for (int32_t k = 0; k < r.n_groups; k++)
		assert_true(r.groups[k].n_nodes >= 1);
	ge_record_release(&r);
	model_release(&m);
	diags_release(&d);
}

static void test_after_ub_match(void **state)
{
	(void)state;
	check_dump("ge_proto_00026_afterUBMatch.txt", 399, 49, 53);
}

static void test_after_ub_match_46(void **state)
{
	(void)state;
	check_dump("ge_proto_00046_afterUBMatch.txt", -1, -1, -1);
}

static void test_quant_graph_fusion(void **state)
{
	(void)state;
	check_dump("ge_proto_00015_OptimizeQuantGraph_FeGraphFusionAfter.txt", -1, -1, -1);
}

static void test_original_graph_fusion(void **state)
{
	(void)state;
	check_dump("ge_proto_00017_OptimizeOriginalGraph_FeGraphFusionAfter.txt", -1, -1, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_after_ub_match),
		cmocka_unit_test(test_after_ub_match_46),
		cmocka_unit_test(test_quant_graph_fusion),
		cmocka_unit_test(test_original_graph_fusion),
	};
	int failures = cmocka_run_group_tests(tests, NULL, NULL);
	return failures ? failures : skipped ? 77 : 0;
}
