/* fuzz_suggest.c — libFuzzer harness for `suggest` (suggest/suggest.h) and
 * its --write: any bytes are a model file, opened in a session with the
 * shipped rules (rules/, or $FUZZ_RULES) as the command opens it; suggest
 * runs on the session's rounds and writes its text and JSON reports to
 * /dev/null. What must hold: every pattern's rule, the YAML --write puts
 * in a file, loads with the rule loader on its own as one rule of the
 * pattern's name (a rule that does not is a broken promise: abort). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ruleset/ruleset.h"
#include "session/session.h"
#include "suggest/suggest.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

static void fail(const char *what, const fd_suggest_pattern *p, const fd_diags *d)
{
	fprintf(stderr, "fuzz_suggest: %s: pattern %s%s%s\n%s\n", what, p->title, d && d->n ? ": " : "",
	        d && d->n ? d->items[0].message : "", p->rule_yaml);
	abort();
}

/* The rule --write would write, read back by the loader. */
static void rule_loads(const fd_suggest_pattern *p)
{
	char buf[512];
	const char *path = fuzz_write("suggested.yaml", p->rule_yaml, strlen(p->rule_yaml), buf, sizeof buf);
	fd_ruleset rs;
	fd_diags d;
	ruleset_init(&rs);
	diags_init(&d);
	if (ruleset_load(&rs, path, &d) < 0 || d.errors)
		fail("the suggested rule does not load", p, &d);
	if (rs.n_rules != 1 || strcmp(rs.rules[0].name, p->rule_name))
		fail("the suggested rule loads as something else", p, NULL);
	ruleset_release(&rs);
	diags_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!sink)
		sink = fopen("/dev/null", "w");
	char buf[512];
	const char *rules = getenv("FUZZ_RULES") ? getenv("FUZZ_RULES") : "rules";
	fd_session_options o = { .model_path = fuzz_write("model.onnx", data, size, buf, sizeof buf),
	                         .rule_paths = (const char *const[]){ rules }, .n_rule_paths = 1, .no_env = true };
	fd_session s;
	fd_diags d;
	diags_init(&d);
	if (session_open(&s, &o, &d) < 0)
		goto out;
	fd_suggest sg;
	suggest_init(&sg);
	fd_suggest_options so = { 0 };
	if (suggest_run(&sg, &s.current_rounds, &s.rules, &so, &d) == 0) {
		for (int32_t k = 0; k < sg.n; k++)
			rule_loads(&sg.patterns[k]);
		suggest_write_text(sink, &sg, session_model(&s), session_rules(&s));
		suggest_write_json(sink, &sg, session_model(&s), session_rules(&s));
	}
	suggest_release(&sg);
	session_close(&s);
out:
	diags_release(&d);
	return 0;
}
