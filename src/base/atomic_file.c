/* atomic_file.c — temp file + fsync + rename, writes that keep a file's
 * identity, outputs and backups (atomic_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* atomic_write with an owner and group for the new file (-1: ours). */
static int atomic_write_owned(const char *path, const void *data, size_t size, int mode, int uid, int gid,
                              fd_diags *d);

int atomic_write(const char *path, const void *data, size_t size, int mode, fd_diags *d)
{
	return atomic_write_owned(path, data, size, mode, -1, -1, d);
}

static int atomic_write_owned(const char *path, const void *data, size_t size, int mode, int uid, int gid,
                              fd_diags *d)
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
	if ((uid >= 0 || gid >= 0) && fchown(fd, (uid_t)uid, (gid_t)gid) < 0) {
		rc = -2;   /* the caller writes in place instead; nothing said */
	} else if (fchmod(fd, (mode_t)mode) < 0 || write_all(fd, data, size) < 0 ||
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

/* ---- identity ------------------------------------------------------------------- */

/* Rewrites fd's file in place: data over it, truncated to size, fsynced.
 * On a failure the old bytes (old, old_size) are written back. */
static int rewrite_in_place(const char *path, int fd, const void *data, size_t size, const void *old,
                            size_t old_size, fd_diags *d)
{
	if (lseek(fd, 0, SEEK_SET) == 0 && write_all(fd, data, size) == 0 && ftruncate(fd, (off_t)size) == 0 &&
	    !injected_failure() && fsync(fd) == 0)
		return 0;
	int err = errno;
	bool back = old && lseek(fd, 0, SEEK_SET) == 0 && write_all(fd, old, old_size) == 0 &&
	            ftruncate(fd, (off_t)old_size) == 0 && fsync(fd) == 0;
	diag_error(d, srcpos_file(path), "cannot write: %s (%s)", strerror(err),
	           back ? "the file is unchanged: its old bytes were written back"
	                : "the file may be damaged: its backup is FILE.orig");
	return -1;
}

/* path, or the file its chain of links ends at (heap); NULL + d when a link
 * leads nowhere. */
static char *final_target(const char *path, fd_diags *d)
{
	struct stat st;
	if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
		return xstrdup(path);
	char *real = realpath(path, NULL);
	if (!real) {
		/* one line: the link, where it points, and why that is no file */
		int err = errno;
		char to[PATH_MAX];
		ssize_t n = readlink(path, to, sizeof to - 1);
		to[n > 0 ? n : 0] = '\0';
		diag_error(d, srcpos_file(path), "cannot write: it is a symbolic link to '%s', which leads to no file "
		           "(%s)", n > 0 ? to : "?",
		           err == ELOOP ? "a loop of links" : strerror(err));
		return NULL;
	}
	char *copy = xstrdup(real);
	free(real);
	return copy;
}

int file_replace(const char *path, const void *data, size_t size, fd_diags *d)
{
	char *target = final_target(path, d);
	if (!target)
		return -1;
	struct stat st;
	if (stat(target, &st) < 0) {
		int rc = atomic_write(target, data, size, -1, d);
		free(target);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_error(d, srcpos_file(path), "cannot write: not a regular file");
		free(target);
		return -1;
	}
	/* a new inode would lose the other links, or an owner we cannot give it */
	int rc = -2;
	bool other_owner = st.st_uid != geteuid() || st.st_gid != getegid();
	if (st.st_nlink <= 1)
		rc = atomic_write_owned(target, data, size, (int)(st.st_mode & 07777), other_owner ? (int)st.st_uid : -1,
		                        other_owner ? (int)st.st_gid : -1, d);
	if (rc == -2) {
		int fd = open(target, O_RDWR);
		if (fd < 0) {
			diag_error(d, srcpos_file(path), "cannot write: %s", strerror(errno));
			free(target);
			return -1;
		}
		size_t old_size = 0;
		fd_diags rd;
		diags_init(&rd);
		char *old = input_file_read_all(target, &old_size, &rd);
		diags_release(&rd);
		rc = rewrite_in_place(path, fd, data, size, old, old_size, d);
		if (close(fd) < 0 && rc == 0) {
			diag_error(d, srcpos_file(path), "cannot write: %s", strerror(errno));
			rc = -1;
		}
		free(old);
	}
	free(target);
	return rc;
}

int file_write_output(const char *path, const void *data, size_t size, fd_diags *d)
{
	if (!strcmp(path, "-")) {
		size_t n = fwrite(data, 1, size, stdout);
		if (n != size || fflush(stdout) != 0) {
			diag_error(d, srcpos_file("standard output"), "cannot write: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	char *target = final_target(path, d);
	if (!target)
		return -1;
	struct stat st;
	int rc;
	if (stat(target, &st) < 0 || S_ISREG(st.st_mode)) {
		rc = file_replace(path, data, size, d);
	} else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		/* never replaced by a regular file: written through, or refused */
		int fd = open(target, O_WRONLY | O_NONBLOCK | O_NOCTTY);
		if (fd < 0) {
			diag_error(d, srcpos_file(path), "cannot write: %s%s (not replaced)", strerror(errno),
			           errno == ENXIO ? ": a FIFO nobody reads" : "");
			rc = -1;
		} else {
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
			rc = write_all(fd, data, size);
			if (rc < 0)
				diag_error(d, srcpos_file(path), "cannot write: %s (a %s, written through, not replaced)",
				           strerror(errno), S_ISFIFO(st.st_mode) ? "FIFO" : "device");
			if (close(fd) < 0 && rc == 0) {
				diag_error(d, srcpos_file(path), "cannot write: %s", strerror(errno));
				rc = -1;
			}
			if (rc == 0)
				diag_add(d, DIAG_NOTE, srcpos_file(path), "a %s: written through, not replaced",
				         S_ISFIFO(st.st_mode) ? "FIFO" : "character device");
		}
	} else {
		diag_error(d, srcpos_file(path), "cannot write: %s, not a regular file (not replaced)",
		           S_ISDIR(st.st_mode) ? "a directory" : S_ISBLK(st.st_mode) ? "a block device" :
		           S_ISSOCK(st.st_mode) ? "a socket" : "something");
		rc = -1;
	}
	free(target);
	return rc;
}

int file_backup_once(const char *of, const char *backup, const void *data, size_t size, fd_diags *d)
{
	struct stat st, bst;
	if (lstat(backup, &bst) == 0)
		return 0;
	int mode = stat(of, &st) == 0 ? (int)(st.st_mode & 0777) : 0600;
	size_t len = strlen(backup);
	char *tmp = xmalloc(len + 16);
	snprintf(tmp, len + 16, "%s.tmp.XXXXXX", backup);
	int fd = mkstemp(tmp);   /* 0600 until it is whole */
	if (fd < 0) {
		diag_error(d, srcpos_file(backup), "cannot write the backup: %s", strerror(errno));
		free(tmp);
		return -1;
	}
	/* the original's owner and group when they can be given, else owner only */
	if (stat(of, &st) == 0 && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
	    fchown(fd, st.st_uid, st.st_gid) < 0)
		mode &= 0700;
	int rc = 0;
	if (write_all(fd, data, size) < 0 || fchmod(fd, (mode_t)mode) < 0 || injected_failure() || fsync(fd) < 0)
		rc = -1;
	if (close(fd) < 0)
		rc = -1;
	/* link, not rename: a backup that appeared meanwhile is never replaced */
	if (rc == 0 && link(tmp, backup) < 0 && errno != EEXIST)
		rc = -1;
	if (rc < 0)
		diag_error(d, srcpos_file(backup), "cannot write the backup: %s", strerror(errno));
	unlink(tmp);
	if (rc == 0)
		fsync_dir(backup);
	free(tmp);
	return rc;
}

