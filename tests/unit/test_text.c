/* test_text.c — base/text.h: visible escapes for plain text (control bytes,
 * C1 and bidi controls, invalid UTF-8), idempotence, printf with escaped %s
 * arguments (width, precision, the other conversions untouched), DOT and
 * HTML-label escaping, head…tail cuts on UTF-8 boundaries; the formatter's
 * own conversions against snprintf, the outbuf against the FILE printers,
 * and pieces written in order from several threads. */
#include <limits.h>
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/ordered_write.h"
#include "base/thread.h"
#include "base/outbuf.h"
#include "base/json.h"
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
	/* no room for the mark: the head that fits, whole characters */
	char tiny[4] = "xyz";
	assert_string_equal(text_cut(tiny, 1, "abc"), "");
	assert_string_equal(text_cut(tiny, 3, "abcdef"), "ab");
	assert_string_equal(text_cut(tiny, 3, "a\xc3\xa9z"), "a");
	assert_string_equal(text_cut(tiny, 4, "abc"), "abc");
}

/* text_put_at and text_put_int_at write what text_appendf writes, in every
 * room: a fit, a cut on a character, no room at all. */
static void test_put_at(void **state)
{
	(void)state;
	const char *pieces[] = { "", "ab", "caf\xc3\xa9 au lait", "\xe2\x80\xa6\xe2\x80\xa6", "0123456789abcdef" };
	const long long nums[] = { 0, -7, 12345, LLONG_MIN, LLONG_MAX };
	for (size_t size = 1; size <= 24; size++)
		for (size_t at = 0; at <= size + 1; at++)
			for (size_t k = 0; k < 5; k++) {
				char want[32], got[32];
				memset(want, 'x', sizeof want);
				memset(got, 'x', sizeof got);
				want[sizeof want - 1] = got[sizeof got - 1] = '\0';
				size_t a = text_appendf(want, size, at, "%s", pieces[k]);
				size_t b = text_put_at(got, size, at, pieces[k]);
				assert_int_equal(b, a);
				assert_memory_equal(got, want, size);
				if (at == 0) {   /* a field with one name (describe's put) is cut as text_cutf cuts it */
					text_cutf(want, size, "%s", pieces[k]);
					text_cut(got, size, pieces[k]);
					assert_string_equal(got, want);
				}
				a = text_appendf(want, size, at, "%lld", nums[k]);
				b = text_put_int_at(got, size, at, nums[k]);
				assert_int_equal(b, a);
				assert_memory_equal(got, want, size);
			}
}

/* The eight-at-a-time scan stops at the first byte that needs an escape,
 * wherever it is in a word and whatever is next to it. */
static void test_plain_run(void **state)
{
	const char bad_text[] = { '\n', 0x1f, 0x7f, (char)0x80, (char)0xff, '\0' };
	for (size_t n = 1; n <= 40; n++)   /* short texts, whole blocks and an overlapping tail */
		for (size_t at = 0; at < n; at++) {
			char s[48];
			memset(s, '~', n);   /* 0x7e: next to DEL */
			s[n] = '\0';
			for (size_t k = 0; k < sizeof bad_text; k++) {
				s[at] = bad_text[k];
				assert_int_equal(text_plain_run(s, n, false), at);
				assert_int_equal(text_plain_run(s, n, true), at);
			}
			s[at] = '"';
			assert_int_equal(text_plain_run(s, n, false), n);
			assert_int_equal(text_plain_run(s, n, true), at);
			s[at] = '\\';
			assert_int_equal(text_plain_run(s, n, true), at);
			s[at] = ' ';
			assert_int_equal(text_plain_run(s, n, true), n);
			s[at] = '\x01';   /* the first of two counts */
			if (at + 1 < n) {
				s[n - 1] = '"';
				assert_int_equal(text_plain_run(s, n, true), at);
				s[n - 1] = '~';
			}
			s[at] = '~';
		}
}

/* The conversions text_format.c does itself give what snprintf gives, in
 * every buffer (one that fits and one that cuts). */
static void check_same(const char *want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check_same(const char *want, const char *fmt, ...)
{
	char got[256];
	va_list ap;
	va_start(ap, fmt);
	text_vcutf(got, sizeof got, fmt, ap);
	va_end(ap);
	assert_string_equal(got, want);
}

static void test_format_like_printf(void **state)
{
	const char *fmts[] = { "%d", "%5d", "%-5d|", "%05d", "%i", "%u", "%3u", "%+d", "% d", "%x", "%.3d" };
	const long long vals[] = { 0, 7, -7, 12345, -2147483647LL - 1, 2147483647 };
	for (size_t f = 0; f < sizeof fmts / sizeof *fmts; f++)
		for (size_t v = 0; v < sizeof vals / sizeof *vals; v++) {
			char want[64];
			snprintf(want, sizeof want, fmts[f], (int)vals[v]);
			char got[64];
			text_cutf(got, sizeof got, fmts[f], (int)vals[v]);
			assert_string_equal(got, want);
		}
	/* every digit count and the boundaries of the two-digit steps */
	for (unsigned long long v = 0, p = 1; p < 10000000000000000000ULL; v = v < 2000 ? v + 1 : (p *= 10) - 1) {
		for (unsigned long long w = v; w <= v + 2; w++) {
			char a[64], b[64];
			snprintf(a, sizeof a, "%llu|%lld", w, -(long long)w);
			text_cutf(b, sizeof b, "%llu|%lld", w, -(long long)w);
			assert_string_equal(a, b);
		}
	}
	char want[128];
	long long big = -9223372036854775807LL - 1;
	snprintf(want, sizeof want, "%lld %llu %zu %ld %hd %hhu %jd|%-8s|%8s|%.2s|%%|%c", big, 18446744073709551615ULL,
	         (size_t)42, -3L, (short)-2, (unsigned char)250, (intmax_t)-9, "ab", "cd", "xyz", 'q');
	check_same(want, "%lld %llu %zu %ld %hd %hhu %jd|%-8s|%8s|%.2s|%%|%c", big, 18446744073709551615ULL,
	           (size_t)42, -3L, (short)-2, (unsigned char)250, (intmax_t)-9, "ab", "cd", "xyz", 'q');
	snprintf(want, sizeof want, "%*d|%-*d|%.1f|%s", 6, 42, 4, 7, 2.25, "tail");
	check_same(want, "%*d|%-*d|%.1f|%s", 6, 42, 4, 7, 2.25, "tail");
	/* floats: what the formatter does itself (an exact case) and what it
	 * leaves to snprintf (near a half, huge, NaN) print the same */
	const char *ffmts[] = { "%.0f", "%.1f", "%.2f", "%.6f", "%.9f", "%f", "%g", "%.6g", "%.3g", "%.1g", "%.12f" };
	double fvals[] = { 0, -0.0, 1, -1, 2.33, 0.125, 0.005, 2.675, 1.005, 99999.5, 123456, 1e6, 1e15, -7.25,
	                   3.14159265358979, 1.0 / 3, 0.1, NAN, INFINITY, 4.35, 1e-7, -0.04, -123.4567 };
	unsigned seed = 12345;
	for (int k = 0; k < 2000; k++) {
		for (size_t f = 0; f < sizeof ffmts / sizeof *ffmts; f++) {
			double x = k < (int)(sizeof fvals / sizeof *fvals) ? fvals[k] : 0;
			if (k >= (int)(sizeof fvals / sizeof *fvals)) {
				seed = seed * 1103515245u + 12345u;
				x = ((double)(seed >> 8) / (1u << 24) - 0.5) * (k % 3 ? 200.0 : 2e7) / (k % 7 + 1);
			}
			char w[128], g[128];
			snprintf(w, sizeof w, ffmts[f], x);
			text_cutf(g, sizeof g, ffmts[f], x);
			if (strcmp(w, g))
				fail_msg("%s of %.17g: %s, snprintf %s", ffmts[f], x, g, w);
		}
	}
	/* the plain formatter does not escape; the txt_ one does */
	check_same("a\nb", "%s", "a\nb");
	char out[32];
	txt_cutf(out, sizeof out, "%s|%d", "a\nb\x1b", 5);
	assert_string_equal(out, "a\\nb\\e|5");
}

/* ob_field writes what ob_text writes: every length up to its array's end,
 * a byte to escape anywhere, the outbuf nearly full. */
static void test_ob_field(void **state)
{
	(void)state;
	const char bad[] = { '\x1b', '\n', (char)0xc3, (char)0xff };
	for (size_t cap = 1; cap <= 40; cap++)
		for (size_t len = 0; len < cap; len++)
			for (size_t at = 0; at <= len; at++)
				for (size_t b = 0; b < sizeof bad; b++) {
					char field[48], *x = NULL, *y = NULL;
					size_t nx = 0, ny = 0;
					memset(field, '#', sizeof field);   /* past the NUL: anything */
					memset(field, 'a', len);
					if (at < len)
						field[at] = bad[b];
					field[len] = '\0';
					FILE *fx = open_memstream(&x, &nx), *fy = open_memstream(&y, &ny);
					outbuf ox, oy;
					ob_init(&ox, fx);
					ob_init(&oy, fy);
					ox.n = oy.n = sizeof ox.buf - (at % 20);   /* near the end of the buffer */
					memset(ox.buf, '.', sizeof ox.buf);
					memset(oy.buf, '.', sizeof oy.buf);
					ob_field(&ox, field, cap);
					ob_text(&oy, field);
					ob_flush(&ox);
					ob_flush(&oy);
					fclose(fx);
					fclose(fy);
					assert_int_equal(nx, ny);
					assert_memory_equal(x, y, nx);
					free(x);
					free(y);
				}
}

/* The outbuf writes what the FILE printers write, across its buffer's end. */
static void test_outbuf(void **state)
{
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
	outbuf o;
	ob_init(&o, fb);
	const char *names[] = { "Conv_1", "x\x1b[2Jy", "\xe2\x80\xae" "rtl", "caf\xc3\xa9", "q\"uote\\", "\xff" };
	for (int i = 0; i < 4000; i++) {
		const char *n = names[i % 6];
		txt_fprintf(fa, "#%d %-4s %s", i, "pass", n);
		ob_printf(&o, "#%d %-4s ", i, "pass");
		ob_text(&o, n);
		json_write_string(fa, n);
		ob_json(&o, n);
		fprintf(fa, "%lld\n", -(long long)i);
		ob_int(&o, -(long long)i);
		ob_char(&o, '\n');
	}
	const long long edges[] = { 0, 9, 10, 99, 100, 1000000007, LLONG_MAX, LLONG_MIN, -1 };
	for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
		fprintf(fa, "%lld,", edges[i]);
		ob_int(&o, edges[i]);
		ob_char(&o, ',');
	}
	ob_flush(&o);
	fclose(fa);
	fclose(fb);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
}

static void numbered_piece(void *arg, size_t piece, FILE *out)
{
	(void)arg;
	for (size_t k = 0; k < 1000 + piece % 7 * 300; k++)
		fprintf(out, "%zu.%zu ", piece, k);
	fputc('\n', out);
}

/* Pieces made on several threads come out in order, whatever the count. */
static void test_ordered_write(void **state)
{
	char *serial = NULL, *parallel = NULL;
	size_t ns = 0, np = 0;
	FILE *fs = open_memstream(&serial, &ns);
	for (size_t i = 0; i < 97; i++)
		numbered_piece(NULL, i, fs);
	fclose(fs);
	setenv("FUSIONDBG_THREADS", "4", 1);
	assert_int_equal(thread_budget(), 4);
	FILE *fp = open_memstream(&parallel, &np);
	ordered_write(fp, 97, numbered_piece, NULL);
	fclose(fp);
	unsetenv("FUSIONDBG_THREADS");
	assert_int_equal(ns, np);
	assert_memory_equal(serial, parallel, ns);
	free(serial);
	free(parallel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_printf),
		cmocka_unit_test(test_dot_html),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_plain_run),
		cmocka_unit_test(test_put_at),
		cmocka_unit_test(test_format_like_printf),
		cmocka_unit_test(test_outbuf),
		cmocka_unit_test(test_ob_field),
		cmocka_unit_test(test_ordered_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
