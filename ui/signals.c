/* signals.c — the terminal comes back on every exit path. SIGINT, SIGTERM
 * and SIGHUP only set a flag: the main loop (woken by getch's timeout) then
 * writes the recovery file and leaves cleanly. SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL, SIGABRT, SIGQUIT and the other fatal-by-default signals restore the
 * terminal through the hook and die with the same signal; SIGPIPE and
 * SIGXFSZ are ignored (the write fails and says so). Unsaved edits are
 * already in the recovery file, which is rewritten after every edit. No
 * curses here. */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "signals.h"

static volatile sig_atomic_t pending;
void (*signals_fatal_hook)(void *ctx);
void *signals_fatal_ctx;
const char *volatile signals_recovery_note;

static void on_quit(int sig)
{
	pending = sig;
}

static void on_fatal(int sig)
{
	static volatile sig_atomic_t once;
	if (!once) {
		once = 1;
		if (signals_fatal_hook)
			signals_fatal_hook(signals_fatal_ctx);
		static const char msg[] = "fusiondbg: fatal signal; the terminal was restored";
		ssize_t w = write(2, msg, sizeof msg - 1);
		if (signals_recovery_note) {
			static const char m2[] = ", unsaved edits are in ";
			w = write(2, m2, sizeof m2 - 1);
			w = write(2, signals_recovery_note, strlen(signals_recovery_note));
		}
		w = write(2, "\n", 1);
		(void)w;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit;     /* no SA_RESTART: a blocked read returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	/* every other signal whose default ends the process, too (SIGQUIT,
	 * SIGUSR1, SIGALRM left the tty raw on the alternate screen) */
	static const int fatal[] = {
		SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT, SIGTRAP, SIGSYS,
		SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
	};
	for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
		sigaction(fatal[i], &sa, NULL);
	/* a write past ulimit -f or into a closed pipe fails with EFBIG / EPIPE
	 * and is reported like a full disk, instead of killing the session */
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

int signals_pending(void)
{
	return pending;
}
