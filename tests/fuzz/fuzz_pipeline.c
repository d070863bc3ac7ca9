/* fuzz_pipeline.c — libFuzzer harness for the whole pipeline: any bytes are
 * loaded as a model (loader + shape inference), then matched against the
 * shipped rules (rules/, or $FUZZ_RULES) with events on, and the match
 * result is written as JSON and text to /dev/null. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/diag.h"
#include "ir/graph.h"
#include "match/match.h"
#include "ruleset/ruleset.h"
#include "explain/explain.h"
#include "onnx/onnx.h"

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
	const char *dir = getenv("FUZZ_RULES");
	if (ruleset_load(&rules, dir ? dir : "rules", &d) < 0 || rules.n_rules == 0) {
		fprintf(stderr, "fuzz_pipeline: cannot load the rules (run from the repository root or set FUZZ_RULES)\n");
		abort();
	}
	diags_release(&d);
	sink = fopen("/dev/null", "w");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	fd_model m;
	fd_diags d;
	diags_init(&d);
	if (onnx_load_model_buffer(&m, "fuzz.onnx", data, size, NULL, &d) < 0)
		goto out;
	fd_match_ctx ctx;
	for (int canon = 0; canon < 2; canon++) {
		if (match_ctx_init(&ctx, &m, canon, &d) < 0)
			continue;
		fd_match_result r;
		fd_match_options opt = { 0 };
		match_result_init(&r);
		match_run(&ctx, &rules, &opt, &r);
		if (sink) {
			explain_match_json(sink, &r);
			explain_match_text(sink, &r);
		}
		match_result_release(&r);
		match_ctx_release(&ctx);
	}
	model_release(&m);
out:
	diags_release(&d);
	return 0;
}
