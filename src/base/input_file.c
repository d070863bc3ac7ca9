/* input_file.c — opening, checking and reading the files the program reads
 * (input_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/arena.h"
#include "base/input_file.h"

const fd_input_limit INPUT_LIMIT_MODEL = { (int64_t)2 << 30, "the protobuf limit" };
const fd_input_limit INPUT_LIMIT_COMPARE = { (int64_t)2 << 30,
                                            "the limit for an optimized model or fusion_result.json" };
const fd_input_limit INPUT_LIMIT_RULES = { (int64_t)64 << 20, "the limit for a rule file" };
const fd_input_limit INPUT_LIMIT_PASSES = { (int64_t)16 << 20, "the limit for a pass order file" };
const fd_input_limit INPUT_LIMIT_RECOVERY = { (int64_t)64 << 20, "the limit for a recovery file" };
const fd_input_limit INPUT_LIMIT_DEFAULT = { (int64_t)2 << 30, "the largest file read whole" };

static const char *kind_of(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	return "not a file";
}

/* "2 GiB", "16 MiB", "4096 bytes": the limit as a person would say it. */
static void limit_words(int64_t bytes, char *out, size_t cap)
{
	if (bytes >= (1 << 30) && bytes % (1 << 30) == 0)
		snprintf(out, cap, "%lld GiB", (long long)(bytes >> 30));
	else if (bytes >= (1 << 20) && bytes % (1 << 20) == 0)
		snprintf(out, cap, "%lld MiB", (long long)(bytes >> 20));
	else if (bytes >= (1 << 10) && bytes % (1 << 10) == 0)
		snprintf(out, cap, "%lld KiB", (long long)(bytes >> 10));
	else
		snprintf(out, cap, "%lld bytes", (long long)bytes);
}

static void too_large(const char *path, const fd_input_limit *lim, int64_t size, bool grew, fd_diags *d)
{
	char words[32];
	limit_words(lim->bytes, words, sizeof words);
	if (grew)
		diag_error(d, srcpos_file(path), "file grew past %s (%s) while it was read; not read", words, lim->why);
	else
		diag_error(d, srcpos_file(path), "file is %lld bytes, larger than %s (%s); not read", (long long)size,
		           words, lim->why);
}

int input_open(const char *path, const fd_input_limit *lim, int *fd_out, int64_t *size, fd_diags *d)
{
	fd_srcpos pos = srcpos_file(path);
	/* O_NONBLOCK: opening a FIFO nobody writes would block the open itself */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		diag_error(d, pos, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		diag_error(d, pos, "cannot read: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		diag_error(d, pos, "cannot read: it is a directory");
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_error(d, pos, "cannot read: not a regular file (%s)", kind_of(st.st_mode));
		close(fd);
		return -1;
	}
	if (st.st_size > lim->bytes) {
		too_large(path, lim, (int64_t)st.st_size, false, d);
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	*fd_out = fd;
	*size = (int64_t)st.st_size;
	return 0;
}

/* Reads fd to its end into a heap buffer (NUL-terminated): the expected size
 * in one read, more only when the file grew or does not know its size (/proc). */
static char *read_to_end(const char *path, int fd, int64_t expected, const fd_input_limit *lim, size_t *size,
                         fd_diags *d)
{
	size_t cap = (size_t)expected + 1, n = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if ((int64_t)n > lim->bytes) {
				too_large(path, lim, (int64_t)n, true, d);
				free(buf);
				return NULL;
			}
			cap = cap * 2 > (size_t)lim->bytes + 1 ? (size_t)lim->bytes + 1 : cap * 2;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			diag_error(d, srcpos_file(path), "cannot read: %s", strerror(errno));
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if ((int64_t)n > lim->bytes) {
		too_large(path, lim, (int64_t)n, true, d);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*size = n;
	return buf;
}

char *input_read(const char *path, const fd_input_limit *lim, size_t *size, fd_diags *d)
{
	int fd;
	int64_t expected;
	if (input_open(path, lim, &fd, &expected, d) < 0)
		return NULL;
	char *buf = read_to_end(path, fd, expected, lim, size, d);
	close(fd);
	return buf;
}

char *input_file_read_all(const char *path, size_t *size, fd_diags *d)
{
	return input_read(path, &INPUT_LIMIT_DEFAULT, size, d);
}
