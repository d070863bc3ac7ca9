/* cmd_apply.c — `fusiondbg apply MODEL -r RULES -o FUSED.onnx
 * [--set RULE.PATH=VALUE]... [--diff]`: the model with each fusion replaced
 * by one node of rewrite.target_op in the custom domain "fusiondbg.fused"
 * (rounds/fuse.h says what each fused node is, rounds/rounds.h how the
 * rounds compose, onnx/onnx_write.h how the model is written). The file is
 * written atomically; on any error nothing is written. Exit 0, 2 on bad
 * input or a failed write. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "onnx/onnx_write.h"
#include "rounds/fuse.h"
#include "session/session.h"
#include "base/text.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg apply MODEL -r RULES -o FUSED.onnx|-" CLI_USAGE_WHATIF CLI_USAGE_MODEL CLI_USAGE_ROUNDS,
	.allowed = OPT_RULES | OPT_MODEL_COMMON | OPT_OUTPUT | OPT_SET | OPT_DIFF | OPT_ROUNDS,
	.required = OPT_OUTPUT,
	.needs = "apply needs one MODEL and -o FUSED.onnx",
};

static int run(const cli_options *o, fd_session *s)
{
	if (session_model(s)->format) {
		/* the writer re-encodes the ONNX protobuf the model was read from */
		txt_fprintf(stderr, "fusiondbg: %s: apply writes ONNX and the model is a %s; match, why and export "
		            "read it, apply cannot rewrite it\n", s->opt.model_path, session_model(s)->format);
		return EXIT_BAD_INPUT;
	}
	if (s->tpose.changed) {
		/* the fusions name nodes of the graph after the transpose optimizer,
		 * which the file does not hold */
		txt_fprintf(stderr, "fusiondbg: %s: the rule set's transpose optimizer rewrote the model (%d Transposes "
		            "cancelled, %d Q/DQ removed); apply cannot write fusions over that rewrite yet\n",
		            s->opt.model_path, s->tpose.n_cancelled, s->tpose.n_qdq_removed);
		return EXIT_BAD_INPUT;
	}
	if (s->cse_first.changed || s->cse.changed) {
		/* likewise the graph after the common-subexpression elimination */
		txt_fprintf(stderr, "fusiondbg: %s: the rule set's common-subexpression elimination merged %d nodes; "
		            "apply cannot write fusions over that rewrite yet\n", s->opt.model_path,
		            s->cse_first.n_merged + s->cse.n_merged);
		return EXIT_BAD_INPUT;
	}
	fd_diags d;
	diags_init(&d);
	cli_print_diags(&s->run_diags);
	fd_rewrite rw;
	rewrite_init(&rw);
	rounds_make_all(&s->current_rounds, &d);
	rounds_final_rewrite(session_rounds(s), &rw);
	fd_write_stats st = { 0 };
	int rc = onnx_write_rewrite(session_model(s), &rw, o->output, &st, &d);
	rewrite_release(&rw);
	cli_print_diags(&d);
	diags_release(&d);
	if (rc < 0)
		return EXIT_BAD_INPUT;
	/* with -o - the model is standard output: the words go to standard error */
	bool to_stdout = !strcmp(o->output, "-");
	FILE *words = to_stdout ? stderr : stdout;
	txt_fprintf(words, "%s: %lld fused nodes; %lld nodes -> %lld (domain %s)\n", to_stdout ? "standard output" : o->output,
	        (long long)st.fused, (long long)st.nodes_before, (long long)st.nodes_after, FD_FUSED_DOMAIN);
	if (o->diff)
		cli_print_session_diff(words, o, s);
	return EXIT_OK;
}

int cmd_apply(int argc, char **argv)
{
	return cli_run_session(argc, argv, &spec, run);
}
