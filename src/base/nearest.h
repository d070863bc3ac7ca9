/* nearest.h — "did you mean": the names nearest to one a user typed, for
 * every message that rejects a name (an op type, a rule, a node, a what-if
 * path, a command, an option, a breakpoint target, a key binding's action).
 *
 * Nearness is the edit distance, case-insensitive, an adjacent transposition
 * counting one (Damerau's "optimal string alignment"). A name is near when
 * its distance is at most a third of the typed length (at least 1; 2 from
 * four characters on), or when it holds the typed text (four characters or
 * more) whole; such a name ranks before every typo, the shorter first, so
 * `fuse/conv` suggests `/fuse/conv/Conv` rather than `/res/Conv`. Only the
 * nearest are kept: every name of the best rank found, up to NEAREST_MAX,
 * in the order they were offered, so a message
 * never depends on hash order. A name equal to the typed text is not a
 * suggestion; one differing only in case is the best there is; names equal
 * but for case count once (the first offered).
 *
 * Ownership: an fd_nearest points at the names it was given; they must
 * outlive it. No allocation for names under NEAREST_LONG bytes. */
#ifndef FD_NEAREST_H
#define FD_NEAREST_H
#include <stddef.h>

#define NEAREST_MAX 3
#define NEAREST_LONG 256

typedef struct fd_nearest {
	const char *typed;
	size_t typed_len;
	int limit;                       /* the largest distance that counts as near */
	int n;                           /* names kept, all at distance best */
	int best;                        /* the rank of the names kept */
	const char *names[NEAREST_MAX];
} fd_nearest;

void nearest_init(fd_nearest *nn, const char *typed);
/* Offers one name (NULL and repeats are ignored). */
void nearest_add(fd_nearest *nn, const char *name);
/* "'a'", "'a' or 'b'", "'a', 'b' or 'c'"; "" when nothing was near. Returns buf. */
char *nearest_list(const fd_nearest *nn, char *buf, size_t size);
/* " (did you mean 'a' or 'b'?)", or "" when nothing was near. Returns buf. */
char *nearest_hint(const fd_nearest *nn, char *buf, size_t size);
/* The distance as above; case-insensitive. */
int  nearest_distance(const char *a, const char *b);

#endif
