/* model_dims.c — the model's symbols seen from its tensors: values of
 * symbolic dims refreshed after a binding, which symbols the shapes depend
 * on, and the unbound ones (what the status bar and `mem` name). */
#include <string.h>
#include "ir/graph.h"

void model_refresh_dims(fd_model *m)
{
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		fd_graph *g = &m->graphs[gi];
		for (int32_t t = 0; t < g->n_tensors; t++) {
			fd_shape *s = &g->tensors[t].shape;
			for (int32_t i = 0; i < s->rank; i++)
				if (s->dims[i].expr)
					s->dims[i] = dim_of_sint((fd_sint){ 0, s->dims[i].expr });
		}
	}
}

int tensor_unbound_symbols(const fd_tensor *t, const char **names, int max)
{
	int n = 0;
	for (int32_t i = 0; i < t->shape.rank; i++) {
		const char *got[16];
		int k = dexpr_symbols(t->shape.dims[i].expr, true, got, 16);
		for (int j = 0; j < k && j < 16; j++) {
			int at = 0;
			while (at < n && at < max && strcmp(names[at], got[j]) < 0)
				at++;
			if ((at < n && at < max && names[at] == got[j]) || n >= max)
				continue;
			memmove(names + at + 1, names + at, (size_t)(n - at) * sizeof *names);
			names[at] = got[j];
			n++;
		}
	}
	return n;
}

void model_mark_used_symbols(fd_model *m)
{
	const fd_dexpr *last = NULL;   /* runs of one expression are common: skip them */
	for (int32_t gi = 0; gi < m->n_graphs && m->n_symdims; gi++) {
		const fd_graph *g = &m->graphs[gi];
		for (int32_t t = 0; t < g->n_tensors; t++) {
			const fd_shape *s = &g->tensors[t].shape;
			for (int32_t i = 0; i < s->rank; i++) {
				const fd_dexpr *e = s->dims[i].expr;
				if (!e || e == last)
					continue;
				last = e;
				const char *names[16];
				int n = dexpr_symbols(e, false, names, 16);
				for (int k = 0; k < n && k < 16; k++) {
					int32_t at = dimtab_find_symbol(m->dimtab, names[k]);
					if (at >= 0 && at < m->n_symdims)
						m->symdims[at].used = true;
				}
			}
		}
	}
}

int model_unbound_symbols(const fd_model *m, const char **names, int max)
{
	int n = 0;
	for (int32_t i = 0; i < m->n_symdims; i++) {
		if (m->symdims[i].bound || !m->symdims[i].used)
			continue;
		int at = n < max ? n : max;
		while (at > 0 && strcmp(names[at - 1], m->symdims[i].name) > 0)
			at--;
		if (at < max) {
			int last = n < max ? n : max - 1;
			memmove(names + at + 1, names + at, (size_t)(last - at) * sizeof *names);
			names[at] = m->symdims[i].name;
		}
		n++;
	}
	return n;
}
