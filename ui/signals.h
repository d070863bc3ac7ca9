/* signals.h — the terminal comes back on every exit path (signals.c). The
 * quitting signals only set a flag for the main loop; the fatal ones restore
 * the terminal through the hook and name the recovery file. No curses. */
#ifndef FD_UI_SIGNALS_H
#define FD_UI_SIGNALS_H

void signals_install(void);
int  signals_pending(void);       /* the signal number that asks us to quit, or 0 */
extern const char *volatile signals_recovery_note;   /* named in the fatal message */
/* restores the terminal: hook(ctx), on a fatal signal (a handler reaches
 * nothing else, hence these two are process-wide) */
extern void (*signals_fatal_hook)(void *ctx);
extern void *signals_fatal_ctx;

#endif
