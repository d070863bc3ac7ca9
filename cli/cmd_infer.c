/* cmd_infer.c — `fusiondbg infer MODEL -o OUT.onnx [--dim NAME=V]
 * [--input-shape SPEC]`: the model with every inferred shape in value_info
 * (symbols and expressions as dim_param; onnx/onnx_write.h says what goes
 * where), so that Netron and the onnx tools show them. Bound symbols are
 * written as numbers: with bindings, the model is made static. The file is
 * written atomically; -o - writes the model to standard output (and the
 * words to standard error). Exit 0, 2 on bad input or a failed write. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "base/text.h"
#include "onnx/onnx_write.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg infer MODEL -o OUT.onnx [--dim NAME=V] [--input-shape SPEC]",
	.allowed = OPT_DIM | OPT_INPUTSHAPE | OPT_OUTPUT,
	.required = OPT_OUTPUT,
	.needs = "infer needs one MODEL and -o OUT.onnx",
};

int cmd_infer(int argc, char **argv)
{
	cli_options o;
	fd_model m;
	if (cli_parse_and_load(argc, argv, &spec, &o, &m))
		return EXIT_BAD_INPUT;
	fd_diags d;
	diags_init(&d);
	fd_infer_stats st = { 0 };
	int rc = onnx_write_inferred(&m, o.output, &st, &d);
	cli_print_diags(&d);
	diags_release(&d);
	/* with -o - the model is standard output: the words go to standard error */
	FILE *words = strcmp(o.output, "-") ? stdout : stderr;
	if (rc == 0) {
		txt_fprintf(words, "%s: %lld value_info entries, %lld dims as expressions or symbols, %lld unknown\n",
		        strcmp(o.output, "-") ? o.output : "standard output", (long long)st.value_infos,
		        (long long)st.symbolic_dims, (long long)st.unknown_dims);
		const char *unbound[16];
		int n = model_unbound_symbols(&m, unbound, 16);
		if (n) {
			txt_fprintf(words, "unbound symbols (written as dim_param):");
			for (int i = 0; i < n && i < 16; i++)
				txt_fprintf(words, " %s", unbound[i]);
			fputc('\n', words);
		}
	}
	model_release(&m);
	return rc < 0 || fflush(stdout) ? EXIT_BAD_INPUT : EXIT_OK;
}
