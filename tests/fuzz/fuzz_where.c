/* fuzz_where.c — libFuzzer harness for the where language: any bytes are
 * parsed as an expression (expr_parse); a tree is checked for a constant
 * fault (match_where_constant_fault) and evaluated on every node of two
 * small models of tests/data/lang/, as the op table's type of each node,
 * with and without its words. What must hold: the words and the truth
 * agree (asking for the words changes nothing), a fault is told at a byte
 * of the text, the words are terminated (their printer escapes them: an
 * expression may hold a newline). Run from the
 * repository root. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "match/match.h"
#include "onnx/onnx.h"
#include "rules/optable.h"
#include "rules/rule_expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const model_paths[] = {
	"tests/data/lang/transpose_matmul.onnx",
	"tests/data/lang/operands.onnx",
};
#define N_MODELS (sizeof model_paths / sizeof *model_paths)

static fd_model models[N_MODELS];
static fd_match_ctx ctxs[N_MODELS];

static void setup(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	for (size_t k = 0; k < N_MODELS; k++) {
		fd_diags d;
		diags_init(&d);
		fd_load_options lo = { 0 };
		if (onnx_load_model(&models[k], model_paths[k], &lo, &d) < 0 ||
		    match_ctx_init(&ctxs[k], &models[k], true, &d) < 0) {
			fprintf(stderr, "fuzz_where: cannot load %s (run from the repository root)\n", model_paths[k]);
			abort();
		}
		diags_release(&d);
	}
}

static void check_on_node(const fd_match_ctx *ctx, int32_t u, int op, const fd_expr *e, size_t len)
{
	char words[256];
	memset(words, 'x', sizeof words);
	int32_t at = -7;
	/* op0 and op1 of opJ.NAME: the unit itself and the graph's first node,
	 * op2 absent, past them none matched */
	int32_t units[3] = { u, 0, FD_NONE };
	int ids[3] = { op, optable_lookup(ctx->graphs[0].g->n_nodes ? ctx->graphs[0].g->nodes[0].op_type : ""), -1 };
	fd_where_ops ops = { units, ids, 3 };
	int quiet = match_where_eval(ctx, 0, u, op, &ops, e, NULL, 0, NULL);
	int told = match_where_eval(ctx, 0, u, op, &ops, e, words, sizeof words, &at);
	if (quiet != told || told < -2 || told > 1)
		abort();
	if (!memchr(words, '\0', sizeof words))
		abort();
	if ((told == -2) != (at >= 0) || (at >= 0 && (size_t)at >= len))
		abort();
	if (told == -2 && strncmp(words, "cannot be evaluated at character ", 33))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	if (size > 4096)
		return 0;
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	size_t len = strlen(text);
	fd_arena a;
	arena_init(&a);
	size_t err_at = (size_t)-1;
	char err[200];
	fd_expr *e = expr_parse(&a, text, &err_at, err, sizeof err);
	if (!e) {
		if (err_at > len || !err[0])
			abort();
		goto out;
	}
	size_t fault_at = (size_t)-1;
	char why[200];
	if (match_where_constant_fault(e, &fault_at, why, sizeof why) && (fault_at >= len || !why[0]))
		abort();
	for (size_t k = 0; k < N_MODELS; k++) {
		const fd_graph *g = ctxs[k].graphs[0].g;
		for (int32_t u = 0; u < g->n_nodes; u++) {
			int op = optable_lookup(g->nodes[u].op_type);
			if (op >= 0)
				check_on_node(&ctxs[k], u, op, e, len);
		}
	}
out:
	arena_release(&a);
	free(text);
	return 0;
}
