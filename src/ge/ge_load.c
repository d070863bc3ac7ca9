/* ge_load.c — a GE ModelDef in protobuf text format (ge.h) → fd_model.
 *
 * The text is read whole into a tree (pbtxt.h), then walked with the
 * schema: graph[0] is the main graph; an op's subgraph_name entries name
 * other graphs of the ModelDef, which become its bodies, numbered in the
 * order they are reached (a parent before its bodies). Each graph is two
 * passes over its ops: names, types and outputs first (so that an input may
 * name an op written after it), then inputs, attributes and subgraphs. An
 * input names an op of the same graph, "op:index"; "op:-1" is a control
 * edge; "" an input left unconnected. Then every graph is linked and sorted
 * (ir/graph.c), as an ONNX model's. */
#include <stdlib.h>
#include <string.h>
#include "base/input_file.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/vec.h"
#include "ge/ge.h"
#include "ge/ge_loader.h"

#define MAX_GRAPH_DEPTH 64   /* bodies inside bodies, as the ONNX loader allows */

/* A graph to convert: its GraphDef and where it hangs. */
typedef struct graph_job {
	const pbtxt_node *def;
	int32_t parent, owner;
} graph_job;

typedef struct model_build {
	ge_loader L;
	VEC(const pbtxt_node *) defs;   /* the ModelDef's graphs in file order */
	int32_t *owner_of;              /* per def: the job converting it, or -1 */
	strmap def_by_name;
	VEC(graph_job) jobs;            /* index = graph index */
	VEC(fd_graph) graphs;
	strbuf name;                    /* scratch for tensor names */
} model_build;

static size_t count_fields(const pbtxt_node *msg, const char *name)
{
	size_t n = 0;
	for (const pbtxt_node *f = msg->first; f; f = f->next)
		n += !strcmp(f->name, name);
	return n;
}

/* An optional string field's text ("" when absent); -1 when of another kind. */
static int string_field(ge_loader *L, const pbtxt_node *msg, const char *name, const char **out)
{
	const pbtxt_node *f = pbtxt_find(msg, name);
	*out = "";
	return f ? pbtxt_string(L->doc, f, out, NULL, L->d) : 0;
}

/* ---- one graph ------------------------------------------------------------- */

typedef struct graph_work {
	const pbtxt_node **ops;
	int32_t *out_base;              /* per op: its first output's tensor */
	strmap op_by_name;
} graph_work;

/* "src:index" of an input or a graph output: the op and the index, or -1
 * with an error at f. */
static int parse_ref(model_build *B, const fd_graph *g, graph_work *w, const pbtxt_node *f, const char *ref,
                     const char *whose, int32_t *op, int64_t *index)
{
	ge_loader *L = &B->L;
	const char *colon = strrchr(ref, ':');
	char *end = NULL;
	long long v = colon ? strtoll(colon + 1, &end, 10) : 0;
	bool digits = colon && ((colon[1] >= '0' && colon[1] <= '9') || (colon[1] == '-' && colon[2] >= '0' && colon[2] <= '9'));
	if (!digits || *end)
		return diag_error(L->d, pbtxt_value_pos(L->doc, f), "%s '%s' is not 'op:index'", whose, ref), -1;
	*op = strmap_getn(&w->op_by_name, ref, (size_t)(colon - ref));
	if (*op < 0)
		return diag_error(L->d, pbtxt_value_pos(L->doc, f), "%s '%s': graph '%s' has no op '%.*s'", whose, ref,
		                  g->name, (int)(colon - ref), ref), -1;
	int64_t outs = g->nodes[*op].n_outputs;
	if (v < -1 || v >= outs)
		return diag_error(L->d, pbtxt_value_pos(L->doc, f), "%s '%s': op '%.*s' has %lld output%s (output_desc), "
		                  "and -1 is a control edge", whose, ref, (int)(colon - ref), ref, (long long)outs,
		                  outs == 1 ? "" : "s"), -1;
	*index = v;
	return 0;
}

/* Pass 1: op names, types and output tensors. */
static int read_ops(model_build *B, fd_graph *g, graph_work *w, const pbtxt_node *def)
{
	ge_loader *L = &B->L;
	size_t n = count_fields(def, "op"), k = 0;
	w->ops = xcalloc(n + 1, sizeof *w->ops);
	w->out_base = xcalloc(n + 1, sizeof *w->out_base);
	g->nodes = arena_array(&L->m->arena, n + 1, sizeof *g->nodes);
	int64_t tensors = 0;
	for (const pbtxt_node *f = def->first; f; f = f->next) {
		if (strcmp(f->name, "op"))
			continue;
		if (pbtxt_message(L->doc, f, L->d))
			return -1;
		const pbtxt_node *name = pbtxt_find(f, "name");
		const char *type;
		if (!name) {
			diag_error(L->d, pbtxt_pos(L->doc, f), "op without a name in graph '%s'", g->name);
			return -1;
		}
		if (pbtxt_string(L->doc, name, &type, NULL, L->d) || string_field(L, f, "type", &type))
			return -1;
		if (!*name->text || !*type) {
			diag_error(L->d, pbtxt_pos(L->doc, f), "op %s%s%s in graph '%s' has no %s", *name->text ? "'" : "",
			           name->text, *name->text ? "'" : "", g->name, *name->text ? "type" : "name");
			return -1;
		}
		fd_node *nd = &g->nodes[k];
		nd->name = arena_strdup(&L->m->arena, name->text);
		int32_t was = strmap_put(&w->op_by_name, nd->name, (int32_t)k);
		if (was != (int32_t)k) {
			const pbtxt_node *o = w->ops[was];
			diag_error(L->d, pbtxt_value_pos(L->doc, name), "a second op named '%s' in graph '%s' (the first is at "
			           "%d:%d)", nd->name, g->name, o->line, o->col);
			return -1;
		}
		nd->op_type = strpool_intern(&L->m->names, type);
		nd->domain = strpool_intern(&L->m->names, "");
		w->ops[k] = f;
		w->out_base[k] = (int32_t)tensors;
		tensors += (int64_t)count_fields(f, "output_desc");
		if (tensors > INT32_MAX / 2) {
			diag_error(L->d, pbtxt_pos(L->doc, f), "graph '%s' has more outputs than fusiondbg handles", g->name);
			return -1;
		}
		k++;
	}
	g->n_nodes = (int32_t)k;
	g->n_tensors = (int32_t)tensors;
	g->tensors = arena_array(&L->m->arena, (size_t)tensors + 1, sizeof *g->tensors);
	for (int32_t i = 0; i < g->n_nodes; i++) {
		fd_node *nd = &g->nodes[i];
		nd->n_outputs = (int32_t)count_fields(w->ops[i], "output_desc");
		nd->outputs = arena_array(&L->m->arena, (size_t)nd->n_outputs + 1, sizeof *nd->outputs);
		int32_t port = 0;
		for (const pbtxt_node *f = w->ops[i]->first; f; f = f->next) {
			if (strcmp(f->name, "output_desc"))
				continue;
			int32_t t = w->out_base[i] + port;
			fd_tensor *x = &g->tensors[t];
			sb_clear(&B->name);
			sb_printf(&B->name, "%s:%d", nd->name, port);
			*x = (fd_tensor){ .name = strpool_intern(&L->m->names, sb_str(&B->name)), .kind = TENSOR_ACTIVATION,
			                  .producer = FD_NONE, .producer_port = FD_NONE, .outer = FD_NONE,
			                  .shape_declared = true };
			if (pbtxt_message(L->doc, f, L->d) || ge_desc_read(L, f, &x->dtype, &x->shape))
				return -1;
			nd->outputs[port++] = t;
		}
	}
	return 0;
}

/* An op's subgraph_name entries: each names a graph of the ModelDef not yet
 * anyone's, which becomes the next graph to convert. */
static int read_subgraphs(model_build *B, int32_t gi, int32_t i, const pbtxt_node *op, fd_node *nd)
{
	ge_loader *L = &B->L;
	size_t n = count_fields(op, "subgraph_name");
	nd->subgraphs = arena_array(&L->m->arena, n + 1, sizeof *nd->subgraphs);
	for (const pbtxt_node *f = op->first; f; f = f->next) {
		const char *name;
		if (strcmp(f->name, "subgraph_name"))
			continue;
		if (pbtxt_string(L->doc, f, &name, NULL, L->d))
			return -1;
		int32_t def = strmap_get(&B->def_by_name, name);
		if (def < 0) {
			diag_error(L->d, pbtxt_value_pos(L->doc, f), "op '%s' names subgraph '%s', which the dump does not hold",
			           nd->name, name);
			return -1;
		}
		if (B->owner_of[def] >= 0) {
			int32_t j = B->owner_of[def];
			diag_error(L->d, pbtxt_value_pos(L->doc, f), "op '%s' names subgraph '%s', which is already %s", nd->name,
			           name, j == 0 ? "the main graph" : "the body of another op");
			return -1;
		}
		int32_t depth = 1;
		for (int32_t p = gi; B->jobs.items[p].parent >= 0; p = B->jobs.items[p].parent)
			depth++;
		if (depth > MAX_GRAPH_DEPTH) {
			diag_error(L->d, pbtxt_value_pos(L->doc, f), "subgraphs nested more than %d deep", MAX_GRAPH_DEPTH);
			return -1;
		}
		B->owner_of[def] = (int32_t)B->jobs.n;
		nd->subgraphs[nd->n_subgraphs++] = (int32_t)B->jobs.n;
		vec_push(&B->jobs, ((graph_job){ B->defs.items[def], gi, i }));
	}
	return 0;
}

/* Pass 2, one op: its inputs (data and control), attributes and bodies. */
static int read_op(model_build *B, int32_t gi, fd_graph *g, graph_work *w, int32_t i)
{
	ge_loader *L = &B->L;
	const pbtxt_node *op = w->ops[i];
	fd_node *nd = &g->nodes[i];
	fd_node_origin *o = arena_alloc(&L->m->arena, sizeof *o);
	o->line = op->line;
	nd->origin = o;
	size_t n = count_fields(op, "input");
	nd->inputs = arena_array(&L->m->arena, n + 1, sizeof *nd->inputs);
	o->control_inputs.items = arena_array(&L->m->arena, n + 1, sizeof *o->control_inputs.items);
	for (const pbtxt_node *f = op->first; f; f = f->next) {
		const char *ref;
		if (strcmp(f->name, "input"))
			continue;
		if (pbtxt_string(L->doc, f, &ref, NULL, L->d))
			return -1;
		if (!*ref) {
			nd->inputs[nd->n_inputs++] = FD_NONE;
			continue;
		}
		int32_t src;
		int64_t index;
		if (parse_ref(B, g, w, f, ref, "input", &src, &index))
			return -1;
		if (index < 0)
			o->control_inputs.items[o->control_inputs.n++] = strpool_intern(&L->m->names, g->nodes[src].name);
		else
			nd->inputs[nd->n_inputs++] = w->out_base[src] + (int32_t)index;
	}
	return ge_attrs_read(L, op, nd, o) || read_subgraphs(B, gi, i, op, nd) ? -1 : 0;
}

/* The GraphDef's output list ("op:index"): the graph's outputs. */
static int read_outputs(model_build *B, fd_graph *g, graph_work *w, const pbtxt_node *def)
{
	ge_loader *L = &B->L;
	g->outputs = arena_array(&L->m->arena, count_fields(def, "output") + 1, sizeof *g->outputs);
	for (const pbtxt_node *f = def->first; f; f = f->next) {
		const char *ref;
		int32_t src;
		int64_t index;
		if (strcmp(f->name, "output"))
			continue;
		if (pbtxt_string(L->doc, f, &ref, NULL, L->d) || parse_ref(B, g, w, f, ref, "graph output", &src, &index))
			return -1;
		if (index < 0) {
			diag_error(L->d, pbtxt_value_pos(L->doc, f), "graph output '%s' is a control edge, not a tensor", ref);
			return -1;
		}
		g->outputs[g->n_outputs++] = w->out_base[src] + (int32_t)index;
	}
	return 0;
}

static int convert_graph(model_build *B, int32_t gi)
{
	ge_loader *L = &B->L;
	graph_job job = B->jobs.items[gi];
	fd_graph g = { .index = gi, .parent = job.parent, .owner_node = job.owner };
	const char *name;
	if (string_field(L, job.def, "name", &name))
		return -1;
	g.name = strpool_intern(&L->m->names, name);
	g.owner_attr = job.parent >= 0 ? strpool_intern(&L->m->names, "subgraph_name") : NULL;
	g.depth = job.parent >= 0 ? B->graphs.items[job.parent].depth + 1 : 0;
	g.inputs = arena_alloc(&L->m->arena, sizeof *g.inputs);   /* a dump's inputs are its Data ops */
	graph_work w = { 0 };
	strmap_init(&w.op_by_name);
	int rc = read_ops(B, &g, &w, job.def);
	for (int32_t i = 0; !rc && i < g.n_nodes; i++)
		rc = read_op(B, gi, &g, &w, i);
	if (!rc)
		rc = read_outputs(B, &g, &w, job.def);
	strmap_release(&w.op_by_name);
	free(w.ops);
	free(w.out_base);
	vec_push(&B->graphs, g);
	return rc;
}

/* ---- the model ------------------------------------------------------------- */

static int read_graph_defs(model_build *B)
{
	ge_loader *L = &B->L;
	const pbtxt_node *root = &L->doc->root;
	for (const pbtxt_node *f = root->first; f; f = f->next) {
		if (strcmp(f->name, "graph"))
			continue;
		if (pbtxt_message(L->doc, f, L->d))
			return -1;
		const char *name;
		if (string_field(L, f, "name", &name))
			return -1;
		int32_t was = strmap_put(&B->def_by_name, name, (int32_t)B->defs.n);
		if (was != (int32_t)B->defs.n && *name) {
			const pbtxt_node *o = B->defs.items[was];
			diag_error(L->d, pbtxt_pos(L->doc, f), "a second graph named '%s' (the first is at %d:%d)", name,
			           o->line, o->col);
			return -1;
		}
		vec_push(&B->defs, f);
	}
	if (!B->defs.n) {
		diag_error(L->d, srcpos_file(L->doc->file), "not a GE graph dump: no 'graph' at the top level");
		return -1;
	}
	B->owner_of = xmalloc(B->defs.n * sizeof *B->owner_of);
	for (size_t k = 0; k < B->defs.n; k++)
		B->owner_of[k] = -1;
	B->owner_of[0] = 0;
	return 0;
}

static int build_model(model_build *B)
{
	ge_loader *L = &B->L;
	fd_model *m = L->m;
	if (read_graph_defs(B))
		return -1;
	vec_push(&B->jobs, ((graph_job){ B->defs.items[0], FD_NONE, FD_NONE }));
	for (size_t gi = 0; gi < B->jobs.n; gi++)
		if (convert_graph(B, (int32_t)gi))
			return -1;
	for (size_t k = 1; k < B->defs.n; k++)
		if (B->owner_of[k] < 0) {
			const char *name = "";
			string_field(L, B->defs.items[k], "name", &name);
			diag_warning(L->d, pbtxt_pos(L->doc, B->defs.items[k]), "graph '%s' is no op's subgraph "
			             "(no subgraph_name names it): not loaded", name);
		}
	m->n_graphs = (int32_t)B->graphs.n;
	m->graphs = arena_memdup(&m->arena, B->graphs.items, B->graphs.n * sizeof *m->graphs);
	for (int32_t gi = 0; gi < m->n_graphs; gi++)
		if (graph_link(m, &m->graphs[gi], L->d) || graph_topo_sort(m, &m->graphs[gi], L->d))
			return -1;
	return 0;
}

static void model_header(model_build *B)
{
	fd_model *m = B->L.m;
	const pbtxt_node *root = &B->L.doc->root, *version = pbtxt_find(root, "version");
	int64_t v = 0;
	if (version && !pbtxt_int(B->L.doc, version, &v, B->L.d))
		m->model_version = v;
	m->format = GE_MODELDEF_FORMAT;
	m->producer_name = strpool_intern(&m->names, "GE");
	m->producer_version = m->domain = strpool_intern(&m->names, "");
	m->doc_string = arena_strdup(&m->arena, "");
	m->opsets = arena_alloc(&m->arena, sizeof *m->opsets);
}

static void options_warnings(const fd_load_options *opt, fd_diags *d, fd_srcpos pos)
{
	if (opt && opt->n_dims)
		diag_warning(d, pos, "--dim does not apply to a GE graph dump: its shapes are the compiler's");
	if (opt && opt->n_input_shapes)
		diag_warning(d, pos, "--input-shape does not apply to a GE graph dump: its shapes are the compiler's");
	if (opt && opt->n_values)
		diag_warning(d, pos, "--value does not apply to a GE graph dump: its shapes are the compiler's");
}

int ge_load_model_buffer(fd_model *m, const char *name, const void *data, size_t size,
                         const fd_load_options *opt, fd_diags *d)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
	strpool_init(&m->names, &m->arena);
	m->dimtab = dimtab_new(&m->arena, &m->names);
	m->path = arena_strdup(&m->arena, name ? name : "");
	m->file_size = (int64_t)size;
	fd_srcpos pos = srcpos_file(m->path);
	size_t errors = d->errors;
	pbtxt_doc doc;
	if (ge_detect(data, size) == GE_FORMAT_ONNX_TEXT) {
		diag_error(d, pos, "ONNX in protobuf text format (a ge_onnx dump?): fusiondbg reads GE's ModelDef dumps "
		           "(ge_proto_*.txt) and binary ONNX");
		model_release(m);
		return -1;
	}
	if (pbtxt_parse(&doc, m->path, data, size, NULL, d)) {
		model_release(m);
		return -1;
	}
	model_build B = { .L = { m, d, &doc } };
	strmap_init(&B.def_by_name);
	model_header(&B);
	options_warnings(opt, d, pos);
	int rc = build_model(&B);
	strmap_release(&B.def_by_name);
	vec_release(&B.defs);
	vec_release(&B.jobs);
	vec_release(&B.graphs);
	sb_release(&B.name);
	free(B.owner_of);
	pbtxt_release(&doc);
	if (!rc)
		return 0;
	if (d->errors == errors)
		diag_error(d, pos, "cannot load the GE graph dump");
	model_release(m);
	return -1;
}

int ge_load_model(fd_model *m, const char *path, const fd_load_options *opt, fd_diags *d)
{
	fd_doing("loading the GE graph dump %s", path);
	memset(m, 0, sizeof *m);
	size_t size = 0;
	char *text = input_read(path, &INPUT_LIMIT_MODEL, &size, d);
	if (!text)
		return -1;
	int rc = ge_load_model_buffer(m, path, text, size, opt, d);
	free(text);
	return rc;
}
