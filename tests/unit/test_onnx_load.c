/* test_onnx_load.c — the ONNX loader on every real model in ../shared/models
 * (node, node_total, graph and tensor counts equal those python3-onnx computes
 * through tests/tools/onnx_counts.py; topological order and consumer order
 * valid), on the broken files of tests/data/bad_onnx (each fails with its one
 * expected line), on cut and mutated real models (never a crash), and on the
 * ok_* files: subgraphs with outer-scope captures, every attribute kind,
 * constant decoding, external data, symbolic dims, stable topological order.
 * Run from the repository root (tests/run-all does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "ir/graph.h"
#include "ir/model_info.h"
#include "ir/onnx_ops.h"

#include "test_models.h"
#include "onnx/onnx.h"
#include "onnx/onnx_holes.h"

#define BAD "tests/data/bad_onnx/"


static const char *python(void)
{
	const char *p = getenv("PYTHON");
	return p && p[0] ? p : "/usr/bin/python3";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted paths of the *.onnx files in dir; returns the count. */
static int list_models(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	int n = 0;
	char **v = NULL;
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".onnx"))
			continue;
		v = realloc(v, (size_t)(n + 1) * sizeof *v);
		v[n] = malloc(strlen(dir) + len + 2);
		sprintf(v[n++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(v, (size_t)n, sizeof *v, cmp_str);
	*out = v;
	return n;
}

static int64_t json_int(const char *line, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\": ", key);
	const char *p = strstr(line, pat);
	assert_non_null(p);
	return strtoll(p + strlen(pat), NULL, 10);
}

static int load(fd_model *m, const char *path, const fd_load_options *o, fd_diags *d)
{
	int rc = onnx_load_model(m, path, o, d);
	char buf[1024];
	for (size_t i = 0; i < d->n; i++)
		print_message("  %s\n", diag_format(&d->items[i], buf, sizeof buf));
	return rc;
}

/* Producers before consumers; consumers listed in topological order. */
static void check_order(const fd_model *m)
{
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		assert_non_null(g->topo_order);
		for (int32_t k = 0; k < g->n_nodes; k++)
			assert_int_equal(g->nodes[g->topo_order[k]].topo, k);
		for (int32_t i = 0; i < g->n_nodes; i++) {
			const fd_node *n = &g->nodes[i];
			assert_int_equal(graph_find_node(g, n->name), i);
			for (int32_t s = 0; s < n->n_inputs; s++) {
				int32_t t = n->inputs[s];
				if (t >= 0 && g->tensors[t].producer >= 0)
					assert_true(g->nodes[g->tensors[t].producer].topo < n->topo);
			}
		}
		for (int32_t t = 0; t < g->n_tensors; t++) {
			const fd_tensor *x = &g->tensors[t];
			assert_int_equal(graph_find_tensor(g, x->name), t);
			for (int32_t c = 1; c < x->n_consumers; c++)
				assert_true(g->nodes[x->consumers[c - 1]].topo <= g->nodes[x->consumers[c]].topo);
		}
	}
}

/* a and b are the same model: every graph's nodes and tensors, field by field. */
static void assert_same_model(const fd_model *a, const fd_model *b)
{
	assert_int_equal(a->n_graphs, b->n_graphs);
	for (int32_t gi = 0; gi < a->n_graphs; gi++) {
		const fd_graph *ga = &a->graphs[gi], *gb = &b->graphs[gi];
		assert_int_equal(ga->n_nodes, gb->n_nodes);
		assert_int_equal(ga->n_tensors, gb->n_tensors);
		for (int32_t i = 0; i < ga->n_nodes; i++) {
			const fd_node *x = &ga->nodes[i], *y = &gb->nodes[i];
			assert_string_equal(x->name, y->name);
			assert_string_equal(x->op_type, y->op_type);
			assert_string_equal(x->domain, y->domain);
			assert_int_equal(x->n_inputs, y->n_inputs);
			assert_int_equal(x->n_outputs, y->n_outputs);
			assert_int_equal(x->n_attrs, y->n_attrs);
			assert_int_equal(x->topo, y->topo);
			assert_memory_equal(x->inputs, y->inputs, (size_t)(x->n_inputs + x->n_outputs) * sizeof *x->inputs);
			for (int32_t k = 0; k < x->n_attrs; k++)
				assert_string_equal(x->attrs[k].name, y->attrs[k].name);
		}
		for (int32_t t = 0; t < ga->n_tensors; t++) {
			const fd_tensor *x = &ga->tensors[t], *y = &gb->tensors[t];
			assert_string_equal(x->name, y->name);
			assert_int_equal(x->kind, y->kind);
			assert_int_equal(x->dtype, y->dtype);
			assert_int_equal(x->producer, y->producer);
			assert_int_equal(x->shape.rank, y->shape.rank);
			for (int32_t k = 0; k < x->shape.rank; k++)
				assert_true(x->shape.dims[k].value == y->shape.dims[k].value);
			assert_int_equal(x->value != NULL, y->value != NULL);
		}
	}
}

/* ---- the in-place decoder against protobuf-c's unpack ------------------- */

static void assert_same_const(const fd_const *a, const fd_const *b)
{
	assert_int_equal(a != NULL, b != NULL);
	if (!a)
		return;
	assert_int_equal(a->dtype, b->dtype);
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->i64 != NULL, b->i64 != NULL);
	assert_int_equal(a->f64 != NULL, b->f64 != NULL);
	size_t n = (size_t)a->count;
	if (a->i64)
		assert_memory_equal(a->i64, b->i64, n * sizeof *a->i64);
	if (a->f64 && n)   /* bit for bit: NaNs too */
		assert_memory_equal(a->f64, b->f64, n * sizeof *a->f64);
}

static void assert_same_shape(const fd_shape *a, const fd_shape *b)
{
	assert_int_equal(a->rank, b->rank);
	for (int32_t k = 0; k < a->rank; k++) {
		assert_true(a->dims[k].value == b->dims[k].value);
		assert_int_equal(a->dims[k].expr != NULL, b->dims[k].expr != NULL);
	}
}

static void assert_same_attr_tensor(const fd_attr_tensor *a, const fd_attr_tensor *b)
{
	assert_int_equal(a->dtype, b->dtype);
	assert_same_shape(&a->shape, &b->shape);
	assert_same_const(a->value, b->value);
}

static void assert_same_attr(const fd_attr *a, const fd_attr *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->ref_attr_name != NULL, b->ref_attr_name != NULL);
	if (a->ref_attr_name)
		assert_string_equal(a->ref_attr_name, b->ref_attr_name);
	size_t n = (size_t)a->count;
	switch (a->type) {
	case ATTR_FLOAT: assert_memory_equal(&a->u.f, &b->u.f, sizeof a->u.f); break;
	case ATTR_INT: assert_int_equal(a->u.i, b->u.i); break;
	case ATTR_STRING: assert_string_equal(a->u.s, b->u.s); break;
	case ATTR_TENSOR:
	case ATTR_SPARSE_TENSOR: assert_same_attr_tensor(a->u.t, b->u.t); break;
	case ATTR_GRAPH: assert_int_equal(a->u.g, b->u.g); break;
	case ATTR_FLOATS:
		if (n)
			assert_memory_equal(a->u.floats, b->u.floats, n * sizeof *a->u.floats);
		break;
	case ATTR_INTS:
		if (n)
			assert_memory_equal(a->u.ints, b->u.ints, n * sizeof *a->u.ints);
		break;
	case ATTR_STRINGS:
		for (size_t i = 0; i < n; i++)
			assert_string_equal(a->u.strings[i], b->u.strings[i]);
		break;
	case ATTR_TENSORS:
	case ATTR_SPARSE_TENSORS:
		for (size_t i = 0; i < n; i++)
			assert_same_attr_tensor(a->u.tensors[i], b->u.tensors[i]);
		break;
	case ATTR_GRAPHS:
		if (n)
			assert_memory_equal(a->u.graphs, b->u.graphs, n * sizeof *a->u.graphs);
		break;
	default:
		break;
	}
}

/* assert_same_model, and every attribute, value, dim and flag besides. */
static void assert_same_model_deep(const fd_model *a, const fd_model *b)
{
	assert_same_model(a, b);
	assert_int_equal(a->ir_version, b->ir_version);
	assert_string_equal(a->producer_name, b->producer_name);
	assert_int_equal(a->n_opsets, b->n_opsets);
	for (int32_t gi = 0; gi < a->n_graphs; gi++) {
		const fd_graph *ga = &a->graphs[gi], *gb = &b->graphs[gi];
		assert_string_equal(ga->name, gb->name);
		assert_int_equal(ga->n_inputs, gb->n_inputs);
		assert_int_equal(ga->n_outputs, gb->n_outputs);
		assert_int_equal(ga->n_initializers, gb->n_initializers);
		for (int32_t i = 0; i < ga->n_nodes; i++) {
			const fd_node *x = &ga->nodes[i], *y = &gb->nodes[i];
			assert_int_equal(x->name_synthesized, y->name_synthesized);
			assert_int_equal(x->n_subgraphs, y->n_subgraphs);
			for (int32_t k = 0; k < x->n_attrs; k++)
				assert_same_attr(&x->attrs[k], &y->attrs[k]);
		}
		for (int32_t t = 0; t < ga->n_tensors; t++) {
			const fd_tensor *x = &ga->tensors[t], *y = &gb->tensors[t];
			assert_same_shape(&x->shape, &y->shape);
			assert_same_const(x->value, y->value);
			assert_int_equal(x->shape_declared, y->shape_declared);
			assert_int_equal(x->external_data, y->external_data);
			assert_int_equal(x->listed_input, y->listed_input);
			assert_int_equal(x->overridable, y->overridable);
			assert_int_equal(x->outer, y->outer);
			assert_int_equal(x->n_consumers, y->n_consumers);
		}
	}
}

/* One load of the bytes with the in-place decoder, one with protobuf-c's
 * unpack: the same verdict, the same messages, the same model. Returns
 * whether it loaded. */
static bool assert_same_load(const char *name, const uint8_t *bytes, size_t size, bool infer)
{
	fd_model m[2];
	fd_diags d[2];
	int rc[2];
	fd_load_options o = { .no_shape_inference = !infer };
	for (int k = 0; k < 2; k++) {
		diags_init(&d[k]);
		onnx_test_wire_decoder(k == 0);
		rc[k] = onnx_load_model_buffer(&m[k], name, bytes, size, &o, &d[k]);
	}
	onnx_test_wire_decoder(true);
	if (rc[0] != rc[1] || d[0].n != d[1].n)
		print_message("%s: decoder %d (%zu messages), protobuf-c %d (%zu messages)\n", name, rc[0], d[0].n,
		              rc[1], d[1].n);
	assert_int_equal(rc[0], rc[1]);
	assert_int_equal(d[0].n, d[1].n);
	for (size_t i = 0; i < d[0].n; i++) {
		char x[1024], y[1024];
		assert_string_equal(diag_format(&d[0].items[i], x, sizeof x), diag_format(&d[1].items[i], y, sizeof y));
	}
	if (rc[0] == 0) {
		assert_same_model_deep(&m[0], &m[1]);
		model_release(&m[0]);
		model_release(&m[1]);
	}
	diags_release(&d[0]);
	diags_release(&d[1]);
	return rc[0] == 0;
}

static uint8_t *read_all(const char *path, size_t *size);

/* Every file of dir (ending in suffix, or every file when NULL) through
 * assert_same_load; returns how many were compared. */
static int same_loads_in(const char *dir, const char *suffix, int *loaded)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return 0;
	int n = 0;
	for (struct dirent *e; (e = readdir(dp));) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || (suffix && (len < strlen(suffix) || strcmp(e->d_name + len - strlen(suffix), suffix))))
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t size;
		uint8_t *buf = read_all(path, &size);
		*loaded += assert_same_load(path, buf, size, true);
		assert_same_load(path, buf, size, false);
		free(buf);
		n++;
	}
	closedir(dp);
	return n;
}

/* The decoder reads what protobuf-c reads: every shared model, sample, test
 * model and fuzz input, whole, cut short and with bits flipped. */
static void test_decoder_matches_protobuf_c(void **state)
{
	(void)state;
	int loaded = 0, n = 0;
	n += same_loads_in(models_dir(), ".onnx", &loaded);
	n += same_loads_in("samples", ".onnx", &loaded);
	n += same_loads_in("tests/data/bad_onnx", NULL, &loaded);
	static const char *const data_dirs[] = { "tests/data/torch", "tests/data/qdq", "tests/data/shapes",
	                                         "tests/data/hostile", "tests/data/compare", "tests/data/match",
	                                         "tests/data/bad_input" };
	for (size_t k = 0; k < sizeof data_dirs / sizeof *data_dirs; k++)
		n += same_loads_in(data_dirs[k], ".onnx", &loaded);
	int fuzz = same_loads_in("tests/fuzz/corpus/fuzz_onnx", NULL, &loaded);
	assert_true(fuzz >= 100);
	n += fuzz;
	print_message("decoder vs protobuf-c: %d files, %d loaded\n", n, loaded);
	/* cut and flipped: where the two could part on malformed bytes */
	char path[512];
	NEED_MODEL(model_path(path, sizeof path, "tiny_gpt2_ort_fused.onnx"));
	size_t size;
	uint8_t *orig = read_all(path, &size);
	uint64_t seed = 0x2545f4914f6cdd1dull;
	for (int round = 0; round < 300; round++) {
		uint8_t *buf = malloc(size);
		memcpy(buf, orig, size);
		size_t len = round < 60 ? size * (size_t)(round + 1) / 61 : size;
		for (int f = 0; round >= 60 && f < 1 + round % 6; f++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			buf[(seed >> 33) % size] ^= (uint8_t)(1u << ((seed >> 20) & 7));
		}
		assert_same_load("mutated.onnx", buf, len, round % 2);
		free(buf);
	}
	free(orig);
}

/* ---- weights stay where they are ------------------------------------------ */

/* A protobuf writer just big enough for the model below. */
typedef struct pbuf {
	uint8_t *p;
	size_t n, cap;
} pbuf;

static void pb_put(pbuf *b, const void *data, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

static void pb_varint(pbuf *b, uint64_t v)
{
	uint8_t c[10];
	size_t n = 0;
	do {
		c[n++] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	pb_put(b, c, n);
}

static void pb_field(pbuf *b, unsigned num, const void *data, size_t n)   /* length-delimited */
{
	pb_varint(b, (uint64_t)num << 3 | 2);
	pb_varint(b, n);
	pb_put(b, data, n);
}

static void pb_str(pbuf *b, unsigned num, const char *s)
{
	pb_field(b, num, s, strlen(s));
}

static void pb_int(pbuf *b, unsigned num, uint64_t v)
{
	pb_varint(b, (uint64_t)num << 3);
	pb_varint(b, v);
}

static void pb_msg(pbuf *b, unsigned num, pbuf *m)
{
	pb_field(b, num, m->p, m->n);
	free(m->p);
	*m = (pbuf){ 0 };
}

#define WEIGHT_BYTES ((size_t)4 << 20)

/* A TensorProto of 4 MB of zeros in value field `field` (9 raw_data FLOAT,
 * 4 float_data, 7 int64_data: one byte a zero varint). */
static void weight(pbuf *t, const char *name, unsigned field)
{
	uint8_t *zeros = calloc(1, WEIGHT_BYTES);
	pb_int(t, 1, field == 7 ? WEIGHT_BYTES : WEIGHT_BYTES / 4);
	pb_int(t, 2, field == 7 ? 7 : 1);
	pb_str(t, 8, name);
	pb_field(t, field, zeros, WEIGHT_BYTES);
	free(zeros);
}

/* Add(Add(a, b), Add(c, k)) of three initializers and a Constant, each a
 * 4 MB weight in a different field; the model's bytes. */
static uint8_t *weights_model(size_t *size)
{
	pbuf m = { 0 }, g = { 0 }, x = { 0 }, y = { 0 };
	pb_int(&m, 1, 8);
	pb_msg(&m, 8, (pb_int(&x, 2, 17), &x));
	static const char *const names[] = { "a", "b", "c" };
	static const unsigned fields[] = { 9, 4, 7 };
	for (int i = 0; i < 3; i++) {
		weight(&x, names[i], fields[i]);
		pb_msg(&g, 5, &x);
	}
	/* Constant k: its value attribute a 4 MB raw tensor */
	weight(&y, "", 9);
	pb_str(&x, 1, "value");
	pb_int(&x, 20, 4);
	pb_msg(&x, 5, &y);
	pb_msg(&y, 5, &x);
	pb_str(&y, 2, "k");
	pb_str(&y, 4, "Constant");
	pb_msg(&g, 1, &y);
	static const char *const adds[][3] = { { "a", "b", "ab" }, { "c", "c", "cc" }, { "ab", "cc", "out" } };
	for (int i = 0; i < 3; i++) {
		pb_str(&y, 1, adds[i][0]);
		pb_str(&y, 1, adds[i][1]);
		pb_str(&y, 2, adds[i][2]);
		pb_str(&y, 4, "Add");
		pb_msg(&g, 1, &y);
	}
	pb_str(&x, 1, "out");
	pb_msg(&g, 12, &x);
	pb_str(&g, 2, "weights");
	pb_msg(&m, 7, &g);
	*size = m.n;
	return m.p;
}

/* The pages lying wholly inside the model's runs of zeros (the weights),
 * less each run's last page (a packed varint run's last byte is read). */
typedef struct page_span {
	size_t from, to;   /* page indices */
} page_span;

static int zero_runs(const uint8_t *p, size_t size, size_t page, page_span *out, int max)
{
	int n = 0;
	for (size_t i = 0; i < size && n < max;) {
		if (p[i]) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < size && !p[j])
			j++;
		size_t a = (i + page - 1) / page, b = (j - 1) / page;
		if (b > a + 1)
			out[n++] = (page_span){ a, b - 1 };
		i = j;
	}
	return n;
}

/* Pages of the spans mincore sees mapped in. */
static size_t resident(const uint8_t *map, size_t page, const page_span *s, int n)
{
	size_t count = 0;
	for (int k = 0; k < n; k++) {
		size_t len = (s[k].to - s[k].from) * page;
		unsigned char *vec = malloc(len / page + 1);
		assert_int_equal(mincore((void *)(map + s[k].from * page), len, vec), 0);
		for (size_t i = 0; i < len / page; i++)
			count += vec[i] & 1;
		free(vec);
	}
	return count;
}

/* Loads map, checks the model, returns how many weight pages it touched:
 * they were dropped (MADV_DONTNEED: zeros again, not resident) first. */
static size_t weight_pages_touched(uint8_t *map, size_t size, const page_span *s, int n, size_t page)
{
	for (int k = 0; k < n; k++)
		assert_int_equal(madvise(map + s[k].from * page, (s[k].to - s[k].from) * page, MADV_DONTNEED), 0);
	assert_int_equal(resident(map, page, s, n), 0);
	fd_model m;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(onnx_load_model_buffer(&m, "weights.onnx", map, size, NULL, &d), 0);
	const fd_graph *g = &m.graphs[0];
	assert_int_equal(g->n_nodes, 4);
	assert_int_equal(g->n_initializers, 3);
	int32_t c = graph_find_tensor(g, "c");
	assert_int_equal(g->tensors[c].dtype, DT_INT64);
	assert_int_equal(g->tensors[c].shape.dims[0].value, (int64_t)WEIGHT_BYTES);
	assert_null(g->tensors[c].value);
	model_release(&m);
	diags_release(&d);
	return resident(map, page, s, n);
}

/* The spans but the third, the int64_data weight: a packed varint run is
 * read whole (onnx_decode.c: one varint of more than ten bytes anywhere in
 * it makes the model invalid, and its values are counted against its dims). */
static int without_varint_run(page_span *s, int n)
{
	assert_int_equal(n, 4);
	s[2] = s[3];
	return 3;
}

/* No page of a weight is read: initializers in raw_data and float_data and
 * a Constant's tensor, 12 MB in all, loaded on one thread and streamed on
 * two; protobuf-c's unpack, which copies them, touches them all (so the
 * check can see a read). The int64_data weight's run is read and kept out
 * of the mapping's holes. */
static void test_weights_untouched(void **state)
{
	(void)state;
	size_t size, page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *bytes = weights_model(&size);
	uint8_t *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(map != MAP_FAILED);
	memcpy(map, bytes, size);
	page_span s[8];
	int n = without_varint_run(s, zero_runs(map, size, page, s, 8));
	size_t pages = 0;
	for (int k = 0; k < n; k++)
		pages += s[k].to - s[k].from;
	assert_true(pages * page > 11 * WEIGHT_BYTES / 4);
	assert_int_equal(weight_pages_touched(map, size, s, n, page), 0);
	setenv("FUSIONDBG_THREADS", "2", 1);
	onnx_test_stream_min(1);
	assert_int_equal(weight_pages_touched(map, size, s, n, page), 0);
	onnx_test_wire_decoder(false);
	size_t copied = weight_pages_touched(map, size, s, n, page);
	onnx_test_wire_decoder(true);
	print_message("weight pages: 0 of %zu read by the decoder, %zu by protobuf-c's unpack\n", pages, copied);
	assert_true(copied >= pages / 2);
	munmap(map, size);

	/* from a file: onnx_holes_read leaves the weights' interiors out of its
	 * copy (zero pages no one has touched), and the load is the same */
	char path[] = "/tmp/fd_weights_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, size), (ssize_t)size);
	const uint8_t *fmap;
	size_t left_out;
	assert_int_equal(onnx_holes_read(fd, size, &fmap, &left_out), 0);
	close(fd);
	assert_true(left_out >= 11 * WEIGHT_BYTES / 4 && left_out < 3 * WEIGHT_BYTES);
	assert_memory_equal(fmap, bytes, 4096);
	unlink(path);
	page_span fs[8];
	int fn = without_varint_run(fs, zero_runs(bytes, size, page, fs, 8));
	/* what of the weights is in the copy is their heads (64 KB each) */
	size_t in_holes = resident(fmap, page, fs, fn);
	print_message("after onnx_holes_read: %zu weight pages resident\n", in_holes);
	assert_true(in_holes <= (size_t)fn * (64 << 10) / page);
	fd_model m;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(onnx_load_model_buffer(&m, "weights.onnx", fmap, size, NULL, &d), 0);
	model_release(&m);
	diags_release(&d);
	assert_true(resident(fmap, page, fs, fn) == in_holes);   /* the load touched no hole */
	assert_true(assert_same_load("weights.onnx", fmap, size, true));
	munmap((void *)fmap, size);
	free(bytes);
}

/* A model file cut short while it loads (an exporter saving over it in
 * place truncates it first): a clean error naming the file, never a signal
 * (a mapping of the file would fault past its new end). Both with the
 * weights' interiors left unread (a model of 2 MB and more) and read whole. */
static void truncate_to_half(int fd, void *path)
{
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(truncate(path, st.st_size / 2), 0);
}

static void test_file_shrinks_while_loading(void **state)
{
	(void)state;
	size_t size;
	uint8_t *bytes = weights_model(&size);
	for (int small = 0; small < 2; small++) {
		char path[] = "/tmp/fd_shrinks_XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		size_t n = small ? 64 << 10 : size;   /* the small one is just cut, it need not parse */
		assert_int_equal(write(fd, bytes, n), (ssize_t)n);
		close(fd);
		onnx_test_on_open(truncate_to_half, path);
		fd_model m;
		fd_diags d;
		diags_init(&d);
		assert_int_equal(onnx_load_model(&m, path, NULL, &d), -1);
		onnx_test_on_open(NULL, NULL);
		assert_int_equal(d.errors, 1);
		assert_non_null(strstr(d.items[0].message, "changed while it was read"));
		assert_string_equal(d.items[0].pos.file, path);
		diags_release(&d);
		unlink(path);
	}
	free(bytes);
}

/* Every shared model loaded with its initializers and nodes unpacked on two
 * threads (the stream big models take, forced on these small ones) is the
 * model the one-thread load makes. */
static void test_shared_models_streamed(void **state)
{
	(void)state;
	char **paths, probe[512];
	NEED_MODEL(model_path(probe, sizeof probe, "light_resnet50.onnx"));
	int n = list_models(models_dir(), &paths);
	assert_true(n >= 9);
	for (int i = 0; i < n; i++) {
		fd_model plain, streamed;
		fd_diags d;
		diags_init(&d);
		setenv("FUSIONDBG_THREADS", "1", 1);
		assert_int_equal(load(&plain, paths[i], NULL, &d), 0);
		setenv("FUSIONDBG_THREADS", "2", 1);
		onnx_test_stream_min(1);
		assert_int_equal(load(&streamed, paths[i], NULL, &d), 0);
		assert_int_equal(d.errors, 0);
		assert_same_model(&plain, &streamed);
		model_release(&plain);
		model_release(&streamed);
		diags_release(&d);
	}
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* The thread setting and the stream's threshold as they were, also when the
 * test above failed half-way (the tests after it must not stream). */
static char *saved_threads;

static int save_threads(void **state)
{
	(void)state;
	const char *t = getenv("FUSIONDBG_THREADS");
	saved_threads = t ? strdup(t) : NULL;
	return 0;
}

static int restore_threads(void **state)
{
	(void)state;
	onnx_test_stream_min(0);
	if (saved_threads)
		setenv("FUSIONDBG_THREADS", saved_threads, 1);
	else
		unsetenv("FUSIONDBG_THREADS");
	free(saved_threads);
	saved_threads = NULL;
	return 0;
}

static void test_shared_models(void **state)
{
	(void)state;
	char **paths, probe[512];
	NEED_MODEL(model_path(probe, sizeof probe, "light_resnet50.onnx"));
	int n = list_models(models_dir(), &paths);
	assert_true(n >= 9);
	/* one python run for all models: one JSON line each, in the same order */
	size_t cmdlen = 256;
	for (int i = 0; i < n; i++)
		cmdlen += strlen(paths[i]) + 3;
	char *cmd = malloc(cmdlen);
	int at = snprintf(cmd, cmdlen, "%s tests/tools/onnx_counts.py", python());
	for (int i = 0; i < n; i++)
		at += snprintf(cmd + at, cmdlen - (size_t)at, " '%s'", paths[i]);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char *line = NULL;
	size_t cap = 0;
	for (int i = 0; i < n; i++) {
		assert_true(getline(&line, &cap, p) > 0);
		assert_non_null(strstr(line, paths[i]));
		fd_model m;
		fd_diags d;
		diags_init(&d);
		print_message("%s\n", paths[i]);
		assert_int_equal(load(&m, paths[i], NULL, &d), 0);
		assert_int_equal(d.errors, 0);
		fd_model_info info;
		model_info_compute(&m, &info);
		print_message("  nodes %lld/%lld tensors %lld graphs %d (python: %lld/%lld %lld %lld)\n",
		              (long long)info.nodes, (long long)info.nodes_total, (long long)info.tensors,
		              info.graphs, (long long)json_int(line, "nodes"),
		              (long long)json_int(line, "nodes_total"), (long long)json_int(line, "tensors"),
		              (long long)json_int(line, "graphs"));
		assert_int_equal(info.nodes, json_int(line, "nodes"));
		assert_int_equal(info.nodes_total, json_int(line, "nodes_total"));
		assert_int_equal(info.tensors, json_int(line, "tensors"));
		assert_int_equal(info.graphs, json_int(line, "graphs"));
		int64_t sum = 0;
		for (int32_t k = 0; k < info.n_histogram; k++)
			sum += info.histogram[k].count;
		assert_int_equal(sum, info.nodes_total);
		check_order(&m);
		model_info_release(&info);
		model_release(&m);
		diags_release(&d);
		free(paths[i]);
	}
	assert_int_equal(pclose(p), 0);
	free(line);
	free(cmd);
	free(paths);
}

/* Every broken file: failure, exactly one error, naming the file. */
static const struct bad_case {
	const char *file;
	const char *message;
} bad_cases[] = {
	{ "empty.onnx", "empty file, not an ONNX model" },
	{ "garbage.onnx", "not a valid ONNX protobuf" },
	{ "png_renamed.onnx", "not an ONNX model (it is a PNG image)" },
	{ "truncated.onnx", "not a valid ONNX protobuf (truncated" },
	{ "no_graph.onnx", "not an ONNX model: it has no graph" },
	{ "cycle.onnx", "node 'relu_loop' (Relu) is on a cycle: relu_loop -> add_loop -> relu_loop" },
	{ "dangling_input.onnx", "node 'conv' (Conv) reads 'missing', which nothing produces" },
	{ "duplicate_output.onnx", "node 'b' (Relu) writes 'y', which node 'a' (Relu) also writes" },
	{ "self_consume.onnx", "node 'self' (Add) consumes its own output 'y'" },
	{ "negative_dim.onnx", "tensor 'x' has a negative dimension (-3 at axis 1)" },
	{ "deep_nesting.onnx", "subgraphs nested more than 64 deep" },
	{ "body_dangling.onnx",
	  "node 'then_add' (Add) reads 'nowhere', which nothing produces (in subgraph 'then_g' of node 'branch')" },
	{ "capture_cycle.onnx", "node 'after_relu' (Relu) is on a cycle: after_relu -> loop -> after_relu" },
	{ "does_not_exist.onnx", "cannot open: No such file or directory" },
	{ "", "cannot read: it is a directory" },
};

static void test_bad_files(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
		char path[512], line[1024];
		snprintf(path, sizeof path, BAD "%s", bad_cases[i].file);
		fd_model m;
		fd_diags d;
		diags_init(&d);
		print_message("%s\n", path);
		assert_int_equal(load(&m, path, NULL, &d), -1);
		assert_int_equal(d.errors, 1);
		assert_int_equal(d.n, 1);
		diag_format(&d.items[0], line, sizeof line);
		assert_non_null(strstr(line, bad_cases[i].message));
		assert_int_equal(strncmp(line, path, strlen(path)), 0);
		assert_null(strchr(line, '\n'));
		assert_int_equal(m.n_graphs, 0); /* released */
		diags_release(&d);
	}
}

static uint8_t *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

/* Real models cut at many offsets: each fails with one line, none crashes. */
static void test_truncated(void **state)
{
	(void)state;
	static const char *const names[] = { "light_squeezenet.onnx", "tiny_gpt2_ort_fused.onnx",
	                                     "tiny_distilbert_sst2.onnx" };
	for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
		char path[512];
		NEED_MODEL(model_path(path, sizeof path, names[k]));
		size_t size;
		uint8_t *buf = read_all(path, &size);
		for (int cut = 0; cut <= 32; cut++) {
			size_t len = cut == 32 ? size - 1 : size * (size_t)cut / 32;
			uint8_t *copy = malloc(len + 1); /* exact size: ASan sees overreads */
			memcpy(copy, buf, len);
			fd_model m;
			fd_diags d;
			diags_init(&d);
			int rc = onnx_load_model_buffer(&m, "cut.onnx", copy, len, NULL, &d);
			assert_int_equal(rc, -1);
			assert_int_equal(d.errors, 1);
			diags_release(&d);
			free(copy);
		}
		free(buf);
	}
}

/* Random bytes and bit flips of a real model: load or fail, never crash. */
static void test_mutations(void **state)
{
	(void)state;
	char path[512];
	NEED_MODEL(model_path(path, sizeof path, "light_squeezenet.onnx"));
	size_t size;
	uint8_t *orig = read_all(path, &size);
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int loaded = 0, failed = 0;
	for (int round = 0; round < 400; round++) {
		uint8_t *buf = malloc(size);
		memcpy(buf, orig, size);
		int flips = 1 + round % 8;
		for (int f = 0; f < flips; f++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			buf[(seed >> 33) % size] ^= (uint8_t)(1u << ((seed >> 20) & 7));
		}
		if (round % 10 == 9) /* pure noise now and then */
			for (size_t i = 0; i < 256 && i < size; i++)
				buf[i] = (uint8_t)((seed = seed * 6364136223846793005ull + 1) >> 56);
		fd_model m;
		fd_diags d;
		diags_init(&d);
		fd_load_options o = { .no_shape_inference = round % 2 == 0 };
		int rc = onnx_load_model_buffer(&m, "mutated.onnx", buf, size, &o, &d);
		if (rc == 0) {
			loaded++;
			model_release(&m);
		} else {
			failed++;
			assert_true(d.errors >= 1);
		}
		diags_release(&d);
		free(buf);
	}
	print_message("mutations: %d loaded, %d refused\n", loaded, failed);
	free(orig);
}

static int32_t tensor_in(const fd_graph *g, const char *name)
{
	int32_t t = graph_find_tensor(g, name);
	if (t < 0)
		print_message("no tensor '%s' in graph '%s'\n", name, g->name);
	assert_true(t >= 0);
	return t;
}

static int32_t node_in(const fd_graph *g, const char *name)
{
	int32_t n = graph_find_node(g, name);
	assert_true(n >= 0);
	return n;
}

static bool has_consumer(const fd_tensor *x, int32_t node)
{
	for (int32_t c = 0; c < x->n_consumers; c++)
		if (x->consumers[c] == node)
			return true;
	return false;
}

static void test_subgraphs(void **state)
{
	(void)state;
	fd_model m;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(load(&m, BAD "ok_subgraphs.onnx", NULL, &d), 0);
	assert_int_equal(m.n_graphs, 4);
	/* bodies follow in discovery order: the If's attributes come sorted by
	 * name from onnx.helper, so else_branch is graph 2 and then_branch 3 */
	const fd_graph *g = &m.graphs[0], *body = &m.graphs[1], *else_g = &m.graphs[2], *then_g = &m.graphs[3];
	int32_t loop = node_in(g, "loop"), add = node_in(g, "add");
	assert_int_equal(g->nodes[loop].n_subgraphs, 1);
	assert_int_equal(g->nodes[loop].subgraphs[0], 1);
	assert_int_equal(node_attr(&g->nodes[loop], "body")->u.g, 1);
	assert_int_equal(node_attr(&g->nodes[loop], "body")->type, ATTR_GRAPH);
	assert_int_equal(body->parent, 0);
	assert_int_equal(body->owner_node, loop);
	assert_string_equal(body->owner_attr, "body");
	assert_int_equal(body->depth, 1);
	int32_t branch = node_in(body, "branch");
	assert_int_equal(then_g->parent, 1);
	assert_int_equal(else_g->parent, 1);
	assert_int_equal(then_g->owner_node, branch);
	assert_string_equal(then_g->owner_attr, "then_branch");
	assert_string_equal(else_g->owner_attr, "else_branch");
	assert_int_equal(then_g->depth, 2);
	assert_int_equal(body->nodes[branch].n_subgraphs, 2);

	/* the branches read w and x of the main graph: the body captures them */
	int32_t w = tensor_in(g, "w"), x = tensor_in(g, "x");
	assert_int_equal(g->tensors[w].kind, TENSOR_CONSTANT);
	assert_non_null(g->tensors[w].value);
	assert_int_equal(g->tensors[w].value->count, 6);
	assert_true(g->tensors[w].value->f64[5] == 6.0);
	int32_t bw = tensor_in(body, "w"), bx = tensor_in(body, "x"), bv = tensor_in(body, "v");
	assert_int_equal(body->tensors[bw].kind, TENSOR_OUTER_SCOPE);
	assert_int_equal(body->tensors[bw].outer, w);
	assert_int_equal(body->tensors[bx].kind, TENSOR_OUTER_SCOPE);
	assert_int_equal(body->tensors[bx].outer, x);
	assert_int_equal(body->tensors[bv].kind, TENSOR_GRAPH_INPUT);
	int32_t tw = tensor_in(then_g, "w"), tv = tensor_in(then_g, "v"), ex = tensor_in(else_g, "x");
	assert_int_equal(then_g->tensors[tw].kind, TENSOR_OUTER_SCOPE);
	assert_int_equal(then_g->tensors[tw].outer, bw);
	assert_int_equal(then_g->tensors[tv].outer, bv);
	assert_int_equal(else_g->tensors[ex].outer, bx);
	/* owners count as consumers of what their bodies read */
	assert_true(has_consumer(&g->tensors[w], add));
	assert_true(has_consumer(&g->tensors[w], loop));
	assert_true(has_consumer(&g->tensors[x], loop));
	assert_int_equal(g->tensors[w].n_consumers, 2);
	assert_true(has_consumer(&body->tensors[bw], branch));
	assert_true(has_consumer(&body->tensors[bv], branch));
	/* unnamed node */
	int32_t relu = node_in(g, "Relu_3");
	assert_true(g->nodes[relu].name_synthesized);
	assert_false(g->nodes[loop].name_synthesized);
	assert_int_equal(g->topo_order[3], relu);
	assert_true(g->tensors[tensor_in(g, "z")].is_graph_output);
	check_order(&m);
	model_release(&m);
	diags_release(&d);
}

static void test_attrs_and_constants(void **state)
{
	(void)state;
	fd_model m;
	fd_diags d;
	diags_init(&d);
	fd_dim_binding dims[] = { { "batch", 4 }, { "nosuch", 2 } };
	fd_load_options o = { .dims = dims, .n_dims = 2 };
	assert_int_equal(load(&m, BAD "ok_attrs.onnx", &o, &d), 0);
	assert_int_equal(d.errors, 0);
	assert_int_equal(d.warnings, 1); /* --dim nosuch */
	const fd_graph *g = &m.graphs[0];
	const fd_node *c = &g->nodes[node_in(g, "custom")];
	assert_string_equal(c->domain, "test.fusiondbg");
	const fd_attr *a;
	assert_non_null(a = node_attr(c, "f"));
	assert_int_equal(a->type, ATTR_FLOAT);
	assert_true(a->u.f == 1.5);
	assert_int_equal(node_attr(c, "i")->u.i, -7);
	assert_string_equal(node_attr(c, "s")->u.s, "hello");
	a = node_attr(c, "t");
	assert_int_equal(a->type, ATTR_TENSOR);
	assert_int_equal(a->u.t->dtype, DT_FLOAT16);
	assert_int_equal(a->u.t->shape.rank, 1);
	assert_true(a->u.t->value->f64[0] == 1.0 && a->u.t->value->f64[1] == -2.0 && a->u.t->value->f64[2] == 0.5);
	a = node_attr(c, "floats");
	assert_int_equal(a->count, 2);
	assert_true(a->u.floats[1] == 2.5);
	a = node_attr(c, "ints");
	assert_int_equal(a->count, 3);
	assert_int_equal(a->u.ints[2], 5);
	a = node_attr(c, "strings");
	assert_int_equal(a->type, ATTR_STRINGS);
	assert_string_equal(a->u.strings[1], "bc");
	a = node_attr(c, "tensors");
	assert_int_equal(a->count, 2);
	assert_int_equal(a->u.tensors[0]->value->i64[1], -1);
	assert_int_equal(a->u.tensors[1]->dtype, DT_BOOL);
	assert_int_equal(a->u.tensors[1]->value->i64[2], 1);
	a = node_attr(c, "g");
	assert_int_equal(a->type, ATTR_GRAPH);
	assert_int_equal(m.graphs[a->u.g].parent, 0);
	assert_int_equal(m.graphs[a->u.g].tensors[graph_find_tensor(&m.graphs[a->u.g], "x")].kind,
	                 TENSOR_OUTER_SCOPE);
	a = node_attr(c, "sp");
	assert_int_equal(a->type, ATTR_SPARSE_TENSOR);
	assert_int_equal(a->u.t->dtype, DT_FLOAT);
	assert_int_equal(a->u.t->shape.dims[1].value, 4);
	assert_null(node_attr(c, "nope"));

	const fd_tensor *k = &g->tensors[tensor_in(g, "k_ints")];
	assert_int_equal(k->kind, TENSOR_CONSTANT);
	assert_int_equal(k->dtype, DT_INT64);
	assert_int_equal(k->shape.rank, 1);
	assert_int_equal(k->shape.dims[0].value, 3);
	assert_int_equal(k->value->i64[2], 3);
	k = &g->tensors[tensor_in(g, "k_float")];
	assert_int_equal(k->shape.rank, 0);
	assert_true(k->value->f64[0] == 2.5);
	k = &g->tensors[tensor_in(g, "k_int8")];
	assert_int_equal(k->value->i64[0], -1);
	assert_int_equal(k->value->i64[2], -128);
	k = &g->tensors[tensor_in(g, "k_bf16")];
	assert_true(k->value->f64[0] == 1.0 && k->value->f64[1] == -2.0);
	assert_int_equal(g->tensors[tensor_in(g, "k_u64")].value->i64[1], 9);
	assert_true(g->tensors[tensor_in(g, "k_dbl")].value->f64[0] == 0.25);
	k = &g->tensors[tensor_in(g, "k_i64raw")];
	assert_int_equal(k->shape.rank, 2);
	assert_int_equal(k->value->i64[1], -2);
	assert_true(tensor_is_constant(g, tensor_in(g, "k_i64raw")));

	const fd_tensor *ext = &g->tensors[tensor_in(g, "ext_w")];
	assert_int_equal(ext->kind, TENSOR_INITIALIZER);
	assert_true(ext->external_data);
	assert_null(ext->value);
	assert_int_equal(ext->shape.rank, 4);
	assert_int_equal(ext->shape.dims[0].value, 8);
	const fd_tensor *small = &g->tensors[tensor_in(g, "small")];
	assert_true(small->value->f64[1] == -1.5);
	const fd_tensor *big = &g->tensors[tensor_in(g, "big")];
	assert_null(big->value);
	assert_int_equal(big->shape.dims[0].value, 5000);
	assert_false(tensor_is_constant(g, tensor_in(g, "x")));

	/* symbolic dims: batch bound by --dim */
	assert_int_equal(m.n_symdims, 1);
	assert_string_equal(m.symdims[0].name, "batch");
	assert_true(m.symdims[0].bound);
	const fd_tensor *x4 = &g->tensors[tensor_in(g, "x4")];
	assert_string_equal(dexpr_text(x4->shape.dims[0].expr), "batch");
	assert_int_equal(x4->shape.dims[0].value, 4);
	assert_int_equal(node_spatial_rank(g, &g->nodes[node_in(g, "conv")]), 2);
	assert_int_equal(node_spatial_rank(g, c), -1);

	fd_model_info info;
	model_info_compute(&m, &info);
	assert_int_equal(info.n_unknown_ops, 1);
	assert_string_equal(info.unknown_ops[0].domain, "test.fusiondbg");
	assert_string_equal(info.unknown_ops[0].op_type, "AllAttrs");
	assert_int_equal(info.graphs, 2);
	assert_int_equal(info.tensors_by_kind[TENSOR_CONSTANT], 7);
	assert_int_equal(info.tensors_by_kind[TENSOR_INITIALIZER], 3);
	assert_int_equal(info.constants, 10);
	assert_int_equal(info.external_tensors, 1);
	model_info_release(&info);
	model_release(&m);

	/* without --dim the dim has no value: a symbol, never 1 */
	diags_clear(&d);
	assert_int_equal(load(&m, BAD "ok_attrs.onnx", NULL, &d), 0);
	assert_false(m.symdims[0].bound);
	g = &m.graphs[0];
	x4 = &g->tensors[tensor_in(g, "x4")];
	assert_false(dim_known(x4->shape.dims[0]));
	assert_string_equal(dexpr_text(x4->shape.dims[0].expr), "batch");
	model_release(&m);
	diags_release(&d);
}

static void test_old_ir_and_order(void **state)
{
	(void)state;
	fd_model m;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(load(&m, BAD "ok_ir2.onnx", NULL, &d), 0);
	assert_int_equal(d.warnings, 1);
	const fd_graph *g = &m.graphs[0];
	assert_int_equal(g->n_inputs, 1); /* w is listed as an input but is an initializer */
	assert_int_equal(g->tensors[tensor_in(g, "w")].kind, TENSOR_INITIALIZER);
	assert_int_equal(g->n_initializers, 1);
	model_release(&m);

	diags_clear(&d);
	assert_int_equal(load(&m, BAD "ok_unsorted.onnx", NULL, &d), 0);
	g = &m.graphs[0];
	static const char *const order[] = { "first_relu", "middle_add", "last_relu", "side_relu" };
	for (int i = 0; i < 4; i++)
		assert_string_equal(g->nodes[g->topo_order[i]].name, order[i]);
	check_order(&m);
	model_release(&m);

	diags_clear(&d);
	assert_int_equal(load(&m, BAD "ok_deep_nesting.onnx", NULL, &d), 0);
	assert_int_equal(m.n_graphs, 41);
	int maxdepth = 0;
	for (int32_t i = 0; i < m.n_graphs; i++)
		if (m.graphs[i].depth > maxdepth)
			maxdepth = m.graphs[i].depth;
	assert_int_equal(maxdepth, 20);
	model_release(&m);
	diags_release(&d);
}

/* An initializer listed among the graph inputs: a constant before IR 4, an
 * overridable default from IR 4 on (ONNX IR, "Graphs"), unless the policy
 * treats every initializer as a weight. */
static void test_initializer_inputs(void **state)
{
	(void)state;
	fd_model m;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(load(&m, BAD "ok_ir2.onnx", NULL, &d), 0);
	const fd_graph *g = &m.graphs[0];
	const fd_tensor *w = &g->tensors[tensor_in(g, "w")];
	assert_int_equal(g->n_declared_inputs, 2);
	assert_true(w->listed_input);
	assert_false(w->overridable);
	assert_true(tensor_is_constant(g, tensor_in(g, "w")));
	assert_string_equal(tensor_initializer_words(&m, w), "initializer, also a graph input (a constant before IR 4)");
	model_release(&m);

	diags_clear(&d);
	assert_int_equal(load(&m, "samples/initializer_inputs.onnx", NULL, &d), 0);
	g = &m.graphs[0];
	assert_int_equal(m.ir_version, 4);
	assert_int_equal(g->n_inputs, 1);
	assert_int_equal(g->n_declared_inputs, 8);
	int32_t b = tensor_in(g, "add2_b");
	assert_true(g->tensors[b].listed_input);
	assert_true(g->tensors[b].overridable);
	assert_false(tensor_is_constant(g, b));
	assert_string_equal(tensor_initializer_words(&m, &g->tensors[b]), "initializer, overridable (also a graph input)");
	fd_model_info info;
	model_info_compute(&m, &info);
	assert_int_equal(info.n_declared_inputs, 8);
	assert_int_equal(info.n_listed_initializers, 7);
	assert_int_equal(info.n_overridable, 7);
	assert_string_equal(info.listed_initializers[6].name, "add2_b");
	model_info_release(&info);

	model_set_initializer_policy(&m, true);   /* --initializers constant */
	assert_false(g->tensors[b].overridable);
	assert_true(g->tensors[b].listed_input);
	assert_true(tensor_is_constant(g, b));
	assert_string_equal(tensor_initializer_words(&m, &g->tensors[b]),
	                    "initializer, also a graph input (a weight: initializers constant)");
	model_set_initializer_policy(&m, false);
	assert_true(g->tensors[b].overridable);
	model_release(&m);

	diags_clear(&d);
	fd_load_options lo = { .initializers_constant = true };
	assert_int_equal(load(&m, "samples/initializer_inputs.onnx", &lo, &d), 0);
	assert_true(m.initializers_constant);
	assert_false(m.graphs[0].tensors[tensor_in(&m.graphs[0], "conv1_w")].overridable);
	/* an initializer that is not listed is a constant under either policy */
	model_release(&m);
	diags_release(&d);
}

static void test_huge_file_refused(void **state)
{
	(void)state;
	char path[] = "/tmp/fusiondbg_huge_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)3 << 30), 0); /* sparse: no disk used */
	close(fd);
	fd_model m;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(onnx_load_model(&m, path, NULL, &d), -1);
	assert_int_equal(d.errors, 1);
	assert_non_null(strstr(d.items[0].message, "larger than 2 GiB"));
	unlink(path);
	diags_release(&d);
}

static void test_op_table(void **state)
{
	(void)state;
	assert_true(onnx_op_is_standard("", "Conv"));
	assert_true(onnx_op_is_standard("ai.onnx", "Upsample"));
	assert_true(onnx_op_is_standard("", "ImageScaler"));
	assert_true(onnx_op_is_standard("", "Scatter"));
	assert_true(onnx_op_is_standard("", "GroupNormalization"));
	assert_true(onnx_op_is_standard("ai.onnx.ml", "ZipMap"));
	assert_false(onnx_op_is_standard("", "Attention"));
	assert_false(onnx_op_is_standard("com.microsoft", "Attention"));
	assert_false(onnx_op_is_standard("ai.onnx.ml", "Conv"));
	assert_false(onnx_op_is_standard("", "conv"));
	/* every op python3-onnx knows is standard here */
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s -c \"import onnx.defs as d\n"
	         "for s in sorted(set((x.domain, x.name) for x in d.get_all_schemas_with_history())):"
	         " print(s[0] or '-', s[1])\"", python());
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char dom[128], op[128];
	int n = 0;
	while (fscanf(p, "%127s %127s", dom, op) == 2) {
		if (!onnx_op_is_standard(strcmp(dom, "-") ? dom : "", op))
			print_message("not standard: %s %s\n", dom, op);
		assert_true(onnx_op_is_standard(strcmp(dom, "-") ? dom : "", op));
		n++;
	}
	assert_int_equal(pclose(p), 0);
	assert_true(n > 150);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_models),
		cmocka_unit_test_setup_teardown(test_shared_models_streamed, save_threads, restore_threads),
		cmocka_unit_test(test_decoder_matches_protobuf_c),
		cmocka_unit_test_setup_teardown(test_weights_untouched, save_threads, restore_threads),
		cmocka_unit_test(test_file_shrinks_while_loading),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_subgraphs),
		cmocka_unit_test(test_attrs_and_constants),
		cmocka_unit_test(test_old_ir_and_order),
		cmocka_unit_test(test_initializer_inputs),
		cmocka_unit_test(test_huge_file_refused),
		cmocka_unit_test(test_op_table),
	};
	return models_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
