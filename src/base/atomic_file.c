/* atomic_file.c — temp file + fsync + rename, and whole-file reads. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/arena.h"
#include "base/atomic_file.h"

static int fail_n, fail_err;

void atomic_fail_next(int n, int err)
{
	fail_n = n > 0 ? n : 0;
	fail_err = err ? err : EIO;
}

static bool injected_failure(void)
{
	if (fail_n <= 0)
		return false;
	fail_n--;
	errno = fail_err;
	return true;
}

static char *dir_of(const char *path)
{
	char *copy = xstrdup(path);
	char *dir = xstrdup(dirname(copy));
	free(copy);
	return dir;
}

static void fsync_dir(const char *path)
{
	char *dir = dir_of(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		fsync(fd);   /* best effort: some file systems refuse */
		close(fd);
	}
	free(dir);
}

static int write_all(int fd, const void *data, size_t size)
{
	const char *p = data;
	while (size) {
		if (injected_failure())
			return -1;
		ssize_t n = write(fd, p, size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

int atomic_write(const char *path, const void *data, size_t size, int mode, fd_diags *d)
{
	size_t len = strlen(path);
	char *tmp = xmalloc(len + 16);
	snprintf(tmp, len + 16, "%s.tmp.XXXXXX", path);
	struct stat st;
	if (mode < 0)
		mode = stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
	int fd = mkstemp(tmp);
	if (fd < 0) {
		diag_error(d, srcpos_file(path), "cannot write: cannot create a temporary file next to it: %s",
		           strerror(errno));
		free(tmp);
		return -1;
	}
	if (mode < 0) {
		mode_t um = umask(0);
		umask(um);
		mode = 0666 & ~(int)um;
	}
	int rc = 0;
	if (fchmod(fd, (mode_t)mode) < 0 || write_all(fd, data, size) < 0 ||
	    (injected_failure() || fsync(fd) < 0)) {
		diag_error(d, srcpos_file(path), "cannot write: %s (the file is unchanged)", strerror(errno));
		rc = -1;
	}
	if (close(fd) < 0 && rc == 0) {
		diag_error(d, srcpos_file(path), "cannot write: %s (the file is unchanged)", strerror(errno));
		rc = -1;
	}
	if (rc == 0 && (injected_failure() || rename(tmp, path) < 0)) {
		diag_error(d, srcpos_file(path), "cannot replace the file: %s (the file is unchanged)", strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		unlink(tmp);
	else
		fsync_dir(path);
	free(tmp);
	return rc;
}

int atomic_write_once(const char *path, const void *data, size_t size, int mode, fd_diags *d)
{
	struct stat st;
	if (lstat(path, &st) == 0)
		return 0;
	return atomic_write(path, data, size, mode, d);
}

char *file_read_all(const char *path, size_t *size, fd_diags *d)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag_error(d, srcpos_file(path), "cannot read: %s", strerror(errno));
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		cap *= 2;
		buf = xrealloc(buf, cap + 1);
	}
	bool err = ferror(f);
	fclose(f);
	if (err) {
		diag_error(d, srcpos_file(path), "cannot read: read error");
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*size = n;
	return buf;
}
