/* test_models.h — how a unit test finds the real models and skips without
 * them. They live in $FUSIONDBG_MODELS (default ../shared/models); a test that
 * needs one calls NEED_MODEL, which marks it skipped when the file is absent,
 * and main returns models_exit(...) so tests/run-all counts the binary as
 * skipped (77) when every other test passed. Include once per test file. */
#ifndef FD_TEST_MODELS_H
#define FD_TEST_MODELS_H
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static bool models_skipped;

static const char *models_dir(void)
{
	const char *d = getenv("FUSIONDBG_MODELS");
	return d && d[0] ? d : "../shared/models";
}

/* Writes MODELS_DIR/NAME into buf (size n) and returns buf. */
static const char *model_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", models_dir(), name);
	return buf;
}

#define NEED_MODEL(path)                                  \
	do {                                              \
		if (access((path), R_OK) != 0) {          \
			models_skipped = true;            \
			skip();                           \
		}                                         \
	} while (0)

static int models_exit(int failures)
{
	return failures ? failures : models_skipped ? 77 : 0;
}
#endif
