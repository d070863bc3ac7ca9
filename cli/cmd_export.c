/* cmd_export.c — `fusiondbg export MODEL -r RULES -o FILE.{dot,png,svg}
 * [--memory-chart FILE.{svg,png,dot}]`: runs the rules and draws the graph
 * with every fusion as a labelled cluster, and / or the main graph's memory
 * timeline as a chart (export.h does the drawing; this file parses options
 * and prints); with --baseline FLOAT.onnx the chart sets this model's
 * timeline beside the baseline's.
 * Exit 0; 2 on bad usage, unreadable input or a failed export. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "estimate/estimate.h"
#include "export/export.h"
#include "match/match.h"
#include "ruleset/ruleset.h"
#include "session/session.h"
#include "base/text.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg export MODEL -r RULES -o FILE.{dot,png,svg}|- [--format dot|svg|png] [--after] "
	         "[--around NODE --depth K] [--rule NAME] [--near-misses] [--constants] [--fusion-dots [--dots-dir DIR]] "
	         "[--max-nodes N] [--max-side PX] [--memory-chart FILE.{svg,png,dot} [--baseline FLOAT.onnx]] "
	         "[--set RULE.PATH=VALUE]..." CLI_USAGE_MODEL CLI_USAGE_ROUNDS " [--peak-warn BYTES]",
	.allowed = OPT_RULES | OPT_MODEL_COMMON | OPT_OUTPUT | OPT_AFTER | OPT_AROUND | OPT_DEPTH | OPT_RULE |
	           OPT_NEAR | OPT_PEAKWARN | OPT_SET | OPT_CONSTANTS | OPT_FUSIONDOTS | OPT_MAXNODES | OPT_FORMAT |
	           OPT_DOTSDIR | OPT_MAXSIDE | OPT_ROUNDS | OPT_MEMCHART | OPT_BASELINE,
	.needs = "export needs one MODEL",
};

/* The memory chart. A model left partly bound (the length bound, batch
 * not) has steps that do not scale alike by the symbol left: it is drawn
 * with every unbound symbol at 1 (export_session_memory_chart), the chart
 * and the message saying so. */
static int memory_chart(const cli_options *o, fd_session *ss, FILE *words, fd_diags *d)
{
	char at[256], bind[256];
	int n_at;
	if (export_session_memory_chart(ss, o->memory_chart, at, sizeof at, bind, sizeof bind, &n_at, d) < 0)
		return -1;
	if (!n_at)
		txt_fprintf(words, "wrote %s (memory timeline)\n", o->memory_chart);
	else
		txt_fprintf(words, "wrote %s (memory timeline at %s: not bound, the steps do not scale alike by %s;%s "
		            "draws another)\n", o->memory_chart, at, n_at > 1 ? "them" : "it", bind);
	return 0;
}

int cmd_export(int argc, char **argv)
{
	cli_options o;
	if (cli_parse_command(argc, argv, &spec, &o) < 0)
		return EXIT_BAD_INPUT;
	if (!o.output && !o.memory_chart) {
		cli_usage_error(spec.usage, "export needs -o FILE or --memory-chart FILE");
		return EXIT_BAD_INPUT;
	}
	if (o.memory_chart) {
		fd_export_format cf;
		if (export_format_from_path(o.memory_chart, &cf) < 0) {
			txt_fprintf(stderr, "fusiondbg: %s: the memory chart's name must end in .svg, .png or .dot\n",
			        o.memory_chart);
			return EXIT_BAD_INPUT;
		}
	}
	if (o.baseline && !o.memory_chart) {   /* the picture of the graph has no baseline: say so */
		cli_usage_error(spec.usage, "--baseline compares memory timelines: give --memory-chart FILE too");
		return EXIT_BAD_INPUT;
	}
	if (o.depth_given && !o.node && !o.rule) {   /* a whole picture has no depth: say so, do not ignore it */
		cli_usage_error(spec.usage, "--depth %d draws K steps around something: give --around NODE or --rule NAME",
		                o.depth);
		return EXIT_BAD_INPUT;
	}
	fd_export_options eo;
	export_options_init(&eo);
	/* --format, else the name's extension; standard output (-o -) is DOT by default */
	bool to_stdout = o.output && !strcmp(o.output, "-");
	if (o.format_given)
		eo.format = o.format == FORMAT_SVG ? EXPORT_SVG : o.format == FORMAT_PNG ? EXPORT_PNG : EXPORT_DOT;
	else if (to_stdout || !o.output)
		eo.format = EXPORT_DOT;
	else if (export_format_from_path(o.output, &eo.format) < 0) {
		txt_fprintf(stderr, "fusiondbg: %s: unknown picture format; the name must end in .dot, .gv, "
		        ".png or .svg (or give --format)\n", o.output);
		return EXIT_BAD_INPUT;
	}
	eo.dots_dir = o.dots_dir;
	eo.after = o.after;
	eo.near_misses = o.near_misses;
	eo.show_constants = o.constants;
	eo.around = o.node;
	eo.depth = o.depth;
	eo.rule = o.rule;
	eo.max_layout_nodes = o.max_nodes_given ? (o.max_nodes ? o.max_nodes : -1) : 0;
	/* --max-side N: pages of at most N px; --max-side 0: no pages, a PNG
	 * too tall for the default side is refused (for scripts that want one file) */
	eo.max_side_px = o.max_side_given ? o.max_side : 0;
	eo.no_pages = o.max_side_given && !o.max_side;
	fd_export_files pages = { 0 };
	eo.pages = &pages;

	/* the what-if session runs the rules (with --set edits) and the estimates;
	 * the trace's events are kept only when near misses need their words */
	fd_session ss;
	if (cli_open_session(&o, &ss, o.near_misses) < 0)
		return EXIT_BAD_INPUT;
	/* with rounds, the final fusions of every round (near misses read round 1's trace) */
	const fd_match_result *r = o.near_misses ? session_result(&ss) : session_final_result(&ss);
	eo.estimate = o.near_misses ? session_estimate(&ss) : session_final_estimate(&ss);
	fd_diags d;
	diags_init(&d);

	int rc = EXIT_OK;
	/* with -o - the picture is standard output: the words go to standard error */
	FILE *words = to_stdout ? stderr : stdout;
	if (o.output && export_graph(r, &eo, o.output, &d) < 0)
		rc = EXIT_BAD_INPUT;
	else if (o.output && pages.n)
		for (size_t i = 0; i < pages.n; i++)
			txt_fprintf(words, "wrote %s (page %zu of %zu: %s is taller than --max-side)\n", pages.paths[i], i + 1,
			            pages.n, o.output);
	else if (o.output)
		txt_fprintf(words, "wrote %s\n", to_stdout ? "standard output" : o.output);
	export_files_release(&pages);
	if (rc == EXIT_OK && o.memory_chart && o.baseline) {
		fd_session base;
		if (cli_open_baseline(&o, &base) < 0)
			rc = EXIT_BAD_INPUT;
		else {
			if (export_memory_chart_compare(session_final_estimate(&ss), session_final_estimate(&base),
			                                o.memory_chart, &d) < 0)
				rc = EXIT_BAD_INPUT;
			else
				txt_fprintf(words, "wrote %s (memory timeline against %s)\n", o.memory_chart, o.baseline);
			session_close(&base);
		}
	} else if (rc == EXIT_OK && o.memory_chart) {
		if (memory_chart(&o, &ss, words, &d) < 0)
			rc = EXIT_BAD_INPUT;
	}
	if (rc == EXIT_OK && o.fusion_dots) {
		fd_export_files files = { 0 };
		int n = export_fusion_dots(r, &eo, &files, &d);
		for (size_t i = 0; i < files.n; i++)
			txt_fprintf(words, "wrote %s (gen_dot_graph)\n", files.paths[i]);
		if (n < 0)
			rc = EXIT_BAD_INPUT;
		export_files_release(&files);
	} else if (rc == EXIT_OK) {
		size_t pending = export_fusion_dots_pending(r, &eo);
		if (pending)
			txt_fprintf(stderr, "fusiondbg: note: rules ask for %zu per-fusion DOT file%s "
			        "(output.gen_dot_graph); add --fusion-dots to write them\n",
			        pending, pending == 1 ? "" : "s");
	}
	cli_print_diags(&d);
	diags_release(&d);
	session_close(&ss);
	return rc;
}
