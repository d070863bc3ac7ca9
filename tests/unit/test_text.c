/* test_text.c — base/text.h: visible escapes for plain text (control bytes,
 * C1 and bidi controls, invalid UTF-8), idempotence, printf with escaped %s
 * arguments (width, precision, the other conversions untouched), DOT and
 * HTML-label escaping, and head…tail cuts on UTF-8 boundaries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/text.h"

static char *esc(const char *s)
{
	strbuf b = { 0 };
	text_escape(&b, s);
	return sb_take(&b);
}

static void test_escape(void **state)
{
	char *e = esc("a\x1b[31mb\nerror: x\x01\x7f\t\r");
	assert_string_equal(e, "a\\e[31mb\\nerror: x\\x01\\x7f\\t\\r");
	free(e);
	/* invalid UTF-8: each byte; valid multi-byte text stays */
	e = esc("ok \xc3\xa9 \xff\xfe \xc3( \xed\xa0\x80 \xe2\x80\xa6");
	assert_string_equal(e, "ok \xc3\xa9 \\xff\\xfe \\xc3( \\xed\\xa0\\x80 \xe2\x80\xa6");
	free(e);
	/* C1 controls as UTF-8 and the bidi override */
	e = esc("x\xc2\x9b" "31m \xe2\x80\xae" "evil");
	assert_string_equal(e, "x\\u009b31m \\u202eevil");
	free(e);
	/* backslashes and quotes are left alone: escaping is idempotent */
	char *once = esc("tail\\ \"q\" \x1b");
	char *twice = esc(once);
	assert_string_equal(once, "tail\\ \"q\" \\e");
	assert_string_equal(once, twice);
	assert_true(text_is_safe(once));
	assert_false(text_is_safe("a\nb"));
	free(once);
	free(twice);
	strbuf b = { 0 };
	text_escape_n(&b, "a\0b", 3);
	assert_string_equal(sb_str(&b), "a\\x00b");
	sb_release(&b);
}

static void test_printf(void **state)
{
	strbuf b = { 0 };
	txt_sb_printf(&b, "[%s] %d %5.2f %-6s| %3s %.3s %zu %lld %c %% %x", "a\nb", -7, 3.14159, "ab", "x", "abcdef",
	              (size_t)12, (long long)-5, 'z', 255u);
	assert_string_equal(sb_str(&b), "[a\\nb] -7  3.14 ab    |   x abc 12 -5 z % ff");
	sb_clear(&b);
	txt_sb_printf(&b, "%*s|%-*s|%.*s", 4, "a", 3, "b", 2, "xyz");
	assert_string_equal(sb_str(&b), "   a|b  |xy");
	sb_clear(&b);
	/* precision never cuts a UTF-8 character in two */
	txt_sb_printf(&b, "%.2s", "\xc3\xa9\xc3\xa9");
	assert_string_equal(sb_str(&b), "\xc3\xa9");
	sb_release(&b);
}

static void test_dot_html(void **state)
{
	strbuf b = { 0 };
	text_dot_escape(&b, "n\\\"q\x1b\n");
	assert_string_equal(sb_str(&b), "n\\\\\"q\\\\e\\\\n");
	sb_clear(&b);
	text_html_escape(&b, "<a&b>\"\x01");
	assert_string_equal(sb_str(&b), "&lt;a&amp;b&gt;&quot;\\x01");
	sb_release(&b);
}

static void test_cut(void **state)
{
	char buf[20];
	assert_string_equal(text_cut(buf, sizeof buf, "short"), "short");
	text_cut(buf, sizeof buf, "abcdefghijklmnopqrstuvwxyz");
	assert_true(strlen(buf) < sizeof buf);
	assert_non_null(strstr(buf, "\xe2\x80\xa6"));
	assert_int_equal(strncmp(buf, "abcdefghij", 10), 0);
	assert_int_equal(buf[strlen(buf) - 1], 'z');
	/* é is two bytes: never split */
	char long_e[200] = "";
	for (int i = 0; i < 60; i++)
		strcat(long_e, "\xc3\xa9");
	text_cut(buf, sizeof buf, long_e);
	assert_true(text_utf8_valid(buf, strlen(buf)));
	char out[16];
	txt_cutf(out, sizeof out, "%s-%s", "aaaaaaaaaaaa", "b\x1b");
	assert_true(text_is_safe(out));
	assert_int_equal(out[strlen(out) - 1], 'e');   /* ends "…b\e" */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_printf),
		cmocka_unit_test(test_dot_html),
		cmocka_unit_test(test_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
