/* session.c — the session's life: open (model, rules with the environment,
 * match context, the first run), run, close; the baseline run before the
 * first change; and reading the rules' documents (a rule's document, a
 * value's current text). session_internal.h says which file owns what. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/atomic_file.h"
#include "base/clock.h"
#include "session/model_load.h"
#include "session/session_internal.h"

/* The context must know the rules' fused op types (match.h): a what-if of
 * a target_op may have changed them. */
static void ctx_for_rules(fd_session *s)
{
	ruleset_resolve_types(&s->rules);
	if (match_ctx_has_types(&s->ctx, &s->rules))
		return;
	match_ctx_release(&s->ctx);
	match_ctx_init_types(&s->ctx, &s->model, !s->opt.no_canonicalize, s->rules.fused_types,
	                     s->rules.n_fused_types, NULL);
}

static int run_rounds(fd_session *s, fd_rounds *rd, fd_match_result *first, fd_estimate *est,
                      fd_match_result *final, fd_estimate *final_est, fd_diags *d)
{
	ctx_for_rules(s);
	int rc = rounds_run(rd, &s->ctx, &s->rules, &s->mopt, &s->opt.rounds, first, d);
	if (!s->opt.no_estimates)
		estimate_compute(est, first, &s->opt.est);
	if (rd->n > 1) {   /* the graph after every round */
		rounds_final_result(rd, final);
		if (!s->opt.no_estimates)
			estimate_compute(final_est, final, &s->opt.est);
	}
	return rc;
}

int session_run(fd_session *s)
{
	double t0 = clock_ms();
	diags_clear(&s->run_diags);
	int rc = run_rounds(s, &s->current_rounds, &s->current, &s->current_est, &s->current_final,
	                    &s->current_final_est, &s->run_diags);
	s->last_run_ms = clock_ms() - t0;
	s->stale = false;
	return rc;
}

void session_ensure_baseline(fd_session *s)
{
	if (s->has_baseline)
		return;
	fd_diags d;
	diags_init(&d);
	run_rounds(s, &s->baseline_rounds, &s->baseline, &s->baseline_est, &s->baseline_final, &s->baseline_final_est,
	           &d);
	diags_release(&d);
	s->has_baseline = true;
}

/* The model read again for the shapes the rule set asks for; its warnings
 * were said by the first read. */
static int session_reload_shapes(fd_session *s, const fd_load_options *load, bool onnx, fd_diags *d)
{
	fd_load_options again = *load;
	again.shapes_onnx = onnx;
	fd_diags quiet;
	diags_init(&quiet);
	model_release(&s->model);
	int rc = session_load_model(&s->model, s->opt.model_path, &again, &quiet);
	for (size_t i = 0; rc < 0 && i < quiet.n; i++)
		if (quiet.items[i].severity == DIAG_ERROR)
			diag_add(d, DIAG_ERROR, quiet.items[i].pos, "%s", quiet.items[i].message);
	diags_release(&quiet);
	if (rc < 0)
		s->open = false;   /* the model is released */
	return rc;
}

bool session_initializers_constant(const fd_session *s)
{
	/* the command line decides, else the rule set's setting, else ONNX */
	fd_init_policy policy = s->opt.initializers != INIT_POLICY_UNSET ? s->opt.initializers : s->rules.initializers;
	return policy == INIT_POLICY_CONSTANT;
}

int session_open(fd_session *s, const fd_session_options *opt, fd_diags *d)
{
	memset(s, 0, sizeof *s);
	s->opt = *opt;
	arena_init(&s->arena);
	ruleset_init(&s->rules);
	match_result_init(&s->baseline);
	match_result_init(&s->current);
	rounds_init(&s->baseline_rounds);
	rounds_init(&s->current_rounds);
	transpose_result_init(&s->tpose);
	cse_result_init(&s->cse);
	cse_result_init(&s->cse_first);
	match_result_init(&s->baseline_final);
	match_result_init(&s->current_final);
	estimate_init(&s->baseline_final_est);
	estimate_init(&s->current_final_est);
	diags_init(&s->run_diags);
	estimate_init(&s->baseline_est);
	estimate_init(&s->current_est);
	if (!opt->model_path) {
		diag_error(d, (fd_srcpos){ 0 }, "no model");
		ruleset_release(&s->rules);
		arena_release(&s->arena);
		return -1;
	}
	/* behind the first screen, shapes are the first run's first job */
	fd_load_options load = opt->load;
	load.shapes_onnx = opt->shapes == SHAPES_ONNX;
	s->shapes_pending = opt->background && !load.no_shape_inference;
	load.no_shape_inference = load.no_shape_inference || opt->background;
	session_file_stamp(opt->model_path, &s->model_stamp);   /* before the read: a change during it shows */
	if (session_load_model(&s->model, opt->model_path, &load, d) < 0) {
		ruleset_release(&s->rules);
		arena_release(&s->arena);
		return -1;
	}
	s->open = true;
	if (ruleset_load_paths(&s->rules, opt->rule_paths, opt->n_rule_paths, !opt->no_env, d) < 0 ||
	    (opt->fusion_switch && ruleset_apply_switch_file(&s->rules, opt->fusion_switch, d) < 0)) {
		session_close(s);
		return -1;
	}
	/* shapes: the command line, else the rule set's setting, else full; the
	 * model is read again when the rule set asks for others */
	bool onnx = (opt->shapes != SHAPES_UNSET ? opt->shapes : s->rules.shapes) == SHAPES_ONNX;
	if (onnx != s->model.shapes_onnx && s->shapes_pending)
		s->model.shapes_onnx = onnx;
	else if (onnx != s->model.shapes_onnx && session_reload_shapes(s, &load, onnx, d) < 0) {
		ruleset_release(&s->rules);
		arena_release(&s->arena);
		return -1;
	}
	ruleset_lint_loaded(&s->rules, d);
	int32_t n = s->rules.n_rules;
	s->prio0 = xcalloc(n ? (size_t)n : 1, sizeof *s->prio0);
	s->enabled0 = xcalloc(n ? (size_t)n : 1, sizeof *s->enabled0);
	for (int32_t i = 0; i < n; i++) {
		s->prio0[i] = s->rules.rules[i].priority;
		s->enabled0[i] = s->rules.rules[i].enabled;
	}
	model_set_initializer_policy(&s->model, session_initializers_constant(s));
	ruleset_resolve_types(&s->rules);
	s->mopt.target = opt->target;
	s->mopt.no_events = opt->no_events;
	/* the steps before the rules (CSE, the transpose optimizer) need the shapes, and a first run behind the
	 * screen must find the model it shows already rewritten */
	if (s->rules.transposes == TRANSPOSES_ONNXRUNTIME || s->rules.cse == CSE_ONNXRUNTIME) {
		if (s->shapes_pending && onnx_infer_shapes(&s->model, d) < 0) {
			session_close(s);
			return -1;
		}
		s->shapes_pending = false;
		if (session_steps(s, d) < 0) {
			session_close(s);
			return -1;
		}
	}
	if ((opt->background ? session_first_run_start(s, d) : session_open_run(s, d)) < 0) {
		session_close(s);
		return -1;
	}
	return 0;
}

int session_open_run(fd_session *s, fd_diags *d)
{
	if (s->shapes_pending) {
		if (onnx_infer_shapes(&s->model, d) < 0)
			return -1;
		s->shapes_pending = false;
	}
	if (match_ctx_init_types(&s->ctx, &s->model, !s->opt.no_canonicalize, s->rules.fused_types,
	                         s->rules.n_fused_types, d) < 0)
		return -1;
	if (session_run(s) < 0) {
		for (size_t i = 0; i < s->run_diags.n; i++)
			diag_add(d, s->run_diags.items[i].severity, s->run_diags.items[i].pos, "%s",
			         s->run_diags.items[i].message);
		return -1;
	}
	return 0;
}

void session_close(fd_session *s)
{
	if (!s->open)
		return;
	if (s->first_run) {   /* a run still going: released if held, waited for */
		fd_diags d;
		diags_init(&d);
		session_test_release_first_run(s);
		session_first_run_wait(s, &d);
		diags_release(&d);
	}
	if (s->recovery_lock)
		session_recovery_done(s, NULL, false);
	estimate_release(&s->baseline_est);
	estimate_release(&s->current_est);
	rounds_release(&s->baseline_rounds);
	rounds_release(&s->current_rounds);
	estimate_release(&s->baseline_final_est);
	estimate_release(&s->current_final_est);
	match_result_release(&s->baseline_final);
	match_result_release(&s->current_final);
	diags_release(&s->run_diags);
	match_result_release(&s->baseline);
	match_result_release(&s->current);
	if (s->ctx.model)
		match_ctx_release(&s->ctx);
	session_added_release(s);
	ruleset_release(&s->rules);
	for (size_t i = 0; i < s->n_retired; i++) {
		yfile_release(s->retired[i]);
		free(s->retired[i]);
	}
	free(s->retired);
	for (size_t i = 0; i < s->n_slots; i++) {
		free(s->slots[i].path);
		free(s->slots[i].disk);
	}
	free(s->slots);
	free(s->edits);
	free(s->prio0);
	free(s->enabled0);
	if (s->bdiff)
		free(s->bdiff->changes);
	arena_release(&s->arena);
	model_release(&s->model);
	session_steps_release(s);
	memset(s, 0, sizeof *s);
}

void session_test_fail_writes(int n, int err)
{
	atomic_fail_next(n, err);
}

/* ---- the rules' documents ------------------------------------------------- */

const fd_ydoc *session_rule_doc(const fd_session *s, int32_t rule, int *file_index)
{
	if (rule < 0 || rule >= s->rules.n_rules)
		return NULL;
	const fd_rule *r = &s->rules.rules[rule];
	/* the same file given twice is loaded twice: the pointer tells them apart */
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < s->rules.n_files; k++) {
			const fd_yfile *f = s->rules.files[k];
			if (pass == 0 ? f->path != r->file : (!f->path || !r->file || strcmp(f->path, r->file)))
				continue;
			if (r->doc_index >= 0 && r->doc_index < f->n_docs) {
				if (file_index)
					*file_index = k;
				return &f->docs[r->doc_index];
			}
		}
	return NULL;
}

char *session_current_text(const fd_session *s, int32_t rule, const char *path)
{
	const fd_ydoc *doc = session_rule_doc(s, rule, NULL);
	ypath_ref ref;
	if (!doc || session_ypath_resolve(doc->root, path, &ref) < 0 || !ref.value)
		return NULL;
	return session_yval_canon_dup(ref.value);
}

size_t session_rule_lint(const fd_session *s, int32_t rule, fd_diags *d)
{
	if (d)
		return ruleset_lint_rule(&s->rules, rule, d);
	fd_diags own;
	diags_init(&own);
	size_t n = ruleset_lint_rule(&s->rules, rule, &own);
	diags_release(&own);
	return n;
}
