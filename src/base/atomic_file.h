/* atomic_file.h — write a whole file so that readers see the old bytes or the
 * new bytes, never a mix: FILE.tmp.XXXXXX in the same directory, written,
 * fsynced, renamed over FILE, directory fsynced. On any failure the temp file
 * is removed, FILE is untouched and d gets one line naming FILE and why.
 * Used by the session's save and recovery file, apply and export. */
#ifndef FD_ATOMIC_FILE_H
#define FD_ATOMIC_FILE_H
#include <stdbool.h>
#include <stddef.h>
#include "base/diag.h"

/* mode < 0: keep FILE's mode when it exists, else 0644 (less the umask). */
int atomic_write(const char *path, const void *data, size_t size, int mode, fd_diags *d);
/* Creates path with data only when it does not exist yet (the .orig backup);
 * 0 when written or already there. */
int atomic_write_once(const char *path, const void *data, size_t size, int mode, fd_diags *d);
/* Reads a whole file (NUL-terminated, heap); NULL + d on error. */
char *file_read_all(const char *path, size_t *size, fd_diags *d);

/* Fault injection for tests (session_test_fail_writes): the next n writes fail with err. */
void atomic_fail_next(int n, int err);

#endif
