/* fuzz_compare.c — libFuzzer harness for `compare --with`'s two readers and
 * what compare makes of them (explain/compare.h): a session is opened once
 * on a fixed model and rules that fuse it in two rounds
 * (samples/rounds_conv_bn_relu.onnx, samples/rounds/two_rounds.yaml, or
 * $FUSIONDBG_FUZZ_MODEL and $FUZZ_RULES); then any bytes are read
 * as CANN's fusion_result.json (cann_records_read, compare_record) and as
 * onnxruntime's optimized model (onnx_load_model_buffer as the command
 * loads it, compare_optimized), and both comparisons are written as text
 * and JSON to /dev/null. What must hold: a reader that fails says why in
 * one error; every row and pass counted is of a known kind, and the
 * counts add up to the rows. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "explain/compare.h"
#include "ir/cann_record.h"
#include "onnx/onnx.h"
#include "session/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static fd_session session;
static FILE *sink;

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_compare: %s\n", what);
	abort();
}

static void setup(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	const char *model = getenv("FUSIONDBG_FUZZ_MODEL"), *rules = getenv("FUZZ_RULES");
	fd_session_options o = { .model_path = model && *model ? model : "samples/rounds_conv_bn_relu.onnx",
	                         .rule_paths = (const char *const[]){ rules && *rules ? rules :
	                                                             "samples/rounds/two_rounds.yaml" },
	                         .n_rule_paths = 1, .no_env = true };
	fd_diags d;
	diags_init(&d);
	if (session_open(&session, &o, &d) < 0) {
		fprintf(stderr, "fuzz_compare: cannot open the session (run from the repository root)\n");
		abort();
	}
	rounds_make_all(&session.current_rounds, &d);
	diags_release(&d);
	sink = fopen("/dev/null", "w");
}

static void counts_add_up(const fd_comparison *c)
{
	size_t rows = 0;
	for (int k = 0; k < CMP_KIND_COUNT; k++)
		rows += c->counts[k];
	if (rows != c->rows.n)
		fail("the kinds counted do not add up to the rows");
	for (size_t i = 0; i < c->rows.n; i++)
		if ((unsigned)c->rows.items[i].kind >= CMP_KIND_COUNT)
			fail("a row of no kind");
	for (size_t i = 0; i < c->passes.n; i++)
		if ((unsigned)c->passes.items[i].kind >= CMP_PASS_KIND_COUNT || !c->passes.items[i].name)
			fail("a pass of no kind or name");
}

static void write_both(const fd_comparison *c)
{
	counts_add_up(c);
	compare_write_text(sink, c, session_rounds(&session));
	compare_write_json(sink, c, session_rounds(&session));
}

static void as_record(const uint8_t *data, size_t size)
{
	fd_diags d;
	diags_init(&d);
	fd_cann_records recs;
	if (cann_records_read(&recs, "fusion_result.json", (const char *)data, size, &d) < 0) {
		if (d.errors != 1)
			fail("the record reader failed without one error");
	} else {
		fd_comparison c;
		compare_init(&c);
		size_t errors0 = d.errors;
		if (compare_record(&c, session_rounds(&session), &recs, NULL, &d) == 0)
			write_both(&c);
		else if (d.errors == errors0)
			fail("compare_record failed without an error");
		compare_release(&c);
		cann_records_release(&recs);
	}
	diags_release(&d);
}

static void as_optimized(const uint8_t *data, size_t size)
{
	fd_diags d;
	diags_init(&d);
	fd_model opt;
	/* as cmd_compare.c loads it: onnxruntime writes some initializers of a model with If twice */
	fd_load_options lo = { .identical_duplicates = true };
	if (onnx_load_model_buffer(&opt, "optimized.onnx", data, size, &lo, &d) < 0) {
		if (d.errors != 1)
			fail("the model reader failed without one error");
	} else {
		fd_comparison c;
		compare_init(&c);
		compare_optimized(&c, session_rounds(&session), &opt, "optimized.onnx");
		write_both(&c);
		compare_release(&c);
		model_release(&opt);
	}
	diags_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	as_record(data, size);
	as_optimized(data, size);
	return 0;
}
