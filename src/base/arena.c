/* arena.c — bump allocator with geometrically growing blocks, and the
 * checked malloc wrappers every module allocates through.
 *
 * Large allocations (HUGE_HINT and up: big models' arena blocks, node and
 * tensor arrays, hash slots, trace arrays) are marked MADV_HUGEPAGE before
 * they are first touched. On this kind of machine (THP "madvise", page faults
 * costly under virtualisation) a 1M-node model otherwise spends a third of
 * its load time in 4 KiB page faults; see tests/bench/RESULTS.md. */
#include "base/arena.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_HINT ((size_t)4 << 20)

/* A hint only: failure (no THP, old kernel) changes nothing. */
static void hint_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (n < HUGE_HINT)
		return;
	uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t end = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

struct arena_block {
	struct arena_block *next;
	size_t size, used;
	max_align_t data[];
};

static void default_oom(size_t wanted)
{
	(void)wanted;
	abort();
}
void (*fd_oom)(size_t wanted) = default_oom;

/* No allocation here: the line is read when memory has run out. */
static char doing[320];

void fd_doing(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(doing, sizeof doing, fmt, ap);
	va_end(ap);
	for (char *p = doing; *p; p++)   /* a name's control bytes must not reach the terminal */
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

const char *fd_doing_now(void)
{
	return doing;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		fd_oom(n);
	hint_huge(p, n);
	return p;
}

/* calloc leaves a fresh mapping untouched (it is zero already), so the
 * hint still comes before the first touch; recycled heap memory it clears. */
void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		fd_oom(count * size);
	if (count && size && count <= SIZE_MAX / size)
		hint_huge(p, count * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		fd_oom(n);
	hint_huge(q, n);
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

struct arena_adopted {
	struct arena_adopted *next;
	void *p;
};

void arena_init(fd_arena *a)
{
	a->head = NULL;
	a->adopted = NULL;
	a->used = 0;
}

size_t arena_next_block_size(size_t last, size_t first, size_t need)
{
	size_t size = last ? last * 2 : first;
	if (size > 64u << 20)
		size = 64u << 20;
	return size < need ? need : size;
}

/* A block is zeroed once, as a whole: nothing in it is handed out twice. A
 * big one is mapped on its own, whose pages come zeroed: calloc clears
 * recycled heap memory byte by byte, and the heap hands out big chunks once
 * malloc's threshold for mapping has grown past them. */
static struct arena_block *block_new(size_t total)
{
	struct arena_block *b;
	if (total >= HUGE_HINT) {
		b = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED)
			b = NULL;
	} else {
		b = calloc(1, total);
	}
	if (!b)
		fd_oom(total);
	hint_huge(b, total);
	return b;
}

static void block_free(struct arena_block *b)
{
	size_t total = sizeof *b + b->size;
	if (total >= HUGE_HINT)
		munmap(b, total);
	else
		free(b);
}

void *arena_alloc(fd_arena *a, size_t n)
{
	n = (n + 7) & ~(size_t)7;   /* 8: no member of the IR needs more */
	struct arena_block *b = a->head;
	if (!b || b->size - b->used < n) {
		size_t size = arena_next_block_size(b ? b->size : 0, 4096, n);   /* small first: one per rule file */
		b = block_new(sizeof *b + size);
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	a->used += n;
	return p;
}

void *arena_array(fd_arena *a, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		fd_oom(SIZE_MAX);
	return arena_alloc(a, count * size);
}

void *arena_memdup(fd_arena *a, const void *p, size_t n)
{
	return n ? memcpy(arena_alloc(a, n), p, n) : arena_alloc(a, 1);
}

char *arena_strndup(fd_arena *a, const char *s, size_t n)
{
	char *d = arena_alloc(a, n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *arena_strdup(fd_arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(fd_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *d = arena_alloc(a, (size_t)(n < 0 ? 0 : n) + 1);
	va_start(ap, fmt);
	vsnprintf(d, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return d;
}

void arena_adopt(fd_arena *a, void *p, size_t size)
{
	struct arena_adopted *x = arena_alloc(a, sizeof *x);
	x->p = p;
	x->next = a->adopted;
	a->adopted = x;
	a->used += size;
}

void arena_release(fd_arena *a)
{
	for (struct arena_adopted *x = a->adopted; x; x = x->next)
		free(x->p);   /* the list itself lives in the blocks freed below */
	a->adopted = NULL;
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *next = b->next;
		block_free(b);
		b = next;
	}
	a->head = NULL;
	a->used = 0;
}
