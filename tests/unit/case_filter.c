/* case_filter.c — CASE=GLOB runs only the cmocka cases of a test binary
 * whose name matches GLOB (the whole name, '*' and '?', as
 * cmocka_set_test_filter takes it): `CASE=test_eval build/tests/test_lang`
 * or `make check T=test_lang CASE=test_eval`. A binary none of whose cases
 * it names exits 77, which tests/run-all reports as skipped, never as a
 * pass. Every test binary is linked with this file and
 * -Wl,--wrap=_cmocka_run_group_tests (the function cmocka_run_group_tests
 * expands to), so no test's main reads the variable. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int __real__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown);
int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown);

static size_t named;   /* cases CASE names, over every group the binary runs */

/* at exit, since a main may run several groups and add up their results */
static void skip_when_none_named(void)
{
	if (named)
		return;
	printf("skipped: CASE=%s names no case of this test\n", getenv("CASE"));
	fflush(NULL);
	_exit(77);
}

int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown)
{
	static int registered;
	const char *pattern = getenv("CASE");
	if (pattern && *pattern) {
		cmocka_set_test_filter(pattern);
		for (size_t i = 0; i < num_tests; i++)
			named += fnmatch(pattern, tests[i].name, 0) == 0;
		if (!registered++)
			atexit(skip_when_none_named);
	}
	return __real__cmocka_run_group_tests(group_name, tests, num_tests, group_setup, group_teardown);
}
