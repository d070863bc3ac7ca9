/* vec.h — typed growable arrays on the heap: VEC(int) v = {0}; vec_push(&v, 3);
 * The vec owns its items buffer; vec_release frees it (not what items point to). */
#ifndef FD_VEC_H
#define FD_VEC_H
#include <stddef.h>
#include <stdint.h>
#include "base/arena.h"

#define VEC(T) struct { T *items; size_t n, cap; }

/* Doubling stops where the byte count would wrap: a want that large is out
 * of memory (fd_oom), never a capacity that wrapped to 0 or to less. */
#define vec_grow(v, want) do { \
	size_t want_ = (want); \
	if (want_ > (v)->cap) { \
		size_t max_ = SIZE_MAX / 2 / sizeof *(v)->items; \
		size_t cap_ = (v)->cap ? (v)->cap : 8; \
		if (want_ > max_) fd_oom(SIZE_MAX); \
		while (cap_ < want_) cap_ *= 2; \
		(v)->items = xrealloc((v)->items, cap_ * sizeof *(v)->items); \
		(v)->cap = cap_; \
	} \
} while (0)

#define vec_push(v, x) do { vec_grow((v), (v)->n + 1); (v)->items[(v)->n++] = (x); } while (0)
#define vec_release(v) do { free((v)->items); (v)->items = NULL; (v)->n = (v)->cap = 0; } while (0)

#endif
