/* atomic_file.h — write a whole file so that readers see the old bytes or the
 * new bytes, never a mix: FILE.tmp.XXXXXX in the same directory, written,
 * fsynced, renamed over FILE, directory fsynced. On any failure the temp file
 * is removed, FILE is untouched and d gets one line naming FILE and why.
 *
 * file_replace keeps the file's identity, as editors do: a symbolic link is
 * written through to the file it names (the link stays a link); the new file
 * gets the old one's mode, owner and group; a file with other hard links, or
 * one whose owner cannot be given to a new file, is rewritten in place
 * (written, truncated, fsynced; on a failure the old bytes are written back).
 * Only regular files are replaced. file_write_output is for the files a
 * command is told to write (-o): "-" is standard output, a character device
 * or a FIFO with a reader is written through (and a note says so), anything
 * else that is not a regular file is refused.
 *
 * Used by the session's save and recovery file, apply and export. */
#ifndef FD_ATOMIC_FILE_H
#define FD_ATOMIC_FILE_H
#include <stdbool.h>
#include <stddef.h>
#include "base/diag.h"
#include "base/input_file.h"   /* input_file_read_all, for the files read before a rewrite */

/* mode < 0: keep FILE's mode when it exists, else 0644 (less the umask). */
int atomic_write(const char *path, const void *data, size_t size, int mode, fd_diags *d);
/* Creates path with data only when it does not exist yet; 0 when written or
 * already there. */
/* See above. */
int file_replace(const char *path, const void *data, size_t size, fd_diags *d);
int file_write_output(const char *path, const void *data, size_t size, fd_diags *d);
/* The one-time backup of `of` (FILE.orig): created only when backup does not
 * exist, never through a link, never more permissive than `of` (its mode and,
 * when it can be given, its owner and group; else owner-only). */
int file_backup_once(const char *of, const char *backup, const void *data, size_t size, fd_diags *d);

/* Fault injection for tests (session_test_fail_writes): the next n writes fail with err. */
void atomic_fail_next(int n, int err);

#endif
