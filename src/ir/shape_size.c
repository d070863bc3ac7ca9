/* shape_size.c — sizes and text of shapes (declared in graph.h): element
 * counts and byte sizes that saturate instead of wrapping, the byte size as
 * a formula in the unbound symbols (tensor_bytes_sym), the text of a shape
 * for people ("1×64×56×56", "batch x 128" in ASCII, formulas in what is
 * unbound, aliases for long symbols) and for JSON ("batchx128"), and the
 * shape coverage count that `info` reports.
 *
 * Reads shapes, tensors and a model's graphs; dims, symbolic integers and
 * their text come from ir/dim.h. Text goes into the caller's buffer. */
#include <stdio.h>
#include <string.h>
#include "ir/graph.h"

/* Product of the dims. Unknown dims are skipped (the result then holds what is
 * known) and make the answer false; an overflow saturates at INT64_MAX. */
bool shape_elements(const fd_shape *s, int64_t *count)
{
	int64_t n = 1;
	bool ok = true;

	if (!s || s->rank < 0) {
		*count = 0;
		return false;
	}
	for (int32_t i = 0; i < s->rank; i++) {
		int64_t v = s->dims[i].value;
		if (v < 0) {
			ok = false;
			continue;
		}
		if (v == 0) {
			n = 0;
			continue;
		}
		int64_t p;
		if (__builtin_mul_overflow(n, v, &p)) {   /* no division: estimates ask millions of times */
			n = INT64_MAX;
			ok = false;
			continue;
		}
		n = p;   /* INT64_MAX times 1 stays saturated */
	}
	*count = n;
	return ok;
}

/* Elements times dtype bits, rounded up to whole bytes (int4 packs two per
 * byte). Strings and undefined types have no byte size. */
bool tensor_bytes(const fd_tensor *t, int64_t *bytes)
{
	int64_t n;
	bool ok = shape_elements(&t->shape, &n);
	int bits = dtype_bits(t->dtype);

	if (bits <= 0) {
		*bytes = 0;
		return false;
	}
	if (n == INT64_MAX) {
		*bytes = INT64_MAX;
		return false;
	}
	int64_t b;
	if (__builtin_mul_overflow(n, (int64_t)bits, &b) || b > INT64_MAX - 7) {
		*bytes = INT64_MAX;
		return false;
	}
	*bytes = (b + 7) / 8;
	return ok;
}

fd_sint tensor_bytes_sym(const fd_tensor *t)
{
	int64_t b;
	int bits = dtype_bits(t->dtype);
	if (bits <= 0 || t->shape.rank < 0)
		return sint_unknown();
	if (tensor_bytes(t, &b))
		return sint_num(b);
	fd_sint n = sint_of_dim(dim_product(t->shape.dims, 0, t->shape.rank));
	if (!n.e)
		return sint_unknown();   /* a number would have been known above: an overflow */
	/* the formula is in what is still unbound */
	n = sint_partial(n);
	return bits % 8 == 0 ? sint_mul(n, sint_num(bits / 8)) : sint_div_exact(sint_mul(n, sint_num(bits)), sint_num(8));
}

/* One dim's text, set in parentheses when it is an expression of more
 * than one token, so that the separators stay readable. */
static int dim_piece(const fd_dim *dm, bool aliases, char *buf, size_t size)
{
	char t[512];
	if (dm->value >= 0)
		return snprintf(buf, size, "%lld", (long long)dm->value);
	if (!dm->expr)
		return snprintf(buf, size, "?");
	if (aliases) {
		dexpr_display(dm->expr, t, sizeof t);
	} else {
		fd_sint p = sint_partial((fd_sint){ 0, dm->expr });
		snprintf(t, sizeof t, "%s", dexpr_text(p.e ? p.e : dm->expr));
	}
	return snprintf(buf, size, strpbrk(t, "+-*/^(") ? "(%s)" : "%s", t);
}

/* The dims of s joined by sep (sep_sym beside a symbolic dim). */
static char *shape_join(const fd_shape *s, bool aliases, const char *sep, const char *sep_sym, char *buf,
                        size_t size)
{
	size_t at = 0;
	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (!s || s->rank < 0) {
		snprintf(buf, size, "?");
		return buf;
	}
	if (s->rank == 0) {
		snprintf(buf, size, "scalar");
		return buf;
	}
	for (int32_t i = 0; i < s->rank && at + 1 < size; i++) {
		const fd_dim *dm = &s->dims[i];
		bool sym = dm->value < 0, prev_sym = i && s->dims[i - 1].value < 0;
		const char *between = sym || prev_sym ? sep_sym : sep;
		if (i && at + strlen(between) + 1 >= size)
			break;   /* a separator is written whole or not at all (× is two bytes) */
		if (i)
			at += (size_t)snprintf(buf + at, size - at, "%s", between);
		int w = dim_piece(dm, aliases, buf + at, size - at);
		if (w < 0)
			break;
		at += (size_t)w;
	}
	return buf;
}

/* "1×64×56×56", "batch×128", "2×(2*L+1)": bound dims as their numbers, the
 * rest as formulas in what is unbound (aliases for long names); "x" in
 * ASCII, set off by spaces beside a symbol so names never run together
 * ("batch x seq x 64"). "?" for an unknown dim or rank, "scalar" for rank 0. */
char *shape_format(const fd_shape *s, char *buf, size_t size)
{
	if (dim_display_ascii())
		return shape_join(s, true, "x", " x ", buf, size);
	return shape_join(s, true, "\xc3\x97", "\xc3\x97", buf, size);   /* × */
}

char *shape_format_json(const fd_shape *s, char *buf, size_t size)
{
	return shape_join(s, false, "x", "x", buf, size);
}

/* Known as onnx counts it: the rank, and every dim a number or an
 * expression (a symbol, bound or not, included). */
static bool shape_known(const fd_shape *s)
{
	if (s->rank < 0)
		return false;
	for (int32_t i = 0; i < s->rank; i++)
		if (!dim_defined(s->dims[i]))
			return false;
	return true;
}

/* Intermediate = produced by a node (TENSOR_ACTIVATION) and not a graph
 * output, in every graph. Known: shape_known. */
fd_shape_coverage model_shape_coverage(const fd_model *m)
{
	fd_shape_coverage c = {0, 0};

	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		for (int32_t t = 0; t < g->n_tensors; t++) {
			const fd_tensor *x = &g->tensors[t];
			if (x->kind != TENSOR_ACTIVATION || x->is_graph_output)
				continue;
			c.total++;
			if (shape_known(&x->shape))
				c.known++;
		}
	}
	return c;
}
