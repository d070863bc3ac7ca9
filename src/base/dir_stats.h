/* dir_stats.h — what a directory tree holds: regular files, their bytes,
 * and how many were last modified longer ago than an age (the JIT kernel
 * cache check of `diagnose`). Symbolic links are counted, not followed;
 * the walk is bounded in depth and in entries, and says when it stopped. */
#ifndef FD_DIR_STATS_H
#define FD_DIR_STATS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/diag.h"

#define DIR_STATS_MAX_DEPTH 64
#define DIR_STATS_MAX_ENTRIES 1000000

typedef struct fd_dir_stats {
	bool exists;              /* the path is a directory */
	int64_t files;            /* regular files */
	int64_t bytes;            /* their sizes */
	int64_t older;            /* of them, modified before now - age */
	int64_t oldest_age;       /* seconds, the oldest file's age (0 when none) */
	int64_t unreadable;       /* subdirectories that could not be opened */
	bool truncated;           /* the bounds stopped the walk: what it did not read below */
	int64_t deep_dirs;        /* directories at the depth limit, not opened */
	int64_t long_names;       /* entries whose path would not fit, not looked at */
	bool entries_cut;         /* stopped at DIR_STATS_MAX_ENTRIES: the rest not read */
} fd_dir_stats;

/* What the walk did not read, in words ("did not read 1 directory below its
 * depth limit (64 directories down)"), into out; "" when it read it all. */
void dir_stats_unread(const fd_dir_stats *st, char *out, size_t cap);

/* Walks path. age and now in seconds (now: time(NULL), or a test's clock).
 * Returns 0; -1 + d when path exists but is not a directory. */
int dir_stats(const char *path, int64_t age, int64_t now, fd_dir_stats *out, fd_diags *d);

#endif
