/* onnx_holes.c — a model file as a private copy in memory that nothing done
 * to the file later can reach, with the big tensors' bytes left out, so
 * that what loading never reads never becomes resident.
 *
 * Not a mapping of the file: an exporter saving over the model in place
 * truncates it first, and a read of a mapped page past the file's new end
 * is a SIGBUS, in whichever thread reads it (the loader reads on two). A
 * signal handler would have to be the process's, shared with the TUI's, and
 * jump out of the middle of the decoder; reading the file instead leaves
 * nothing to catch: a file cut short reads short, and that is an error.
 *
 * Loading never reads a weight's values (onnx_decode.c), so the copy is an
 * anonymous mapping of the file's size, and only the file's structure is
 * read into it, through pread: the model, its graph, the graph's
 * initializers and nodes, their attributes' tensors; each length-delimited
 * value field of a TensorProto of HOLE_MIN bytes and more (raw_data,
 * float_data, double_data, string_data) has its first HEAD bytes read (all
 * a small constant's values can be: FD_CONST_MAX elements of at most ten
 * bytes) and its last page, and the pages between are left as the mapping's
 * zero pages, which no one touches. A packed varint run (int32_data,
 * int64_data, uint64_data) is read: the decoder reads it whole to check and
 * count its varints. Anything that does not frame stops the walk there and
 * the rest is read as it is: the loader reports it as before. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "base/arena.h"
#include "base/vec.h"
#include "onnx/onnx_holes.h"

#define HOLE_MIN ((size_t)1 << 20)
#define HEAD ((size_t)64 << 10)
#define TAIL ((size_t)4 << 10)
#define WINDOW ((size_t)64 << 10)
#define MAX_DEPTH 6

enum kind { K_MODEL, K_GRAPH, K_NODE, K_ATTR, K_TENSOR, K_OTHER };

typedef struct hole {
	size_t from, to;    /* page-aligned byte offsets */
} hole;

typedef struct walker {
	int fd;
	size_t size;
	uint8_t win[WINDOW];
	size_t win_off, win_len;
	size_t page;
	VEC(hole) holes;    /* in file order */
} walker;

/* The bytes from off on, at least min(16, size - off) of them in the window. */
static const uint8_t *at(walker *w, size_t off, size_t *avail)
{
	if (off < w->win_off || off + 16 > w->win_off + w->win_len) {
		ssize_t n = pread(w->fd, w->win, WINDOW, (off_t)off);
		if (n <= 0)
			return NULL;
		w->win_off = off;
		w->win_len = (size_t)n;
	}
	*avail = w->win_off + w->win_len - off;
	return w->win + (off - w->win_off);
}

static bool varint_slow(walker *w, size_t *off, size_t end, uint64_t *v)
{
	size_t avail;
	const uint8_t *p = at(w, *off, &avail);
	if (!p)
		return false;
	uint64_t x = 0;
	for (size_t i = 0; i < 10 && i < avail && *off + i < end; i++) {
		x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*off += i + 1;
			*v = x;
			return true;
		}
	}
	return false;
}

/* A graph's fields are a few hundred thousand keys and lengths of one or two
 * bytes, read where the window has them: that case inline. */
static inline __attribute__((always_inline)) bool varint(walker *w, size_t *off, size_t end, uint64_t *v)
{
	size_t o = *off - w->win_off;
	if (*off >= w->win_off && o + 16 <= w->win_len && end - *off >= 2) {
		const uint8_t *p = w->win + o;
		if (!(p[0] & 0x80)) {
			*v = p[0];
			*off += 1;
			return true;
		}
		if (!(p[1] & 0x80)) {
			*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
			*off += 2;
			return true;
		}
	}
	return varint_slow(w, off, end, v);
}

/* The kind of message field num of a kind holds, K_OTHER for the rest. */
static enum kind sub_kind(enum kind k, uint64_t num)
{
	switch (k) {
	case K_MODEL: return num == 7 ? K_GRAPH : K_OTHER;
	case K_GRAPH: return num == 5 ? K_TENSOR : num == 1 ? K_NODE : K_OTHER;
	case K_NODE: return num == 5 ? K_ATTR : K_OTHER;
	case K_ATTR: return num == 5 || num == 10 ? K_TENSOR : K_OTHER;
	default: return K_OTHER;
	}
}

/* TensorProto's value fields the decoder never reads: float, string, raw
 * and double data (not the varint runs: int32, int64, uint64 data) */
static bool bulk_field(uint64_t num)
{
	return num == 4 || num == 6 || num == 9 || num == 10;
}

static void punch(walker *w, size_t from, size_t to)
{
	size_t a = (from + w->page - 1) / w->page * w->page, b = to / w->page * w->page;
	if (b > a && b - a >= 2 * w->page)
		vec_push(&w->holes, ((hole){ a, b }));
}

static void walk(walker *w, enum kind k, size_t off, size_t end, int depth)
{
	while (off < end) {
		uint64_t key, n;
		if (!varint(w, &off, end, &key))
			return;
		switch (key & 7) {
		case 0:
			if (!varint(w, &off, end, &n))
				return;
			continue;
		case 1: off += 8; continue;
		case 5: off += 4; continue;
		case 2: break;
		default: return;
		}
		if (!varint(w, &off, end, &n) || n > end - off)
			return;
		if (n >= HOLE_MIN) {
			enum kind sub = sub_kind(k, key >> 3);
			if (k == K_TENSOR && bulk_field(key >> 3))
				punch(w, off + HEAD, off + n - TAIL);
			else if (sub != K_OTHER && depth < MAX_DEPTH)
				walk(w, sub, off, off + n, depth + 1);
		}
		off += n;
	}
}

/* Reads [from, to) of the file into copy; false when it reads short. */
static bool read_range(int fd, uint8_t *copy, size_t from, size_t to)
{
	while (from < to) {
		ssize_t n = pread(fd, copy + from, to - from, (off_t)from);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		from += (size_t)n;
	}
	return true;
}

int onnx_holes_read(int fd, size_t size, const uint8_t **out, size_t *left_out)
{
	*out = NULL;
	*left_out = 0;
	if (!size)
		return 0;
	uint8_t *copy = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (copy == MAP_FAILED)
		return -1;
	walker *w = xcalloc(1, sizeof *w);
	w->fd = fd;
	w->size = size;
	w->page = (size_t)sysconf(_SC_PAGESIZE);
	if (size >= 2 * HOLE_MIN)
		walk(w, K_MODEL, 0, size, 0);
	bool ok = true;
	size_t at = 0, left = 0;
	for (size_t i = 0; ok && i < w->holes.n; i++) {
		ok = read_range(fd, copy, at, w->holes.items[i].from);
		left += w->holes.items[i].to - w->holes.items[i].from;
		at = w->holes.items[i].to;
	}
	ok = ok && read_range(fd, copy, at, size);
	/* one more byte would mean the file grew: not the file whose size was taken */
	uint8_t more;
	ok = ok && pread(fd, &more, 1, (off_t)size) == 0;
	vec_release(&w->holes);
	free(w);
	if (!ok || mprotect(copy, size, PROT_READ) != 0) {
		munmap(copy, size);
		return ok ? -1 : -2;
	}
	*out = copy;
	*left_out = left;
	return 0;
}
