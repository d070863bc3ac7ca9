/* fuzz_mmap.c — libFuzzer harness for the path a model file takes
 * (onnx_load_model: open, size, onnx_holes_read's private copy with its
 * big tensors left out, then the decoder), as against the buffer path the
 * other harnesses take: any bytes are written to a file and loaded by its
 * name, and from memory; then by its name again with the file cut short
 * or grown once it is open (onnx_test_on_open), as an exporter saving in
 * place would, by as many bytes as the input's first byte says. What must
 * hold: a load fails with exactly one error; the two loads succeed or fail
 * together, and when they load they hold the same graphs, nodes (names and
 * op types in order) and tensors; a file that changed while it was read
 * fails with one error, never a signal. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/diag.h"
#include "ir/graph.h"
#include "onnx/onnx.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_mmap: %s\n", what);
	abort();
}

static const char *error_of(const fd_diags *d)
{
	for (size_t k = 0; k < d->n; k++)
		if (d->items[k].severity == DIAG_ERROR)
			return d->items[k].message;
	return "loads";
}

static void same_model(const fd_model *a, const fd_model *b)
{
	if (a->n_graphs != b->n_graphs)
		fail("the file and the buffer load different graph counts");
	for (int32_t g = 0; g < a->n_graphs; g++) {
		const fd_graph *x = &a->graphs[g], *y = &b->graphs[g];
		if (x->n_nodes != y->n_nodes || x->n_tensors != y->n_tensors)
			fail("the file and the buffer load different node or tensor counts");
		for (int32_t i = 0; i < x->n_nodes; i++)
			if (strcmp(x->nodes[i].name, y->nodes[i].name) || strcmp(x->nodes[i].op_type, y->nodes[i].op_type))
				fail("the file and the buffer load different nodes");
	}
}

typedef struct change {
	const char *path;
	off_t size;
} change;

static void change_size(int fd, void *arg)
{
	const change *c = arg;
	(void)fd;   /* open read-only: the file is cut or grown by its name */
	if (truncate(c->path, c->size) != 0)
		fail("cannot change the file's size");
}

/* The file at path loaded while it becomes new_size bytes. */
static void changes_while_read(const char *path, off_t new_size)
{
	change c = { path, new_size };
	fd_model m;
	fd_diags d;
	diags_init(&d);
	onnx_test_on_open(change_size, &c);
	int rc = onnx_load_model(&m, path, NULL, &d);
	onnx_test_on_open(NULL, NULL);
	if (rc == 0)
		fail("a file that changed while it was read loaded");
	if (d.errors != 1)
		fail("a file that changed while it was read did not fail with one error");
	diags_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[512];
	const char *path = fuzz_write("model.onnx", data, size, buf, sizeof buf);
	fd_diags d, e;
	diags_init(&d);
	diags_init(&e);
	fd_model by_path, by_buffer;
	int rc_path = onnx_load_model(&by_path, path, NULL, &d);
	int rc_buffer = onnx_load_model_buffer(&by_buffer, path, data, size, NULL, &e);
	if ((rc_path < 0 && d.errors != 1) || (rc_buffer < 0 && e.errors != 1))
		fail("a failed load did not say why in exactly one error");
	if (rc_path != rc_buffer) {
		fprintf(stderr, "fuzz_mmap: by name: %s\nfuzz_mmap: from memory: %s\n",
		        error_of(&d), error_of(&e));
		fail("the file loads by its name and from memory differently");
	}
	if (rc_path == 0) {
		same_model(&by_path, &by_buffer);
		model_release(&by_path);
	}
	if (rc_buffer == 0)
		model_release(&by_buffer);
	diags_release(&d);
	diags_release(&e);
	if (size > 0) {
		off_t by = 1 + data[0] % (off_t)size;
		changes_while_read(path, (off_t)size - by);
		fuzz_write("model.onnx", data, size, buf, sizeof buf);
		changes_while_read(path, (off_t)size + by);
	}
	return 0;
}
