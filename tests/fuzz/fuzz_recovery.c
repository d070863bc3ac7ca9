/* fuzz_recovery.c — libFuzzer harness for the recovery file (the TUI's
 * "restore these edits?"; session/session_recovery.c): a session is opened
 * once on a fixed model and rule file (samples/conv_add_silu.onnx,
 * rules/conv_add_silu_fusion.yaml, or $FUSIONDBG_FUZZ_MODEL and
 * $FUZZ_RULES); any bytes are then a recovery file, read
 * (session_read_recovery) and replayed (session_apply_recovery) as the TUI
 * does. What must hold: a replay the reader or the checks refuse applies
 * nothing; what a replay applied is written as the session writes its own
 * recovery file, and that file reads and replays, on the session with its
 * edits undone, to the same recovery file again (the round trip loses and
 * adds nothing). Every run ends with the edits undone. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "session/session.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static fd_session session;

static void fail(const char *what, const char *text)
{
	fprintf(stderr, "fuzz_recovery: %s\n%s\n", what, text ? text : "");
	abort();
}

static void setup(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	const char *model = getenv("FUSIONDBG_FUZZ_MODEL"), *rules = getenv("FUZZ_RULES");
	fd_session_options o = { .model_path = model && *model ? model : "samples/conv_add_silu.onnx",
	                         .rule_paths = (const char *const[]){ rules && *rules ? rules :
	                                                             "rules/conv_add_silu_fusion.yaml" },
	                         .n_rule_paths = 1, .no_env = true, .no_events = true, .no_estimates = true,
	                         .defer_run = true };
	fd_diags d;
	diags_init(&d);
	if (session_open(&session, &o, &d) < 0) {
		fprintf(stderr, "fuzz_recovery: cannot open the session (run from the repository root)\n");
		abort();
	}
	diags_release(&d);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail("the recovery file written cannot be read", path);
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);
	char chunk[4096];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, got, m);
	fclose(f);
	fclose(m);
	return text;
}

static void undo_all(void)
{
	fd_diags d;
	diags_init(&d);
	while (session.n_applied && session_undo(&session, &d) == 0)
		;
	if (session.n_applied)
		fail("an edit a recovery file replayed does not undo", d.n ? d.items[0].message : NULL);
	diags_release(&d);
}

/* Replays the recovery file at path; the edits applied, or -1. */
static int replay(const char *path)
{
	fd_diags d;
	diags_init(&d);
	fd_recovery rec;
	size_t before = session.n_applied;
	int rc = session_read_recovery(&session, path, &rec, &d);
	if (rc == 0)
		rc = session_apply_recovery(&session, &rec, &d);
	else if (session.n_applied != before)
		fail("a recovery file that does not read applied edits", NULL);
	if (rc < 0 && rc != -1)
		fail("a replay returned neither a count nor -1", NULL);
	session_recovery_release(&rec);
	diags_release(&d);
	return rc;
}

/* The session's own recovery file, as text. */
static char *written(const char *name)
{
	char buf[512];
	const char *path = fuzz_path(name, buf, sizeof buf);
	fd_diags d;
	diags_init(&d);
	if (session_write_recovery(&session, path, &d) < 0)
		fail("the session cannot write its recovery file", d.n ? d.items[0].message : NULL);
	diags_release(&d);
	return read_all(path);
}

/* Without its "session PID" line (the only line that is the process's). */
static bool same_edits(const char *a, const char *b)
{
	return !strcmp(strchr(a, '\n'), strchr(b, '\n'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	char buf[512];
	int applied = replay(fuzz_write("recovery.txt", data, size, buf, sizeof buf));
	if (applied <= 0) {
		undo_all();
		return 0;
	}
	char *first = written("first.txt");
	undo_all();
	char path[512];
	if (replay(fuzz_path("first.txt", path, sizeof path)) < 0)
		fail("the session's own recovery file does not replay", first);
	char *second = written("second.txt");
	if (!same_edits(first, second)) {
		fprintf(stderr, "fuzz_recovery: written after the replay:\n%s", first);
		fail("the round trip changed the recovery file; written after its replay:", second);
	}
	undo_all();
	free(first);
	free(second);
	return 0;
}
