/* cmd_rules.c — the two rule-file commands, which differ only in the lint:
 *   fusiondbg verify RULES...                        YAML and schema
 *   fusiondbg check [--strict] [--verbose] RULES...  schema, then the lint
 *                                                    (rule_check.c) over all
 *                                                    rules together, so
 *                                                    duplicate names and
 *                                                    priority ties across
 *                                                    files are seen
 *   check ... --seed-only                            and every key beyond the
 *                                                    article's format
 *                                                    (rule_check_seed.c)
 *   check ... --against MODEL                        and the lint on a model
 *                                                    (explain/lint_against.c):
 *                                                    rules that never fire
 *                                                    there, derived params
 * RULES are files or directories. file:line:col diagnostics go to stderr, a
 * one-line summary to stdout. --strict makes every warning an error (unknown
 * keys and constraint types, priority ties, …). Exit 0 ok (warnings allowed),
 * 1 findings, 2 unreadable / not YAML / bad usage. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "explain/explain.h"
#include "ruleset/ruleset.h"
#include "session/session.h"
#include "base/text.h"

/* "rules/: 7 rules in 4 files, 0 errors, 0 warnings" */
static void print_summary(const cli_options *o, const fd_ruleset *rs, const fd_diags *d)
{
	for (int i = 0; i < o->n_positional; i++)
		txt_fprintf(stdout, "%s%s", i ? ", " : "", o->positional[i]);
	txt_fprintf(stdout, ": %d rule%s in %d file%s, %zu error%s, %zu warning%s\n", rs->n_rules, rs->n_rules == 1 ? "" : "s",
	       rs->n_files, rs->n_files == 1 ? "" : "s", d->errors, d->errors == 1 ? "" : "s", d->warnings,
	       d->warnings == 1 ? "" : "s");
}

static void promote_warnings(fd_diags *d)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->items[i].severity == DIAG_WARNING) {
			d->items[i].severity = DIAG_ERROR;
			d->warnings--;
			d->errors++;
		}
}

/* --against MODEL: the rules run on the model (with its --dim and the
 * like), what the run shows added to d; -1 when model or rules do not load. */
static int lint_against(const cli_options *o, fd_diags *d)
{
	cli_options m = *o;
	m.model = o->against;
	for (int i = 0; i < o->n_positional; i++)
		m.rules[i] = o->positional[i];
	m.n_rules = o->n_positional;
	fd_session s;
	if (cli_open_session(&m, &s, true) < 0)
		return -1;
	const char *slash = strrchr(o->against, '/');
	explain_lint_against(session_result(&s), slash ? slash + 1 : o->against, d);
	session_close(&s);
	return 0;
}

static int run(int argc, char **argv, bool lint)
{
	const char *usage = lint ? "fusiondbg check [--strict] [--verbose] [--seed-only] [--against MODEL" CLI_USAGE_MODEL "] RULES..."
	                         : "fusiondbg verify RULES...";
	cli_options o;
	if (cli_parse(argc, argv, lint ? OPT_STRICT | OPT_VERBOSE | OPT_SEEDONLY | OPT_AGAINST | OPT_MODEL_COMMON : 0, usage, &o) < 0)
		return EXIT_BAD_INPUT;
	if (o.n_positional == 0) {
		cli_usage_error(usage, "%s needs a rule file or directory", lint ? "check" : "verify");
		return EXIT_BAD_INPUT;
	}
	fd_ruleset rs;
	fd_diags d;
	ruleset_init(&rs);
	diags_init(&d);
	/* check lints what the schema rejected too: every finding in one round */
	fd_rejected_rules rejected = { 0 };
	for (int i = 0; i < o.n_positional; i++)
		ruleset_load_keeping_rejected(&rs, o.positional[i], lint ? &rejected : NULL, &d);
	if (lint) {
		fd_check_options co = { .strict = o.strict, .verbose = o.verbose };
		ruleset_check(&rs, &co, &d);
		ruleset_check_rejected(&rs, &rejected, &co, &d);
		if (o.seed_only)
			ruleset_check_seed(&rs, &d);
	}
	/* a rule set that does not load runs on no model: its errors first */
	if (lint && o.against && !rs.n_unparsed && !d.errors && lint_against(&o, &d) < 0) {
		cli_print_diags(&d);
		diags_release(&d);
		ruleset_release(&rs);
		return EXIT_BAD_INPUT;
	}
	ruleset_rejected_release(&rejected);
	if (o.strict)   /* the loader's warnings (unknown keys, …) count too */
		promote_warnings(&d);
	cli_print_diags(&d);
	print_summary(&o, &rs, &d);
	int rc = rs.n_unparsed ? EXIT_BAD_INPUT : d.errors ? EXIT_FINDINGS : EXIT_OK;
	diags_release(&d);
	ruleset_release(&rs);
	return rc;
}

int cmd_verify(int argc, char **argv)
{
	return run(argc, argv, false);
}

int cmd_check(int argc, char **argv)
{
	return run(argc, argv, true);
}
