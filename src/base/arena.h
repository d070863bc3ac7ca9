/* arena.h — bump allocator: many small allocations, one release.
 * The arena owns every block it hands out; nothing is freed singly.
 * Out-of-memory calls fd_oom(), which the front end may replace. */
#ifndef FD_ARENA_H
#define FD_ARENA_H
#include <stddef.h>

typedef struct fd_arena {
	struct arena_block *head;
	struct arena_adopted *adopted;
	size_t used;            /* bytes handed out, for memory figures */
} fd_arena;

void  arena_init(fd_arena *a);
void *arena_alloc(fd_arena *a, size_t n);                 /* zeroed, 8-aligned */
void *arena_array(fd_arena *a, size_t count, size_t size); /* overflow-checked */
void *arena_memdup(fd_arena *a, const void *p, size_t n);
char *arena_strdup(fd_arena *a, const char *s);
char *arena_strndup(fd_arena *a, const char *s, size_t n);
char *arena_printf(fd_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Takes a malloc'd block (size bytes) to free with the arena: a large array
 * built by growing stays where it is instead of being copied in. */
void  arena_adopt(fd_arena *a, void *p, size_t size);
void  arena_release(fd_arena *a);
/* The size of a growing allocator's next block: twice the last one (first
 * when there is none), at most 64 MiB, and never less than need. */
size_t arena_next_block_size(size_t last, size_t first, size_t need);

/* Called on allocation failure; never returns. The front end replaces it
 * with one that prints one line and exits 2 (the default aborts: the core
 * never prints). */
extern void (*fd_oom)(size_t wanted);
/* What the program is doing, for that line ("loading the model m.onnx"):
 * the core says it at the start of each long stage. fd_doing_now() is the
 * last thing said ("" before anything). Copied; cheap. */
void fd_doing(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *fd_doing_now(void);
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
