/* strmap.c — linear-probing string map (FNV-1a) and the interning pool.
 * A map slot is 16 bytes (key, 32 bits of the hash, value), a pool slot 8
 * (the pool keeps its strings by id): a million-name pool is 32 MB of slots.
 * Keys hold no NUL of their own (they were inserted by strlen), so a probe
 * compares bytes up to its length and then wants the key to end there. */
#include "base/strmap.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct strmap_slot {
	const char *key;
	uint32_t hash;
	int32_t value;
};

/* Eight bytes a step (an exporter's names are 30-60 bytes: a byte-wise FNV
 * was a fifth of loading such a model): each word xor-ed in, multiplied and
 * folded so that its high bytes reach the low bits the tables index by;
 * the tail and the length in the last word, then a final mix. */
/* The r < 8 bytes at s as a little-endian word, zero above them: what
 * memcpy into a zeroed word makes, without a call for a variable length
 * (two overlapping loads; the bytes they share are the same). */
static inline uint64_t tail_word(const char *s, size_t r)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const unsigned char *u = (const unsigned char *)s;
	if (r >= 4) {
		uint32_t a, b;
		memcpy(&a, s, 4);
		memcpy(&b, s + r - 4, 4);
		return a | (uint64_t)b << (8 * (r - 4));
	}
	if (r == 0)
		return 0;
	return u[0] | (uint64_t)u[r / 2] << (8 * (r / 2)) | (uint64_t)u[r - 1] << (8 * (r - 1));
#else
	uint64_t w = 0;
	memcpy(&w, s, r);
	return w;
#endif
}

static uint64_t strmap_hash(const char *s, size_t len)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h = 1469598103934665603ull ^ len, w;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * k;
		h ^= h >> 32;
	}
	w = tail_word(s + i, len - i);
	h = (h ^ w) * k;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

void strmap_init(strmap *m)
{
	m->slots = NULL;
	m->cap = m->n = 0;
}

void strmap_release(strmap *m)
{
	free(m->slots);
	strmap_init(m);
}

/* key (NUL-terminated) equals the len bytes at s; stops at key's end. */
static bool key_equals(const char *key, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (key[i] != s[i] || !key[i])
			return false;
	return key[len] == '\0';
}

static struct strmap_slot *find_slot(const strmap *m, const char *key, size_t len, uint32_t h)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];
		if (!s->key || (s->hash == h && key_equals(s->key, key, len)))
			return s;
	}
}

/* Rehashes into cap slots (a power of two that keeps the load under 3/4). */
static void rehash(strmap *m, size_t cap)
{
	strmap old = *m;
	m->cap = cap;
	m->slots = xcalloc(m->cap, sizeof *m->slots);
	m->n = 0;
	size_t mask = m->cap - 1;
	for (size_t i = 0; i < old.cap; i++) {
		struct strmap_slot *s = &old.slots[i];
		if (s->key) {   /* keys are distinct: the first empty slot is the one */
			size_t j = s->hash & mask;
			while (m->slots[j].key)
				j = (j + 1) & mask;
			m->slots[j] = *s;
			m->n++;
		}
	}
	free(old.slots);
}

static void grow(strmap *m)
{
	rehash(m, m->cap ? m->cap * 2 : 64);
}

/* The power-of-two capacity, from cap up, that holds n keys under 3/4 full. */
static size_t cap_for(size_t cap, size_t n)
{
	while (n * 4 > cap * 3)
		cap *= 2;
	return cap;
}

void strmap_reserve(strmap *m, size_t n)
{
	size_t cap = cap_for(m->cap ? m->cap : 64, n);
	if (cap > m->cap)
		rehash(m, cap);
}

int32_t strmap_getn(const strmap *m, const char *key, size_t len)
{
	if (!m->cap)
		return -1;
	struct strmap_slot *s = find_slot(m, key, len, (uint32_t)strmap_hash(key, len));
	return s->key ? s->value : -1;
}

int32_t strmap_get(const strmap *m, const char *key)
{
	return strmap_getn(m, key, strlen(key));
}

static struct strmap_slot *slot_for_insert(strmap *m, const char *key, size_t len)
{
	if ((m->n + 1) * 4 > m->cap * 3)
		grow(m);
	uint32_t h = (uint32_t)strmap_hash(key, len);
	struct strmap_slot *s = find_slot(m, key, len, h);
	if (!s->key) {
		s->key = key;
		s->hash = h;
		s->value = -1;
		m->n++;
	}
	return s;
}

int32_t strmap_put(strmap *m, const char *key, int32_t value)
{
	struct strmap_slot *s = slot_for_insert(m, key, strlen(key));
	if (s->value < 0)
		s->value = value;
	return s->value;
}

void strmap_set(strmap *m, const char *key, int32_t value)
{
	slot_for_insert(m, key, strlen(key))->value = value;
}

/* ---- the interning pool ------------------------------------------------
 * Its own table of 8-byte slots (32 bits of hash, id + 1; 0 is empty), half
 * a strmap's: a million-name pool is a cache miss per lookup, and the slot
 * is the miss. The string itself is usually recent, hence cached. */
struct pool_slot {
	uint32_t hash;
	int32_t id1;
};

void strpool_init(strpool *p, fd_arena *arena)
{
	memset(p, 0, sizeof *p);
	p->arena = arena;
}

void strpool_release(strpool *p)
{
	free(p->slots);
	free(p->strings);
	fd_arena *a = p->arena;
	strpool_init(p, a);
}

static void pool_rehash(strpool *p, size_t cap)
{
	struct pool_slot *old = p->slots;
	size_t old_cap = p->slot_cap, mask = cap - 1;
	p->slots = xcalloc(cap, sizeof *p->slots);
	p->slot_cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].id1)
			continue;
		size_t j = old[i].hash & mask;
		while (p->slots[j].id1)
			j = (j + 1) & mask;
		p->slots[j] = old[i];
	}
	free(old);
}

void strpool_reserve(strpool *p, size_t n)
{
	size_t cap = cap_for(p->slot_cap ? p->slot_cap : 256, n);
	if (cap > p->slot_cap)
		pool_rehash(p, cap);
	if (n > p->cap) {
		p->cap = n;
		p->strings = xrealloc(p->strings, p->cap * sizeof *p->strings);
	}
}

/* key_equals for a pool string, eight bytes a step: a pool string starts on
 * an 8-byte boundary of the pool's arena, which rounds every allocation up
 * to 8 (arena_alloc), so a word of key is read only while the words before
 * it matched s (which has no NUL) and the key is thus long enough to own it. */
static bool pool_key_equals(const char *key, const char *s, size_t len)
{
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t a, b;
		memcpy(&a, key + i, 8);
		memcpy(&b, s + i, 8);
		if (a != b)
			return false;
	}
	/* the tail and key's NUL after it: key owns the word at i (it is at
	 * least i + 1 bytes and rounded up to 8), s only its len - i bytes */
	uint64_t kw, mask = ~(uint64_t)0 >> (8 * (7 - (len - i)));
	memcpy(&kw, key + i, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (kw & mask) == tail_word(s + i, len - i);
#else
	(void)kw;
	(void)mask;
	return key_equals(key + i, s + i, len - i);
#endif
}

/* The slot holding s, or the empty slot where it would go. */
static struct pool_slot *pool_find(const strpool *p, const char *s, size_t len, uint32_t h)
{
	size_t mask = p->slot_cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct pool_slot *x = &p->slots[i];
		if (!x->id1 || (x->hash == h && pool_key_equals(p->strings[x->id1 - 1], s, len)))
			return x;
	}
}

/* One hash and one probe per call: a new string takes the empty slot the
 * lookup stopped at (the load factor is checked first, so it stays valid). */
static int32_t intern_hashed(strpool *p, const char *s, size_t len, uint32_t h)
{
	if ((p->n + 1) * 4 > p->slot_cap * 3)
		pool_rehash(p, p->slot_cap ? p->slot_cap * 2 : 256);
	struct pool_slot *x = pool_find(p, s, len, h);
	if (x->id1)
		return x->id1 - 1;
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 256;
		p->strings = xrealloc(p->strings, p->cap * sizeof *p->strings);
	}
	p->strings[p->n] = arena_strndup(p->arena, s, len);
	x->hash = h;
	x->id1 = (int32_t)++p->n;
	return x->id1 - 1;
}

static int32_t intern(strpool *p, const char *s, size_t len)
{
	return intern_hashed(p, s, len, (uint32_t)strmap_hash(s, len));
}

void strpool_ids(strpool *p, char *const *s, size_t n, int32_t *ids)
{
	enum { AHEAD = 16 };
	size_t len[AHEAD];
	uint32_t h[AHEAD];
	for (size_t at = 0; at < n; at += AHEAD) {
		size_t m = n - at < AHEAD ? n - at : AHEAD;
		if ((p->n + m) * 4 > p->slot_cap * 3)   /* grown first: the slots fetched stay the ones used */
			pool_rehash(p, cap_for(p->slot_cap ? p->slot_cap : 256, p->n + m));
		for (size_t i = 0; i < m; i++) {
			len[i] = strlen(s[at + i]);
			h[i] = (uint32_t)strmap_hash(s[at + i], len[i]);
			__builtin_prefetch(&p->slots[h[i] & (p->slot_cap - 1)]);
		}
		for (size_t i = 0; i < m; i++)
			ids[at + i] = intern_hashed(p, s[at + i], len[i], h[i]);
	}
}

void strpool_view_ids(strpool *p, const fd_strview *v, size_t n, int32_t *ids)
{
	enum { AHEAD = 16 };
	size_t len[AHEAD];
	uint32_t h[AHEAD];
	for (size_t at = 0; at < n; at += AHEAD) {
		size_t m = n - at < AHEAD ? n - at : AHEAD;
		if ((p->n + m) * 4 > p->slot_cap * 3)
			pool_rehash(p, cap_for(p->slot_cap ? p->slot_cap : 256, p->n + m));
		for (size_t i = 0; i < m; i++) {
			len[i] = strnlen(v[at + i].s, v[at + i].n);
			h[i] = (uint32_t)strmap_hash(v[at + i].s, len[i]);
			__builtin_prefetch(&p->slots[h[i] & (p->slot_cap - 1)]);
		}
		for (size_t i = 0; i < m; i++)
			ids[at + i] = intern_hashed(p, v[at + i].s, len[i], h[i]);
	}
}

/* A string with a NUL byte is what C sees of it: the part before. */
int32_t strpool_id(strpool *p, const char *s, size_t len)
{
	len = strnlen(s, len);
	return intern(p, s, len);
}

int32_t strpool_find(const strpool *p, const char *s, size_t len)
{
	if (!p->slot_cap)
		return -1;
	len = strnlen(s, len);
	struct pool_slot *x = pool_find(p, s, len, (uint32_t)strmap_hash(s, len));
	return x->id1 - 1;
}

const char *strpool_internn(strpool *p, const char *s, size_t len)
{
	int32_t id = strpool_id(p, s, len);   /* may move p->strings */
	return p->strings[id];
}

const char *strpool_intern(strpool *p, const char *s)
{
	int32_t id = intern(p, s, strlen(s));
	return p->strings[id];
}
