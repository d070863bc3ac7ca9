/* session_first_run.c — the first run behind the screen (session.h,
 * opt.background): the match context, the rounds of rules and the
 * estimates of session_open on a thread, so that the TUI shows the model
 * and the rules while they run.
 *
 * Who owns what: from session_first_run_start until session_first_run_wait
 * has joined the thread, the thread owns the session but for what
 * session.h lets the caller read (the model's graph, the rules' names,
 * priorities and enabled flags — settled before the thread starts, written
 * by neither). The struct below is the session's until the wait frees it;
 * done and the hold are shared under its lock. */
#include <pthread.h>
#include <stdlib.h>
#include "base/arena.h"
#include "base/clock.h"
#include "base/thread.h"
#include "session/session_internal.h"

struct fd_session_first_run {
	fd_session *s;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	bool held;                 /* the test hook: the thread waits until released */
	bool done;
	int rc;
	fd_diags d;                /* what the run said */
	double t0, ms;             /* its start, and how long it took once done */
};

static bool hold_next;

void session_test_hold_first_run(bool hold)
{
	hold_next = hold;
}

void session_test_release_first_run(fd_session *s)
{
	struct fd_session_first_run *f = s->first_run;
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->held = false;
	pthread_cond_broadcast(&f->changed);
	pthread_mutex_unlock(&f->lock);
}

static void *first_run(void *arg)
{
	struct fd_session_first_run *f = arg;
	pthread_mutex_lock(&f->lock);
	while (f->held)
		pthread_cond_wait(&f->changed, &f->lock);
	pthread_mutex_unlock(&f->lock);
	int rc = session_open_run(f->s, &f->d);
	pthread_mutex_lock(&f->lock);
	f->rc = rc;
	f->ms = clock_ms() - f->t0;
	f->done = true;
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

int session_first_run_start(fd_session *s, fd_diags *d)
{
	struct fd_session_first_run *f = xcalloc(1, sizeof *f);
	f->s = s;
	f->held = hold_next;
	f->t0 = clock_ms();
	diags_init(&f->d);
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->changed, NULL);
	s->first_run = f;
	f->started = thread_start(&f->thread, first_run, f);
	if (!f->started) {   /* no thread: the run happens now, and the wait only reports it */
		f->held = false;
		first_run(f);
	}
	(void)d;
	return 0;
}

bool session_first_run_done(const fd_session *s)
{
	struct fd_session_first_run *f = s->first_run;
	if (!f)
		return true;
	pthread_mutex_lock(&f->lock);
	bool done = f->done;
	pthread_mutex_unlock(&f->lock);
	return done;
}

double session_first_run_ms(const fd_session *s)
{
	struct fd_session_first_run *f = s->first_run;
	if (!f)
		return s->last_run_ms;
	pthread_mutex_lock(&f->lock);
	double ms = f->done ? f->ms : clock_ms() - f->t0;
	pthread_mutex_unlock(&f->lock);
	return ms;
}

int session_first_run_wait(fd_session *s, fd_diags *d)
{
	struct fd_session_first_run *f = s->first_run;
	if (!f)
		return 0;
	if (f->started)
		pthread_join(f->thread, NULL);
	for (size_t i = 0; i < f->d.n; i++)
		diag_add(d, f->d.items[i].severity, f->d.items[i].pos, "%s", f->d.items[i].message);
	int rc = f->rc;
	diags_release(&f->d);
	pthread_cond_destroy(&f->changed);
	pthread_mutex_destroy(&f->lock);
	free(f);
	s->first_run = NULL;
	return rc;
}
