/* match_memo.c — the search's memo. The rest of a pattern, from position i
 * on, reads of the ops before i only: the units its links and from_ops
 * resolve to, the units its where reads (opJ.NAME), the units and input
 * orders its same_as, same_value_as, dtype same_as and feeds name (and
 * the feeds op of one same_value_as names: an absent op reads through
 * it), the shape names bound so far, and
 * which units are taken (a candidate must not overlap
 * one). A state is those, with i and the optional ops absent so far (the
 * depth a failure counts); two paths that reach the same state fail the
 * same way, with the same depths, so the second costs one step instead of
 * the whole subtree again. Only states whose subtree completed no match are
 * kept: a complete match counts toward the complete-match cap and its own
 * checks read the whole cover.
 * Taken units: when every op is a plain op type (a unit is a node), a
 * candidate of the rest is a consumer, transitively, of a unit the rest
 * links to, so it comes after the earliest of those in topological order:
 * only the taken units after it can be hit, and only they are in the key.
 * That makes a plain chain over a lattice one state per (position, node).
 * With composites every taken unit counts, and so it does from a position
 * on whose ops include a feeds producer or an op found outside the chain
 * (readers of a graph input, of a same_as tensor): those come before
 * their link, and a unit an earlier path took there fails them. */
#include <stdlib.h>
#include <string.h>
#include "match/match_internal.h"

enum { MEMO_MAX_WORDS = 1 << 22, MEMO_MAX_BINDS = 64 };

/* The positions before each i that ops i.. read (match_memo.refs, .same). */
static void memo_describe(match_memo *m, const fd_rule_pattern *p)
{
	uint64_t refs = 0, same = 0;
	bool outside = false;   /* an op from i on finds units that need not follow its link */
	m->pat = p;
	m->nodes_only = true;
	m->every_taken = 0;
	for (int i = p->n_ops - 1; i >= 0; i--) {
		const fd_rule_op *op = &p->ops[i];
		int link = -1;   /* match.c's match_link_of: feeds, else the latest from_op, else the op before */
		for (int k = 0; k < op->n_sources; k++) {
			uint64_t st = op->sources[k].conds;
			int j = st & COND_BIT(FROM_OP) ? op->sources[k].from_op : -1;
			int q = st & COND_BIT(SAME_AS) ? op->sources[k].same_op : -1;
			if (j >= 0 && j < i) {
				refs |= 1ull << j;
				link = j > link ? j : link;
			}
			if (q >= 0 && q < i)
				same |= 1ull << q;
			int v = st & COND_BIT(SAME_VALUE_AS) ? op->sources[k].value_op : -1;
			if (v >= 0 && v < i) {
				same |= 1ull << v;
				const fd_rule_op *ov = &p->ops[v];
				if ((ov->conds & COND_BIT(FEEDS)) && ov->feeds_op < v)
					same |= 1ull << ov->feeds_op;
			}
			int d = st & COND_BIT(DTYPE_SAME_AS) ? op->sources[k].dtype_op : -1;
			if (d >= 0 && d < i)
				same |= 1ull << d;
		}
		refs |= op->where_ops;   /* the units its where reads (opJ.NAME) */
		if ((op->conds & COND_BIT(FEEDS)) && op->feeds_op < i) {   /* its link, and the order it was matched in */
			link = op->feeds_op;
			same |= 1ull << op->feeds_op;
		}
		if (link < 0)
			link = i - 1;
		if (link >= 0)
			refs |= 1ull << link;
		if (op->composite_mask)
			m->nodes_only = false;
		if ((i > 0 && (op->conds & COND_BIT(FEEDS))) || (i > 0 && match_outside_link(op, i) >= 0))
			outside = true;
		if (outside)
			m->every_taken |= 1ull << i;
		uint64_t before = i ? (1ull << i) - 1 : 0;   /* positions < i (i < 64) */
		m->refs[i] = refs & before;
		m->same[i] = same & before;
	}
}

void match_memo_start(match_run_state *s)
{
	match_memo *m = &s->memo;
	m->on = true;
	if (!m->refs) {
		m->refs = xcalloc(MATCH_MAX_OPS, sizeof *m->refs);
		m->same = xcalloc(MATCH_MAX_OPS, sizeof *m->same);
	}
	if (m->pat != s->pat)
		memo_describe(m, s->pat);
	m->gen++;
	if (m->gen == 0) {   /* wrapped: old generations would look current */
		memset(m->slots, 0, m->n_slots * sizeof *m->slots);
		m->gen = 1;
	}
	m->entries.n = 0;
	m->words.n = 0;
}

void match_memo_release(match_memo *m)
{
	free(m->slots);
	free(m->refs);
	free(m->same);
	vec_release(&m->entries);
	vec_release(&m->words);
	vec_release(&m->key);
	memset(m, 0, sizeof *m);
}

static uint64_t hash_words(const int32_t *w, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	for (size_t k = 0; k < n; k++) {
		h ^= (uint32_t)w[k];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

/* The key of the state before position i into m->key; false when it is
 * too big to keep. */
static bool make_key(match_run_state *s, int i)
{
	match_memo *m = &s->memo;
	i32_vec *key = &m->key;
	if (s->binds.n > MEMO_MAX_BINDS)
		return false;
	key->n = 0;
	vec_push(key, i);
	vec_push(key, s->n_absent);
	int32_t after = INT32_MAX;   /* the earliest topo a unit the rest links to has */
	for (uint64_t r = m->refs[i]; r; r &= r - 1) {
		int j = match_present(s, __builtin_ctzll(r));
		int32_t u = j >= 0 ? s->units[j] : FD_NONE;
		vec_push(key, u);
		if (u >= 0 && s->ix->unit_topo[u] < after)
			after = s->ix->unit_topo[u];
	}
	for (uint64_t q = m->same[i]; q; q &= q - 1) {
		int j = __builtin_ctzll(q);
		vec_push(key, s->units[j]);
		vec_push(key, s->swapped[j]);
	}
	vec_push(key, (int32_t)s->binds.n);
	for (size_t k = 0; k < s->binds.n; k++) {
		vec_push(key, s->binds.items[k].var);
		vec_push(key, s->binds.items[k].tensor);
		vec_push(key, s->binds.items[k].dim);
	}
	/* the taken units a candidate of the rest could be, in topo order */
	size_t from = key->n;
	for (int j = 0; j < i; j++) {
		int32_t u = s->units[j];
		if (u == FD_NONE || (m->nodes_only && !(m->every_taken >> i & 1) && s->ix->unit_topo[u] <= after))
			continue;
		size_t at = key->n;
		vec_push(key, u);
		for (; at > from && key->items[at - 1] > u; at--)
			key->items[at] = key->items[at - 1];
		key->items[at] = u;
	}
	return true;
}

static match_memo_slot *find_slot(match_memo *m, uint64_t hash, const int32_t *w, size_t n, bool *found)
{
	size_t mask = m->n_slots - 1;
	for (size_t at = (size_t)hash & mask;; at = (at + 1) & mask) {
		match_memo_slot *sl = &m->slots[at];
		if (sl->gen != m->gen) {
			*found = false;
			return sl;
		}
		const match_memo_entry *e = &m->entries.items[sl->entry];
		if (e->hash == hash && e->len == n && !memcmp(m->words.items + e->off, w, n * sizeof *w)) {
			*found = true;
			return sl;
		}
	}
}

bool match_memo_failed(match_run_state *s, int i, uint64_t *hash)
{
	match_memo *m = &s->memo;
	*hash = 0;
	if (!m->on || !make_key(s, i))
		return false;
	*hash = hash_words(m->key.items, m->key.n) | 1;   /* 0: not kept */
	if (!m->n_slots)
		return false;
	bool found;
	find_slot(m, *hash, m->key.items, m->key.n, &found);
	return found;
}

static void grow_slots(match_memo *m)
{
	size_t n = m->n_slots ? m->n_slots * 2 : 1024;
	free(m->slots);
	m->slots = xcalloc(n, sizeof *m->slots);
	m->n_slots = n;
	if (m->gen == 0)
		m->gen = 1;
	for (size_t k = 0; k < m->entries.n; k++) {
		const match_memo_entry *e = &m->entries.items[k];
		bool found;
		match_memo_slot *sl = find_slot(m, e->hash, m->words.items + e->off, e->len, &found);
		*sl = (match_memo_slot){ m->gen, (uint32_t)k };
	}
}

void match_memo_put(match_run_state *s, int i, uint64_t hash)
{
	match_memo *m = &s->memo;
	if (!hash || !m->on || !make_key(s, i) || m->words.n + m->key.n > MEMO_MAX_WORDS)
		return;
	if ((hash_words(m->key.items, m->key.n) | 1) != hash)
		return;   /* not the state the search left from: keep nothing */
	if ((m->entries.n + 1) * 2 > m->n_slots)
		grow_slots(m);
	bool found;
	match_memo_slot *sl = find_slot(m, hash, m->key.items, m->key.n, &found);
	if (found)
		return;
	match_memo_entry e = { hash, (uint32_t)m->words.n, (uint32_t)m->key.n };
	for (size_t k = 0; k < m->key.n; k++)
		vec_push(&m->words, m->key.items[k]);
	*sl = (match_memo_slot){ m->gen, (uint32_t)m->entries.n };
	vec_push(&m->entries, e);
}
