/* main.c — command dispatch. Each command lives in its own cmd_*.c file. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static const struct command {
	const char *name;
	cli_command_fn run;
	const char *summary;
} commands[] = {
	{ "info",   cmd_info,   "model facts: opsets, nodes, op histogram, shape coverage" },
	{ "verify", cmd_verify, "rule files: YAML and schema, file:line:col errors" },
	{ "check",  cmd_check,  "rule files: lint (unknown ops, params, constraints, priorities)" },
	{ "match",  cmd_match,  "run the rules: fusions, match/effect times, rejections, --trace" },
	{ "why",    cmd_why,    "why a rule did not fire on a node, in one line, then the detail" },
	{ "mem",    cmd_mem,    "memory per fusion and graph peak before -> after, speed-up estimates" },
	{ "apply",  cmd_apply,  "write the fused model: each fusion one custom-domain node" },
	{ "export", cmd_export, "draw the graph: DOT / PNG / SVG, every fusion an annotated cluster" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: fusiondbg MODEL [-r RULES]...     open the TUI\n"
	           "       fusiondbg COMMAND [ARGS]           batch mode\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nSee fusiondbg(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_BAD_INPUT;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 2, argv + 2);
	/* no command word: MODEL [-r RULES]... opens the TUI (ui/tui.c) */
	if (!strncmp(argv[1], "--print-keys", 12) || !strcmp(argv[1], "--print-default-keys") ||
	    access(argv[1], F_OK) == 0)
		return tui_main(argc, argv);
	fprintf(stderr, "fusiondbg: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_BAD_INPUT;
}
