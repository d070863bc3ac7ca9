/* session_steps.c — the steps between the model as read and the graph the
 * rules see, in the order of onnxruntime's level-1 loop: the rule set's
 * common-subexpression elimination (cse.h), its transpose optimizer
 * (session_transpose.c), and the elimination again over the optimizer's
 * rewrite (the loop's next step: a Transpose pushed through onto a tensor
 * already read may make two nodes equal). Each step that changes the model
 * makes the session's model its rewrite, which borrows from the model before
 * it: that one stays behind it, the model as read in `loaded`, the ones
 * between in `between`. */
#include <string.h>
#include "session/session_internal.h"

void session_adopt_rewrite(fd_session *s, fd_model *rewritten)
{
	if (!s->loaded.n_graphs)
		model_move(&s->loaded, &s->model);
	else
		model_move(&s->between[s->n_between++], &s->model);
	model_move(&s->model, rewritten);
}

static int cse_step(fd_session *s, fd_cse_result *r, fd_diags *d)
{
	if (s->rules.cse != CSE_ONNXRUNTIME)
		return 0;
	if (cse_eliminate(&s->model, r, d) < 0)
		return -1;
	if (r->changed)
		session_adopt_rewrite(s, &r->model);
	return 0;
}

int session_steps(fd_session *s, fd_diags *d)
{
	if (cse_step(s, &s->cse_first, d) < 0 || session_transpose(s, d) < 0)
		return -1;
	return cse_step(s, &s->cse, d);
}

void session_steps_release(fd_session *s)
{
	while (s->n_between > 0)   /* the later borrow from the earlier */
		model_release(&s->between[--s->n_between]);
	memset(s->between, 0, sizeof s->between);
	if (s->loaded.n_graphs)
		model_release(&s->loaded);
	memset(&s->loaded, 0, sizeof s->loaded);
	cse_result_release(&s->cse_first);
	cse_result_release(&s->cse);
	transpose_result_release(&s->tpose);
}
