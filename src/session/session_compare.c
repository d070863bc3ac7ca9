/* session_compare.c — whether shapes decide a comparison with a compiler's
 * optimized graph: the session's model and rules, with its applied edits,
 * run again with shapes as ONNX's own inference derives them (what
 * onnxruntime knows, `--shapes onnx`), compared with the same graph. The
 * CLI's compare and the TUI's compare view both suggest the mode from it. */
#include <string.h>
#include "explain/compare.h"
#include "session/session_internal.h"

int64_t session_differences_shapes_onnx(const fd_session *s, const fd_model *opt, const char *with)
{
	if (s->model.shapes_onnx || s->n_binds)
		return -1;   /* the mode already, or bindings an option cannot repeat */
	for (size_t i = 0; i < s->n_applied; i++)
		if (s->edits[i].added || !s->edits[i].new_text)
			return -1;   /* a rule file added, a key removed: not replayed by session_set */
	fd_session_options o = s->opt;
	o.shapes = SHAPES_ONNX;
	o.background = false;
	o.defer_run = true;
	o.no_estimates = true;
	o.no_events = true;
	fd_session s2;
	fd_diags d;
	diags_init(&d);
	int64_t n = -1;
	if (session_open(&s2, &o, &d) < 0) {
		diags_release(&d);
		return -1;
	}
	bool replayed = s2.rules.n_rules == s->rules.n_rules;   /* the same files and environment */
	for (size_t i = 0; replayed && i < s->n_applied; i++)
		replayed = session_set(&s2, s->edits[i].rule, s->edits[i].path, s->edits[i].new_text, &d) == 0;
	if (replayed && session_run(&s2) == 0) {
		rounds_make_all(&s2.current_rounds, &d);
		fd_comparison c;
		compare_init(&c);
		compare_optimized(&c, session_rounds(&s2), opt, with);
		n = (int64_t)compare_differences(&c);
		compare_release(&c);
	}
	diags_release(&d);
	session_close(&s2);
	return n;
}
