/* options.c — the one option parser every batch command uses, plus the small
 * printing helpers they share. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "base/nearest.h"
#include "ruleset/ruleset.h"
#include "session/model_load.h"
#include "rules/yaml_tree.h"
#include "base/text.h"

/* Every option of every command, once: the parser and each command's --help
 * read this table. value: the placeholder of an option that takes one. */
static const struct option_def {
	const char *long_name;
	char short_name;
	cli_optbits bit;
	const char *value;
	const char *help;
} option_defs[] = {
	{ "rules", 'r', OPT_RULES, "RULES", "rule file or directory, repeatable (default: GRAPH_AUTOFUSION_RULES_DIR, "
	                                   "else the installed rules)" },
	{ "dim", 0, OPT_DIM, "NAME=V", "bind the symbolic dimension NAME to V, repeatable" },
	{ "value", 0, OPT_VALUE, "NAME=V", "the value of the scalar integer input NAME (an If's condition on it is then "
	                                  "known), repeatable" },
	{ "input-shape", 0, OPT_INPUTSHAPE, "SPEC", "input shapes as ATC takes them: \"x:1,3,224,224;mask:1,128\" "
	                                             "(-1 leaves a dim unbound), repeatable" },
	{ "target", 0, OPT_TARGET, "T", "the target a rule's scope must contain (default ai_core)" },
	{ "no-canonicalize", 0, OPT_NOCANON, NULL, "match op types literally: no decomposed forms (Swish, Gelu, LayerNorm)" },
	{ "initializers", 0, OPT_INITS, "POLICY", "initializers also listed as graph inputs: onnx (default; from IR 4 "
	                                         "on overridable, not constants) or constant (every initializer a weight)" },
	{ "shapes", 0, OPT_SHAPES, "MODE", "the shapes the rules see: full (default; values followed through the "
	                                   "shape arithmetic) or onnx (what ONNX's own inference derives)" },
	{ "differences", 0, OPT_DIFFERENCES, NULL, "compare: only the rows that differ (the same ones are counted)" },
	{ "set", 0, OPT_SET, "RULE.PATH=VALUE", "what-if edit of a rule, without touching its file, repeatable" },
	{ "diff", 0, OPT_DIFF, NULL, "after --set: fusions gained, lost and changed, peak before -> after" },
	{ "output", 'o', OPT_OUTPUT, "FILE", "the file to write" },
	{ "rule", 0, OPT_RULE, "NAME", "the rule to explain or draw" },
	{ "node", 0, OPT_NODE, "NODE", "the node to explain" },
	{ "around", 0, OPT_AROUND, "NODE", "draw only the neighbourhood of NODE" },
	{ "depth", 0, OPT_DEPTH, "K", "with --around or --rule: K steps of neighbours (default 2); alone, an error" },
	{ "limit", 0, OPT_LIMIT, "N", "without --node: list at most N near-misses (default 10; 0: all)" },
	{ "format", 0, OPT_FORMAT, "FORMAT", "output format: text or json (default text); export: dot, svg or png "
	                                     "(default: from -o's name; dot for -o -)" },
	{ "strict", 0, OPT_STRICT, NULL, "every warning is an error" },
	{ "verbose", 'v', OPT_VERBOSE, NULL, "say more" },
	{ "trace", 0, OPT_TRACE, NULL, "also print the whole trace" },
	{ "after", 0, OPT_AFTER, NULL, "draw the graph after fusion (each fusion one node)" },
	{ "near-misses", 0, OPT_NEAR, NULL, "mark the attempts that failed late" },
	{ "constants", 0, OPT_CONSTANTS, NULL, "draw weight and constant-only nodes too" },
	{ "fusion-dots", 0, OPT_FUSIONDOTS, NULL, "also write the per-fusion DOTs rules ask for (output.gen_dot_graph)" },
	{ "dots-dir", 0, OPT_DOTSDIR, "DIR", "with --fusion-dots: the directory every DOT stays in (default: the current "
	                                     "one; a rule's dot_graph_path may not leave it)" },
	{ "max-nodes", 0, OPT_MAXNODES, "N", "PNG/SVG layout limit in nodes (0: none)" },
	{ "max-side", 0, OPT_MAXSIDE, "PX", "a PNG taller than PX is cut into pages NAME-1.png, NAME-2.png, ..., a wider "
	                                    "one refused (default 10000; 0: no pages, refused)" },
	{ "peak-warn", 0, OPT_PEAKWARN, "BYTES", "warn about fusions whose kernel peak is over BYTES (default 512MiB)" },
	{ "max-rounds", 0, OPT_MAXROUNDS, "N", "rounds a pass may take before it counts as not settled (default 10)" },
	{ "passes", 0, OPT_PASSES, "FILE", "run the rules in the passes this file lists, one pass a line" },
	{ "fusion-switch", 0, OPT_FUSIONSWITCH, "FILE", "turn rules on or off as CANN's fusion switch file says "
	                                               "(ATC's --fusion_switch_file JSON; ALL is the default)" },
	{ "with", 0, OPT_WITH, "FILE", "the compiler's result: its optimized .onnx or a fusion_result.json" },
	{ "graph", 0, OPT_GRAPH, "S_G", "compare with a fusion_result.json: only the graph of that session_and_graph_id "
	                                "(#N: the Nth record; default: each graph the file holds)" },
	{ "cache-dir", 0, OPT_CACHEDIR, "DIR", "the JIT kernel cache to check (default ~/.cann/kernel_cache)" },
	{ "tensors", 0, OPT_TENSORS, NULL, "list every tensor: graph, shape, dtype, bytes, producer" },
	{ "sweep", 0, OPT_SWEEP, "NAME=V,V,...", "run once per value of the symbol NAME: peak, memory rejections, "
	                                          "where each rule stops firing" },
	{ "top", 0, OPT_TOP, "N", "suggest: list the N patterns that save the most (default 10)" },
	{ "max-ops", 0, OPT_MAXOPS, "K", "suggest: at most K nodes in a pattern (2 to 16, default 8)" },
	{ "max-heavy", 0, OPT_MAXHEAVY, "N", "suggest: at most N heavy compute ops (Conv, MatMul, Gemm, ...) in a "
	                                     "pattern (1 to 16, default 1: one kernel)" },
	{ "write", 0, OPT_WRITE, "N", "suggest: write the rule of pattern N (1 is the first) to -o FILE" },
	{ "float", 0, OPT_FLOAT, NULL, "why: in a quantized model, every op left in float (or --node's) and the check "
	                              "that kept it from its integer kernel; needs no --rule" },
	{ "seed-only", 0, OPT_SEEDONLY, NULL, "check: every key and value form beyond the article's format (what CANN's "
	                                      "graph-autofusion may not read) is an error" },
	{ "against", 0, OPT_AGAINST, "MODEL", "check: run the rules on MODEL: the rules that never fire there with "
	                                      "the nearest miss of each, and what their derived params are on it" },
	{ "baseline", 0, OPT_BASELINE, "FLOAT.onnx", "the model before quantization: its peak beside this one's, the "
	                                            "ratio, the steps side by side (mem, and export's memory chart)" },
	{ "memory-chart", 0, OPT_MEMCHART, "FILE", "also draw the memory timeline (live bytes per step, before and "
	                                           "after fusion) to FILE.svg or FILE.png" },
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

int cli_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	txt_fprintf(stderr, "fusiondbg: ");
	txt_vfprintf(stderr, fmt, ap);
	txt_fprintf(stderr, "\nusage: %s\n", usage);
	va_end(ap);
	return -1;
}

/* fusiondbg COMMAND --help: the usage line, what the command does, and the
 * options it takes, from the table above. */
static void print_help(const char *usage, cli_optbits allowed)
{
	const char *name = usage + strlen("fusiondbg ");
	size_t len = strcspn(name, " ");
	const char *summary = cli_command_summary(name, len);
	txt_fprintf(stdout, "usage: %s\n", usage);
	if (summary)
		txt_fprintf(stdout, "\n%s\n", summary);
	bool any = false;
	for (size_t i = 0; i < sizeof option_defs / sizeof *option_defs; i++) {
		const struct option_def *d = &option_defs[i];
		if (!(allowed & d->bit))
			continue;
		char left[64];
		char shrt[8] = "    ";
		if (d->short_name)
			snprintf(shrt, sizeof shrt, "-%c, ", d->short_name);
		snprintf(left, sizeof left, "%s--%s%s%s", shrt, d->long_name, d->value ? " " : "", d->value ? d->value : "");
		if (!any)
			txt_fprintf(stdout, "\noptions:\n");
		any = true;
		txt_fprintf(stdout, "  %-28s %s\n", left, d->help);
	}
	txt_fprintf(stdout, "  %-28s %s\n\nSee fusiondbg(1).\n", "-h, --help", "this text");
}

/* An option the command does not take: the nearest of those it does, or
 * that the option belongs to other commands. */
static int unknown_option(const char *arg, const struct option_def *known, cli_optbits allowed, const char *usage)
{
	const char *command = usage + strlen("fusiondbg ");
	int cl = (int)strcspn(command, " ");
	if (known)
		return cli_usage_error(usage, "%.*s takes no option '%s' (see fusiondbg %.*s --help)", cl, command, arg, cl, command);
	char typed[128], names[sizeof option_defs / sizeof *option_defs][40], hint[600];
	snprintf(typed, sizeof typed, "%.*s", (int)strcspn(arg, "="), arg);
	fd_nearest nn;
	nearest_init(&nn, typed);
	for (size_t i = 0; i < sizeof option_defs / sizeof *option_defs; i++) {
		if (!(allowed & option_defs[i].bit))
			continue;
		snprintf(names[i], sizeof names[i], "--%s", option_defs[i].long_name);
		nearest_add(&nn, names[i]);
	}
	if (!nn.n && typed[1] != '-')   /* -rules for --rules */
		for (size_t i = 0; i < sizeof option_defs / sizeof *option_defs; i++)
			if ((allowed & option_defs[i].bit) && !strcmp(typed + 1, option_defs[i].long_name))
				nearest_add(&nn, names[i]);
	return cli_usage_error(usage, "unknown option '%s'%s", arg, nearest_hint(&nn, hint, sizeof hint));
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

/* A count option's value: a number from 0 to max; else the usage error. */
static int parse_count(const char *v, const struct option_def *d, int64_t max, const char *usage, int *out)
{
	int64_t n;
	if (parse_int64(v, &n) || n < 0 || n > max)
		return cli_usage_error(usage, "--%s wants a number >= 0, not '%s'", d->long_name, v);
	*out = (int)n;
	return 0;
}

/* --dim names: copies that live as long as the process (the model, a
 * session's rebinding and the TUI hold them), freed at exit. */
static char *dim_names[CLI_MAX_LIST];
static int n_dim_names;

static void free_dim_names(void)
{
	while (n_dim_names > 0)
		free(dim_names[--n_dim_names]);
}

static const char *dim_name_copy(const char *v, size_t n)
{
	if (n_dim_names == 0)
		atexit(free_dim_names);
	char *c = strndup(v, n);
	if (n_dim_names < CLI_MAX_LIST)
		dim_names[n_dim_names++] = c;
	return c;
}

static int apply_option(const struct option_def *d, const char *v, const char *usage, cli_optbits allowed,
                        cli_options *o)
{
	switch (d->bit) {
	case OPT_RULES:
		if (o->n_rules == CLI_MAX_LIST)
			return cli_usage_error(usage, "too many %s options", "-r");
		o->rules[o->n_rules++] = v;
		break;
	case OPT_DIM: {
		const char *eq = strchr(v, '=');
		int64_t value;
		if (!eq || eq == v || parse_int64(eq + 1, &value) || value < 0)
			return cli_usage_error(usage, "--dim wants NAME=VALUE with VALUE >= 0, not '%s'", v);
		if (o->n_dims == CLI_MAX_LIST)
			return cli_usage_error(usage, "too many %s options", "--dim");
		o->dims[o->n_dims++] = (fd_dim_binding){ dim_name_copy(v, (size_t)(eq - v)), value };
		break;
	}
	case OPT_VALUE: {
		const char *eq = strchr(v, '=');
		int64_t value;
		if (!eq || eq == v || parse_int64(eq + 1, &value))
			return cli_usage_error(usage, "--value wants NAME=VALUE with an integer VALUE, not '%s'", v);
		if (o->n_values == CLI_MAX_LIST)
			return cli_usage_error(usage, "too many %s options", "--value");
		o->values[o->n_values++] = (fd_dim_binding){ dim_name_copy(v, (size_t)(eq - v)), value };
		break;
	}
	case OPT_INPUTSHAPE:
		if (o->n_input_shapes == CLI_MAX_LIST)
			return cli_usage_error(usage, "too many %s options", "--input-shape");
		o->input_shapes[o->n_input_shapes++] = v;
		break;
	case OPT_SWEEP: o->sweep = v; break;
	case OPT_MEMCHART: o->memory_chart = v; break;
	case OPT_FLOAT: o->float_ops = true; break;
	case OPT_BASELINE: o->baseline = v; break;
	case OPT_AGAINST: o->against = v; break;
	case OPT_SEEDONLY: o->seed_only = true; break;
	case OPT_TENSORS: o->tensors = true; break;
	case OPT_SET:
		if (!strchr(v, '=') || o->n_sets == CLI_MAX_LIST)
			return cli_usage_error(usage, "--set wants RULE.PATH=VALUE, not '%s'", v);
		o->sets[o->n_sets++] = v;
		break;
	case OPT_TARGET: o->target = v; break;
	case OPT_OUTPUT: o->output = v; break;
	case OPT_RULE: o->rule = v; break;
	case OPT_NODE:
	case OPT_AROUND: o->node = v; break;
	case OPT_DEPTH:
		o->depth_given = true;
		return parse_count(v, d, 1000000, usage, &o->depth);
	case OPT_LIMIT:
		return parse_count(v, d, 100000000, usage, &o->limit);
	case OPT_TOP:
		return parse_count(v, d, 100000, usage, &o->top);
	case OPT_MAXOPS:
		if (parse_count(v, d, 16, usage, &o->max_ops) < 0 || o->max_ops < 2)
			return cli_usage_error(usage, "--max-ops wants a number from 2 to 16, not '%s'", v);
		return 0;
	case OPT_MAXHEAVY:
		if (parse_count(v, d, 16, usage, &o->max_heavy) < 0 || o->max_heavy < 1)
			return cli_usage_error(usage, "--max-heavy wants a number from 1 to 16, not '%s'", v);
		return 0;
	case OPT_WRITE:
		if (parse_count(v, d, 100000, usage, &o->write) < 0 || o->write < 1)
			return cli_usage_error(usage, "--write wants a pattern number (1 is the first), not '%s'", v);
		return 0;
	case OPT_FORMAT: {
		static const char *const names[] = { "text", "json", "dot", "svg", "png" };
		bool picture = (allowed & OPT_DOTSDIR) != 0;   /* export's: the picture formats */
		int f = -1;
		for (int i = picture ? 2 : 0; i < (picture ? 5 : 2) && f < 0; i++)
			if (!strcmp(v, names[i]))
				f = i;
		if (f < 0)
			return cli_usage_error(usage, "--format wants %s, not '%s'", picture ? "dot, svg or png" : "text or json",
			                       v);
		o->format = (cli_format)f;
		o->format_given = true;
		break;
	}
	case OPT_DOTSDIR: o->dots_dir = v; break;
	case OPT_MAXNODES:
		o->max_nodes_given = true;
		return parse_count(v, d, 100000000, usage, &o->max_nodes);
	case OPT_MAXSIDE:
		o->max_side_given = true;
		return parse_count(v, d, 1000000, usage, &o->max_side);
	case OPT_PEAKWARN: {
		/* the same byte syntax as the rule files: 536870912, 512MiB, 0.5GiB */
		fd_yval text = { .kind = YV_SCALAR, .text = v, .text_len = strlen(v) };
		if (!yval_bytes(&text, &o->peak_warn) || o->peak_warn < 0)
			return cli_usage_error(usage, "--peak-warn wants a byte count such as 512MiB, not '%s'", v);
		break;
	}
	case OPT_MAXROUNDS: {
		int64_t n;
		if (parse_int64(v, &n) || n < 1 || n > 10000)
			return cli_usage_error(usage, "--max-rounds wants a number from 1 to 10000, not '%s'", v);
		o->max_rounds = (int)n;
		break;
	}
	case OPT_PASSES: o->passes = v; break;
	case OPT_FUSIONSWITCH: o->fusion_switch = v; break;
	case OPT_WITH: o->with = v; break;
	case OPT_GRAPH: o->graph = v; break;
	case OPT_CACHEDIR: o->cache_dir = v; break;
	case OPT_STRICT: o->strict = true; break;
	case OPT_VERBOSE: o->verbose = true; break;
	case OPT_TRACE: o->trace = true; break;
	case OPT_DIFF: o->diff = true; break;
	case OPT_AFTER: o->after = true; break;
	case OPT_NEAR: o->near_misses = true; break;
	case OPT_NOCANON: o->no_canonicalize = true; break;
	case OPT_INITS:
		if (!(o->initializers = ruleset_init_policy_from_name(v)))
			return cli_usage_error(usage, "--initializers wants onnx or constant, not '%s'", v);
		break;
	case OPT_SHAPES:
		if (!(o->shapes = ruleset_shapes_from_name(v)))
			return cli_usage_error(usage, "--shapes wants full or onnx, not '%s'", v);
		break;
	case OPT_DIFFERENCES: o->differences = true; break;
	case OPT_CONSTANTS: o->constants = true; break;
	case OPT_FUSIONDOTS: o->fusion_dots = true; break;
	}
	return 0;
}

int cli_parse(int argc, char **argv, cli_optbits allowed, const char *usage, cli_options *o)
{
	memset(o, 0, sizeof *o);
	o->target = "ai_core";
	o->depth = 2;
	o->limit = 10;
	o->peak_warn = -1;
	bool only_positional = false;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (only_positional || arg[0] != '-' || arg[1] == '\0') {
			if (o->n_positional == CLI_MAX_LIST)
				return cli_usage_error(usage, "too many arguments");
			o->positional[o->n_positional++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			only_positional = true;
			continue;
		}
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			print_help(usage, allowed);
			exit(EXIT_OK);
		}
		const char *value;
		const struct option_def *d = find_option(arg, &value);
		if (!d || !(allowed & d->bit))
			return unknown_option(arg, d, allowed, usage);
		if (d->value && !value) {
			if (i + 1 == argc)
				return cli_usage_error(usage, "option '%s' needs a value", arg);
			value = argv[++i];
		} else if (!d->value && value) {
			return cli_usage_error(usage, "option '%s' takes no value", arg);
		}
		if (apply_option(d, value, usage, allowed, o))
			return -1;
	}
	o->model = o->n_positional ? o->positional[0] : NULL;
	return 0;
}

int cli_parse_command(int argc, char **argv, const cli_command_spec *c, cli_options *o)
{
	if (cli_parse(argc, argv, c->allowed, c->usage, o) < 0)
		return -1;
	if (!o->model || o->n_positional != 1 || ((c->required & OPT_RULE) && !o->rule && !o->float_ops) ||
	    ((c->required & OPT_OUTPUT) && !o->output))
		return cli_usage_error(c->usage, "%s", c->needs);
	return 0;
}

int cli_parse_and_load(int argc, char **argv, const cli_command_spec *c, cli_options *o, fd_model *m)
{
	if (cli_parse_command(argc, argv, c, o) < 0)
		return -1;
	return cli_load_model(o, m);
}

void cli_print_diags(const fd_diags *d)
{
	char line[4096];
	for (size_t i = 0; i < d->n; i++)
		txt_fprintf(stderr, "%s\n", diag_format(&d->items[i], line, sizeof line));
}

int cli_load_model(const cli_options *o, fd_model *m)
{
	fd_diags d;
	diags_init(&d);
	fd_load_options lo = { .dims = o->dims, .n_dims = o->n_dims, .values = o->values, .n_values = o->n_values,
	                       .input_shapes = o->input_shapes,
	                       .n_input_shapes = o->n_input_shapes,
	                       .initializers_constant = o->initializers == INIT_POLICY_CONSTANT,
	                       .shapes_onnx = o->shapes == SHAPES_ONNX };
	int rc = session_load_model(m, o->model, &lo, &d);
	cli_print_diags(&d);
	diags_release(&d);
	return rc;
}
