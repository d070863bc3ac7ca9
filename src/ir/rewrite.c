/* rewrite.c — the lifecycle of an fd_rewrite (rewrite.h). */
#include <stdlib.h>
#include <string.h>
#include "ir/rewrite.h"

void rewrite_init(fd_rewrite *rw)
{
	memset(rw, 0, sizeof *rw);
	arena_init(&rw->arena);
}

void rewrite_release(fd_rewrite *rw)
{
	vec_release(&rw->nodes);
	vec_release(&rw->consts);
	vec_release(&rw->tensors);
	arena_release(&rw->arena);
}

fd_fused_node *rewrite_add(fd_rewrite *rw, int32_t graph)
{
	vec_push(&rw->nodes, ((fd_fused_node){ .graph = graph, .fusion = -1 }));
	return &rw->nodes.items[rw->nodes.n - 1];
}
