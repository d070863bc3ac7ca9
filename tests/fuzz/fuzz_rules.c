/* fuzz_rules.c — libFuzzer harness for the rule loader: any bytes are read as
 * a YAML rule file (yfile_load_buffer), every document becomes a typed rule
 * (rule_from_yaml) the way ruleset_load does it, then the set is linted
 * (ruleset_check, strict and verbose). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "ruleset/ruleset.h"
#include "rules/yaml_tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fd_diags d;
	fd_ruleset rs;
	diags_init(&d);
	ruleset_init(&rs);
	fd_yfile *f = xmalloc(sizeof *f);
	if (yfile_load_buffer(f, "fuzz.yaml", (const char *)data, size, &d) < 0) {
		free(f);
		goto out;
	}
	rs.files = xmalloc(sizeof *rs.files);
	rs.files[rs.n_files++] = f;
	rs.rules = xmalloc((size_t)(f->n_docs + 1) * sizeof *rs.rules);
	for (int i = 0; i < f->n_docs; i++) {
		if (yval_is_null(f->docs[i].root))
			continue;
		if (rule_from_yaml(&rs, &rs.rules[rs.n_rules], &f->docs[i], &d) == 0)
			rs.n_rules++;
	}
	fd_check_options opt = { .strict = true, .verbose = true };
	ruleset_check(&rs, &opt, &d);
	/* the formatted messages are what users read: format each one */
	char buf[512];
	for (size_t i = 0; i < d.n; i++)
		diag_format(&d.items[i], buf, sizeof buf);
out:
	ruleset_release(&rs);
	diags_release(&d);
	return 0;
}
