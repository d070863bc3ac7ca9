/* dir_stats.c — the walk of dir_stats.h: readdir and lstat, depth first,
 * one path buffer; what it did not read, in words. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/arena.h"
#include "base/dir_stats.h"

typedef struct walker {
	fd_dir_stats *st;
	int64_t before;           /* files modified before this are older */
	int64_t now;
	int64_t entries;
	char path[4096];
} walker;

static void walk(walker *w, size_t len, int depth)
{
	if (depth > DIR_STATS_MAX_DEPTH) {
		w->st->truncated = true;
		w->st->deep_dirs++;
		return;
	}
	DIR *dir = opendir(w->path);
	if (!dir) {
		w->st->unreadable++;
		return;
	}
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++w->entries > DIR_STATS_MAX_ENTRIES) {
			w->st->truncated = true;
			w->st->entries_cut = true;
			break;
		}
		size_t n = strlen(e->d_name);
		if (len + 1 + n >= sizeof w->path) {
			w->st->truncated = true;
			w->st->long_names++;
			continue;
		}
		w->path[len] = '/';
		memcpy(w->path + len + 1, e->d_name, n + 1);
		struct stat sb;
		if (lstat(w->path, &sb) == 0) {
			if (S_ISDIR(sb.st_mode)) {
				walk(w, len + 1 + n, depth + 1);
			} else if (S_ISREG(sb.st_mode)) {
				w->st->files++;
				w->st->bytes += (int64_t)sb.st_size;
				if ((int64_t)sb.st_mtime < w->before)
					w->st->older++;
				if (w->now - (int64_t)sb.st_mtime > w->st->oldest_age)
					w->st->oldest_age = w->now - (int64_t)sb.st_mtime;
			}
		}
		w->path[len] = '\0';
	}
	closedir(dir);
}

int dir_stats(const char *path, int64_t age, int64_t now, fd_dir_stats *out, fd_diags *d)
{
	memset(out, 0, sizeof *out);
	struct stat sb;
	if (stat(path, &sb) < 0)
		return 0;   /* absent: exists stays false */
	if (!S_ISDIR(sb.st_mode)) {
		diag_error(d, srcpos_file(path), "not a directory");
		return -1;
	}
	out->exists = true;
	walker *w = xcalloc(1, sizeof *w);
	w->st = out;
	w->before = now - age;
	w->now = now;
	size_t len = strlen(path);
	if (len >= sizeof w->path) {
		out->truncated = true;
	} else {
		memcpy(w->path, path, len + 1);
		while (len > 1 && w->path[len - 1] == '/')
			w->path[--len] = '\0';
		walk(w, len, 0);
	}
	free(w);
	return 0;
}

void dir_stats_unread(const fd_dir_stats *st, char *out, size_t cap)
{
	size_t at = 0;
	out[0] = '\0';
	if (st->deep_dirs)
		at += (size_t)snprintf(out + at, cap - at, "did not read %lld director%s below its depth limit (%d "
		                       "directories down)", (long long)st->deep_dirs, st->deep_dirs == 1 ? "y" : "ies",
		                       DIR_STATS_MAX_DEPTH);
	if (st->long_names && at < cap)
		at += (size_t)snprintf(out + at, cap - at, "%sdid not read %lld entr%s whose path is longer than %zu bytes",
		                       at ? ", " : "", (long long)st->long_names, st->long_names == 1 ? "y" : "ies",
		                       sizeof ((walker *)0)->path - 1);
	if (st->entries_cut && at < cap)
		snprintf(out + at, cap - at, "%sstopped after %d entries and did not read the rest", at ? ", " : "",
		         DIR_STATS_MAX_ENTRIES);
	if (!out[0] && st->truncated)   /* the path given is itself too long */
		snprintf(out, cap, "did not read it: its path is longer than %zu bytes", sizeof ((walker *)0)->path - 1);
}
