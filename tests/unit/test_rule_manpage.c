/* test_rule_manpage.c — the op list in man/fusiondbg-rules.5 is the op table
 * (src/rules/optable.c), written as roff. The test renders the table and compares
 * it with the text between the BEGIN/END OP TABLE markers; with
 * UPDATE=1 (as every golden test takes it) it rewrites that part of the man
 * page instead.
 * Runs from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules/optable.h"

#define MAN "man/fusiondbg-rules.5"
#define BEGIN_MARK ".\\\" BEGIN OP TABLE\n"
#define END_MARK ".\\\" END OP TABLE\n"

static const char *const type_names[] = {
	[PT_INT] = "int", [PT_FLOAT] = "float", [PT_BOOL] = "bool", [PT_STRING] = "string",
	[PT_INTS] = "ints", [PT_FLOATS] = "floats", [PT_ANY] = "any",
};

static const char *const derived_text[] = {
	[DERIVED_NONE] = "",
	[DERIVED_BROADCAST] = "true when the inputs' shapes differ",
	[DERIVED_ACTIVATION_TYPE] = "\\(dqnone\\(dq unless the node carries a fused activation",
	[DERIVED_NORMALIZED_SHAPE] = "the scale input's shape",
	[DERIVED_ELEMENTWISE_AFFINE] = "true when scale/bias inputs are present",
	[DERIVED_KERNEL_SIZE] = "the weight's spatial dims",
	[DERIVED_FALSE] = "false (the node type has no such attribute)",
	[DERIVED_APPROXIMATE] = "the attribute, \\(dqtanh\\(dq for FastGelu, else \\(dqnone\\(dq",
	[DERIVED_FORM] = "\\(dqdecomposed\\(dq when matched through the decomposed form, else \\(dqnode\\(dq",
};

static const char *const composite_text[] = {
	[COMPOSITE_NONE] = "",
	[COMPOSITE_SILU] = "Sigmoid(x) \\(-> Mul(x, .)",
	[COMPOSITE_GELU] = "Erf or tanh form",
	[COMPOSITE_LAYERNORM] = "ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div (+ Mul/Add affine)",
	[COMPOSITE_BIASADD] = "Add of a 1-D constant, or a Conv/Gemm bias",
};

static void render(FILE *f)
{
	for (int i = 0; i < optable_count(); i++) {
		const fd_op_def *o = optable_get(i);
		fprintf(f, ".TP\n.BR %s", o->name);
		for (int a = 0; a < 8 && o->aliases[a]; a++)
			fprintf(f, "%s%s", a ? ", " : " \" (also ", o->aliases[a]);
		fprintf(f, "%s\n", o->aliases[0] ? ")\"" : "");
		fprintf(f, "Matches ");
		for (int t = 0; t < 6 && o->onnx_types[t]; t++)
			fprintf(f, "%s%s", t ? ", " : "", o->onnx_types[t]);
		if (o->domain)
			fprintf(f, " (domain %s)", *o->domain ? o->domain : "ai.onnx");
		if (o->spatial_rank >= 0)
			fprintf(f, " with %d spatial dim%s", o->spatial_rank, o->spatial_rank == 1 ? "" : "s");
		fprintf(f, ".");
		if (o->commutative)
			fprintf(f, " Commutative.");
		if (o->composite)
			fprintf(f, " Also its decomposed form: %s.", composite_text[o->composite]);
		fprintf(f, "\n");
		if (o->n_params == 0) {
			fprintf(f, "No params.\n");
			continue;
		}
		fprintf(f, ".RS\n");
		for (int p = 0; p < o->n_params; p++) {
			const fd_param_def *d = &o->params[p];
			fprintf(f, ".br\n\\fB%s\\fR (%s", d->name, type_names[d->type]);
			for (int a = 0; a < 4 && d->aliases[a]; a++)
				fprintf(f, ", also %s", d->aliases[a]);
			fprintf(f, ")");
			bool any = false;
			if (d->attr) {
				fprintf(f, ": attribute %s", d->attr);
				any = true;
			}
			if (d->input >= 0) {
				fprintf(f, "%s input %d", any ? ", or constant" : ": constant", d->input);
				any = true;
			}
			if (d->derived) {
				fprintf(f, "%s %s", any ? ", else" : ": derived,", derived_text[d->derived]);
				any = true;
			}
			if (d->default_value)
				fprintf(f, "%s default %s", any ? ";" : ":", d->default_value);
			fprintf(f, "\n");
		}
		fprintf(f, ".RE\n");
	}
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void test_man_op_table(void **state)
{
	(void)state;
	char *want = NULL;
	size_t want_len = 0;
	FILE *mem = open_memstream(&want, &want_len);
	render(mem);
	fclose(mem);
	size_t len = 0;
	char *man = slurp(MAN, &len);
	assert_non_null(man);
	char *begin = strstr(man, BEGIN_MARK), *end = begin ? strstr(begin, END_MARK) : NULL;
	assert_non_null(begin);
	assert_non_null(end);
	begin += strlen(BEGIN_MARK);
	bool same = (size_t)(end - begin) == want_len && !memcmp(begin, want, want_len);
	const char *update = getenv("UPDATE");
	if (!same && update && !strcmp(update, "1")) {
		FILE *out = fopen(MAN, "wb");
		assert_non_null(out);
		fwrite(man, 1, (size_t)(begin - man), out);
		fwrite(want, 1, want_len, out);
		fwrite(end, 1, len - (size_t)(end - man), out);
		fclose(out);
		fprintf(stderr, "rewrote the op table in %s\n", MAN);
		same = true;
	}
	if (!same)
		fprintf(stderr, "%s: the OP TABLE section differs from src/optable.c; run\n"
		        "  UPDATE=1 build/tests/test_rule_manpage\n", MAN);
	free(want);
	free(man);
	assert_true(same);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_man_op_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
