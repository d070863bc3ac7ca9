/* ge_record.c — the UB groups and absorbing nodes of a model (ge_record.h),
 * from the nodes' records. As GE's own statistics count them, a scope id
 * below 0 is no group, and a node's fusion_failed id puts it in a failed
 * group of that id, apart from the groups that compiled. */
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "base/vec.h"
#include "ge/ge_record.h"
#include "ir/node_origin.h"

typedef struct member {
	bool failed;
	int64_t id;
	int32_t node;
} member;

static int by_group(const void *a, const void *b)
{
	const member *x = a, *y = b;
	if (x->failed != y->failed)
		return x->failed ? 1 : -1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static void graph_groups(const fd_graph *g, int32_t gi, ge_record *r, void *groups_vec)
{
	VEC(ge_ub_group) *groups = groups_vec;
	VEC(member) ms = { 0 };
	for (int32_t i = 0; i < g->n_nodes; i++) {
		const fd_node_origin *o = g->nodes[i].origin;
		if (o && o->has_fusion_scope && o->fusion_scope >= 0)
			vec_push(&ms, ((member){ false, o->fusion_scope, i }));
		if (o && o->has_fusion_failed && o->fusion_failed >= 0)
			vec_push(&ms, ((member){ true, o->fusion_failed, i }));
	}
	if (ms.n)
		qsort(ms.items, ms.n, sizeof *ms.items, by_group);
	for (size_t k = 0; k < ms.n;) {
		size_t end = k;
		while (end < ms.n && ms.items[end].failed == ms.items[k].failed && ms.items[end].id == ms.items[k].id)
			end++;
		ge_ub_group grp = { .graph = gi, .id = ms.items[k].id, .failed = ms.items[k].failed,
		                    .n_nodes = (int32_t)(end - k) };
		grp.nodes = xmalloc((end - k) * sizeof *grp.nodes);
		for (size_t j = k; j < end; j++) {
			int32_t node = ms.items[j].node;
			const char *pass = g->nodes[node].origin->pass_name_ub;
			grp.nodes[j - k] = node;
			if (pass && !grp.pass_name_ub)
				grp.pass_name_ub = pass;
			else if (pass && pass != grp.pass_name_ub && strcmp(pass, grp.pass_name_ub))
				grp.passes_differ = true;
		}
		r->n_failed += grp.failed;
		vec_push(groups, grp);
		k = end;
	}
	vec_release(&ms);
}

void ge_record_compute(const fd_model *m, ge_record *r)
{
	memset(r, 0, sizeof *r);
	VEC(ge_ub_group) groups = { 0 };
	VEC(ge_node_ref) absorbing = { 0 };
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		graph_groups(g, gi, r, &groups);
		for (int32_t i = 0; i < g->n_nodes; i++) {
			const fd_node_origin *o = g->nodes[i].origin;
			if (o && o->original_names.n > 0) {
				vec_push(&absorbing, ((ge_node_ref){ gi, i }));
				r->n_originals += o->original_names.n;
			}
			r->n_with_passes += o && o->pass_names.n > 0;
		}
	}
	r->n_groups = (int32_t)groups.n;
	r->groups = groups.items;
	r->n_absorbing = (int32_t)absorbing.n;
	r->absorbing = absorbing.items;
}

void ge_record_release(ge_record *r)
{
	for (int32_t k = 0; k < r->n_groups; k++)
		free(r->groups[k].nodes);
	free(r->groups);
	free(r->absorbing);
	memset(r, 0, sizeof *r);
}
