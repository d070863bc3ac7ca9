/* session_transpose.c — the rule set's transpose optimizer (transpose.h)
 * between the model as read and the graph the rules see: when it changes
 * the model, the session's model is the rewritten one and the model as read
 * stays behind it (the rewrite borrows from it). */
#include <string.h>
#include "session/session_internal.h"

int session_transpose(fd_session *s, fd_diags *d)
{
	if (s->rules.transposes != TRANSPOSES_ONNXRUNTIME)
		return 0;
	if (transpose_optimize(&s->model, &s->tpose, d) < 0)
		return -1;
	if (!s->tpose.changed)
		return 0;
	model_move(&s->loaded, &s->model);
	model_move(&s->model, &s->tpose.model);
	return 0;
}

void session_transpose_release(fd_session *s)
{
	transpose_result_release(&s->tpose);
	if (s->loaded.n_graphs)
		model_release(&s->loaded);
	memset(&s->loaded, 0, sizeof s->loaded);
}
