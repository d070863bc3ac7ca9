/* info_dump.c — what info says of a GE graph dump in place of an ONNX
 * model's header and unknown ops: its graph's name, the stage GE wrote it
 * at (from the file name DUMP_GE_GRAPH gives it, ge_proto_<index>_<stage>
 * .txt), and its op types with the ONNX operators CANN's parser makes each
 * from (ir/ge_optypes.h) — a GE type is not an unknown ONNX op. */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "base/json.h"
#include "base/text.h"
#include "cli.h"
#include "ir/ge_optypes.h"
#include "ir/model_info.h"

/* The stage and index of a dump's file name, "" when it is not GE's. */
static void dump_stage(const char *path, char *stage, size_t stage_size, char *index, size_t index_size)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	stage[0] = index[0] = '\0';
	if (strncmp(base, "ge_proto_", 9))
		return;
	const char *p = base + 9, *digits = p;
	while (isdigit((unsigned char)*p))
		p++;
	if (p == digits || *p != '_')
		return;
	snprintf(index, index_size, "%.*s", (int)(p - digits), digits);
	const char *dot = strrchr(++p, '.');
	snprintf(stage, stage_size, "%.*s", (int)(dot ? dot - p : (ptrdiff_t)strlen(p)), p);
}

/* Whether op is one of list's ", "-separated names. */
static bool listed(const char *list, const char *op)
{
	size_t n = strlen(op);
	for (const char *p = list; *p;) {
		const char *q = strstr(p, ", ");
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if (len == n && !strncmp(p, op, n))
			return true;
		p += len + (q ? 2 : 0);
	}
	return false;
}

/* The ONNX operators CANN's parser makes type from, ", " between, into buf
 * ("" when none does: GE's own). */
static const char *onnx_origins(const char *type, char *buf, size_t size)
{
	size_t n, used = 0;
	const ge_optype_row *rows = ge_optype_rows(&n);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (strcmp(rows[i].registered, type) && (!rows[i].compute || strcmp(rows[i].compute, type)))
			continue;
		if (listed(buf, rows[i].onnx_op))
			continue;   /* the same op at another opset */
		int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", rows[i].onnx_op);
		if (w < 0 || (size_t)w >= size - used) {
			buf[used] = '\0';
			break;
		}
		used += (size_t)w;
	}
	return buf;
}

void cli_info_dump_header_text(FILE *f, const char *path, const fd_model *m)
{
	char stage[256], index[32];
	dump_stage(path, stage, sizeof stage, index, sizeof index);
	txt_fprintf(f, "%-16s %s\n", "graph", m->n_graphs ? m->graphs[0].name : "");
	if (stage[0])
		txt_fprintf(f, "%-16s %s (dump %s, from the file name)\n", "stage", stage, index);
}

void cli_info_dump_types_text(FILE *f, const struct fd_model_info *in, int kw)
{
	txt_fprintf(f, "\nop types (GE's, %d; the ONNX operators CANN's parser makes each from)\n", in->n_histogram);
	for (int32_t i = 0; i < in->n_histogram; i++) {
		char from[512];
		onnx_origins(in->histogram[i].op_type, from, sizeof from);
		txt_fprintf(f, "  %-*s %6lld  %s\n", kw, in->histogram[i].key, (long long)in->histogram[i].count,
		            from[0] ? from : "(GE's own: no ONNX operator)");
	}
}

void cli_info_dump_json(FILE *f, const char *path, const fd_model *m, const struct fd_model_info *in)
{
	char stage[256], index[32];
	dump_stage(path, stage, sizeof stage, index, sizeof index);
	fputs(",\n  \"ge_graph\": ", f);
	json_write_string(f, m->n_graphs ? m->graphs[0].name : "");
	fputs(",\n  \"ge_stage\": ", f);
	if (stage[0])
		json_write_string(f, stage);
	else
		fputs("null", f);
	fputs(",\n  \"ge_op_types\": [", f);
	for (int32_t i = 0; i < in->n_histogram; i++) {
		char from[512];
		onnx_origins(in->histogram[i].op_type, from, sizeof from);
		fprintf(f, "%s\n    {\"type\": ", i ? "," : "");
		json_write_string(f, in->histogram[i].op_type);
		fprintf(f, ", \"count\": %lld, \"onnx\": [", (long long)in->histogram[i].count);
		for (char *p = from, *q; *p; p = q + (*q ? 2 : 0)) {
			q = strstr(p, ", ");
			if (!q)
				q = p + strlen(p);
			fprintf(f, "%s\"%.*s\"", p == from ? "" : ", ", (int)(q - p), p);
		}
		fputs("]}", f);
	}
	fprintf(f, "%s]", in->n_histogram ? "\n  " : "");
}
