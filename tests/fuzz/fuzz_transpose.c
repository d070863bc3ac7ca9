/* fuzz_transpose.c — libFuzzer harness for the transpose optimizer
 * (transpose/transpose.h): any bytes are loaded as a model (loader + shape
 * inference, as a session does before the pass) and the pass runs over
 * it. What must hold: on a model that loads it succeeds (it fails only
 * when its rewrite does not build, rewrite_build_model's checks); a model
 * it rewrote is still a graph — the loader's own checks (graph_link: every
 * tensor a node reads produced once or an input, no node writing an input,
 * every graph output produced; graph_topo_sort: no cycle) pass on every
 * graph of it again — and every event names a node. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/diag.h"
#include "ir/graph.h"
#include "onnx/onnx.h"
#include "transpose/transpose.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const fd_diags *d)
{
	fprintf(stderr, "fuzz_transpose: %s%s%s\n", what, d && d->n ? ": " : "", d && d->n ? d->items[0].message : "");
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fd_model m;
	fd_diags d;
	diags_init(&d);
	if (onnx_load_model_buffer(&m, "fuzz.onnx", data, size, NULL, &d) < 0)
		goto out;
	fd_transpose_result r;
	transpose_result_init(&r);
	/* it fails only when its rewrite does not build: a rewrite that is not a graph */
	if (transpose_optimize(&m, &r, &d) < 0) {
		fail("the pass's rewrite of a model that loads is not a graph", &d);
	} else if (r.changed) {
		fd_diags v;
		diags_init(&v);
		for (int32_t g = 0; g < r.model.n_graphs; g++)
			if (graph_link(&r.model, &r.model.graphs[g], &v) < 0 ||
			    graph_topo_sort(&r.model, &r.model.graphs[g], &v) < 0)
				fail("the rewritten model is not a valid graph", &v);
		diags_release(&v);
	}
	for (size_t k = 0; k < r.events.n; k++)
		if (!r.events.items[k].node || !r.events.items[k].text)
			fail("an event names no node", NULL);
	transpose_result_release(&r);
	model_release(&m);
out:
	diags_release(&d);
	return 0;
}
