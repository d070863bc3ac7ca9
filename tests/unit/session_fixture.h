/* session_fixture.h — what the session tests share: whole-file reads and
 * writes, a session opened or an edit made with every message shown. Each
 * test file includes it once (static functions). */
#ifndef FD_TEST_SESSION_FIXTURE_H
#define FD_TEST_SESSION_FIXTURE_H
#include <stdio.h>
#include <string.h>
#include "base/atomic_file.h"
#include "session/session.h"

static char *slurp(const char *path, size_t *size)
{
	fd_diags d;
	diags_init(&d);
	size_t n = 0;
	char *t = input_file_read_all(path, size ? size : &n, &d);
	diags_release(&d);
	return t;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void print_diags(const fd_diags *d)
{
	char buf[1024];
	for (size_t i = 0; i < d->n; i++)
		fprintf(stderr, "  %s\n", diag_format(&d->items[i], buf, sizeof buf));
}

static void open_session(fd_session *s, const char *model, const char *const *rules, int n_rules)
{
	fd_diags d;
	diags_init(&d);
	fd_session_options o = { .model_path = model, .rule_paths = rules, .n_rule_paths = n_rules, .no_env = true };
	int rc = session_open(s, &o, &d);
	print_diags(&d);
	assert_int_equal(rc, 0);
	diags_release(&d);
}

/* --set SPEC; the first message in err (may be NULL). */
static int set(fd_session *s, const char *spec, char *err, size_t errsize)
{
	fd_diags d;
	diags_init(&d);
	int rc = session_set_spec(s, spec, &d);
	if (err) {
		err[0] = '\0';
		if (d.n)
			snprintf(err, errsize, "%s", d.items[0].message);
	}
	if (rc == 0)
		print_diags(&d);
	diags_release(&d);
	return rc;
}

#endif
