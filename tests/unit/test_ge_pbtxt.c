/* test_ge_pbtxt.c — ge/pbtxt.h, the protobuf text-format reader: every kind
 * of token and field read into the tree with its position; values read as
 * their schema types; and each kind of bad input refused with its one-line
 * file:line:col message, hostile sizes and depths included. */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ge/pbtxt.h"

/* Parses text; returns the first diagnostic formatted ("" when none). */
static const char *parse(pbtxt_doc *doc, const char *text, size_t len, const pbtxt_limits *lim, int *rc)
{
	static char line[512];
	fd_diags d;
	diags_init(&d);
	*rc = pbtxt_parse(doc, "t.txt", text, len, lim, &d);
	line[0] = '\0';
	if (d.n)
		diag_format(&d.items[0], line, sizeof line);
	assert_true(d.n <= 1);   /* the first error ends the read: one line */
	diags_release(&d);
	return line;
}

/* The error text alone must be expected; the document must not load. */
static void expect_error(const char *text, const char *expected)
{
	pbtxt_doc doc;
	int rc;
	const char *got = parse(&doc, text, strlen(text), NULL, &rc);
	assert_int_equal(rc, -1);
	assert_string_equal(got, expected);
}

static void test_tree(void **state)
{
	(void)state;
	static const char text[] =
		"# a comment\n"
		"name: \"m\"  # trailing\n"
		"n: -0x1F, f: 1.5e3f; o: 017\n"
		"m { k: ENUM_V b: true }\n"
		"m2: < x: 'single' >\n"
		"s: \"a\\101\\x42\\u00e9\\n\" 'b\\'\"'\n"
		"l: [1, -2, {z: 3}]\n"
		"[pkg.ext/Type] { q: -inf }\n"
		"empty: []\n"
		"nul: \"a\\0b\"\n";
	pbtxt_doc doc;
	int rc;
	assert_string_equal(parse(&doc, text, sizeof text - 1, NULL, &rc), "");
	assert_int_equal(rc, 0);
	const pbtxt_node *f = doc.root.first;
	assert_string_equal(f->name, "name");
	assert_int_equal(f->kind, PBTXT_STRING);
	assert_string_equal(f->text, "m");
	assert_int_equal(f->line, 2);
	assert_int_equal(f->col, 1);
	assert_int_equal(f->vcol, 7);
	f = f->next;
	assert_string_equal(f->text, "-0x1F");
	assert_int_equal(f->kind, PBTXT_NUMBER);
	fd_diags d;
	diags_init(&d);
	int64_t i;
	double x;
	bool b;
	assert_int_equal(pbtxt_int(&doc, f, &i, &d), 0);
	assert_int_equal(i, -31);
	f = f->next;
	assert_int_equal(pbtxt_float(&doc, f, &x, &d), 0);
	assert_true(x == 1500.0);
	f = f->next;
	assert_int_equal(pbtxt_int(&doc, f, &i, &d), 0);
	assert_int_equal(i, 15);   /* octal */
	f = f->next;
	assert_int_equal(f->kind, PBTXT_MESSAGE);
	assert_int_equal(f->n_fields, 2);
	assert_int_equal(f->vline, 4);
	assert_int_equal(f->vcol, 3);
	static const char *const names[] = { "ENUM_Z", "ENUM_V" };
	assert_int_equal(pbtxt_enum(&doc, pbtxt_find(f, "k"), names, 2, &i, &d), 0);
	assert_int_equal(i, 1);
	assert_int_equal(pbtxt_bool(&doc, pbtxt_find(f, "b"), &b, &d), 0);
	assert_true(b);
	f = f->next;
	assert_string_equal(f->name, "m2");
	assert_string_equal(pbtxt_find(f, "x")->text, "single");
	f = f->next;
	assert_string_equal(f->text, "aAB\xc3\xa9\nb'\"");   /* escapes decoded, literals joined */
	f = f->next;
	assert_string_equal(f->name, "l");
	assert_string_equal(f->text, "1");
	f = f->next;
	assert_string_equal(f->name, "l");
	assert_string_equal(f->text, "-2");
	f = f->next;
	assert_string_equal(f->name, "l");
	assert_int_equal(f->kind, PBTXT_MESSAGE);
	f = f->next;
	assert_string_equal(f->name, "[pkg.ext/Type]");
	assert_int_equal(pbtxt_float(&doc, f->first, &x, &d), 0);
	assert_true(isinf(x) && x < 0);
	f = f->next;   /* empty: [] adds no field */
	assert_string_equal(f->name, "nul");
	assert_int_equal(f->len, 3);
	assert_memory_equal(f->text, "a\0b", 3);
	assert_null(f->next);
	assert_int_equal(d.n, 0);
	diags_release(&d);
	pbtxt_release(&doc);
}

static void test_values(void **state)
{
	(void)state;
	static const char text[] = "big: 9223372036854775807 over: 9223372036854775808 low: -9223372036854775808\n"
	                           "fl: 2.5 s: \"x\" e: NOPE b: 1 m {}";
	pbtxt_doc doc;
	int rc;
	parse(&doc, text, sizeof text - 1, NULL, &rc);
	assert_int_equal(rc, 0);
	fd_diags d;
	diags_init(&d);
	int64_t i;
	bool b;
	char line[256];
	const char *s;
	assert_int_equal(pbtxt_int(&doc, pbtxt_find(&doc.root, "big"), &i, &d), 0);
	assert_true(i == INT64_MAX);
	assert_int_equal(pbtxt_int(&doc, pbtxt_find(&doc.root, "low"), &i, &d), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(pbtxt_int(&doc, pbtxt_find(&doc.root, "over"), &i, &d), -1);
	assert_string_equal(diag_format(&d.items[0], line, sizeof line),
	                    "t.txt:1:32: error: 'over' is '9223372036854775808', outside the 64-bit integers");
	assert_int_equal(pbtxt_int(&doc, pbtxt_find(&doc.root, "fl"), &i, &d), -1);
	assert_string_equal(diag_format(&d.items[1], line, sizeof line),
	                    "t.txt:2:5: error: 'fl' should be an integer, not '2.5'");
	assert_int_equal(pbtxt_int(&doc, pbtxt_find(&doc.root, "s"), &i, &d), -1);
	assert_string_equal(diag_format(&d.items[2], line, sizeof line),
	                    "t.txt:2:12: error: 's' should be an integer, not a string");
	static const char *const names[] = { "A", NULL, "B" };
	assert_int_equal(pbtxt_enum(&doc, pbtxt_find(&doc.root, "e"), names, 3, &i, &d), -1);
	assert_string_equal(diag_format(&d.items[3], line, sizeof line),
	                    "t.txt:2:19: error: 'e' has no value named 'NOPE'");
	assert_int_equal(pbtxt_bool(&doc, pbtxt_find(&doc.root, "b"), &b, &d), 0);
	assert_true(b);
	assert_int_equal(pbtxt_string(&doc, pbtxt_find(&doc.root, "m"), &s, NULL, &d), -1);
	assert_string_equal(diag_format(&d.items[4], line, sizeof line),
	                    "t.txt:2:31: error: 'm' should be a string, not a message");
	assert_int_equal(pbtxt_message(&doc, pbtxt_find(&doc.root, "fl"), &d), -1);
	assert_null(pbtxt_find(&doc.root, "absent"));
	diags_release(&d);
	pbtxt_release(&doc);
}

static void test_token_errors(void **state)
{
	(void)state;
	expect_error("a: \"abc\nb: 1", "t.txt:1:4: error: string not closed before the end of the line");
	expect_error("a: 'abc", "t.txt:1:4: error: string not closed before the end of the file");
	expect_error("a: \"x\\", "t.txt:1:4: error: string not closed before the end of the file");
	expect_error("a:\n  \"x\\q\"", "t.txt:2:5: error: invalid escape '\\q' in a string");
	expect_error("a: \"\\400\"", "t.txt:1:5: error: octal escape '\\400' in a string is above \\377");
	expect_error("a: \"\\xZ\"", "t.txt:1:5: error: hex escape '\\x' in a string has no hex digit");
	expect_error("a: \"\\u12\"", "t.txt:1:5: error: '\\u' escape in a string needs 4 hex digits");
	expect_error("a: \"\\ud800\"", "t.txt:1:5: error: '\\ud800' in a string is not a Unicode character");
	expect_error("a: \"\\U00110000\"", "t.txt:1:5: error: '\\U00110000' in a string is not a Unicode character");
	expect_error("a: 1.2.3", "t.txt:1:4: error: '1.2.3' is not a number");
	expect_error("a: 089", "t.txt:1:4: error: '089' is not a number");
	expect_error("a: 1e", "t.txt:1:4: error: '1e' is not a number");
	expect_error("a: 0xg", "t.txt:1:4: error: '0xg' is not a number");
	expect_error("a: 1 @", "t.txt:1:6: error: unexpected character '@'");
	expect_error("a: 1\n\x01", "t.txt:2:1: error: unexpected byte 0x01");
	expect_error("a: \"\\\x01\"", "t.txt:1:5: error: invalid escape: a backslash before byte 0x01 in a string");
}

static void test_grammar_errors(void **state)
{
	(void)state;
	expect_error("a 1", "t.txt:1:3: error: expected ':' or '{' after 'a', found '1'");
	expect_error("a: }", "t.txt:1:4: error: expected a value for 'a', found '}'");
	expect_error("a:", "t.txt:1:3: error: expected a value for 'a', found the end of the file");
	expect_error(": 1", "t.txt:1:1: error: expected a field name, found ':'");
	expect_error("\"s\": 1", "t.txt:1:1: error: expected a field name, found a string");
	expect_error("m {\n  a: 1\n", "t.txt:3:1: error: the file ends inside 'm' opened at 1:3 (no '}')");
	expect_error("m < a: 1 }", "t.txt:1:10: error: '}' where '>' should close 'm' opened at 1:3");
	expect_error("a: 1 }", "t.txt:1:6: error: '}' closes no message");
	expect_error("a: [1 2]", "t.txt:1:7: error: expected ',' or ']' in the list of 'a', found '2'");
	expect_error("a: [1,", "t.txt:1:7: error: expected a value for 'a', found the end of the file");
	expect_error("[a.] {}", "t.txt:1:4: error: expected a name in the bracketed field name, found ']'");
	expect_error("[a b] {}", "t.txt:1:4: error: expected '.', '/' or ']' in the bracketed field name, found 'b'");
	expect_error("a: - x: 1", "t.txt:1:7: error: expected a field name, found ':'");
	expect_error("a: -\"s\"", "t.txt:1:5: error: expected a value for 'a', found a string");
}

static void test_limits(void **state)
{
	(void)state;
	pbtxt_doc doc;
	int rc;
	pbtxt_limits lim = { 3, 100, 1000 };
	static const char deep[] = "a { b { c { d { } } } }";
	assert_string_equal(parse(&doc, deep, sizeof deep - 1, &lim, &rc),
	                    "t.txt:1:15: error: messages nested more than 3 deep: the limit of the text reader");
	assert_int_equal(rc, -1);
	lim = (pbtxt_limits){ 10, 2, 1000 };
	static const char many[] = "a: 1 b: 2 c: 3";
	assert_string_equal(parse(&doc, many, sizeof many - 1, &lim, &rc),
	                    "t.txt:1:11: error: more than 2 fields: the limit of the text reader");
	lim = (pbtxt_limits){ 10, 100, 4 };
	assert_string_equal(parse(&doc, many, sizeof many - 1, &lim, &rc),
	                    "t.txt: error: 14 bytes of text, more than the text reader's limit of 4");
	/* a hostile depth under the default limits: an error, not a stack overflow */
	size_t n = 200000;
	char *text = malloc(2 * n + 8);
	for (size_t k = 0; k < n; k++)
		memcpy(text + 2 * k, "a{", 2);
	assert_string_equal(parse(&doc, text, 2 * n, NULL, &rc),
	                    "t.txt:1:202: error: messages nested more than 100 deep: the limit of the text reader");
	/* not NUL-terminated: the reader stops at the end it was given */
	memcpy(text, "a: \"xy", 6);
	assert_string_equal(parse(&doc, text, 5, NULL, &rc),
	                    "t.txt:1:4: error: string not closed before the end of the file");
	free(text);
	assert_string_equal(parse(&doc, NULL, 0, NULL, &rc), "");
	assert_int_equal(rc, 0);
	assert_int_equal(doc.root.n_fields, 0);
	pbtxt_release(&doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_token_errors),
		cmocka_unit_test(test_grammar_errors),
		cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
