/* fuzz_ge.c — libFuzzer harness for the GE dump loader: any bytes go to
 * ge_load_model_buffer (the protobuf text reader, then the ModelDef walk)
 * and, when they load, to the record of UB groups and to compare --with a
 * dump (explain/compare.h): the rules of tests/data/ge/conv_relu_rule.yaml
 * (or $FUZZ_RULES) run over the dump, which is compared with itself by name
 * and, read as another model's dump, through its original names; both
 * written as text and JSON to /dev/null. The loader must answer with a
 * model or with errors, never crash, hang or leak. Built by `make fuzz`
 * and, without libFuzzer, by tests/fuzz/replay.c for the committed corpus. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/diag.h"
#include "explain/compare.h"
#include "ge/ge.h"
#include "ge/ge_record.h"
#include "ir/graph.h"
#include "match/match.h"
#include "rounds/rounds.h"
#include "ruleset/ruleset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static fd_ruleset rules;
static FILE *sink;

static void setup(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	fd_diags d;
	diags_init(&d);
	ruleset_init(&rules);
	const char *path = getenv("FUZZ_RULES");
	if (ruleset_load(&rules, path ? path : "tests/data/ge/conv_relu_rule.yaml", &d) < 0 || !rules.n_rules) {
		fprintf(stderr, "fuzz_ge: cannot load the rules (run from the repository root or set FUZZ_RULES)\n");
		abort();
	}
	diags_release(&d);
	sink = fopen("/dev/null", "w");
}

/* The rules over m, then m's own record compared with their fusions. */
static void compare_with_record(const fd_model *m, const fd_model *other, fd_diags *d)
{
	fd_match_ctx ctx;
	if (match_ctx_init_types(&ctx, m, true, rules.fused_types, rules.n_fused_types, d) < 0)
		return;
	fd_match_result first;
	fd_rounds rd;
	fd_match_options mo = { 0 };
	match_result_init(&first);
	rounds_init(&rd);
	if (rounds_run(&rd, &ctx, &rules, &mo, NULL, &first, d) == 0 && rd.n > 0) {
		rounds_make_all(&rd, d);
		for (int k = 0; k < 2; k++) {
			fd_comparison c;
			compare_init(&c);
			compare_dump(&c, &rd, k ? other : m, "fuzz.txt");
			if (sink) {
				compare_write_text(sink, &c, &rd);
				compare_write_json(sink, &c, &rd);
			}
			compare_release(&c);
		}
	}
	rounds_release(&rd);
	match_result_release(&first);
	match_ctx_release(&ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	fd_model m, other;
	fd_diags d;
	diags_init(&d);
	(void)ge_detect(data, size);
	if (ge_load_model_buffer(&m, "fuzz.txt", data, size, NULL, &d) == 0) {
		ge_record r;
		ge_record_compute(&m, &r);
		ge_record_release(&r);
		/* the same dump as another model's: its nodes found through their originals */
		if (ge_load_model_buffer(&other, "other.txt", data, size, NULL, &d) == 0) {
			other.format = "another model's dump";
			compare_with_record(&m, &other, &d);
			model_release(&other);
		}
		model_release(&m);
	}
	diags_release(&d);
	return 0;
}
