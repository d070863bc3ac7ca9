/* options.c — the one option parser every batch command uses, plus the small
 * printing helpers they share. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "yaml_tree.h"

static const struct option_def {
	const char *long_name;
	char short_name;
	unsigned bit;
	bool takes_value;
} option_defs[] = {
	{ "rules", 'r', OPT_RULES, true },     { "dim", 0, OPT_DIM, true },
	{ "set", 0, OPT_SET, true },           { "target", 0, OPT_TARGET, true },
	{ "output", 'o', OPT_OUTPUT, true },   { "rule", 0, OPT_RULE, true },
	{ "node", 0, OPT_NODE, true },         { "around", 0, OPT_NODE, true },
	{ "depth", 0, OPT_DEPTH, true },       { "format", 0, OPT_FORMAT, true },
	{ "strict", 0, OPT_STRICT, false },    { "verbose", 'v', OPT_VERBOSE, false },
	{ "trace", 0, OPT_TRACE, false },      { "diff", 0, OPT_DIFF, false },
	{ "after", 0, OPT_AFTER, false },      { "near-misses", 0, OPT_NEAR, false },
	{ "no-canonicalize", 0, OPT_NOCANON, false }, { "peak-warn", 0, OPT_PEAKWARN, true },
};

static const struct option_def *find_option(const char *arg, const char **inline_value)
{
	*inline_value = NULL;
	for (size_t i = 0; i < sizeof option_defs / sizeof *option_defs; i++) {
		const struct option_def *d = &option_defs[i];
		if (arg[1] != '-') {
			if (d->short_name && arg[1] == d->short_name && arg[2] == '\0')
				return d;
			continue;
		}
		size_t len = strlen(d->long_name);
		if (strncmp(arg + 2, d->long_name, len))
			continue;
		if (arg[2 + len] == '\0')
			return d;
		if (arg[2 + len] == '=') {
			*inline_value = arg + 3 + len;
			return d;
		}
	}
	return NULL;
}

static int usage_error(const char *usage, const char *fmt, const char *what)
{
	fprintf(stderr, "fusiondbg: ");
	fprintf(stderr, fmt, what);
	fprintf(stderr, "\nusage: %s\n", usage);
	return -1;
}

static int parse_int64(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

static int apply_option(const struct option_def *d, const char *v, const char *usage, cli_options *o)
{
	switch (d->bit) {
	case OPT_RULES:
		if (o->n_rules == CLI_MAX_LIST)
			return usage_error(usage, "too many %s options", "-r");
		o->rules[o->n_rules++] = v;
		break;
	case OPT_DIM: {
		const char *eq = strchr(v, '=');
		int64_t value;
		if (!eq || eq == v || parse_int64(eq + 1, &value) || value < 0)
			return usage_error(usage, "--dim wants NAME=VALUE with VALUE >= 0, not '%s'", v);
		if (o->n_dims == CLI_MAX_LIST)
			return usage_error(usage, "too many %s options", "--dim");
		o->dims[o->n_dims++] = (fd_dim_binding){ strndup(v, (size_t)(eq - v)), value };
		break;
	}
	case OPT_SET:
		if (!strchr(v, '=') || o->n_sets == CLI_MAX_LIST)
			return usage_error(usage, "--set wants RULE.PATH=VALUE, not '%s'", v);
		o->sets[o->n_sets++] = v;
		break;
	case OPT_TARGET: o->target = v; break;
	case OPT_OUTPUT: o->output = v; break;
	case OPT_RULE: o->rule = v; break;
	case OPT_NODE: o->node = v; break;
	case OPT_DEPTH: {
		int64_t depth;
		if (parse_int64(v, &depth) || depth < 0 || depth > 1000000)
			return usage_error(usage, "--depth wants a number >= 0, not '%s'", v);
		o->depth = (int)depth;
		break;
	}
	case OPT_FORMAT:
		if (!strcmp(v, "json"))
			o->format = FORMAT_JSON;
		else if (!strcmp(v, "text"))
			o->format = FORMAT_TEXT;
		else
			return usage_error(usage, "--format wants text or json, not '%s'", v);
		break;
	case OPT_PEAKWARN: {
		/* the same byte syntax as the rule files: 536870912, 512MiB, 0.5GiB */
		fd_yval text = { .kind = YV_SCALAR, .text = v, .text_len = strlen(v) };
		if (!yval_bytes(&text, &o->peak_warn) || o->peak_warn < 0)
			return usage_error(usage, "--peak-warn wants a byte count such as 512MiB, not '%s'", v);
		break;
	}
	case OPT_STRICT: o->strict = true; break;
	case OPT_VERBOSE: o->verbose = true; break;
	case OPT_TRACE: o->trace = true; break;
	case OPT_DIFF: o->diff = true; break;
	case OPT_AFTER: o->after = true; break;
	case OPT_NEAR: o->near_misses = true; break;
	case OPT_NOCANON: o->no_canonicalize = true; break;
	}
	return 0;
}

int cli_parse(int argc, char **argv, unsigned allowed, const char *usage, cli_options *o)
{
	memset(o, 0, sizeof *o);
	o->target = "ai_core";
	o->depth = 2;
	o->peak_warn = -1;
	bool only_positional = false;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (only_positional || arg[0] != '-' || arg[1] == '\0') {
			if (o->n_positional == CLI_MAX_LIST)
				return usage_error(usage, "too many arguments%s", "");
			o->positional[o->n_positional++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			only_positional = true;
			continue;
		}
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			printf("usage: %s\n", usage);
			exit(EXIT_OK);
		}
		const char *value;
		const struct option_def *d = find_option(arg, &value);
		if (!d || !(allowed & d->bit))
			return usage_error(usage, "unknown option '%s'", arg);
		if (d->takes_value && !value) {
			if (i + 1 == argc)
				return usage_error(usage, "option '%s' needs a value", arg);
			value = argv[++i];
		} else if (!d->takes_value && value) {
			return usage_error(usage, "option '%s' takes no value", arg);
		}
		if (apply_option(d, value, usage, o))
			return -1;
	}
	o->model = o->n_positional ? o->positional[0] : NULL;
	return 0;
}

void cli_print_diags(const fd_diags *d)
{
	char line[4096];
	for (size_t i = 0; i < d->n; i++)
		fprintf(stderr, "%s\n", diag_format(&d->items[i], line, sizeof line));
}

int cli_load_model(const cli_options *o, fd_model *m)
{
	fd_diags d;
	diags_init(&d);
	fd_load_options lo = { .dims = o->dims, .n_dims = o->n_dims };
	int rc = model_load_onnx(m, o->model, &lo, &d);
	cli_print_diags(&d);
	diags_release(&d);
	return rc;
}
