/* cmd_diagnose.c — `fusiondbg diagnose RULES [MODEL]`: CANN's
 * fusion_diagnose checks (estimate/diagnose.h) — each rule's dtype and
 * memory constraints, against the model's tensors when a MODEL is given,
 * the kernel peaks of its fusions, the JIT kernel cache, and the commands
 * for the numerical check on the device. One line per check with its
 * status, or --format json. Exit 0 when nothing warns, 1 when a check
 * warns, 2 on bad usage or unreadable input. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "estimate/diagnose.h"
#include "ruleset/ruleset.h"
#include "session/session.h"

static const char usage[] =
	"fusiondbg diagnose RULES [MODEL] [-r RULES]... [--cache-dir DIR] [--format text|json] [--peak-warn BYTES]"
	CLI_USAGE_MODEL CLI_USAGE_ROUNDS CLI_USAGE_WHATIF;

static int report(const cli_options *o, fd_diagnosis *dg, const fd_ruleset *rs)
{
	if (o->format == FORMAT_JSON)
		diagnose_write_json(stdout, dg, rs);
	else
		diagnose_write_text(stdout, dg, rs);
	return dg->n_warn ? EXIT_FINDINGS : EXIT_OK;
}

static int finish(const cli_options *o, fd_diagnosis *dg, const fd_ruleset *rs, int rc, fd_diags *d)
{
	cli_print_diags(d);
	diags_release(d);
	if (rc == 0)
		rc = report(o, dg, rs);
	else
		rc = EXIT_BAD_INPUT;
	diagnose_release(dg);
	return rc;
}

int cmd_diagnose(int argc, char **argv)
{
	cli_options o;
	if (cli_parse(argc, argv, OPT_RULES | OPT_MODEL_COMMON | OPT_ROUNDS | OPT_FORMAT | OPT_PEAKWARN | OPT_CACHEDIR |
	              OPT_SET | OPT_DIFF, usage, &o) < 0)
		return EXIT_BAD_INPUT;
	if (o.n_positional < 1 || o.n_positional > 2) {
		cli_usage_error(usage, "diagnose needs RULES and at most one MODEL");
		return EXIT_BAD_INPUT;
	}
	fd_diagnosis dg;
	diagnose_init(&dg);
	fd_diags d;
	diags_init(&d);
	fd_diagnose_input in = { .cache_dir = o.cache_dir, .now = (int64_t)time(NULL) };
	if (o.n_positional == 1) {   /* the rules alone */
		fd_ruleset rs;
		ruleset_init(&rs);
		const char *paths[CLI_MAX_LIST + 1] = { o.positional[0] };
		for (int i = 0; i < o.n_rules && i < CLI_MAX_LIST; i++)
			paths[i + 1] = o.rules[i];
		int rc = ruleset_load_paths(&rs, paths, o.n_rules + 1, true, &d);
		if (rc == 0 && o.fusion_switch && ruleset_apply_switch_file(&rs, o.fusion_switch, &d) < 0)
			rc = -1;
		in.rules = &rs;
		if (rc == 0 && diagnose_run(&dg, &in, &d) < 0)
			rc = -1;
		rc = finish(&o, &dg, &rs, rc, &d);
		ruleset_release(&rs);
		return rc;
	}
	/* RULES and MODEL: a session, as match has it */
	cli_options so = o;
	so.model = o.positional[1];
	so.n_positional = 1;
	so.rules[0] = o.positional[0];
	for (int i = 0; i < o.n_rules && i + 1 < CLI_MAX_LIST; i++)
		so.rules[i + 1] = o.rules[i];
	so.n_rules = o.n_rules + 1 < CLI_MAX_LIST ? o.n_rules + 1 : CLI_MAX_LIST;
	fd_session s;
	if (cli_open_session(&so, &s, true) < 0) {
		diags_release(&d);
		diagnose_release(&dg);
		return EXIT_BAD_INPUT;
	}
	in.rules = session_rules(&s);
	in.rounds = session_rounds(&s);
	in.est = session_estimate(&s);
	in.mopt = &s.mopt;
	in.ropt = &s.opt.rounds;
	in.model_path = so.model;
	int rc = diagnose_run(&dg, &in, &d) < 0 ? -1 : 0;
	rc = finish(&o, &dg, session_rules(&s), rc, &d);
	if (o.diff && rc != EXIT_BAD_INPUT)
		cli_print_diff_after(&so, &s);
	session_close(&s);
	return rc;
}
