/* match_fixture.h — what the matcher's tests share: a model loaded, rule
 * directories loaded, indexed and matched once, and all of it released.
 * Each test file includes it once (static functions). */
#ifndef FD_TEST_MATCH_FIXTURE_H
#define FD_TEST_MATCH_FIXTURE_H
#include "match/match.h"
#include "onnx/onnx.h"
#include "ruleset/ruleset.h"

typedef struct run { fd_model m; fd_ruleset rs; fd_match_ctx ctx; fd_match_result r; } run;

/* path with the rules of the NULL-terminated list of directories. */
static void run_rules(run *x, const char *path, const char *const *rule_dirs)
{
	fd_diags d;
	diags_init(&d);
	fd_load_options lo = { 0 };
	assert_int_equal(onnx_load_model(&x->m, path, &lo, &d), 0);
	ruleset_init(&x->rs);
	for (; *rule_dirs; rule_dirs++)
		assert_int_equal(ruleset_load(&x->rs, *rule_dirs, &d), 0);
	diags_release(&d);
	match_ctx_init(&x->ctx, &x->m, true, NULL);
	match_result_init(&x->r);
	assert_int_equal(match_run(&x->ctx, &x->rs, NULL, &x->r), 0);
}

static void run_release(run *x)
{
	match_result_release(&x->r);
	match_ctx_release(&x->ctx);
	ruleset_release(&x->rs);
	model_release(&x->m);
}
#endif
