/* test_dims.c — the dim expressions of ir/dim.h: canonical forms (equal
 * values, equal pointers, whatever the order of the arithmetic), the floors
 * Conv and pooling make, exact quotients (Reshape's -1), values at the
 * bindings, and the numbers-only fast path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ir/dim.h"

typedef struct fixture {
	fd_arena arena;
	strpool names;
	fd_dimtab *t;
} fixture;

static int setup(void **state)
{
	static fixture f;
	arena_init(&f.arena);
	strpool_init(&f.names, &f.arena);
	f.t = dimtab_new(&f.arena, &f.names);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	dimtab_release(f->t);
	strpool_release(&f->names);
	arena_release(&f->arena);
	return 0;
}

static const char *text(fd_dim d)
{
	static char buf[4][128];
	static int k;
	k = (k + 1) % 4;
	return dim_format(d, buf[k], sizeof buf[k]);
}

static fd_dim n(int64_t v) { return dim_of(v); }

/* Conv output length: floor((L + pb + pe - ek) / s) + 1 */
static fd_dim conv_len(fd_dim l, int64_t pads, int64_t ek, int64_t s)
{
	return dim_add(dim_floordiv(dim_sub(dim_add(l, n(pads)), n(ek)), s), n(1));
}

static void test_numbers_stay_numbers(void **state)
{
	(void)state;
	fd_dim a = dim_add(n(3), n(4));
	assert_null(a.expr);
	assert_int_equal(a.value, 7);
	assert_int_equal(dim_mul(n(6), n(7)).value, 42);
	assert_int_equal(dim_floordiv(n(7), 2).value, 3);
	assert_int_equal(dim_ceildiv(n(7), 2).value, 4);
	assert_false(dim_known(dim_sub(n(2), n(3))));            /* no negative dims */
	assert_false(dim_known(dim_mul(n(INT64_MAX), n(2))));     /* overflow */
	assert_false(dim_known(dim_div_exact(n(7), n(2))));
	assert_int_equal(dim_div_exact(n(8), n(2)).value, 4);
	assert_false(dim_equal(dim_unknown(), dim_unknown()));
	assert_true(dim_equal(n(5), n(5)));
}

static void test_canonical_sums(void **state)
{
	fixture *f = *state;
	fd_dim b = dimtab_symbol(f->t, "batch"), s = dimtab_symbol(f->t, "seq");
	assert_string_equal(text(b), "batch");
	assert_false(dim_known(b));
	/* (b + s) + 2 == 2 + (s + b), and b*s == s*b */
	fd_dim x = dim_add(dim_add(b, s), n(2)), y = dim_add(n(2), dim_add(s, b));
	assert_ptr_equal(x.expr, y.expr);
	assert_string_equal(text(x), "batch+seq+2");
	assert_ptr_equal(dim_mul(b, s).expr, dim_mul(s, b).expr);
	assert_string_equal(text(dim_mul(dim_mul(b, s), n(4))), "4*batch*seq");
	assert_string_equal(text(dim_mul(b, b)), "batch^2");
	/* b - b is the number 0, b + s - s is b */
	fd_dim z = dim_sub(b, b);
	assert_null(z.expr);
	assert_int_equal(z.value, 0);
	assert_ptr_equal(dim_sub(dim_add(b, s), s).expr, b.expr);
	/* distributivity: (b + 1) * s == b*s + s */
	assert_ptr_equal(dim_mul(dim_add(b, n(1)), s).expr, dim_add(dim_mul(b, s), s).expr);
	assert_string_equal(text(dim_sub(s, n(1))), "seq-1");
}

static void test_conv_floors(void **state)
{
	fixture *f = *state;
	fd_dim l = dimtab_symbol(f->t, "samples");
	/* audio STFT: reflect pad 256 each side, k 512, stride 160 */
	fd_dim frames = conv_len(dim_add(l, n(512)), 0, 512, 160);
	assert_string_equal(text(frames), "floor(samples/160)+1");
	/* (samples - 512)/160 + 1 in the canonical form pulls the integer part out */
	fd_dim unpadded = conv_len(l, 0, 512, 160);
	assert_string_equal(text(unpadded), "floor((samples+128)/160)-3");
	/* k3 s2 p1 and ceil(L/2) (SAME) are the same value: the same pointer */
	fd_dim a = conv_len(l, 2, 3, 2), same = dim_ceildiv(l, 2);
	assert_ptr_equal(a.expr, same.expr);
	assert_string_equal(text(a), "floor((samples+1)/2)");
	/* nested floors: two stride-2 windows = one floor over 4 */
	fd_dim two = dim_floordiv(dim_floordiv(l, 2), 2), four = dim_floordiv(l, 4);
	assert_ptr_equal(two.expr, four.expr);
	/* common factors cancel: floor(2L/4) = floor(L/2) */
	assert_ptr_equal(dim_floordiv(dim_mul(l, n(2)), 4).expr, dim_floordiv(l, 2).expr);
	/* floor(2L/2) = L */
	assert_ptr_equal(dim_floordiv(dim_mul(l, n(2)), 2).expr, l.expr);
}

static void test_exact_quotients(void **state)
{
	fixture *f = *state;
	fd_dim b = dimtab_symbol(f->t, "B"), s = dimtab_symbol(f->t, "S");
	/* Reshape [B, S, 32] to [B, S, 4, -1]: -1 = (B*S*32) / (B*S*4) = 8 */
	fd_dim total = dim_mul(dim_mul(b, s), n(32)), rest = dim_mul(dim_mul(b, s), n(4));
	fd_dim q = dim_div_exact(total, rest);
	assert_null(q.expr);
	assert_int_equal(q.value, 8);
	/* to [-1, 64]: B*S*32/64 = B*S/2, a rational coefficient */
	assert_string_equal(text(dim_div_exact(total, n(64))), "B*S/2");
	/* to [B, -1]: S*32 */
	assert_string_equal(text(dim_div_exact(total, b)), "32*S");
	/* (2B + 2) / (B + 1) = 2; (B + 1) / B is not exact */
	fd_dim q2 = dim_div_exact(dim_add(dim_mul(b, n(2)), n(2)), dim_add(b, n(1)));
	assert_int_equal(q2.value, 2);
	assert_false(dim_defined(dim_div_exact(dim_add(b, n(1)), b)));
	/* mod through floor */
	fd_sint m = sint_mod(sint_of_dim(dim_mul(b, n(4))), sint_num(2));
	assert_null(m.e);
	assert_int_equal(m.n, 0);
}

static void test_bindings(void **state)
{
	fixture *f = *state;
	fd_dim h = dimtab_symbol(f->t, "H"), w = dimtab_symbol(f->t, "W");
	fd_dim area = dim_mul(conv_len(h, 2, 3, 2), w);
	assert_false(dim_known(area));
	const char *syms[4];
	assert_int_equal(dexpr_symbols(area.expr, false, syms, 4), 2);
	assert_string_equal(syms[0], "H");
	assert_string_equal(syms[1], "W");
	assert_true(dimtab_bind(f->t, "H", 33));
	assert_int_equal(dexpr_symbols(area.expr, true, syms, 4), 1);
	assert_string_equal(syms[0], "W");
	assert_true(dimtab_bind(f->t, "W", 10));
	int64_t v;
	assert_true(dexpr_value(area.expr, &v));
	assert_int_equal(v, 17 * 10);
	/* made after the binding: the value is there at once */
	fd_dim later = dim_add(h, w);
	assert_int_equal(later.value, 43);
	assert_false(dimtab_bind(f->t, "nope", 1));
	/* fresh symbols are never bound and never equal each other */
	fd_dim u = dimtab_fresh(f->t), u2 = dimtab_fresh(f->t);
	assert_false(dim_equal(u, u2));
	assert_true(dexpr_has_fresh(dim_add(u, h).expr));
	assert_false(dim_known(dim_add(u, h)));
	assert_string_equal(text(u), "unk__0");
}

static void test_compare_and_facts(void **state)
{
	fixture *f = *state;
	fd_dim b = dimtab_symbol(f->t, "N");
	assert_int_equal(sint_cmp(sint_of_dim(dim_add(b, n(3))), sint_of_dim(b)), 1);
	assert_int_equal(sint_cmp(sint_of_dim(b), sint_num(5)), 2);
	const char *sym;
	int64_t num, den;
	assert_true(dexpr_linear(dim_mul(b, n(655360)).expr, &sym, &num, &den));
	assert_string_equal(sym, "N");
	assert_int_equal(num, 655360);
	assert_int_equal(den, 1);
	assert_false(dexpr_linear(dim_add(b, n(1)).expr, &sym, &num, &den));
	assert_true(dexpr_divisible(dim_mul(b, n(32)).expr, 16));
	assert_false(dexpr_divisible(dim_add(dim_mul(b, n(32)), n(8)).expr, 16));
	/* overflowing coefficients: no expression, and no value to fall back on */
	fd_dim big = dim_mul(b, n(INT64_MAX / 2));
	assert_false(dim_defined(dim_mul(big, n(4))));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers_stay_numbers),
		cmocka_unit_test_setup_teardown(test_canonical_sums, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conv_floors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exact_quotients, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bindings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_and_facts, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
