/* clock.h — the one monotonic clock, for timings the tool reports (re-run
 * time, first screen). Not for anything a result depends on. */
#ifndef FD_CLOCK_H
#define FD_CLOCK_H

double clock_ms(void);   /* milliseconds since an arbitrary fixed point */

#endif
