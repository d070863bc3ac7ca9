/* cmd_export.c — `fusiondbg export MODEL -r RULES -o FILE.{dot,png,svg}`:
 * runs the rules and draws the graph with every fusion as a labelled cluster
 * (export.h does the drawing; this file parses options and prints).
 * Options of export alone, taken out of argv before the shared parser:
 *   --fusion-dots     also write the per-fusion DOTs that rules ask for with
 *                     output.gen_dot_graph (into their dot_graph_path)
 *   --constants       draw weight / constant-only nodes too
 *   --max-nodes N     PNG/SVG layout limit (0: none)
 * Exit 0; 2 on bad usage, unreadable input or a failed export. Owner: h8. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "estimate.h"
#include "export.h"
#include "match.h"
#include "rules.h"
#include "session.h"

static const char usage[] =
	"fusiondbg export MODEL -r RULES -o FILE.{dot,png,svg} [--after] [--around NODE --depth K] "
	"[--rule NAME] [--near-misses] [--constants] [--fusion-dots] [--max-nodes N] "
	"[--set RULE.PATH=VALUE]... [--target T] [--dim N=V] [--no-canonicalize] [--peak-warn BYTES]";

typedef struct export_flags {
	bool fusion_dots, constants;
	int max_nodes;
	bool max_nodes_given;
} export_flags;

/* Removes export's own options from argv; -1 on a bad value. */
static int take_flags(int *argc, char **argv, export_flags *fl)
{
	int out = 0;
	for (int i = 0; i < *argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if (!strcmp(a, "--fusion-dots")) {
			fl->fusion_dots = true;
		} else if (!strcmp(a, "--constants")) {
			fl->constants = true;
		} else if (!strcmp(a, "--max-nodes") || !strncmp(a, "--max-nodes=", 12)) {
			const char *v = a[11] == '=' ? a + 12 : i + 1 < *argc ? argv[++i] : NULL;
			char *end;
			long n = v ? strtol(v, &end, 10) : -1;
			if (!v || end == v || *end || n < 0 || n > 100000000) {
				fprintf(stderr, "fusiondbg: --max-nodes wants a number >= 0\nusage: %s\n", usage);
				return -1;
			}
			fl->max_nodes = (int)n;
			fl->max_nodes_given = true;
		} else {
			argv[out++] = argv[i];
		}
	}
	*argc = out;
	return 0;
}

int cmd_export(int argc, char **argv)
{
	export_flags fl = { 0 };
	char **args = malloc(((size_t)argc + 1) * sizeof *args);
	memcpy(args, argv, (size_t)argc * sizeof *args);
	cli_options o;
	if (take_flags(&argc, args, &fl) < 0 ||
	    cli_parse(argc, args, OPT_RULES | OPT_MODEL_COMMON | OPT_OUTPUT | OPT_AFTER | OPT_NODE |
	              OPT_DEPTH | OPT_RULE | OPT_NEAR | OPT_PEAKWARN | OPT_SET, usage, &o) < 0) {
		free(args);
		return EXIT_BAD_INPUT;
	}
	if (!o.model || o.n_positional != 1 || !o.output) {
		fprintf(stderr, "fusiondbg: export needs one MODEL and -o FILE\nusage: %s\n", usage);
		free(args);
		return EXIT_BAD_INPUT;
	}
	fd_export_options eo;
	export_options_init(&eo);
	if (export_format_from_path(o.output, &eo.format) < 0) {
		fprintf(stderr, "fusiondbg: %s: unknown picture format; the name must end in .dot, .gv, "
		        ".png or .svg\n", o.output);
		free(args);
		return EXIT_BAD_INPUT;
	}
	eo.after = o.after;
	eo.near_misses = o.near_misses;
	eo.show_constants = fl.constants;
	eo.around = o.node;
	eo.depth = o.depth;
	eo.rule = o.rule;
	eo.max_layout_nodes = fl.max_nodes_given ? (fl.max_nodes ? fl.max_nodes : -1) : 0;

	/* the what-if session runs the rules (with --set edits) and the estimates;
	 * the trace's events are kept only when near misses need their words */
	fd_session ss;
	if (cli_open_session(&o, &ss, o.near_misses) < 0) {
		free(args);
		return EXIT_BAD_INPUT;
	}
	const fd_match_result *r = session_result(&ss);
	eo.estimate = session_estimate(&ss);
	fd_diags d;
	diags_init(&d);

	int rc = EXIT_OK;
	if (export_graph(r, &eo, o.output, &d) < 0)
		rc = EXIT_BAD_INPUT;
	else
		printf("wrote %s\n", o.output);
	if (rc == EXIT_OK && fl.fusion_dots) {
		fd_export_files files = { 0 };
		int n = export_fusion_dots(r, &eo, &files, &d);
		for (size_t i = 0; i < files.n; i++)
			printf("wrote %s (gen_dot_graph)\n", files.paths[i]);
		if (n < 0)
			rc = EXIT_BAD_INPUT;
		export_files_release(&files);
	} else if (rc == EXIT_OK) {
		size_t pending = export_fusion_dots_pending(r, &eo);
		if (pending)
			fprintf(stderr, "fusiondbg: note: rules ask for %zu per-fusion DOT file%s "
			        "(output.gen_dot_graph); add --fusion-dots to write them\n",
			        pending, pending == 1 ? "" : "s");
	}
	cli_print_diags(&d);
	diags_release(&d);
	session_close(&ss);
	free(args);
	return rc;
}
