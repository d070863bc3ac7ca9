/* cmd_info.c — `fusiondbg info MODEL [--format text|json] [--dim NAME=V]`:
 * prints what model_info_compute found, as aligned text or as JSON with the
 * stable keys of fusiondbg(1), OPTIONS --format (ir_version, opsets, nodes, nodes_total,
 * op_histogram, tensors, shape_coverage, unknown_ops) plus producer, graphs,
 * tensor_kinds, constants, inputs, outputs and symbolic_dims. */
#include <stdio.h>
#include <string.h>
#include "base/json.h"
#include "cli.h"
#include "ir/model_info.h"
#include "ir/onnx_ops.h"
#include "base/units.h"
#include "base/text.h"

static const cli_command_spec spec = {
	.usage = "fusiondbg info MODEL [--tensors] [--format text|json] [--dim NAME=VALUE] [--input-shape SPEC]",
	.allowed = OPT_FORMAT | OPT_MODEL_COMMON | OPT_TENSORS,
	.needs = "info wants exactly one MODEL",
};

static const char *human_size(int64_t bytes, char *buf, size_t size)
{
	const char *unit;
	double v = units_scale_bytes(bytes, 3, &unit);
	snprintf(buf, size, v != (double)bytes ? "%.1f %s" : "%.0f %s", v, unit);
	return buf;
}

static void json_values(FILE *f, const char *key, const fd_value_info *v, int32_t n)
{
	char shape[1024];
	fprintf(f, "  \"%s\": [", key);
	for (int32_t i = 0; i < n; i++) {
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		json_write_string(f, v[i].name);
		fprintf(f, ", \"dtype\": \"%s\", \"shape\": ", dtype_name(v[i].dtype));
		json_write_string(f, shape_format_json(v[i].shape, shape, sizeof shape));
		fputc('}', f);
	}
	fprintf(f, "%s],\n", n ? "\n  " : "");
}

static void print_json(FILE *f, const char *path, const fd_model_info *in, const fd_model *m)
{
	fputs("{\n  \"model\": ", f);
	json_write_string(f, path);
	fprintf(f, ",\n  \"ir_version\": %lld,\n  \"opsets\": {", (long long)in->ir_version);
	for (int32_t i = 0; i < in->n_opsets; i++) {
		fputs(i ? ", " : "", f);
		json_write_string(f, onnx_domain_name(in->opsets[i].domain));
		fprintf(f, ": %lld", (long long)in->opsets[i].version);
	}
	fputs("},\n  \"producer\": {\"name\": ", f);
	json_write_string(f, in->producer_name);
	fputs(", \"version\": ", f);
	json_write_string(f, in->producer_version);
	fprintf(f, "},\n  \"file_size\": %lld,\n  \"graphs\": %d,\n  \"nodes\": %lld,\n  \"nodes_total\": %lld,\n",
	        (long long)in->file_size, in->graphs, (long long)in->nodes, (long long)in->nodes_total);
	fputs("  \"op_histogram\": {", f);
	for (int32_t i = 0; i < in->n_histogram; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		json_write_string(f, in->histogram[i].key);
		fprintf(f, ": %lld", (long long)in->histogram[i].count);
	}
	fprintf(f, "%s},\n  \"tensors\": %lld,\n  \"tensor_kinds\": {", in->n_histogram ? "\n  " : "",
	        (long long)in->tensors);
	for (int k = 0; k <= TENSOR_OUTER_SCOPE; k++)
		fprintf(f, "%s\"%s\": %lld", k ? ", " : "", tensor_kind_name((fd_tensor_kind)k),
		        (long long)in->tensors_by_kind[k]);
	fprintf(f, "},\n  \"constants\": %lld,\n  \"external_tensors\": %lld,\n",
	        (long long)in->constants, (long long)in->external_tensors);
	fprintf(f, "  \"shape_coverage\": {\"known\": %lld, \"total\": %lld},\n",
	        (long long)in->shape_coverage.known, (long long)in->shape_coverage.total);
	json_values(f, "inputs", in->inputs, in->n_inputs);
	fprintf(f, "  \"declared_inputs\": %d,\n  \"overridable_initializers\": %d,\n",
	        in->n_declared_inputs, in->n_overridable);
	json_values(f, "initializers_listed_as_inputs", in->listed_initializers, in->n_listed_initializers);
	json_values(f, "outputs", in->outputs, in->n_outputs);
	/* a GE dump's types are GE's, not unknown ONNX ops: ge_op_types lists them */
	int32_t n_unknown = m->format ? 0 : in->n_unknown_ops;
	fputs("  \"unknown_ops\": [", f);
	for (int32_t i = 0; i < n_unknown; i++) {
		fputs(i ? ",\n    {\"domain\": " : "\n    {\"domain\": ", f);
		json_write_string(f, onnx_domain_name(in->unknown_ops[i].domain));
		fputs(", \"op_type\": ", f);
		json_write_string(f, in->unknown_ops[i].op_type);
		fprintf(f, ", \"count\": %lld}", (long long)in->unknown_ops[i].count);
	}
	fprintf(f, "%s],\n  \"symbolic_dims\": [", n_unknown ? "\n  " : "");
	for (int32_t i = 0; i < in->n_symdims; i++) {
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
		json_write_string(f, in->symdims[i].name);
		if (in->symdims[i].bound)
			fprintf(f, ", \"value\": %lld", (long long)in->symdims[i].value);
		else
			fputs(", \"value\": null", f);
		fprintf(f, ", \"bound\": %s, \"used\": %s}", in->symdims[i].bound ? "true" : "false",
		        in->symdims[i].used ? "true" : "false");
	}
	fprintf(f, "%s]", in->n_symdims ? "\n  " : "");
	if (m->format) {
		cli_info_dump_json(f, path, m, in);
		cli_info_compiler_json(f, m);
	}
	fputs("\n}\n", f);
}

static int name_width(const fd_value_info *v, int32_t n, int w)
{
	for (int32_t i = 0; i < n; i++)
		if ((int)strlen(v[i].name) > w)
			w = (int)strlen(v[i].name);
	return w;
}

static void text_values(FILE *f, const char *title, const fd_value_info *v, int32_t n, int w)
{
	char shape[1024];
	txt_fprintf(f, "\n%s\n", title);
	for (int32_t i = 0; i < n; i++)
		txt_fprintf(f, "  %-*s  %-9s %s\n", w, v[i].name, dtype_name(v[i].dtype),
		        shape_format(v[i].shape, shape, sizeof shape));
	if (!n)
		txt_fprintf(f, "  (none)\n");
}

/* What the initializers listed as inputs are (ONNX IR "Graphs"): defaults
 * the caller may override from IR 4 on, constants before. */
static const char *listed_initializers_words(const fd_model_info *in)
{
	if (in->n_overridable == in->n_listed_initializers)
		return "overridable defaults, not constants";
	if (in->n_overridable)
		return "some overridable defaults";
	return in->ir_version < 4 ? "constants: IR < 4 lists every initializer"
	                          : "held constant: --initializers constant";
}

/* A few of them by name (a model may list hundreds), then how many more. */
enum { LISTED_SHOWN = 8 };
static void text_listed_initializers(FILE *f, const fd_model_info *in, int w)
{
	int32_t n = in->n_listed_initializers < LISTED_SHOWN ? in->n_listed_initializers : LISTED_SHOWN;
	char title[96];
	snprintf(title, sizeof title, "initializers listed as inputs (%s)", listed_initializers_words(in));
	text_values(f, title, in->listed_initializers, n, w);
	if (in->n_listed_initializers > n)
		txt_fprintf(f, "  … and %d more (--format json lists every one)\n", in->n_listed_initializers - n);
}

static void print_text(FILE *f, const char *path, const fd_model_info *in, const fd_model *m)
{
	char size[32];
	txt_fprintf(f, "%-16s %s (%s)\n", "model", path, human_size(in->file_size, size, sizeof size));
	if (m->format) {   /* a GE dump: no ONNX version or opsets to speak of */
		txt_fprintf(f, "%-16s %s\n", "format", m->format);
		cli_info_dump_header_text(f, path, m);
	} else {
		txt_fprintf(f, "%-16s %lld\n", "ir_version", (long long)in->ir_version);
		txt_fprintf(f, "%-16s", "opsets");
		for (int32_t i = 0; i < in->n_opsets; i++)
			txt_fprintf(f, "%s %s %lld", i ? "," : "", onnx_domain_name(in->opsets[i].domain),
			        (long long)in->opsets[i].version);
		fputc('\n', f);
	}
	txt_fprintf(f, "%-16s %s %s\n", "producer", in->producer_name, in->producer_version);
	txt_fprintf(f, "%-16s %d (deepest body nesting %d)\n", "graphs", in->graphs, in->max_depth);
	txt_fprintf(f, "%-16s %lld in the main graph, %lld with subgraphs\n", "nodes",
	        (long long)in->nodes, (long long)in->nodes_total);
	txt_fprintf(f, "%-16s %lld (graph inputs %lld, initializers %lld, constants %lld, activations %lld)\n",
	        "tensors", (long long)in->tensors, (long long)in->tensors_by_kind[TENSOR_GRAPH_INPUT],
	        (long long)in->tensors_by_kind[TENSOR_INITIALIZER],
	        (long long)in->tensors_by_kind[TENSOR_CONSTANT],
	        (long long)in->tensors_by_kind[TENSOR_ACTIVATION]);
	txt_fprintf(f, "%-16s %lld", "constants", (long long)in->constants);
	if (in->external_tensors)
		txt_fprintf(f, " (%lld with external data, not read)", (long long)in->external_tensors);
	const fd_shape_coverage *c = &in->shape_coverage;
	txt_fprintf(f, "\n%-16s %lld of %lld intermediate tensors", "shape coverage",
	        (long long)c->known, (long long)c->total);
	if (c->total)
		txt_fprintf(f, " (%.1f%%)", 100.0 * (double)c->known / (double)c->total);
	fputc('\n', f);

	txt_fprintf(f, "%-16s %d declared", "inputs", in->n_declared_inputs);
	if (in->n_listed_initializers)
		txt_fprintf(f, ": %d to feed, %d initializers listed as inputs (%s)", in->n_inputs,
		        in->n_listed_initializers, listed_initializers_words(in));
	fputc('\n', f);

	int w = name_width(in->outputs, in->n_outputs, name_width(in->inputs, in->n_inputs, 4));
	w = name_width(in->listed_initializers, in->n_listed_initializers < LISTED_SHOWN ? in->n_listed_initializers
	               : LISTED_SHOWN, w);
	text_values(f, "inputs", in->inputs, in->n_inputs, w);
	if (in->n_listed_initializers)
		text_listed_initializers(f, in, w);
	text_values(f, "outputs", in->outputs, in->n_outputs, w);

	if (in->n_symdims) {
		txt_fprintf(f, "\nsymbolic dims\n");
		int sw = w;
		for (int32_t i = 0; i < in->n_symdims; i++) {
			char alias[16];
			if (dimtab_symbol_alias(m->dimtab, dimtab_find_symbol(m->dimtab, in->symdims[i].name), alias,
			                        sizeof alias))
				sw = (int)(strlen(alias) + 3 + strlen(in->symdims[i].name)) > sw
				     ? (int)(strlen(alias) + 3 + strlen(in->symdims[i].name)) : sw;
		}
		for (int32_t i = 0; i < in->n_symdims; i++) {
			const fd_symdim *s = &in->symdims[i];
			char alias[16], name[300];
			/* a long name reads as its alias in every shape: the legend */
			if (dimtab_symbol_alias(m->dimtab, dimtab_find_symbol(m->dimtab, s->name), alias, sizeof alias))
				snprintf(name, sizeof name, "%s = %s", alias, s->name);
			else
				snprintf(name, sizeof name, "%s", s->name);
			if (s->bound)
				txt_fprintf(f, "  %-*s  %lld (bound)\n", sw, name, (long long)s->value);
			else if (s->used)
				txt_fprintf(f, "  %-*s  unbound (sizes that depend on it are formulas; bind with --dim %s=N)\n",
				        sw, name, s->name);
			else
				txt_fprintf(f, "  %-*s  unbound, no tensor depends on it\n", sw, name);
		}
	}

	int kw = 8;
	for (int32_t i = 0; i < in->n_histogram; i++)
		if ((int)strlen(in->histogram[i].key) > kw)
			kw = (int)strlen(in->histogram[i].key);
	if (m->format) {   /* a GE dump: its types with their ONNX origin, in place of the histogram */
		cli_info_dump_types_text(f, in, kw);
		cli_info_compiler_text(f, m);
		return;
	}
	txt_fprintf(f, "\nop histogram (%d op types)\n", in->n_histogram);
	for (int32_t i = 0; i < in->n_histogram; i++)
		txt_fprintf(f, "  %-*s %6lld\n", kw, in->histogram[i].key, (long long)in->histogram[i].count);

	txt_fprintf(f, "\nunknown ops\n");
	for (int32_t i = 0; i < in->n_unknown_ops; i++)
		txt_fprintf(f, "  %-*s %6lld  (domain %s)\n", kw, in->unknown_ops[i].op_type,
		        (long long)in->unknown_ops[i].count, onnx_domain_name(in->unknown_ops[i].domain));
	if (!in->n_unknown_ops)
		txt_fprintf(f, "  (none: every op type is standard ONNX)\n");
}

int cmd_info(int argc, char **argv)
{
	cli_options o;
	fd_model m;
	if (cli_parse_and_load(argc, argv, &spec, &o, &m))
		return EXIT_BAD_INPUT;
	if (o.tensors) {
		cli_info_tensors(stdout, o.model, &m, o.format == FORMAT_JSON);
		model_release(&m);
		return fflush(stdout) ? EXIT_BAD_INPUT : EXIT_OK;
	}
	fd_model_info info;
	model_info_compute(&m, &info);
	if (o.format == FORMAT_JSON)
		print_json(stdout, o.model, &info, &m);
	else
		print_text(stdout, o.model, &info, &m);
	model_info_release(&info);
	model_release(&m);
	return fflush(stdout) ? EXIT_BAD_INPUT : EXIT_OK;
}
