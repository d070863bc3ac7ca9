/* session_args.c — a session from the command line, shared by match, why,
 * mem, apply and export: the model with --dim, the rules from -r (or
 * GRAPH_AUTOFUSION_RULES_DIR), the environment, every --set in order, one
 * run; diagnostics printed. And what the session commands print alike:
 * --diff, and the JSON keys of a run. */
#include <stdio.h>
#include "cli.h"
#include "estimate/estimate.h"
#include "explain/explain.h"
#include "session/session.h"
#include "base/text.h"

static int open_session(const cli_options *o, fd_session *s, bool events, bool no_estimates)
{
	fd_diags d;
	diags_init(&d);
	fd_session_options so = {
		.model_path = o->model,
		.load = { .dims = o->dims, .n_dims = o->n_dims, .values = o->values, .n_values = o->n_values,
		          .input_shapes = o->input_shapes,
		          .n_input_shapes = o->n_input_shapes },
		.rule_paths = o->rules,
		.n_rule_paths = o->n_rules,
		.target = o->target,
		.no_canonicalize = o->no_canonicalize,
		.initializers = (fd_init_policy)o->initializers,
		.shapes = (fd_shapes_mode)o->shapes,
		.no_events = !events,
		.no_estimates = no_estimates,
		.defer_run = true,
		.est = { .peak_warn = o->peak_warn > 0 ? o->peak_warn : 0 },
		.rounds = { .max_rounds = o->max_rounds, .pass_file = o->passes },
		.fusion_switch = o->fusion_switch,
	};
	if (session_open(s, &so, &d) < 0) {
		cli_print_diags(&d);
		diags_release(&d);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < o->n_sets; i++) {
		fd_diags one;
		diags_init(&one);
		if (session_set_spec(s, o->sets[i], &one) < 0) {
			for (size_t k = 0; k < one.n; k++)
				txt_fprintf(stderr, "fusiondbg: --set %s: %s\n", o->sets[i], one.items[k].message);
			rc = -1;
		}
		diags_release(&one);
	}
	cli_print_diags(&d);
	diags_release(&d);
	if (rc < 0) {
		session_close(s);
		return -1;
	}
	if (s->stale && session_run(s) < 0) {
		cli_print_diags(&s->run_diags);
		session_close(s);
		return -1;
	}
	return 0;
}

int cli_open_session(const cli_options *o, fd_session *s, bool events)
{
	return open_session(o, s, events, false);
}

int cli_open_baseline(const cli_options *o, fd_session *s)
{
	cli_options b = *o;   /* the same rules, bindings and edits, the baseline's model */
	b.model = o->baseline;
	return open_session(&b, s, false, false);
}

void cli_print_session_diff(FILE *f, const cli_options *o, const fd_session *s)
{
	fd_session_diff df;
	session_diff(s, &df);
	if (o->format == FORMAT_JSON)
		session_write_diff_json(f, s, &df);
	else
		session_write_diff_text(f, s, &df);
	session_diff_release(&df);
}

int cli_run_session(int argc, char **argv, const cli_command_spec *c, cli_session_fn run)
{
	cli_options o;
	fd_session s;
	if (cli_parse_command(argc, argv, c, &o) < 0 ||
	    open_session(&o, &s, c->events, c->estimates_json && o.format != FORMAT_JSON && !o.diff) < 0)
		return EXIT_BAD_INPUT;
	int rc = run(&o, &s);
	session_close(&s);
	return rc;
}

void cli_print_diff_after(const cli_options *o, const fd_session *s)
{
	if (!o->diff)
		return;
	fputc('\n', stdout);
	cli_print_session_diff(stdout, o, s);
}

void cli_write_run_json(FILE *f, const cli_options *o, fd_session *s)
{
	estimate_attach_json(&s->current, session_estimate(s));
	explain_rounds_json_fields(f, session_rounds(s));
	if (s->rules.transposes == TRANSPOSES_ONNXRUNTIME)
		explain_transpose_json_fields(f, &s->tpose);
	fputs(",\n  \"memory\": ", f);
	estimate_write_memory_json(f, session_final_estimate(s));   /* the graph after every round */
	if (o->diff) {
		fputs(",\n  \"diff\": ", f);
		cli_print_session_diff(f, o, s);
	}
}
