/* cond_memory_limit.c — constraint memory_limit: the largest intermediate
 * tensor of the match within max_intermediate_size, the largest output
 * within max_output_size; one event per limit given (op 0: intermediates,
 * op 1: outputs). A size that is a formula over unbound symbols decides
 * where it decides for every binding (256 KiB × batch is over 64 KiB for
 * any batch), else ends the attempt "unknown: depends on …" with the
 * largest binding the limit allows; a size nothing knows passes undecided.
 * Its parse, check and words, and the cache of an unbound size's words. */
#include <string.h>
#include "base/text.h"
#include "match/cond_constraint.h"
#include "match/match_internal.h"

bool cond_memory_limit_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	int before = s->errors;
	cond_parse_bytes(s, v, path, "max_intermediate_size", &at->constraint->max_intermediate_size);
	cond_parse_bytes(s, v, path, "max_output_size", &at->constraint->max_output_size);
	return s->errors == before;
}

/* The limit an event of op q measures against, and its key. */
static int64_t limit_of(const fd_constraint *k, int q)
{
	return q == 0 ? k->max_intermediate_size : k->max_output_size;
}

static const char *field_of(int q)
{
	return q == 0 ? "max_intermediate_size" : "max_output_size";
}

/* ---- the run ------------------------------------------------------------------- */

/* The smallest value of a size formula over every binding (each unbound
 * symbol >= 1) when it has one: all its coefficients positive. */
static bool formula_floor(fd_sint b, int64_t *min)
{
	return b.e && !dexpr_has_fresh(b.e) && dexpr_monotone(b.e) && dexpr_value_with(b.e, 1, min) && *min >= 0;
}

/* The largest tensor of a set: its size (a formula's smallest value
 * counts), the one whose size waits on a binding and allows the smallest
 * value of it under limit (*allows), the first unknowable. */
static int64_t largest(const match_run_state *s, const i32_vec *set, int64_t limit, int32_t *which,
                       int32_t *waits, int64_t *allows, int32_t *unknown)
{
	int64_t best = -1;
	*which = *waits = *unknown = FD_NONE;
	*allows = INT64_MAX;
	for (size_t i = 0; i < set->n; i++) {
		const fd_tensor *t = &s->g->tensors[set->items[i]];
		int64_t bytes;
		if (t->dtype == DT_UNDEFINED || !tensor_bytes(t, &bytes)) {
			fd_sint f = tensor_bytes_sym(t);
			bool bindable = t->dtype != DT_UNDEFINED && f.e && !dexpr_has_fresh(f.e);
			int64_t v = INT64_MAX;
			if (bindable && !dexpr_largest_within(f.e, limit, &v))
				v = INT64_MAX;
			if (bindable && (*waits == FD_NONE || v < *allows)) {
				*waits = set->items[i];
				*allows = v;
			} else if (!bindable && *unknown == FD_NONE) {
				*unknown = set->items[i];
			}
			if (!bindable || !formula_floor(f, &bytes))
				continue;
		}
		if (bytes > best) {
			best = bytes;
			*which = set->items[i];
		}
	}
	return best;
}

/* Each limit given in turn: one decided over it fails at once (a the size,
 * other the tensor); of the limits that wait on a binding, the one that
 * allows the least is the one to name; the others pass (undecided when a
 * size is unknowable). Returns the last event. */
static fd_event measure(fd_cond_check *c)
{
	const match_run_state *s = c->run;
	const fd_constraint *k = c->constraint;
	const i32_vec *sets[2] = { &s->cover.intermediates, &s->cover.outputs };
	int32_t wait_t = FD_NONE;
	int wait_q = -1;
	int64_t wait_allows = INT64_MAX;
	fd_event last = { .kind = EV_CONSTRAINT, .status = ST_PASS, .op = -1 };
	for (int q = 0; q < 2; q++) {
		int64_t limit = limit_of(k, q);
		if (limit < 0)
			continue;
		int32_t which, waits, unknown;
		int64_t allows;
		int64_t big = largest(s, sets[q], limit, &which, &waits, &allows, &unknown);
		if (which != FD_NONE && big > limit)
			return cond_constraint_emit(c, ST_FAIL, REASON_CF03_MEMORY, q, s->g->tensors[which].producer, which,
			                            big, limit);
		if (waits != FD_NONE) {
			if (wait_t == FD_NONE || allows < wait_allows) {
				wait_t = waits;
				wait_q = q;
				wait_allows = allows;
			}
			continue;
		}
		if (unknown != FD_NONE)
			last = cond_constraint_pass(c, true, q, s->g->tensors[unknown].producer, unknown, -1, limit);
		else
			last = cond_constraint_pass(c, false, q, which >= 0 ? s->g->tensors[which].producer : FD_NONE, which,
			                            big < 0 ? 0 : big, limit);
	}
	if (wait_t != FD_NONE)
		return cond_constraint_unbound(c, wait_q, s->g->tensors[wait_t].producer, wait_t, -1,
		                               limit_of(k, wait_q));
	return last;
}

/* ---- the words ----------------------------------------------------------------- */

/* t's size as a formula and the tail saying the largest binding within
 * limit, into f and tail (as large as cond_size_words'). */
static void size_words(const fd_tensor *t, int64_t limit, char *f, char *tail)
{
	char num[24];
	strcpy(f, "size unknown");
	strcpy(tail, " (bind with --dim or --input-shape)");
	fd_sint b = t ? tensor_bytes_sym(t) : sint_unknown();
	if (!b.e)
		return;
	dexpr_format_bytes(b.e, f, sizeof ((cond_size_words *)0)->formula);
	const char *sym[1];
	int64_t v;
	if (dexpr_largest_within(b.e, limit, &v) && dexpr_symbols(b.e, true, sym, 1) == 1) {
		size_t size = sizeof ((cond_size_words *)0)->tail;
		size_t at = text_append(tail, size, 0, "; within the limit for ", sym[0]);
		if (at < size)
			text_append(tail, size, at, " <= ", text_decimal(v, num));
	}
}

void cond_size_cache_init(cond_size_cache *sc)
{
	for (size_t i = 0; i < COND_SIZES; i++)
		sc->sizes[i].rank = -1;
	sc->next = 0;
}

/* size_words through the cache (sc NULL, or a rank too large to keep: none). */
static const cond_size_words *cached_size_words(cond_size_cache *sc, const fd_tensor *t, int64_t limit,
                                                cond_size_words *own)
{
	bool keep = sc && t && t->shape.rank >= 0 && t->shape.rank <= COND_SIZE_RANK;
	if (keep)
		for (size_t i = 0; i < COND_SIZES; i++) {
			const cond_size_words *z = &sc->sizes[i];
			if (z->rank == t->shape.rank && z->dtype == t->dtype && z->limit == limit &&
			    !memcmp(z->dims, t->shape.dims, (size_t)z->rank * sizeof *z->dims))
				return z;
		}
	cond_size_words *z = keep ? &sc->sizes[sc->next++ % COND_SIZES] : own;
	size_words(t, limit, z->formula, z->tail);
	if (keep) {
		z->rank = t->shape.rank;
		z->dtype = t->dtype;
		z->limit = limit;
		memcpy(z->dims, t->shape.dims, (size_t)z->rank * sizeof *z->dims);
	}
	return z;
}

/* A size that is a formula: the formula, the tensor, and the largest
 * binding the limit allows when one symbol decides. */
static void unbound_words(const fd_cond_check *c, fd_cond_facts *facts)
{
	const int32_t tensor = c->payload.constraint.tensor;
	const fd_tensor *t = tensor >= 0 ? &c->g->tensors[tensor] : NULL;
	cond_size_words own;
	const cond_size_words *z = cached_size_words(c->sizes, t, c->payload.constraint.limit, &own);
	text_join(facts->actual, sizeof facts->actual, 3, z->formula, " ", t ? t->name : "");
	int64_t t1 = tensor;
	cond_unbound_words(c->g, &t1, 1, z->tail, facts->reason_text, sizeof facts->reason_text);
}

/* t's size is a formula over symbols, not a number. */
static bool size_is_formula(const fd_tensor *t)
{
	int64_t bytes;
	return t->dtype != DT_UNDEFINED && !tensor_bytes(t, &bytes) && tensor_bytes_sym(t).e;
}

static void words(const fd_cond_check *c, fd_cond_facts *facts)
{
	const fd_event *ev = c->ev;
	const int32_t tensor = c->payload.constraint.tensor;
	const int64_t bytes = c->payload.constraint.measured;
	cond_memory_limit_describe(c, facts->expected, sizeof facts->expected);
	if (ev->reason == REASON_CF06_UNBOUND) {
		unbound_words(c, facts);
	} else if (bytes < 0) {
		text_cutf(facts->actual, sizeof facts->actual, "%s size unknown", cond_tensor_name(c->g, tensor));
	} else if (tensor >= 0 && size_is_formula(&c->g->tensors[tensor])) {
		/* decided for every binding: the size stays the formula it is, never
		 * its value at 1 */
		cond_size_words own;
		const cond_size_words *z = cached_size_words(c->sizes, &c->g->tensors[tensor], c->payload.constraint.limit,
		                                             &own);
		text_join(facts->actual, sizeof facts->actual, 3, z->formula, " ", cond_tensor_name(c->g, tensor));
	} else {
		char a[64];
		cond_bytes_words(bytes, a, sizeof a);
		text_join(facts->actual, sizeof facts->actual, 3, a, tensor >= 0 ? " " : "",
		          tensor >= 0 ? cond_tensor_name(c->g, tensor) : "");
	}
}

fd_reason cond_memory_limit_check(fd_cond_check *c, fd_cond_facts *facts)
{
	fd_event ran;
	const fd_event *ev = c->run ? (ran = measure(c), &ran) : c->ev;
	return cond_constraint_decided(c, ev, facts, field_of(ev->op), words);
}

/* "<= 32.0 MiB (33554432)": the limit of the event (c->ev), else the first given. */
void cond_memory_limit_describe(const fd_cond_check *c, char *buf, size_t size)
{
	const fd_constraint *k = c->constraint;
	int q = c->ev ? c->ev->op : k->max_intermediate_size >= 0 ? 0 : 1;
	char b[64];
	cond_bytes_words(limit_of(k, q), b, sizeof b);
	text_join(buf, size, 3, "<= ", b, "");
}

const char *cond_memory_limit_field(const fd_event *ev)
{
	return field_of(ev->op);
}

/* ---- lint ------------------------------------------------------------------------ */

/* A limit that sets nothing, or one that no match can keep. */
void cond_memory_limit_lint(const fd_cond_lint *l)
{
	const fd_constraint *k = l->constraint;
	const fd_yval *w = k->where;
	int n_ops = rules_most_ops(l->rule);
	if (k->max_intermediate_size < 0 && k->max_output_size < 0)
		cond_lint_say(l, DIAG_WARNING, w, "%s: memory_limit sets neither max_intermediate_size nor max_output_size",
		              l->path);
	if (k->max_intermediate_size == 0 && n_ops >= 2)
		cond_lint_say(l, DIAG_ERROR, yval_get(w, "max_intermediate_size"), "%s.max_intermediate_size: 0 can never "
		              "pass: a match of %d ops has intermediate tensors", l->path, n_ops);
	if (k->max_output_size == 0)
		cond_lint_say(l, DIAG_ERROR, yval_get(w, "max_output_size"), "%s.max_output_size: 0 can never pass: every "
		              "match has an output", l->path);
}
