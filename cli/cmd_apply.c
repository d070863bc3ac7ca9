/* cmd_apply.c — `fusiondbg apply MODEL -r RULES -o FUSED.onnx
 * [--set RULE.PATH=VALUE]... [--diff]`: the model with each fusion replaced
 * by one node of rewrite.target_op in the custom domain "fusiondbg.fused"
 * (export/apply.h says what each fused node is, onnx/onnx_write.h how the
 * model is written). The file is written atomically; on any error nothing
 * is written. Exit 0, 2 on bad input or a failed write. */
#include <stdio.h>
#include "cli.h"
#include "export/apply.h"
#include "onnx/onnx_write.h"
#include "session/session.h"

static const char usage[] =
	"fusiondbg apply MODEL -r RULES -o FUSED.onnx [--set RULE.PATH=VALUE]... [--diff]"
	" [--target T] [--dim N=V] [--no-canonicalize]";

int cmd_apply(int argc, char **argv)
{
	cli_options o;
	if (cli_parse(argc, argv, OPT_RULES | OPT_MODEL_COMMON | OPT_OUTPUT | OPT_SET | OPT_DIFF, usage, &o) < 0)
		return EXIT_BAD_INPUT;
	if (!o.model || o.n_positional != 1 || !o.output) {
		fprintf(stderr, "fusiondbg: apply needs one MODEL and -o FUSED.onnx\nusage: %s\n", usage);
		return EXIT_BAD_INPUT;
	}
	fd_session s;
	if (cli_open_session(&o, &s, false) < 0)
		return EXIT_BAD_INPUT;
	fd_diags d;
	diags_init(&d);
	fd_rewrite rw;
	rewrite_init(&rw);
	apply_rewrite(session_result(&s), &rw, &d);
	fd_write_stats st = { 0 };
	int rc = onnx_write_rewrite(session_model(&s), &rw, o.output, &st, &d);
	rewrite_release(&rw);
	cli_print_diags(&d);
	diags_release(&d);
	if (rc == 0) {
		printf("%s: %lld fused nodes; %lld nodes -> %lld (domain %s)\n", o.output, (long long)st.fused,
		       (long long)st.nodes_before, (long long)st.nodes_after, FD_FUSED_DOMAIN);
		if (o.diff)
			cli_print_session_diff(stdout, &o, &s);
	}
	session_close(&s);
	return rc == 0 ? EXIT_OK : EXIT_BAD_INPUT;
}
