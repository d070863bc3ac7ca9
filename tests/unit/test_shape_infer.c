/* test_shape_infer.c — shape inference on the small models of
 * tests/data/shapes (made by tests/tools/make_shape_models.py; the expected
 * shapes below are worked out by hand from the ONNX spec), byte counts that
 * saturate, shape_format, and coverage on the shared real models.
 *
 * `test_shape_infer --dump MODEL [NAME=V ...]` (and --dump-cases MODEL...)
 * prints every node output's dtype, shape and small value instead of
 * testing; tests/cli/test_shape_coverage.sh uses it to compare with onnx's
 * own shape inference and with onnx's operator test cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ir/graph.h"
#include "test_models.h"
#include "onnx/onnx.h"

#define DATA "tests/data/shapes/"

static char last_warning[512];   /* the last warning of the last load */
static size_t n_warnings;

static fd_model *load(const char *path, const fd_dim_binding *dims, int n_dims)
{
	static fd_model m;
	fd_load_options opt = { .dims = dims, .n_dims = n_dims };
	fd_diags d;
	char buf[512];

	diags_init(&d);
	if (onnx_load_model(&m, path, &opt, &d) != 0) {
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "%s\n", diag_format(&d.items[i], buf, sizeof buf));
		diags_release(&d);
		fail_msg("cannot load %s", path);
	}
	n_warnings = d.warnings;
	last_warning[0] = '\0';
	for (size_t i = 0; i < d.n; i++)
		if (d.items[i].severity == DIAG_WARNING)
			diag_format(&d.items[i], last_warning, sizeof last_warning);
	diags_release(&d);
	return &m;
}

static const fd_tensor *tensor(const fd_model *m, const char *name)
{
	int32_t t = graph_find_tensor(&m->graphs[0], name);
	if (t < 0)
		fail_msg("no tensor %s", name);
	return &m->graphs[0].tensors[t];
}

/* Dims by value ("1x6x15x16"; a dim with no number at the bindings as its
 * expression, "batchx24"; "?" unknown, "scalar" for rank 0). */
static const char *dims_of(const fd_model *m, const char *name)
{
	static char buf[256];
	const fd_shape *s = &tensor(m, name)->shape;
	size_t at = 0;

	if (s->rank < 0)
		return "?";
	if (s->rank == 0)
		return "scalar";
	buf[0] = '\0';
	for (int32_t i = 0; i < s->rank && at < sizeof buf; i++) {
		if (s->dims[i].value >= 0)
			at += snprintf(buf + at, sizeof buf - at, "%s%lld", i ? "x" : "", (long long)s->dims[i].value);
		else if (s->dims[i].expr)
			at += snprintf(buf + at, sizeof buf - at, "%s%s", i ? "x" : "", dexpr_text(s->dims[i].expr));
		else
			at += snprintf(buf + at, sizeof buf - at, "%s?", i ? "x" : "");
	}
	return buf;
}

#define SHAPE(m, name, want) assert_string_equal(dims_of(m, name), want)
#define DTYPE(m, name, dt) assert_int_equal(tensor(m, name)->dtype, dt)

static void expect_ints(const fd_model *m, const char *name, const int64_t *want, int64_t n)
{
	const fd_const *v = tensor(m, name)->value;
	assert_non_null(v);
	assert_non_null(v->i64);
	assert_int_equal(v->count, n);
	for (int64_t i = 0; i < n; i++)
		assert_int_equal(v->i64[i], want[i]);
}

/* A value with symbolic elements: each as its text ("batch", "-1"). */
static void expect_sym_ints(const fd_model *m, const char *name, const char *const *want, int64_t n)
{
	const fd_const *v = tensor(m, name)->value;
	char buf[64];
	assert_non_null(v);
	assert_non_null(v->sym);
	assert_null(v->i64);             /* not every element has a number */
	assert_int_equal(v->count, n);
	for (int64_t i = 0; i < n; i++)
		assert_string_equal(dim_format(dim_of_sint(v->sym[i]), buf, sizeof buf),
		                    v->sym[i].e || v->sym[i].n >= 0 ? want[i] : "?");
}

static void test_conv(void **state)
{
	fd_model *m = load(DATA "conv.onnx", NULL, 0);
	(void)state;
	SHAPE(m, "w", "6x1x3x3");        /* ConstantOfShape of a constant shape */
	SHAPE(m, "c1", "1x6x15x16");     /* group 3, pads 1,2,1,2, strides 2, dilations 2 */
	SHAPE(m, "c2", "1x8x8x8");       /* SAME_UPPER, stride 2 */
	SHAPE(m, "c3", "1x4x6x6");       /* VALID */
	SHAPE(m, "y", "1x5x12x12");      /* ConvTranspose, output_padding 1 */
	DTYPE(m, "y", DT_FLOAT);
	model_release(m);
}

static void test_pool(void **state)
{
	fd_model *m = load(DATA "pool.onnx", NULL, 0);
	(void)state;
	SHAPE(m, "p_floor", "1x8x4x4");
	SHAPE(m, "p_ceil", "1x8x5x5");
	SHAPE(m, "p_drop", "1x2x3x3");   /* a window starting in the end padding is dropped */
	SHAPE(m, "p_same", "1x8x4x4");
	SHAPE(m, "y", "1x8x1x1");
	model_release(m);
}

static void test_matmul(void **state)
{
	fd_model *m = load(DATA "matmul.onnx", NULL, 0);
	(void)state;
	SHAPE(m, "batched", "2x3x4x6");  /* batch dims (2,1) and (3) broadcast */
	SHAPE(m, "vec_left", "3x6");
	SHAPE(m, "vec_right", "2x1x4");
	SHAPE(m, "dot", "scalar");
	SHAPE(m, "gemm", "7x9");
	SHAPE(m, "y", "2x3x4x6");
	model_release(m);
}

static void test_reshape(void **state)
{
	fd_model *m = load(DATA "reshape.onnx", NULL, 0);
	(void)state;
	SHAPE(m, "r_zero_neg", "2x12");
	SHAPE(m, "r_neg", "4x6");
	SHAPE(m, "r_keep", "2x3x4");
	SHAPE(m, "flat", "6x4");
	SHAPE(m, "y", "4x2x3");
	model_release(m);
}

static void test_chain(void **state)
{
	fd_model *m = load(DATA "chain.onnx", NULL, 0);
	static const int64_t target[] = { 5, -1 }, sizes[] = { 10, 6, 16 };
	static const char *const target_sym[] = { "batch", "?" };
	(void)state;
	/* Shape → Gather → Concat keeps the symbol; Reshape takes it */
	expect_sym_ints(m, "target", target_sym, 2);
	SHAPE(m, "flat", "batchx24");    /* batch unbound: a symbol, never 1 */
	/* Cast to float and back cannot carry a symbol: the Expand is unknown */
	assert_null(tensor(m, "sizes")->value);
	SHAPE(m, "y", "unk__0xunk__1xunk__2");
	model_release(m);

	fd_dim_binding b = { "batch", 5 };
	m = load(DATA "chain.onnx", &b, 1);
	expect_ints(m, "target", target, 2);
	expect_ints(m, "sizes", sizes, 3);
	SHAPE(m, "flat", "5x24");
	SHAPE(m, "y", "10x6x16");
	model_release(m);
}

static void test_slice_split(void **state)
{
	fd_model *m = load(DATA "slice.onnx", NULL, 0);
	(void)state;
	SHAPE(m, "s_neg", "3x8");        /* starts -3, ends INT64_MAX / -5, step 2 */
	SHAPE(m, "s_rev", "10x20");      /* step -1 from -1 to -INT64_MAX */
	SHAPE(m, "s_clamp", "8x3");
	SHAPE(m, "sp_a", "10x8");
	SHAPE(m, "sp_b", "10x12");
	SHAPE(m, "e0", "5x20");
	SHAPE(m, "e1", "5x20");
	SHAPE(m, "y", "10x28");
	model_release(m);
}

static void test_resize(void **state)
{
	fd_model *m = load(DATA "resize.onnx", NULL, 0);
	(void)state;
	SHAPE(m, "by_scales", "1x3x20x10");
	SHAPE(m, "by_sizes", "1x3x7x9");
	SHAPE(m, "y", "1x3x40x41");      /* sizes from Shape -> Slice -> Concat */
	model_release(m);
}

static void test_huge(void **state)
{
	fd_model *m = load(DATA "huge.onnx", NULL, 0);
	const fd_tensor *r = tensor(m, "r");
	int64_t n = 0, bytes = 0;
	(void)state;
	SHAPE(m, "r", "1099511627776x1099511627776x16");
	assert_false(shape_elements(&r->shape, &n));
	assert_true(n == INT64_MAX);
	assert_false(tensor_bytes(r, &bytes));
	assert_true(bytes == INT64_MAX);
	SHAPE(m, "y", "unk__0x16");      /* the element count overflows: -1 is a fresh symbol */
	model_release(m);
}

static void test_symbolic(void **state)
{
	fd_model *m = load(DATA "symbolic.onnx", NULL, 0);
	char buf[64];
	(void)state;
	SHAPE(m, "mm", "batchxseqx6");
	assert_string_equal(shape_format(&tensor(m, "mm")->shape, buf, sizeof buf), "batch×seq×6");
	dim_display_set_ascii(true);   /* LANG=C: "x", spaced beside a symbol so names never run together */
	assert_string_equal(shape_format(&tensor(m, "mm")->shape, buf, sizeof buf), "batch x seq x 6");
	assert_string_equal(shape_format_json(&tensor(m, "mm")->shape, buf, sizeof buf), "batchxseqx6");
	dim_display_set_ascii(false);
	SHAPE(m, "y", "6*batch*seq");    /* ReduceProd of the Shape, as Reshape's target */
	model_release(m);

	fd_dim_binding b[2] = { { "batch", 2 }, { "seq", 5 } };
	m = load(DATA "symbolic.onnx", b, 2);
	SHAPE(m, "mm", "2x5x6");
	SHAPE(m, "y", "60");
	static const int64_t numel[] = { 60 };
	expect_ints(m, "numel", numel, 1);
	model_release(m);
}

static void test_misc(void **state)
{
	fd_model *m = load(DATA "misc.onnx", NULL, 0);
	static const int64_t rng[] = { 0, 1, 2, 3, 4 }, wh[] = { 2, 3 };
	(void)state;
	DTYPE(m, "eq", DT_BOOL);
	expect_ints(m, "wh", wh, 2);
	SHAPE(m, "cos", "2x3");
	DTYPE(m, "cos", DT_INT64);
	expect_ints(m, "rng", rng, 5);
	SHAPE(m, "sq", "3x5");
	SHAPE(m, "rm", "1x3x1");
	SHAPE(m, "am", "1x5");
	DTYPE(m, "am", DT_INT64);
	SHAPE(m, "tv", "1x3x2");
	SHAPE(m, "ti", "1x3x2");
	DTYPE(m, "ti", DT_INT64);
	SHAPE(m, "pd", "1x7x11");
	SHAPE(m, "tl", "2x3x15");
	SHAPE(m, "ln", "1x3x5");
	SHAPE(m, "ln_mean", "1x3x1");
	SHAPE(m, "mask", "1x3x5");
	DTYPE(m, "mask", DT_BOOL);
	SHAPE(m, "es", "1x3x7");
	SHAPE(m, "rz_copy", "2x0x3");    /* 0 copies the input dim ... */
	SHAPE(m, "rz_zero", "0x0x3");    /* ... unless allowzero */
	SHAPE(m, "y", "1x3x2x2");
	model_release(m);
}

/* The same over symbols: the Loop's carried value and its scan output keep
 * N (the trip count 5 in front), the Scan's state and outputs keep B and T,
 * inside the bodies too; the If's branches keep batch and their own
 * lengths, their merge a fresh symbol for the length only. */
static void test_control_symbolic(void **state)
{
	fd_model *m = load(DATA "control_symbolic.onnx", NULL, 0);
	(void)state;
	SHAPE(m, "loop_v", "Nx8");
	SHAPE(m, "loop_scan", "5xNx8");
	SHAPE(m, "scan_s", "Bx8");
	SHAPE(m, "scan_y", "TxBx8");
	SHAPE(m, "scan_relu", "TxBx8");
	const char *want[][3] = { { "scan_body", "m_t", "B×8" }, { "body", "scan_out", "N×8" },
		                  { "then", "r_then", "batch×6×length" },
		                  { "else", "r_else", "batch×6×(floor((length+1)/2)-1)" } };
	for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
		bool found = false;
		for (int32_t gi = 1; gi < m->n_graphs; gi++) {
			const fd_graph *g = &m->graphs[gi];
			int32_t t = graph_find_tensor(g, want[k][1]);
			if (!g->name || strcmp(g->name, want[k][0]) || t < 0)
				continue;
			char buf[128];
			assert_string_equal(shape_format(&g->tensors[t].shape, buf, sizeof buf), want[k][2]);
			found = true;
		}
		if (!found)
			fail_msg("no %s in body %s", want[k][1], want[k][0]);
	}
	const fd_shape *ifs = &tensor(m, "if_out")->shape;
	assert_int_equal(ifs->rank, 3);
	assert_true(ifs->dims[0].expr && !strcmp(dexpr_text(ifs->dims[0].expr), "batch"));
	assert_int_equal(ifs->dims[1].value, 6);
	assert_true(ifs->dims[2].expr && dexpr_has_fresh(ifs->dims[2].expr));
	fd_shape_coverage c = model_shape_coverage(m);
	assert_int_equal(c.known, c.total);
	model_release(m);
}

/* Bodies are walked when their owner is reached; outer-scope reads see x. */
static void test_control(void **state)
{
	fd_model *m = load(DATA "control.onnx", NULL, 0);
	(void)state;
	SHAPE(m, "if_out", "2x3");
	SHAPE(m, "loop_v", "2x3");
	SHAPE(m, "loop_scan", "4x2x3");  /* no condition input: exactly M iterations */
	SHAPE(m, "scan_s", "3");
	SHAPE(m, "y", "2x3");
	assert_int_equal(m->n_graphs, 5);
	for (int32_t gi = 1; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		for (int32_t t = 0; t < g->n_tensors; t++)
			if (g->tensors[t].producer >= 0)
				assert_true(g->tensors[t].shape.rank >= 0);
	}
	fd_shape_coverage c = model_shape_coverage(m);
	assert_int_equal(c.total, 5);
	assert_int_equal(c.known, 5);
	model_release(m);
}

/* A declared shape is never replaced: unknown dims are filled in, a clash
 * keeps the declared shape and says so. */
static void test_declared(void **state)
{
	fd_model *m = load(DATA "declared.onnx", NULL, 0);
	(void)state;
	SHAPE(m, "r", "1x3x5");
	SHAPE(m, "s", "1x3x4");
	SHAPE(m, "y", "1x3x4");
	assert_int_equal(n_warnings, 1);
	assert_non_null(strstr(last_warning, "inferred shape 1×3×4 for r, declared 1×3×5"));
	model_release(m);
}

/* Values that overflowed int64 arithmetic once: exact where the true
 * result fits, unknown where it does not, never wrapped. */
static void test_hostile(void **state)
{
	fd_model *m = load(DATA "hostile.onnx", NULL, 0);
	(void)state;
	SHAPE(m, "scan_y", "?");
	SHAPE(m, "gnd", "?");
	SHAPE(m, "sp0", "4611686018427387904");
	SHAPE(m, "sp1", "4611686018427387903");
	SHAPE(m, "conv", "1x3x8x8");     /* huge pads and dilations cancel out */
	SHAPE(m, "pool", "1x2xunk__0x1"); /* what no rule computes is a fresh symbol */
	SHAPE(m, "sl", "1x5");           /* step INT64_MIN takes one element */
	SHAPE(m, "tr", "?");             /* perm is not a permutation */
	SHAPE(m, "pd", "unk__1x5");
	SHAPE(m, "rng", "unk__2");
	SHAPE(m, "d2s", "1x0x8796093022208x8796093022208");
	SHAPE(m, "y", "4x5");
	model_release(m);
}

static void test_bytes_and_format(void **state)
{
	fd_dim d4[4] = { { 1, NULL }, { 64, NULL }, { 56, NULL }, { 56, NULL } };
	fd_dim big[3] = { { INT64_MAX / 2, NULL }, { 3, NULL }, { 1, NULL } };
	fd_arena ar;
	strpool names;
	arena_init(&ar);
	strpool_init(&names, &ar);
	fd_dimtab *tab = dimtab_new(&ar, &names);
	fd_dim sym[2] = { dimtab_symbol(tab, "batch"), { 128, NULL } };
	fd_dim unk[2] = { { -1, NULL }, { 4, NULL } };
	fd_tensor t = { 0 };
	char buf[64];
	int64_t n;
	(void)state;

	t.shape = (fd_shape){ 4, d4 };
	t.dtype = DT_FLOAT;
	assert_true(tensor_bytes(&t, &n));
	assert_int_equal(n, 1 * 64 * 56 * 56 * 4);
	t.dtype = DT_INT4;                               /* sub-byte types round up */
	t.shape = (fd_shape){ 1, (fd_dim[1]){ { 3, NULL } } };
	assert_true(tensor_bytes(&t, &n));
	assert_int_equal(n, 2);
	t.dtype = DT_FLOAT;
	t.shape = (fd_shape){ 3, big };                  /* never wraps */
	assert_false(shape_elements(&t.shape, &n));
	assert_true(n == INT64_MAX);
	assert_false(tensor_bytes(&t, &n));
	assert_true(n == INT64_MAX);
	big[0].value = INT64_MAX / 8;                    /* elements fit, bytes do not */
	big[1].value = 1;
	assert_true(shape_elements(&t.shape, &n));
	assert_false(tensor_bytes(&t, &n));
	assert_true(n == INT64_MAX);
	t.shape = (fd_shape){ 2, unk };
	assert_false(tensor_bytes(&t, &n));
	t.dtype = DT_STRING;
	t.shape = (fd_shape){ 4, d4 };
	assert_false(tensor_bytes(&t, &n));

	assert_string_equal(shape_format(&(fd_shape){ 4, d4 }, buf, sizeof buf), "1×64×56×56");
	assert_string_equal(shape_format(&(fd_shape){ 2, sym }, buf, sizeof buf), "batch×128");
	sym[0] = dim_add(dim_mul(sym[0], dim_of(2)), dim_of(1));
	assert_string_equal(shape_format(&(fd_shape){ 2, sym }, buf, sizeof buf), "(2*batch+1)×128");
	/* bound: the number; partly bound: the formula in what is left; a long
	 * exporter name as its alias, which --dim takes too */
	fd_dim w = dimtab_symbol(tab, "p2o.DynamicDimension.1"), hh = dimtab_symbol(tab, "p2o.DynamicDimension.2");
	fd_dim sq[3] = { dim_mul(sym[0], dim_floordiv(dim_add(w, dim_of(3)), 8)), w, hh };
	assert_string_equal(shape_format(&(fd_shape){ 3, sq }, buf, sizeof buf),
	                    "(2*batch*floor((d0+3)/8)+floor((d0+3)/8))×d0×d1");
	assert_int_equal(dimtab_find_name_or_alias(tab, "d1"), dimtab_find_symbol(tab, "p2o.DynamicDimension.2"));
	assert_true(dimtab_bind(tab, "p2o.DynamicDimension.1", 320));
	assert_true(dimtab_bind(tab, "batch", 2));
	for (int k = 0; k < 3; k++)
		sq[k] = dim_of_sint(sint_of_dim(sq[k]));
	assert_string_equal(shape_format(&(fd_shape){ 3, sq }, buf, sizeof buf), "200×320×d1");
	assert_string_equal(shape_format_json(&(fd_shape){ 3, sq }, buf, sizeof buf), "200x320xp2o.DynamicDimension.2");
	dimtab_release(tab);
	strpool_release(&names);
	arena_release(&ar);
	assert_string_equal(shape_format(&(fd_shape){ 2, unk }, buf, sizeof buf), "?×4");
	assert_string_equal(shape_format(&(fd_shape){ -1, NULL }, buf, sizeof buf), "?");
	assert_string_equal(shape_format(&(fd_shape){ 0, NULL }, buf, sizeof buf), "scalar");
	assert_string_equal(shape_format(&(fd_shape){ 4, d4 }, buf, 6), "1×64");   /* never half a × */
	assert_string_equal(shape_format(&(fd_shape){ 4, d4 }, buf, 5), "1×6");
}

/* On the shared models ours must know at least what onnx 1.12's
 * infer_shapes(data_prop=True) knows: these are its counts from
 * tests/tools/shape_coverage.py (the CLI test recomputes them live). */
static void test_shared_models(void **state)
{
	static const struct { const char *file; int64_t python_known; } models[] = {
		{ "light_densenet121.onnx", 1745 }, { "light_inception_v1.onnx", 236 },
		{ "light_resnet50.onnx", 414 }, { "light_shufflenet.onnx", 445 },
		{ "light_squeezenet.onnx", 104 }, { "light_vgg19.onnx", 81 },
		{ "tiny_distilbert_sst2.onnx", 38 }, { "tiny_gpt2_ort_fused.onnx", 2 },
		{ "ultraface_version-RFB-320.onnx", 182 },
	};
	char path[1024];
	(void)state;

	for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
		NEED_MODEL(model_path(path, sizeof path, models[i].file));
		fd_model *m = load(path, NULL, 0);
		fd_shape_coverage c = model_shape_coverage(m);
		print_message("%-32s ours %lld/%lld  onnx %lld\n", models[i].file,
		              (long long)c.known, (long long)c.total, (long long)models[i].python_known);
		assert_true(c.known >= models[i].python_known);
		model_release(m);
	}
}

/* One line per node output: "[case ]graph name dtype dims [values]"; dims
 * as value, or sym=value for a symbolic dim, "?" unknown, "-" for an unknown
 * rank; values, comma-separated, when a small constant value is known. */
static void dump_model(const fd_model *m, const char *prefix)
{
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		for (int32_t t = 0; t < g->n_tensors; t++) {
			const fd_tensor *x = &g->tensors[t];
			if (x->producer < 0)
				continue;
			printf("%s%s%d %s %d", prefix, prefix[0] ? " " : "", gi, x->name, x->dtype);
			printf(x->shape.rank < 0 ? " -" : " [");
			for (int32_t k = 0; k < x->shape.rank; k++) {
				const fd_dim *d = &x->shape.dims[k];
				printf("%s", k ? "," : "");
				if (d->expr)
					printf("%s=", dexpr_text(d->expr));
				if (d->value >= 0)
					printf("%lld", (long long)d->value);
				else
					printf("?");
			}
			printf("%s", x->shape.rank >= 0 ? "]" : "");
			for (int64_t k = 0; x->value && k < x->value->count; k++)
				if (x->value->sym && x->value->sym[k].e)
					printf("%s%s", k ? "," : " ", dexpr_text(x->value->sym[k].e));
				else if (x->value->sym && x->value->sym[k].n == SINT_UNKNOWN)
					printf("%s?", k ? "," : " ");
				else if (x->value->sym)
					printf("%s%lld", k ? "," : " ", (long long)x->value->sym[k].n);
				else if (x->value->i64)
					printf("%s%lld", k ? "," : " ", (long long)x->value->i64[k]);
				else
					printf("%s%.9g", k ? "," : " ", x->value->f64[k]);
			printf("\n");
		}
	}
}

/* --dump MODEL [NAME=V ...]: one model, symbolic dims bound as given. */
static int dump(int argc, char **argv)
{
	fd_dim_binding b[16];
	int n = 0;
	for (int i = 3; i < argc && n < 16; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq)
			continue;
		*eq = '\0';
		b[n].name = argv[i];
		b[n++].value = strtoll(eq + 1, NULL, 10);
	}
	fd_model *m = load(argv[2], b, n);
	dump_model(m, "");
	model_release(m);
	return 0;
}

/* --dump-cases MODEL...: many models in one process, each line prefixed by
 * the model's file name without ".onnx"; a model that does not load is
 * skipped with a note on stderr. */
static int dump_cases(int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		fd_model m;
		fd_diags d;
		char name[256];
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		size_t len = strlen(base);

		if (len > 5 && !strcmp(base + len - 5, ".onnx"))
			len -= 5;
		snprintf(name, sizeof name, "%.*s", (int)len, base);
		diags_init(&d);
		if (onnx_load_model(&m, argv[i], NULL, &d) == 0) {
			dump_model(&m, name);
			model_release(&m);
		} else {
			fprintf(stderr, "%s: does not load\n", argv[i]);
		}
		diags_release(&d);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conv),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_matmul),
		cmocka_unit_test(test_reshape),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_slice_split),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_huge),
		cmocka_unit_test(test_symbolic),
		cmocka_unit_test(test_misc),
		cmocka_unit_test(test_control),
		cmocka_unit_test(test_control_symbolic),
		cmocka_unit_test(test_declared),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_bytes_and_format),
		cmocka_unit_test(test_shared_models),
	};
	if (argc >= 3 && !strcmp(argv[1], "--dump"))
		return dump(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "--dump-cases"))
		return dump_cases(argc, argv);
	return models_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
