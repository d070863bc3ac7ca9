/* strmap.h — open-addressing hash map from C strings to int32 values, and a
 * string pool that interns names into an arena (equal names → equal pointers).
 * The map owns only its slot array; keys must outlive it (they usually live in
 * the same arena as the graph or rules). Iteration order is never exposed, so
 * nothing that prints can depend on hash order. */
#ifndef FD_STRMAP_H
#define FD_STRMAP_H
#include <stdint.h>
#include <stddef.h>
#include "base/arena.h"

typedef struct strmap {
	struct strmap_slot *slots;
	size_t cap, n;
} strmap;

void    strmap_init(strmap *m);
void    strmap_release(strmap *m);
int32_t strmap_get(const strmap *m, const char *key);          /* -1 when absent */
int32_t strmap_getn(const strmap *m, const char *key, size_t len);
/* Inserts key → value unless present; returns the value now stored. */
int32_t strmap_put(strmap *m, const char *key, int32_t value);
void    strmap_set(strmap *m, const char *key, int32_t value);  /* insert or overwrite */
void    strmap_reserve(strmap *m, size_t n);   /* room for n keys without growing */

typedef struct strpool {
	fd_arena *arena;
	struct pool_slot *slots;
	size_t slot_cap;
	const char **strings;  /* by id */
	size_t n, cap;
} strpool;

void        strpool_init(strpool *p, fd_arena *arena);
void        strpool_release(strpool *p);
const char *strpool_intern(strpool *p, const char *s);
const char *strpool_internn(strpool *p, const char *s, size_t len);
/* Ids are dense (0, 1, … in order of first interning): a string's id can
 * index a plain array, which is how the loader maps names to tensors. */
int32_t     strpool_id(strpool *p, const char *s, size_t len);          /* interns */
int32_t     strpool_find(const strpool *p, const char *s, size_t len);  /* -1 when absent */
void        strpool_reserve(strpool *p, size_t n);
/* ids[i] = strpool_id of s[i] (NUL-terminated) for n strings, hashed and
 * their slots fetched first: a big pool misses the cache on every lookup,
 * and the misses of a node's few names then overlap. */
void        strpool_ids(strpool *p, char *const *s, size_t n, int32_t *ids);
/* A string that need not end in a NUL (a name read in place from a file);
 * a NUL inside ends it, as for the rest of the pool. */
typedef struct fd_strview {
	const char *s;
	size_t n;
} fd_strview;
/* strpool_ids of n views. */
void        strpool_view_ids(strpool *p, const fd_strview *v, size_t n, int32_t *ids);
static inline const char *strpool_str(const strpool *p, int32_t id) { return p->strings[id]; }

#endif
