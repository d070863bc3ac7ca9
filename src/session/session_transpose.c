/* session_transpose.c — the rule set's transpose optimizer (transpose.h),
 * one of the steps of session_steps.c: when it changes the model, the
 * session's model is the rewritten one (session_adopt_rewrite). */
#include "session/session_internal.h"

int session_transpose(fd_session *s, fd_diags *d)
{
	if (s->rules.transposes != TRANSPOSES_ONNXRUNTIME)
		return 0;
	if (transpose_optimize(&s->model, &s->tpose, d) < 0)
		return -1;
	if (s->tpose.changed)
		session_adopt_rewrite(s, &s->tpose.model);
	return 0;
}
