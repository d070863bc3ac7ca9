/* fuzz_file.h — for harnesses whose library entry point takes a path: the
 * input written to a file in this process's own temporary directory (made
 * once, $TMPDIR or /tmp), rewritten in place at every run. Header only, so
 * that each harness stays one .c file linked with replay.c or libFuzzer. */
#ifndef FD_FUZZ_FILE_H
#define FD_FUZZ_FILE_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

static char fuzz_dir[256];

/* At exit the directory goes with what the harness left in it (flat). */
static inline void fuzz_dir_remove(void)
{
	DIR *dir = opendir(fuzz_dir);
	struct dirent *e;
	char path[512];
	while (dir && (e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof path, "%s/%s", fuzz_dir, e->d_name);
			unlink(path);
		}
	if (dir)
		closedir(dir);
	rmdir(fuzz_dir);
}

/* The path of name in the directory; aborts when no directory can be made. */
static inline const char *fuzz_path(const char *name, char *buf, size_t size)
{
	if (!fuzz_dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(fuzz_dir, sizeof fuzz_dir, "%s/fusiondbg-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(fuzz_dir_remove);
	}
	snprintf(buf, size, "%s/%s", fuzz_dir, name);
	return buf;
}

/* data written to name; its path, or aborts (a full disk is not a finding). */
static inline const char *fuzz_write(const char *name, const void *data, size_t size, char *buf, size_t bufsize)
{
	const char *path = fuzz_path(name, buf, bufsize);
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
		perror(path);
		abort();
	}
	return path;
}

#endif
