/* cmd_tui.c — `fusiondbg MODEL [-r RULES]...`: the TUI's command line,
 * parsed like every command's and handed to the TUI (ui/ui.h) as plain
 * options; --print-keys-roff and --print-default-keys print its key lists. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "../ui/ui.h"
#include "base/text.h"

static const char usage[] =
	"fusiondbg MODEL [-r RULES]..." CLI_USAGE_MODEL CLI_USAGE_ROUNDS " [--with OPTIMIZED.onnx|fusion_result.json]";

int cmd_tui(int argc, char **argv)
{
	if (argc >= 1 && !strcmp(argv[0], "--print-keys-roff")) {
		tui_print_keys_roff(stdout);
		return EXIT_OK;
	}
	if (argc >= 1 && !strcmp(argv[0], "--print-default-keys")) {
		tui_print_default_keys(stdout);
		return EXIT_OK;
	}
	cli_options o;
	if (cli_parse(argc, argv, OPT_RULES | OPT_MODEL_COMMON | OPT_ROUNDS | OPT_WITH, usage, &o) < 0)
		return EXIT_BAD_INPUT;
	if (!o.model || o.n_positional != 1) {
		txt_fprintf(stderr, "fusiondbg: the TUI takes one MODEL\nusage: %s\n", usage);
		return EXIT_BAD_INPUT;
	}
	tui_options to = {
		.model = o.model, .rules = o.rules, .n_rules = o.n_rules, .dims = o.dims, .n_dims = o.n_dims,
		.values = o.values, .n_values = o.n_values, .input_shapes = o.input_shapes,
		.n_input_shapes = o.n_input_shapes, .shapes = o.shapes,
		.target = o.target, .no_canonicalize = o.no_canonicalize, .initializers = o.initializers,
		.max_rounds = o.max_rounds, .passes = o.passes, .compare_with = o.with, .fusion_switch = o.fusion_switch,
	};
	return tui_run(&to);
}
