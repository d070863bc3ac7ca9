/* shape_dims.c — identical dim arrays shared while shapes are inferred.
 * A million-node model has a few hundred distinct shapes and millions of
 * tensors: each inferred shape points at one canonical copy in the model
 * arena instead of its own (16 bytes a dim). Arrays handed out here are
 * never written in place: sh_set copies before it merges (shape_util.c).
 * The table itself lives only for one shape_infer() run. */
#include <stdlib.h>
#include <string.h>
#include "shape/shape_infer.h"

struct dims_slot {
	uint64_t hash;
	int32_t rank;
	const fd_dim *dims;    /* NULL: empty slot */
};

static uint64_t dims_hash(int32_t rank, const fd_dim *dims)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)rank;
	for (int32_t i = 0; i < rank; i++) {
		h = (h ^ (uint64_t)dims[i].value) * 0x100000001b3ull;
		h = (h ^ (uint64_t)(uintptr_t)dims[i].expr) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

/* sym names are interned, so equal names are equal pointers */
static bool dims_equal(const fd_dim *a, const fd_dim *b, int32_t rank)
{
	for (int32_t i = 0; i < rank; i++)
		if (a[i].value != b[i].value || a[i].expr != b[i].expr)
			return false;
	return true;
}

static void dims_grow(dims_cache *c)
{
	size_t cap = c->cap ? c->cap * 2 : 1024;
	struct dims_slot *slots = xcalloc(cap, sizeof *slots);
	for (size_t i = 0; i < c->cap; i++) {
		if (!c->slots[i].dims)
			continue;
		size_t j = c->slots[i].hash & (cap - 1);
		while (slots[j].dims)
			j = (j + 1) & (cap - 1);
		slots[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = slots;
	c->cap = cap;
}

fd_dim *shape_dims_shared(dims_cache *c, fd_arena *a, int32_t rank, const fd_dim *dims)
{
	if (rank <= 0)
		return NULL;
	if ((c->n + 1) * 2 > c->cap)
		dims_grow(c);
	uint64_t h = dims_hash(rank, dims);
	size_t i = h & (c->cap - 1);
	for (; c->slots[i].dims; i = (i + 1) & (c->cap - 1))
		if (c->slots[i].hash == h && c->slots[i].rank == rank && dims_equal(c->slots[i].dims, dims, rank))
			return (fd_dim *)c->slots[i].dims;
	fd_dim *copy = arena_memdup(a, dims, (size_t)rank * sizeof *dims);
	c->slots[i] = (struct dims_slot){ h, rank, copy };
	c->n++;
	return copy;
}

void shape_dims_cache_release(dims_cache *c)
{
	free(c->slots);
	memset(c, 0, sizeof *c);
}
