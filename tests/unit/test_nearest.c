/* test_nearest.c — "did you mean" (src/base/nearest.c): the distance
 * (case-insensitive, a transposition counts one), what counts as near, that
 * only the nearest are kept in the order offered, prefixes, repeats, the
 * list's wording, and long names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "base/nearest.h"

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(nearest_distance("Sigmiod", "Sigmoid"), 1);   /* a transposition */
	assert_int_equal(nearest_distance("mach", "match"), 1);
	assert_int_equal(nearest_distance("CONV", "conv"), 0);
	assert_int_equal(nearest_distance("", "abc"), 3);
	assert_int_equal(nearest_distance("kitten", "sitting"), 3);
	assert_int_equal(nearest_distance("channel_divisibilty", "channel_divisibility"), 1);
}

static void test_hint(void **state)
{
	(void)state;
	char buf[256];
	fd_nearest nn;
	nearest_init(&nn, "mach");
	nearest_add(&nn, "info");
	nearest_add(&nn, "match");
	nearest_add(&nn, "mem");
	assert_string_equal(nearest_hint(&nn, buf, sizeof buf), " (did you mean 'match'?)");

	/* every name at the best distance, in the order offered; farther ones dropped */
	nearest_init(&nn, "conv");
	nearest_add(&nn, "relu1");
	nearest_add(&nn, "conv10");
	nearest_add(&nn, "conv1");
	nearest_add(&nn, "conv2");
	nearest_add(&nn, "conv1");   /* a repeat */
	nearest_add(&nn, "conv3");
	nearest_add(&nn, "conv4");   /* over NEAREST_MAX */
	assert_string_equal(nearest_list(&nn, buf, sizeof buf), "'conv1', 'conv2' or 'conv3'");

	/* nothing near: empty */
	nearest_init(&nn, "frobnicate");
	nearest_add(&nn, "save");
	nearest_add(&nn, NULL);
	assert_int_equal(nn.n, 0);
	assert_string_equal(nearest_hint(&nn, buf, sizeof buf), "");

	/* the typed name itself is no suggestion; a case variant is, once */
	nearest_init(&nn, "Conv2d");
	nearest_add(&nn, "Conv2d");
	assert_int_equal(nn.n, 0);
	nearest_init(&nn, "Conv2dd");
	nearest_add(&nn, "Conv2d");
	nearest_add(&nn, "Conv2D");
	assert_string_equal(nearest_list(&nn, buf, sizeof buf), "'Conv2d'");

	/* a name holding the typed text counts, however long, before real typos */
	nearest_init(&nn, "Conv_Add");
	nearest_add(&nn, "Conv_Add_SiLU_Fusion");
	assert_string_equal(nearest_list(&nn, buf, sizeof buf), "'Conv_Add_SiLU_Fusion'");
	nearest_add(&nn, "Conv_Ad");
	assert_string_equal(nearest_list(&nn, buf, sizeof buf), "'Conv_Add_SiLU_Fusion'");
	nearest_init(&nn, "fuse/conv");
	nearest_add(&nn, "/res/Conv");
	nearest_add(&nn, "/fuse/conv/Conv");
	nearest_add(&nn, "/block/fuse/conv/Conv");   /* longer: after the shorter one */
	assert_string_equal(nearest_list(&nn, buf, sizeof buf), "'/fuse/conv/Conv'");

	/* short words: one edit only */
	nearest_init(&nn, "ab");
	nearest_add(&nn, "xy");
	nearest_add(&nn, "abc");
	assert_string_equal(nearest_list(&nn, buf, sizeof buf), "'abc'");
}

static void test_long_names(void **state)
{
	(void)state;
	char a[1200], b[1200];
	memset(a, 'x', 1000);
	a[1000] = 0;
	memcpy(b, a, 1001);
	b[500] = 'y';
	assert_int_equal(nearest_distance(a, b), 1);
	fd_nearest nn;
	nearest_init(&nn, a);
	nearest_add(&nn, b);
	assert_int_equal(nn.n, 1);
	/* far apart in length: cut early, never near */
	nearest_init(&nn, "If_0_else_branch__Inline_0__conv_1");
	nearest_add(&nn, a);
	assert_int_equal(nn.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_hint),
		cmocka_unit_test(test_long_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
