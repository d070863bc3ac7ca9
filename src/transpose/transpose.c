/* transpose.c — the pass of transpose.h: its state made, the push run
 * (transpose_push.c), its outcome applied (transpose_apply.c). */
#include <stdlib.h>
#include <string.h>
#include "transpose/transpose_internal.h"

void transpose_result_init(fd_transpose_result *r)
{
	memset(r, 0, sizeof *r);
	rewrite_init(&r->rewrite);
}

void transpose_result_release(fd_transpose_result *r)
{
	if (r->changed && r->model.n_graphs)   /* unless a session took it over */
		model_release(&r->model);
	vec_release(&r->events);
	rewrite_release(&r->rewrite);
	memset(r, 0, sizeof *r);
}

static int64_t onnx_opset(const fd_model *m)
{
	for (int32_t k = 0; k < m->n_opsets; k++)
		if (!m->opsets[k].domain[0])
			return m->opsets[k].version;
	return 0;
}

int transpose_optimize(const fd_model *m, fd_transpose_result *r, fd_diags *d)
{
	transpose_result_release(r);
	transpose_result_init(r);
	if (m->n_graphs < 1)
		return 0;
	const fd_graph *g = &m->graphs[0];
	size_t nn = (size_t)g->n_nodes + 1, nt = (size_t)g->n_tensors + 1;
	tp_state s = { .m = m, .g = g, .opset = onnx_opset(m), .arena = &r->rewrite.arena };
	/* MakeOptimizerContext: opsets 7 to 21 (kMinSupportedOpset, kMaxSupportedOpset) */
	if (s.opset < 7 || s.opset > 21)
		return 0;
	s.carry = xmalloc(nt * sizeof *s.carry);
	s.comp = xmalloc(nt * sizeof *s.comp);
	s.parent = xmalloc(nt * sizeof *s.parent);
	s.pusher = xmalloc(nt * sizeof *s.pusher);
	s.n_push = xcalloc(nt, sizeof *s.n_push);
	s.leading = xcalloc(nt, sizeof *s.leading);
	s.const_user = xmalloc(nt * sizeof *s.const_user);
	s.in_transposed = xmalloc(nt * sizeof *s.in_transposed);
	for (size_t t = 0; t < nt; t++)
		s.carry[t] = s.comp[t] = s.parent[t] = s.pusher[t] = s.const_user[t] = s.in_transposed[t] = -1;
	s.role = xcalloc(nn, sizeof *s.role);
	s.stays = xcalloc(nt, sizeof *s.stays);
	s.merged = xcalloc(nn, sizeof *s.merged);
	s.change = xcalloc(nn, sizeof *s.change);
	s.uf = xmalloc(nn * sizeof *s.uf);
	for (size_t i = 0; i < nn; i++)
		s.uf[i] = (int32_t)i;
	s.failed = xcalloc(nn, sizeof *s.failed);
	s.pushed_any = xcalloc(nn, sizeof *s.pushed_any);
	s.why = xcalloc(nn, sizeof *s.why);
	s.where = xmalloc(nn * sizeof *s.where);
	for (size_t i = 0; i < nn; i++)
		s.where[i] = FD_NONE;
	transpose_push(&s);
	int rc = transpose_apply(&s, r, d);
	free(s.carry);
	free(s.comp);
	free(s.parent);
	free(s.pusher);
	free(s.n_push);
	free(s.leading);
	free(s.const_user);
	free(s.in_transposed);
	free(s.role);
	free(s.stays);
	free(s.merged);
	free(s.change);
	free(s.uf);
	free(s.failed);
	free(s.pushed_any);
	free(s.why);
	free(s.where);
	vec_release(&s.perms);
	if (rc < 0) {
		transpose_result_release(r);
		transpose_result_init(r);
	}
	return rc;
}

void transpose_events_of(const fd_transpose_result *r, const char *name,
                         void (*visit)(const fd_tpose_event *e, void *arg), void *arg)
{
	for (size_t k = 0; k < r->events.n; k++) {
		const fd_tpose_event *e = &r->events.items[k];
		if (!strcmp(e->node, name) || (e->other && !strcmp(e->other, name)))
			visit(e, arg);
	}
}
