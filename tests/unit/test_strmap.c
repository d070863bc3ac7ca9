/* test_strmap.c — the interning pool (base/strmap.h): a string is found
 * again whatever its length, a prefix or an extension of it is another
 * string, a byte changed anywhere makes another string, a view of the first
 * bytes of a longer buffer is the string of those bytes, and the batch
 * interning gives the ids one at a time would. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "base/arena.h"
#include "base/strmap.h"

/* Names of every length from 0 to 40, each a prefix of the next, and the
 * same with the last byte changed: word-wise comparing must tell them all
 * apart (a shorter key ends inside a word the longer name fills). */
/* The first n bytes of an exporter-style name; changed: its last byte '#'. */
static char *make_name(char *name, size_t n, int changed)
{
	memcpy(name, "/model/layer.3/block1/conv/Conv_output_0_", n);
	name[n] = '\0';
	if (changed && n)
		name[n - 1] = '#';
	return name;
}

static void test_prefixes_and_lengths(void **state)
{
	(void)state;
	fd_arena a;
	arena_init(&a);
	strpool p;
	strpool_init(&p, &a);
	char name[64];
	int32_t ids[2][41];
	for (int pass = 0; pass < 2; pass++)
		for (size_t n = 0; n <= 40; n++)
			ids[pass][n] = strpool_id(&p, make_name(name, n, pass), n);
	for (int pass = 0; pass < 2; pass++)
		for (size_t n = 0; n <= 40; n++) {
			make_name(name, n, pass);
			assert_int_equal(strpool_find(&p, name, n), ids[pass][n]);
			assert_string_equal(strpool_str(&p, ids[pass][n]), name);
			for (size_t k = 0; k < n; k++)   /* different strings, different ids */
				assert_int_not_equal(ids[pass][k], ids[pass][n]);
		}
	strpool_release(&p);
	arena_release(&a);
}

/* The hash and the comparison read a name's last bytes (under eight) as
 * overlapping words: a change at any position of them must count. */
static void test_any_byte_changed(void **state)
{
	(void)state;
	fd_arena a;
	arena_init(&a);
	strpool p;
	strpool_init(&p, &a);
	char name[64];
	for (size_t n = 1; n <= 24; n++) {
		int32_t plain = strpool_id(&p, make_name(name, n, 0), n);
		for (size_t k = 0; k < n; k++) {
			make_name(name, n, 0);
			name[k] = '#';
			int32_t id = strpool_id(&p, name, n);
			assert_int_not_equal(id, plain);
			assert_int_equal(strpool_find(&p, name, n), id);
			assert_string_equal(strpool_str(&p, id), name);
		}
		assert_int_equal(strpool_find(&p, make_name(name, n, 0), n), plain);
	}
	strpool_release(&p);
	arena_release(&a);
}

/* A view (no NUL after it: a name in the file's bytes) is its n bytes only,
 * whatever follows them. */
static void test_views_of_longer_buffers(void **state)
{
	(void)state;
	fd_arena a;
	arena_init(&a);
	strpool p;
	strpool_init(&p, &a);
	char name[64];
	const char *longer = "/model/layer.3/block1/conv/Conv_output_0_tail_that_differs";
	for (size_t n = 0; n <= 40; n++) {
		int32_t want = strpool_id(&p, make_name(name, n, 0), n), got;
		fd_strview v = { longer, n };
		strpool_view_ids(&p, &v, 1, &got);
		assert_int_equal(got, want);
	}
	strpool_release(&p);
	arena_release(&a);
}

static void test_batch_equals_one_by_one(void **state)
{
	(void)state;
	fd_arena a;
	arena_init(&a);
	strpool one, batch;
	strpool_init(&one, &a);
	strpool_init(&batch, &a);
	char buf[40][24];
	char *names[40];
	for (int i = 0; i < 40; i++) {   /* repeats, so that some are found and some added */
		snprintf(buf[i], sizeof buf[i], "tensor_%d", i % 13);
		names[i] = buf[i];
	}
	int32_t want[40], got[40];
	for (int i = 0; i < 40; i++)
		want[i] = strpool_id(&one, names[i], strlen(names[i]));
	strpool_ids(&batch, names, 40, got);   /* more than one batch of look-aheads */
	for (int i = 0; i < 40; i++)
		assert_int_equal(got[i], want[i]);
	strpool_release(&one);
	strpool_release(&batch);
	arena_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefixes_and_lengths),
		cmocka_unit_test(test_any_byte_changed),
		cmocka_unit_test(test_views_of_longer_buffers),
		cmocka_unit_test(test_batch_equals_one_by_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
