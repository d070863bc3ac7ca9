/* fuzz_memo.c — libFuzzer harness for the search's memo
 * (src/match/match_memo.c), differential: the bytes choose one of a few
 * models with its rules (byte 0) and a topological order of its nodes (the
 * rest, one choice among the ready nodes per byte); the nodes are written in
 * that order (protobuf-c, onnx.proto) and the model loaded from memory. What
 * must hold: the run with the memo from the first step and the run without
 * it give the same attempts, verdicts and decisive checks in words; and on
 * the models of tests/data/memo/, which have no order question (one anchor,
 * no conflict, no first reader), the set of them is the file order's. Run
 * from the repository root. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "explain/explain.h"
#include "match/match.h"
#include "onnx.pb-c.h"
#include "onnx/onnx.h"
#include "ruleset/ruleset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	const char *model, *rules;
	int order_free;   /* the verdicts hold in any node order */
} cases[] = {
	{ "tests/data/memo/same_value_ab.onnx", "tests/data/memo/same_value.yaml", 1 },
	{ "tests/data/memo/dtype_same_ab.onnx", "tests/data/memo/dtype_same.yaml", 1 },
	{ "tests/data/memo/feeds_taken_ab.onnx", "tests/data/memo/feeds_taken.yaml", 1 },
	{ "tests/data/memo/input_reader_ab.onnx", "tests/data/memo/input_reader.yaml", 1 },
	{ "tests/data/memo/feeds_self.onnx", "tests/data/memo/feeds_taken.yaml", 1 },
	{ "tests/data/lang/qdq_pairs.onnx", "tests/data/lang/qdq_pairs.yaml", 0 },
	{ "tests/data/lang/conv_fold.onnx", "tests/data/lang/conv_fold.yaml", 0 },
	{ "tests/data/lang/dtype_tied.onnx", "tests/data/lang/dtype_tied.yaml", 0 },
	{ "tests/data/lang/slice_groups.onnx", "tests/data/lang/slice_groups.yaml", 0 },
};
#define N_CASES (sizeof cases / sizeof *cases)

typedef struct loaded {
	uint8_t *bytes;
	size_t size;
	fd_ruleset rs;
	char *file_order;   /* the verdicts in the file's order, sorted */
} loaded;
static loaded inputs[N_CASES];

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return p;
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The attempts of a run in words, by node names, one a line; sorted when
 * asked (another node order tries the anchors in another order). */
static char *verdicts(const fd_model *m, const fd_ruleset *rs, fd_match_memo memo, int sorted)
{
	fd_match_ctx ctx;
	fd_match_result r;
	match_ctx_init(&ctx, m, true, NULL);
	match_result_init(&r);
	fd_match_options opt = { .memo = memo };
	if (match_run(&ctx, rs, &opt, &r) < 0)
		abort();
	size_t n = r.trace.n_attempts;
	char **lines = calloc(n ? n : 1, sizeof *lines);
	size_t total = 1;
	for (size_t k = 0; k < n; k++) {
		const fd_attempt *a = &r.trace.attempts[k];
		fd_event_text tx = { 0 };
		if (a->decisive != UINT32_MAX)
			explain_event(&r, a->decisive, &tx);
		const char *anchor = a->anchor >= 0 ? m->graphs[a->graph].nodes[a->anchor].name : "-";
		char buf[1024];
		int len = snprintf(buf, sizeof buf, "%s @ %s: %d %d; %s | %s | %s | %s\n", rs->rules[a->rule].name, anchor,
		                   a->reason, a->ops_matched, tx.check, tx.expected, tx.actual, tx.reason);
		lines[k] = strdup(buf);
		total += (size_t)(len < (int)sizeof buf ? len : (int)sizeof buf - 1);
	}
	if (sorted)
		qsort(lines, n, sizeof *lines, cmp_lines);
	char *out = malloc(total);
	size_t at = 0;
	for (size_t k = 0; k < n; k++) {
		size_t l = strlen(lines[k]);
		memcpy(out + at, lines[k], l);
		at += l;
		free(lines[k]);
	}
	out[at] = '\0';
	free(lines);
	match_result_release(&r);
	match_ctx_release(&ctx);
	return out;
}

static int load(fd_model *m, const uint8_t *bytes, size_t size)
{
	fd_diags d;
	diags_init(&d);
	fd_load_options lo = { 0 };
	int rc = onnx_load_model_buffer(m, "fuzz_memo.onnx", bytes, size, &lo, &d);
	diags_release(&d);
	return rc;
}

static void setup(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	for (size_t k = 0; k < N_CASES; k++) {
		loaded *in = &inputs[k];
		fd_diags d;
		diags_init(&d);
		ruleset_init(&in->rs);
		fd_model m;
		in->bytes = slurp(cases[k].model, &in->size);
		if (!in->bytes || ruleset_load(&in->rs, cases[k].rules, &d) < 0 || load(&m, in->bytes, in->size) < 0) {
			fprintf(stderr, "fuzz_memo: cannot load %s with %s (run from the repository root)\n", cases[k].model,
			        cases[k].rules);
			abort();
		}
		diags_release(&d);
		in->file_order = verdicts(&m, &in->rs, MATCH_MEMO_OFF, 1);
		model_release(&m);
	}
}

/* Node j reads an output of node i. */
static int reads(const Onnx__NodeProto *j, const Onnx__NodeProto *i)
{
	for (size_t a = 0; a < j->n_input; a++)
		for (size_t b = 0; b < i->n_output; b++)
			if (j->input[a][0] && !strcmp(j->input[a], i->output[b]))
				return 1;
	return 0;
}

/* The main graph's nodes in a topological order the bytes choose: each
 * byte picks one of the nodes whose producers are placed (none left: the
 * first ready one). */
static void reorder(Onnx__GraphProto *g, const uint8_t *p, size_t n)
{
	size_t count = g->n_node;
	Onnx__NodeProto **out = malloc((count ? count : 1) * sizeof *out);
	char *placed = calloc(count ? count : 1, 1);
	size_t *ready = malloc((count ? count : 1) * sizeof *ready);
	for (size_t at = 0; at < count; at++) {
		size_t n_ready = 0;
		for (size_t j = 0; j < count; j++) {
			if (placed[j])
				continue;
			int ok = 1;
			for (size_t i = 0; i < count && ok; i++)
				if (i != j && !placed[i] && reads(g->node[j], g->node[i]))
					ok = 0;
			if (ok)
				ready[n_ready++] = j;
		}
		if (!n_ready)   /* a cycle in the file: keep the rest as written */
			for (size_t j = 0; j < count; j++)
				if (!placed[j])
					ready[n_ready++] = j;
		size_t pick = ready[at < n ? p[at] % n_ready : 0];
		placed[pick] = 1;
		out[at] = g->node[pick];
	}
	memcpy(g->node, out, count * sizeof *out);
	free(out);
	free(placed);
	free(ready);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	if (size < 1 || size > 256)
		return 0;
	size_t c = data[0] % N_CASES;
	const loaded *in = &inputs[c];
	Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, in->size, in->bytes);
	if (!mp || !mp->graph)
		abort();
	reorder(mp->graph, data + 1, size - 1);
	size_t n = onnx__model_proto__get_packed_size(mp);
	uint8_t *bytes = malloc(n ? n : 1);
	onnx__model_proto__pack(mp, bytes);
	onnx__model_proto__free_unpacked(mp, NULL);
	fd_model m;
	if (load(&m, bytes, n) < 0)
		abort();
	char *off = verdicts(&m, &in->rs, MATCH_MEMO_OFF, 0);
	char *on = verdicts(&m, &in->rs, MATCH_MEMO_AT_ONCE, 0);
	if (strcmp(off, on)) {
		fprintf(stderr, "fuzz_memo: %s: the memo changed the verdicts\nwithout:\n%s\nwith:\n%s", cases[c].model, off,
		        on);
		abort();
	}
	if (cases[c].order_free) {
		char *sorted = verdicts(&m, &in->rs, MATCH_MEMO_AT_ONCE, 1);
		if (strcmp(sorted, in->file_order)) {
			fprintf(stderr, "fuzz_memo: %s: the node order changed the verdicts\nfile order:\n%s\nthis order:\n%s",
			        cases[c].model, in->file_order, sorted);
			abort();
		}
		free(sorted);
	}
	free(off);
	free(on);
	free(bytes);
	model_release(&m);
	return 0;
}
