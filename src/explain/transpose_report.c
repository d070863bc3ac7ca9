/* transpose_report.c — what the rule set's transpose optimizer did
 * (transpose/transpose.h), in words and as JSON: the nodes it removed (a
 * cancelled Transpose and what it cancelled against; a DQ/Q of an empty
 * pair and the node whose group takes it in), the nodes it changed, the
 * Transposes it left because fusiondbg does not model where onnxruntime
 * takes them. */
#include "base/json.h"
#include "base/text.h"
#include "explain/explain.h"

static const char *const KIND_NAMES[] = {
	[TPOSE_CANCELLED] = "cancelled", [TPOSE_EMPTY_QDQ] = "empty_qdq",
	[TPOSE_CHANGED] = "changed", [TPOSE_NOT_MODELLED] = "not_modelled", [TPOSE_MOVED] = "moved",
	[TPOSE_FOLDED] = "folded",
};

const char *explain_transpose_kind(fd_tpose_kind k)
{
	return KIND_NAMES[k];
}

void explain_transpose_json_fields(FILE *f, const fd_transpose_result *r)
{
	fputs(",\n  \"transpose_optimizer\": {\"cancelled\": ", f);
	fprintf(f, "%d, \"qdq_removed\": %d, \"changed\": %d, \"not_modelled\": %d, \"events\": [",
	        r->n_cancelled, r->n_qdq_removed, r->n_changed, r->n_not_modelled);
	for (size_t k = 0; k < r->events.n; k++) {
		const fd_tpose_event *e = &r->events.items[k];
		fputs(k ? ",\n    {\"kind\": " : "\n    {\"kind\": ", f);
		json_write_string(f, KIND_NAMES[e->kind]);
		fputs(", \"node\": ", f);
		json_write_string(f, e->node);
		fputs(", \"op_type\": ", f);
		json_write_string(f, e->op_type);
		if (e->other) {
			fputs(e->kind == TPOSE_EMPTY_QDQ ? ", \"absorbed_by\": " : e->kind == TPOSE_CANCELLED
			      ? ", \"against\": " : ", \"at\": ", f);
			json_write_string(f, e->other);
		}
		if (e->kind == TPOSE_CANCELLED) {
			fputs(", \"through\": [", f);
			for (int32_t j = 0; j < e->n_through; j++) {
				if (j)
					fputs(", ", f);
				json_write_string(f, e->through[j]);
			}
			fputc(']', f);
		}
		fputs(", \"text\": ", f);
		json_write_string(f, e->text);
		fputc('}', f);
	}
	fputs(r->events.n ? "\n  ]}" : "]}", f);
}

void explain_transpose_text(FILE *f, const fd_transpose_result *r)
{
	if (!r->events.n)
		return;
	txt_fprintf(f, "transpose optimizer: %d Transposes cancelled, %d Q/DQ removed with them, %d nodes changed, "
	            "%d Transposes not modelled\n", r->n_cancelled, r->n_qdq_removed, r->n_changed, r->n_not_modelled);
	for (size_t k = 0; k < r->events.n; k++)
		txt_fprintf(f, "  %s (%s): %s\n", r->events.items[k].node, r->events.items[k].op_type,
		            r->events.items[k].text);
}
