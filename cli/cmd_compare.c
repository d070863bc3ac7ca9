/* cmd_compare.c — `fusiondbg compare MODEL -r RULES --with FILE`: where a
 * real compiler's result and fusiondbg's prediction differ (explain/
 * compare.h). FILE is the compiler's optimized graph (onnxruntime's
 * optimizedModelFilePath output), CANN's fusion_result.json or a GE graph
 * dump (told apart by content: a JSON value, a dump as ge_detect knows
 * one, else an ONNX model); --graph S_G picks one graph
 * of a fusion_result.json that holds several. Exit 0 when they agree, 1
 * when they differ, 2 on bad usage or unreadable input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "base/input_file.h"
#include "explain/compare.h"
#include "ge/ge.h"
#include "onnx/onnx.h"
#include "session/session.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg compare MODEL -r RULES --with OPTIMIZED.onnx|fusion_result.json|ge_proto_DUMP.txt [--graph S_G] [--differences] [--format text|json]"
	         CLI_USAGE_MODEL CLI_USAGE_ROUNDS CLI_USAGE_WHATIF,
	.allowed = OPT_RULES | OPT_MODEL_COMMON | OPT_WITH | OPT_FORMAT | OPT_SET | OPT_DIFF | OPT_ROUNDS | OPT_DIFFERENCES | OPT_GRAPH,
	.needs = "compare needs one MODEL and --with FILE",
	.events = true,
};

/* A JSON file starts with '{' or '[' after blanks; an ONNX model never does
 * (its first byte is a protobuf field tag). */
static bool looks_json(const char *text, size_t size)
{
	size_t k = 0;
	if (size >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		k = 3;
	while (k < size && strchr(" \t\r\n", text[k]))
		k++;
	return k < size && (text[k] == '{' || text[k] == '[');
}

static int run(const cli_options *o, fd_session *s)
{
	if (!o->with) {
		cli_usage_error(spec.usage, "%s", spec.needs);
		return EXIT_BAD_INPUT;
	}
	fd_diags d;
	diags_init(&d);
	size_t size;
	char *text = input_read(o->with, &INPUT_LIMIT_COMPARE, &size, &d);
	if (!text) {
		cli_print_diags(&d);
		diags_release(&d);
		return EXIT_BAD_INPUT;
	}
	rounds_make_all(&s->current_rounds, &d);
	fd_comparison c;
	compare_init(&c);
	c.differences_only = o->differences;
	int rc = 0;
	fd_model opt;
	fd_cann_records recs;
	bool json = looks_json(text, size), have_opt = false, have_recs = false;
	bool dump = !json && ge_detect(text, size) == GE_FORMAT_MODELDEF;
	if (o->graph && !json) {
		free(text);
		compare_release(&c);
		diags_release(&d);
		cli_usage_error(spec.usage, "--graph picks a graph of a fusion_result.json; %s is a model", o->with);
		return EXIT_BAD_INPUT;
	}
	if (json) {
		rc = cann_records_read(&recs, o->with, text, size, &d);
		have_recs = rc == 0;
		if (rc == 0)
			rc = compare_record(&c, session_rounds(s), &recs, o->graph, &d);
	} else if (dump) {
		fd_load_options lo = { 0 };
		rc = ge_load_model_buffer(&opt, o->with, text, size, &lo, &d);
		have_opt = rc == 0;
		if (rc == 0)
			compare_dump(&c, session_rounds(s), &opt, o->with);
	} else {
		/* onnxruntime writes some initializers of a model with If twice */
		fd_load_options lo = { .dims = o->dims, .n_dims = o->n_dims, .identical_duplicates = true };
		rc = onnx_load_model_buffer(&opt, o->with, text, size, &lo, &d);
		have_opt = rc == 0;
		if (rc == 0) {
			compare_optimized(&c, session_rounds(s), &opt, o->with);
			int64_t left = compare_differences(&c) ? session_differences_shapes_onnx(s, &opt, o->with) : -1;
			if (left >= 0 && (size_t)left < compare_differences(&c))
				c.differences_shapes_onnx = left;
		}
	}
	free(text);
	cli_print_diags(&d);
	diags_release(&d);
	if (rc == 0) {
		if (o->format == FORMAT_JSON)
			compare_write_json(stdout, &c, session_rounds(s));
		else
			compare_write_text(stdout, &c, session_rounds(s));
		rc = compare_differences(&c) ? EXIT_FINDINGS : EXIT_OK;
		cli_print_diff_after(o, s);
	} else {
		rc = EXIT_BAD_INPUT;
	}
	compare_release(&c);
	if (have_opt)
		model_release(&opt);
	if (have_recs)
		cann_records_release(&recs);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	return cli_run_session(argc, argv, &spec, run);
}
