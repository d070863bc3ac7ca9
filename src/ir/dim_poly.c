/* dim_poly.c — polynomials over atoms with rational coefficients, as
 * scratch values: sums, products, floor(P / q) in its normal form, exact
 * quotients, and the step that turns one into an interned expression (or a
 * number). Anything too large for the fixed sizes, or an overflow of a
 * 64-bit coefficient, marks the result bad: the caller then falls back to
 * the numbers, or to a fresh symbol. */
#include <stdlib.h>
#include <string.h>
#include "ir/dim_internal.h"

int64_t dim_gcd(int64_t a, int64_t b)
{
	uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a, y = b < 0 ? -(uint64_t)b : (uint64_t)b;
	while (y) {
		uint64_t r = x % y;
		x = y;
		y = r;
	}
	return x > INT64_MAX ? 0 : (int64_t)x;
}

/* num/den reduced with den > 0; false when it does not fit 64 bits. */
static bool ratio(__int128 num, __int128 den, int64_t *n, int64_t *d)
{
	if (den == 0)
		return false;
	if (den < 0) {
		num = -num;
		den = -den;
	}
	__int128 a = num < 0 ? -num : num, b = den;
	while (b) {
		__int128 r = a % b;
		a = b;
		b = r;
	}
	if (a > 1) {
		num /= a;
		den /= a;
	}
	if (num > INT64_MAX || num < -INT64_MAX || den > INT64_MAX)
		return false;
	*n = (int64_t)num;
	*d = (int64_t)den;
	return true;
}

static void poly_zero(dpoly *p)
{
	p->n = 0;
	p->bad = false;
}

static void poly_const(dpoly *p, int64_t num, int64_t den)
{
	poly_zero(p);
	if (num == 0)
		return;
	dterm *t = &p->t[p->n++];
	memset(t, 0, sizeof *t);
	if (!ratio(num, den, &t->num, &t->den))
		p->bad = true;
}

void poly_expr(dpoly *p, const fd_dexpr *e)
{
	poly_zero(p);
	p->n = e->n_terms;
	memcpy(p->t, e->terms, (size_t)e->n_terms * sizeof *p->t);
}

void poly_atom(dpoly *p, const datom *a)
{
	poly_zero(p);
	dterm *t = &p->t[p->n++];
	memset(t, 0, sizeof *t);
	t->num = t->den = 1;
	t->nf = 1;
	t->f[0] = a;
}

static int cmp_atom_ptr(const void *x, const void *y)
{
	return dim_atom_cmp(*(const datom *const *)x, *(const datom *const *)y);
}

static int cmp_term(const void *x, const void *y)
{
	return dim_term_cmp_monomial(x, y);
}

static void poly_normalize(dpoly *p)
{
	if (p->bad)
		return;
	for (int i = 0; i < p->n; i++)
		qsort(p->t[i].f, p->t[i].nf, sizeof *p->t[i].f, cmp_atom_ptr);
	qsort(p->t, (size_t)p->n, sizeof *p->t, cmp_term);
	int w = 0;
	for (int i = 0; i < p->n; i++) {
		if (w > 0 && !dim_term_cmp_monomial(&p->t[w - 1], &p->t[i])) {
			dterm *a = &p->t[w - 1];
			__int128 num = (__int128)a->num * p->t[i].den + (__int128)p->t[i].num * a->den;
			__int128 den = (__int128)a->den * p->t[i].den;
			if (num == 0) {
				w--;
				continue;
			}
			if (!ratio(num, den, &a->num, &a->den)) {
				p->bad = true;
				return;
			}
			continue;
		}
		if (p->t[i].num == 0)
			continue;
		p->t[w++] = p->t[i];
	}
	p->n = w;
}

void poly_add(dpoly *out, const dpoly *a, const dpoly *b, int sign)
{
	dpoly r;
	poly_zero(&r);
	if (a->bad || b->bad || a->n + b->n > DPOLY_MAX) {
		poly_zero(out);
		out->bad = true;
		return;
	}
	memcpy(r.t, a->t, (size_t)a->n * sizeof *a->t);
	memcpy(r.t + a->n, b->t, (size_t)b->n * sizeof *b->t);
	r.n = a->n + b->n;
	for (int i = a->n; i < r.n; i++)
		if (sign < 0) {
			if (r.t[i].num == INT64_MIN) {
				r.bad = true;
				break;
			}
			r.t[i].num = -r.t[i].num;
		}
	poly_normalize(&r);
	*out = r;
}

void poly_mul(dpoly *out, const dpoly *a, const dpoly *b)
{
	dpoly r;
	poly_zero(&r);
	if (a->bad || b->bad || (long)a->n * b->n > DPOLY_MAX) {
		poly_zero(out);
		out->bad = true;
		return;
	}
	for (int i = 0; i < a->n && !r.bad; i++)
		for (int j = 0; j < b->n && !r.bad; j++) {
			const dterm *x = &a->t[i], *y = &b->t[j];
			dterm *t = &r.t[r.n++];
			memset(t, 0, sizeof *t);
			if (x->nf + y->nf > DTERM_MAXF ||
			    !ratio((__int128)x->num * y->num, (__int128)x->den * y->den, &t->num, &t->den)) {
				r.bad = true;
				break;
			}
			t->nf = (uint8_t)(x->nf + y->nf);
			memcpy(t->f, x->f, x->nf * sizeof *t->f);
			memcpy(t->f + x->nf, y->f, y->nf * sizeof *t->f);
		}
	poly_normalize(&r);
	*out = r;
}

static void poly_scale(dpoly *p, int64_t num, int64_t den)
{
	dpoly k;
	poly_const(&k, num, den);
	poly_mul(p, p, &k);
}

static int64_t floor_div64(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* The lcm of the coefficient denominators (0 on overflow). */
static int64_t den_lcm(const dpoly *p)
{
	int64_t l = 1;
	for (int i = 0; i < p->n; i++) {
		int64_t g = dim_gcd(l, p->t[i].den);
		if (__builtin_mul_overflow(l / g, p->t[i].den, &l))
			return 0;
	}
	return l;
}

/* floor(a / q): a = q*A + B with A integral and B's coefficients in [0, q);
 * then B and q over their gcd; floor((floor(N/b) + c)/q) = floor((N + c*b)/(b*q)). */
static void floordiv_depth(fd_dimtab *t, dpoly *out, const dpoly *a0, int64_t q, int depth)
{
	dpoly a = *a0;
	if (a.bad || q <= 0 || depth > 8) {
		poly_zero(out);
		out->bad = true;
		return;
	}
	if (q == 1) {
		*out = a;
		return;
	}
	int64_t l = den_lcm(&a);
	if (!l || __builtin_mul_overflow(q, l, &q)) {
		poly_zero(out);
		out->bad = true;
		return;
	}
	if (l > 1)
		poly_scale(&a, l, 1);
	dpoly whole, rest;
	poly_zero(&whole);
	poly_zero(&rest);
	for (int i = 0; i < a.n; i++) {
		int64_t c = a.t[i].num, w = floor_div64(c, q), r = c - w * q;
		if (w) {
			whole.t[whole.n] = a.t[i];
			whole.t[whole.n].num = w;
			whole.t[whole.n++].den = 1;
		}
		if (r) {
			rest.t[rest.n] = a.t[i];
			rest.t[rest.n].num = r;
			rest.t[rest.n++].den = 1;
		}
	}
	/* only a constant left: 0 <= r < q, so its floor is 0 */
	bool constant = rest.n == 0 || (rest.n == 1 && rest.t[0].nf == 0);
	if (!constant) {
		int64_t g = q;
		for (int i = 0; i < rest.n; i++)
			g = dim_gcd(g, rest.t[i].num);
		for (int i = 0; i < rest.n && g > 1; i++)
			rest.t[i].num /= g;
		q /= g;
		poly_normalize(&rest);
		dpoly fl;
		const dterm *last = &rest.t[rest.n - 1];
		int64_t c = last->nf == 0 ? last->num : 0;
		int n_var = last->nf == 0 ? rest.n - 1 : rest.n;
		const dterm *only = n_var == 1 ? &rest.t[0] : NULL;
		if (only && only->num == 1 && only->nf == 1 && only->f[0]->kind == ATOM_FLOOR) {
			/* nested floor */
			const datom *in = only->f[0];
			dpoly n, k;
			poly_expr(&n, in->num);
			int64_t cb, bq;
			if (__builtin_mul_overflow(c, in->den, &cb) || __builtin_mul_overflow(in->den, q, &bq)) {
				poly_zero(out);
				out->bad = true;
				return;
			}
			poly_const(&k, cb, 1);
			poly_add(&n, &n, &k, 1);
			floordiv_depth(t, &fl, &n, bq, depth + 1);
		} else {
			const fd_dexpr *num = dim_table_intern(t, &rest);
			poly_atom(&fl, dim_table_floor_atom(t, num, q));
		}
		poly_add(&whole, &whole, &fl, 1);
	}
	poly_normalize(&whole);
	*out = whole;
}

void poly_floordiv(fd_dimtab *t, dpoly *out, const dpoly *a, int64_t q)
{
	floordiv_depth(t, out, a, q, 0);
}

/* Does monomial m contain every factor of d (as multisets, both sorted)?
 * Then rest gets the factors of m that d does not have. */
static bool monomial_divides(const dterm *m, const dterm *d, dterm *rest)
{
	int i = 0, j = 0;
	rest->nf = 0;
	while (i < m->nf) {
		if (j < d->nf && m->f[i] == d->f[j]) {
			i++;
			j++;
			continue;
		}
		if (j < d->nf && dim_atom_cmp(d->f[j], m->f[i]) < 0)
			return false;
		rest->f[rest->nf++] = m->f[i++];
	}
	return j == d->nf;
}

void poly_div_exact(dpoly *out, const dpoly *a, const dpoly *b)
{
	dpoly r;
	poly_zero(&r);
	if (a->bad || b->bad || b->n == 0)
		goto bad;
	if (b->n == 1) {
		const dterm *d = &b->t[0];
		for (int i = 0; i < a->n; i++) {
			dterm *t = &r.t[r.n++];
			memset(t, 0, sizeof *t);
			if (!monomial_divides(&a->t[i], d, t) ||
			    !ratio((__int128)a->t[i].num * d->den, (__int128)a->t[i].den * d->num, &t->num, &t->den))
				goto bad;
		}
		poly_normalize(&r);
		*out = r;
		return;
	}
	/* a = k * b for a constant k: the same monomials in the same ratio */
	if (a->n != b->n)
		goto bad;
	int64_t kn = 0, kd = 1;
	for (int i = 0; i < a->n; i++) {
		int64_t n, d;
		if (dim_term_cmp_monomial(&a->t[i], &b->t[i]) ||
		    !ratio((__int128)a->t[i].num * b->t[i].den, (__int128)a->t[i].den * b->t[i].num, &n, &d))
			goto bad;
		if (i && (n != kn || d != kd))
			goto bad;
		kn = n;
		kd = d;
	}
	poly_const(out, kn, kd);
	return;
bad:
	poly_zero(out);
	out->bad = true;
}

fd_sint poly_result(fd_dimtab *t, const dpoly *p)
{
	if (p->bad)
		return sint_unknown();
	if (p->n == 0)
		return sint_num(0);
	if (p->n == 1 && p->t[0].nf == 0)
		return p->t[0].den == 1 ? sint_num(p->t[0].num) : sint_unknown();
	fd_sint s = { 0, dim_table_intern(t, p) };
	return s;
}

/* ---- orders and ratios -------------------------------------------------------------- */

void poly_of_sint(dpoly *p, fd_sint s)
{
	if (s.e)
		poly_expr(p, s.e);
	else
		poly_const(p, s.n, 1);
}

/* m divides n and n / m has only symbols (>= 1), no floor (which may be 0). */
static bool covers(const dterm *n, const dterm *m)
{
	dterm rest;
	if (!monomial_divides(n, m, &rest))
		return false;
	for (int i = 0; i < rest.nf; i++)
		if (rest.f[i]->kind != ATOM_SYM)
			return false;
	return true;
}

/* d with one floor of a term of the sign asked replaced by a bound that
 * makes the result at most d: in a negative term floor(P/q) by P/q (at
 * least it), in a positive one by (P - (q-1))/q (at most it: P has integer
 * coefficients, so P mod q <= q-1). False when no term has one (or it
 * overflows). */
static bool relax_floor_sign(dpoly *d, bool negative)
{
	for (int i = 0; i < d->n; i++) {
		if ((d->t[i].num < 0) != negative)
			continue;
		for (int k = 0; k < d->t[i].nf; k++) {
			const datom *f = d->t[i].f[k];
			if (f->kind != ATOM_FLOOR)
				continue;
			dpoly rest, q, prod, out;
			poly_zero(&rest);
			rest.n = 1;
			rest.t[0] = d->t[i];
			memmove(&rest.t[0].f[k], &rest.t[0].f[k + 1], (size_t)(rest.t[0].nf - k - 1) * sizeof rest.t[0].f[0]);
			rest.t[0].nf--;
			poly_expr(&q, f->num);
			if (!negative) {
				dpoly low, c;
				poly_const(&c, f->den - 1, 1);
				poly_add(&low, &q, &c, -1);
				q = low;
			}
			poly_scale(&q, 1, f->den);
			poly_mul(&prod, &rest, &q);
			d->t[i] = d->t[d->n - 1];
			d->n--;
			poly_normalize(d);
			poly_add(&out, d, &prod, 1);
			*d = out;
			return !d->bad;
		}
	}
	return false;
}

/* d >= 0 for every binding (symbols >= 1): each negative term paid for by
 * the positive terms that are multiples of it. */
static bool poly_nonneg(const dpoly *d)
{
	int64_t l = den_lcm(d);
	if (d->bad || !l)
		return false;
	/* integer coefficients over the common denominator, in 128 bits */
	__int128 c[DPOLY_MAX];
	for (int i = 0; i < d->n; i++)
		c[i] = (__int128)d->t[i].num * (l / d->t[i].den);
	/* terms are in canonical order, higher degree first (a multiple comes
	 * before what it covers): the most constrained negatives first, each
	 * from its nearest multiples, leaving the higher ones for the rest */
	for (int i = 0; i < d->n; i++) {
		if (c[i] >= 0)
			continue;
		for (int j = i - 1; j >= 0 && c[i] < 0; j--) {
			if (c[j] <= 0 || !covers(&d->t[j], &d->t[i]))
				continue;
			__int128 take = c[j] < -c[i] ? c[j] : -c[i];
			c[j] -= take;
			c[i] += take;
		}
		if (c[i] < 0)
			return false;
	}
	return true;
}

/* The unbound symbols of e (inside floors too) into *one: false when
 * there are two or more, a fresh symbol, or a bound atom left in. */
static bool one_symbol_in(const fd_dexpr *e, const datom **one, int depth)
{
	for (int i = 0; i < e->n_terms; i++)
		for (int k = 0; k < e->terms[i].nf; k++) {
			const datom *a = e->terms[i].f[k];
			if (a->kind == ATOM_FRESH || depth > 8)
				return false;
			if (a->kind == ATOM_FLOOR) {
				if (!one_symbol_in(a->num, one, depth + 1))
					return false;
				continue;
			}
			if (a->known || (*one && *one != a))
				return false;
			*one = a;
		}
	return true;
}

/* d with one occurrence of symbol a taken out of every term; false when a
 * term lacks it. */
static bool divide_out(dpoly *d, const datom *a)
{
	for (int i = 0; i < d->n; i++) {
		bool has = false;
		for (int k = 0; k < d->t[i].nf && !has; k++)
			has = d->t[i].f[k] == a;
		if (!has)
			return false;
	}
	for (int i = 0; i < d->n; i++)
		for (int k = 0; k < d->t[i].nf; k++)
			if (d->t[i].f[k] == a) {
				memmove(&d->t[i].f[k], &d->t[i].f[k + 1], (size_t)(d->t[i].nf - k - 1) * sizeof d->t[i].f[0]);
				d->t[i].nf--;
				break;
			}
	return true;
}

/* d >= 0 for every value >= 1 of its symbols when, a common product of
 * symbols (>= 1) taken out, what is left depends on one symbol s: below it
 * by a polynomial L(s) (floors bounded as relax_floor_sign does) that is
 * positive beyond Cauchy's bound on its roots, and exact at every s up to
 * that bound. False when not of that kind or the bound is past 4096. */
static bool one_symbol_nonneg(fd_dimtab *t, const dpoly *d0)
{
	dpoly d = *d0;
	if (d.bad || d.n == 0)
		return !d.bad;
	for (bool more = true; more;) {
		more = false;
		for (int k = 0; k < d.t[0].nf && !more; k++)
			if (d.t[0].f[k]->kind == ATOM_SYM && !d.t[0].f[k]->known)
				more = divide_out(&d, d.t[0].f[k]);
	}
	poly_normalize(&d);
	fd_sint q = poly_result(t, &d);
	if (!q.e)
		return sint_defined(q) && q.n >= 0;
	const datom *sym = NULL;
	if (!one_symbol_in(q.e, &sym, 0) || !sym)
		return false;
	dpoly l = d;
	for (int pass = 0; pass < 32 && (relax_floor_sign(&l, true) || relax_floor_sign(&l, false)); pass++)
		continue;
	int64_t den = den_lcm(&l);
	if (l.bad || !den)
		return false;
	__int128 c[DTERM_MAXF + 1] = { 0 };
	int deg = 0;
	for (int i = 0; i < l.n; i++) {
		for (int k = 0; k < l.t[i].nf; k++)
			if (l.t[i].f[k] != sym)
				return false;   /* a floor left, or another atom */
		c[l.t[i].nf] += (__int128)l.t[i].num * (den / l.t[i].den);
		if (l.t[i].nf > deg && c[l.t[i].nf])
			deg = l.t[i].nf;
	}
	if (c[deg] < 0 || (deg == 0 && c[0] < 0))
		return false;
	double bound = 1;
	for (int k = 0; k < deg; k++) {
		double r = (double)(c[k] < 0 ? -c[k] : c[k]) / (double)c[deg];
		bound = r + 1 > bound ? r + 1 : bound;
	}
	if (bound > 4096)
		return false;
	for (int64_t v = 1; v <= (int64_t)bound; v++) {
		int64_t x;
		if (!dexpr_value_with(q.e, v, &x) || x < 0)
			return false;
	}
	return true;
}

bool sint_ge_always(fd_sint a, fd_sint b)
{
	if (!sint_defined(a) || !sint_defined(b))
		return false;
	int64_t x, y;
	if (sint_value(a, &x) && sint_value(b, &y))
		return x >= y;
	dpoly pa, pb, d;
	poly_of_sint(&pa, a);
	poly_of_sint(&pb, b);
	poly_add(&d, &pa, &pb, -1);
	if (poly_nonneg(&d))
		return true;
	/* floor(q) <= q: a subtracted floor made larger keeps a proof valid;
	 * then floor(P/q) >= (P-q+1)/q: an added floor made smaller too */
	for (int pass = 0; pass < 8 && relax_floor_sign(&d, true); pass++)
		if (poly_nonneg(&d))
			return true;
	dpoly exact = d;
	for (int pass = 0; pass < 8 && relax_floor_sign(&d, false); pass++) {
		for (int more = 0; more < 8 && relax_floor_sign(&d, true); more++)
			continue;
		if (poly_nonneg(&d))
			return true;
	}
	/* small values checked one by one, past them a bound */
	poly_of_sint(&exact, a);
	poly_of_sint(&pb, b);
	poly_add(&d, &exact, &pb, -1);
	return one_symbol_nonneg(a.e ? a.e->tab : b.e->tab, &d);
}

bool sint_ratio(fd_sint a, fd_sint b, double *r)
{
	int64_t x, y;
	if (!sint_defined(a) || !sint_defined(b))
		return false;
	if (!a.e && !b.e) {
		if (!b.n)
			return false;
		*r = (double)a.n / (double)b.n;
		return true;
	}
	if (sint_value(a, &x) && sint_value(b, &y) && y) {
		*r = (double)x / (double)y;
		return true;
	}
	dpoly pa, pb, q;
	poly_of_sint(&pa, a);
	poly_of_sint(&pb, b);
	poly_div_exact(&q, &pa, &pb);
	if (q.bad || q.n > 1 || (q.n == 1 && q.t[0].nf))
		return false;
	*r = q.n ? (double)q.t[0].num / (double)q.t[0].den : 0;
	return true;
}

/* p with the bound symbols of every term (and inside floors) replaced. */
static void partial(fd_dimtab *t, dpoly *out, const fd_dexpr *e, int depth)
{
	dpoly acc;
	poly_zero(&acc);
	if (depth > 8) {
		poly_zero(out);
		out->bad = true;
		return;
	}
	for (int i = 0; i < e->n_terms && !acc.bad; i++) {
		const dterm *x = &e->terms[i];
		dpoly term;
		poly_const(&term, x->num, x->den);
		for (int k = 0; k < x->nf && !term.bad; k++) {
			const datom *a = x->f[k];
			dpoly f;
			if (a->known)
				poly_const(&f, a->value, 1);
			else if (a->kind == ATOM_FLOOR) {
				dpoly n;
				partial(t, &n, a->num, depth + 1);
				poly_floordiv(t, &f, &n, a->den);
			} else
				poly_atom(&f, a);
			poly_mul(&term, &term, &f);
		}
		poly_add(&acc, &acc, &term, 1);
	}
	*out = acc;
}

fd_sint sint_partial(fd_sint s)
{
	int64_t v;
	if (!s.e)
		return s;
	if (dexpr_value(s.e, &v))
		return sint_num(v);
	dpoly p;
	partial(s.e->tab, &p, s.e, 0);
	fd_sint r = poly_result(s.e->tab, &p);
	return sint_defined(r) ? r : s;
}
