/* fuse_names.c — the dotted attribute names of nested fused nodes, shared
 * across rounds (fuse.h). A fused node of round k carries its member's
 * attributes as "PREFIX.NAME", and its member, a fused node of round k - 1,
 * carried its own member's the same way: the names of a node k rounds deep
 * are k prefixes long, and copying them every round costs each round the
 * whole history. A nested name is therefore made at the end of a chunk with
 * room before it; the next round's "PREFIX." is written into that room, in
 * front of the name it extends, so the longer name shares the shorter one's
 * bytes (a C string is read forwards: the shorter one is untouched). A chunk
 * is found by its leftmost name, the only one that may grow (another
 * extension of the same name copies). When the room is spent the name is
 * copied into a chunk with as much room as it is long, so a round costs the
 * prefixes it adds. Names without a dot (an original node's) nest once at
 * most: they are copied without room. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rounds/fuse.h"

typedef struct chunk {
	const char *head;    /* its leftmost name, the key; NULL: free; TOMB: a name that grew */
	char *base;          /* its first byte: the room is [base, head) */
	int32_t dots;        /* in head: how deep it nests */
} chunk;

#define TOMB ((const char *)1)

struct fd_fuse_names {
	fd_arena arena;
	chunk *slots;
	size_t cap, used;    /* used: slots not free (tombstones too) */
	bool warned_deep;
};

fd_fuse_names *fuse_names_new(void)
{
	fd_fuse_names *n = xcalloc(1, sizeof *n);
	arena_init(&n->arena);
	return n;
}

void fuse_names_free(fd_fuse_names *n)
{
	if (!n)
		return;
	arena_release(&n->arena);
	free(n->slots);
	free(n);
}

size_t fuse_names_bytes(const fd_fuse_names *n)
{
	return n ? n->arena.used : 0;
}

bool fuse_names_first_deep(fd_fuse_names *n)
{
	bool first = !n->warned_deep;
	n->warned_deep = true;
	return first;
}

static size_t hash_of(const fd_fuse_names *n, const char *head)
{
	uint64_t h = (uint64_t)(uintptr_t)head * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 24) & (n->cap - 1);
}

/* The slot holding head, or NULL. */
static chunk *find(const fd_fuse_names *n, const char *head)
{
	if (!n->cap)
		return NULL;
	for (size_t at = hash_of(n, head);; at = (at + 1) & (n->cap - 1)) {
		if (n->slots[at].head == head)
			return &n->slots[at];
		if (!n->slots[at].head)
			return NULL;
	}
}

static void insert(fd_fuse_names *n, chunk c)
{
	if ((n->used + 1) * 2 > n->cap) {   /* grow, and drop the tombstones */
		size_t old = n->cap;
		chunk *was = n->slots;
		size_t live = 0;
		for (size_t k = 0; k < old; k++)
			live += was[k].head && was[k].head != TOMB;
		n->cap = old ? old : 256;
		while ((live + 1) * 4 > n->cap)
			n->cap *= 2;
		n->slots = xcalloc(n->cap, sizeof *n->slots);
		n->used = 0;
		for (size_t k = 0; k < old; k++)
			if (was[k].head && was[k].head != TOMB)
				insert(n, was[k]);
		free(was);
	}
	size_t at = hash_of(n, c.head);
	while (n->slots[at].head && n->slots[at].head != TOMB)   /* a new head: the first dead slot will do */
		at = (at + 1) & (n->cap - 1);
	n->used += !n->slots[at].head;
	n->slots[at] = c;
}

static int32_t count_dots(const char *s)
{
	int32_t k = 0;
	for (; (s = strchr(s, '.')) != NULL; s++)
		k++;
	return k;
}

const char *fuse_names_dotted(fd_fuse_names *n, const char *prefix, const char *name)
{
	size_t np = strlen(prefix), q = np + 1;
	chunk *c = find(n, name);
	if (c && (size_t)(name - c->base) >= q) {
		char *s = (char *)name - q;   /* the room in front of it, unused */
		memcpy(s, prefix, np);
		s[np] = '.';
		chunk grown = { s, c->base, c->dots + 1 };
		c->head = TOMB;   /* name keeps its bytes; it cannot grow again */
		insert(n, grown);
		return s;
	}
	size_t nn = strlen(name), len = q + nn + 1, room = strchr(name, '.') ? len : 0;
	char *base = arena_alloc(&n->arena, room + len);
	char *s = base + room;
	memcpy(s, prefix, np);
	s[np] = '.';
	memcpy(s + q, name, nn + 1);
	if (room)
		insert(n, (chunk){ s, base, count_dots(s) });
	return s;
}

int32_t fuse_names_dots(const fd_fuse_names *n, const char *name)
{
	const chunk *c = n ? find(n, name) : NULL;
	return c ? c->dots : count_dots(name);
}
