/* fuzz_apply.c — libFuzzer harness for `apply` and `infer`'s library part:
 * any bytes are a model file, opened in a session with the shipped rules
 * (rules/, or $FUZZ_RULES): loader, shape inference (shape/), the rounds;
 * then the final fusions are written as apply writes them
 * (onnx_write_rewrite) and the inferred shapes as infer writes them
 * (onnx_write_inferred). What must hold: a failed write says why; a model
 * either wrote loads again, the fused one with as many nodes as the writer
 * said it wrote. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "ir/graph.h"
#include "onnx/onnx.h"
#include "onnx/onnx_write.h"
#include "rounds/rounds.h"
#include "session/session.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const fd_diags *d)
{
	fprintf(stderr, "fuzz_apply: %s%s%s\n", what, d && d->n ? ": " : "", d && d->n ? d->items[0].message : "");
	abort();
}

/* The written file loads; its node count over every graph, or -1. */
static int64_t loads_again(const char *path, const char *what)
{
	fd_model m;
	fd_diags d;
	diags_init(&d);
	if (onnx_load_model(&m, path, NULL, &d) < 0)
		fail(what, &d);
	int64_t nodes = 0;
	for (int32_t g = 0; g < m.n_graphs; g++)
		nodes += m.graphs[g].n_nodes;
	model_release(&m);
	diags_release(&d);
	return nodes;
}

static void apply(fd_session *s)
{
	char buf[512];
	const char *out = fuzz_path("fused.onnx", buf, sizeof buf);
	fd_diags d;
	diags_init(&d);
	fd_rewrite rw;
	rewrite_init(&rw);
	rounds_make_all(&s->current_rounds, &d);
	rounds_final_rewrite(session_rounds(s), &rw);
	fd_write_stats st = { 0 };
	size_t errors0 = d.errors;
	if (onnx_write_rewrite(session_model(s), &rw, out, &st, &d) < 0) {
		if (d.errors == errors0)
			fail("apply's write failed without an error", NULL);
	} else if (loads_again(out, "the fused model apply wrote does not load") != st.nodes_after) {
		fail("the fused model apply wrote holds other nodes than it said", NULL);
	}
	rewrite_release(&rw);
	diags_release(&d);
}

static void infer(const fd_session *s)
{
	char buf[512];
	const char *out = fuzz_path("inferred.onnx", buf, sizeof buf);
	fd_diags d;
	diags_init(&d);
	fd_infer_stats st = { 0 };
	if (onnx_write_inferred(session_model(s), out, &st, &d) < 0) {
		if (!d.errors)
			fail("infer's write failed without an error", NULL);
	} else {
		loads_again(out, "the model infer wrote does not load");
	}
	diags_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[512];
	const char *rules = getenv("FUZZ_RULES") ? getenv("FUZZ_RULES") : "rules";
	fd_session_options o = { .model_path = fuzz_write("model.onnx", data, size, buf, sizeof buf),
	                         .rule_paths = (const char *const[]){ rules }, .n_rule_paths = 1, .no_env = true,
	                         .no_events = true, .no_estimates = true };
	fd_session s;
	fd_diags d;
	diags_init(&d);
	if (session_open(&s, &o, &d) < 0)
		goto out;
	/* apply and infer write ONNX, over the model as read (cmd_apply.c, cmd_infer.c say why) */
	if (!session_model(&s)->format && !s.tpose.changed) {
		apply(&s);
		infer(&s);
	}
	session_close(&s);
out:
	diags_release(&d);
	return 0;
}
