/* ordered_write.h — text made in numbered pieces on every core and written
 * in order: how the writers of a big run (the text and JSON trace, the
 * rejections) keep up with the matching that produced it.
 *
 * ordered_write calls make(arg, i, out) for each piece i in [0, n), each
 * into its own memory stream, on helper threads and the caller's thread at
 * once, and writes the pieces' text to dst in the order of i — the bytes are
 * those of calling make(arg, 0, dst), make(arg, 1, dst), ... one after the
 * other, which is what it does when there is one piece, one core or no
 * thread to be had (it uses thread_budget() threads, base/thread.h). make must only read what it is given (it runs on
 * several threads at once) and write only to out. At most a few pieces are
 * held in memory at a time: a piece is made only when its slot in a small
 * window ahead of the writing is free. */
#ifndef FD_ORDERED_WRITE_H
#define FD_ORDERED_WRITE_H
#include <stddef.h>
#include <stdio.h>

typedef void (*ordered_piece_fn)(void *arg, size_t piece, FILE *out);

void ordered_write(FILE *dst, size_t n, ordered_piece_fn make, void *arg);

#endif
