#define _POSIX_C_SOURCE 200809L /* pthreads, sysconf */
#include "pool.h"

#include "math/fpmode.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

struct cr_pool {
    int workers;
    pthread_t tid[CR_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t go;   /* a new job (or quit) for the workers */
    pthread_cond_t done; /* the job's last task finished */
    long generation;
    int quit;
    /* the current job, under mu */
    cr_pool_fn fn;
    void *arg;
    int tasks, next, finished;
    cr_fpmode mode; /* the caller's floating-point mode (math/fpmode.h), taken by the workers */
};

/* Claims and runs tasks of the current job until none is left; called with mu held,
 * returns with mu held. */
static void work(cr_pool *P)
{
    while (P->next < P->tasks) {
        int k = P->next++;
        cr_pool_fn fn = P->fn;
        void *arg = P->arg;
        cr_fpmode mode = P->mode;
        pthread_mutex_unlock(&P->mu);
        /* a task runs in the caller's mode (subnormals flushed or not, the rounding), the exception flags it
           raises kept: two threads give what one does */
        cr_fpmode_adopt(mode);
        fn(arg, k);
        pthread_mutex_lock(&P->mu);
        if (++P->finished == P->tasks) pthread_cond_signal(&P->done);
    }
}

static void *worker_main(void *arg)
{
    cr_pool *P = arg;
    long seen = 0;
    pthread_mutex_lock(&P->mu);
    for (;;) {
        while (P->generation == seen && !P->quit) pthread_cond_wait(&P->go, &P->mu);
        if (P->quit) break;
        seen = P->generation;
        work(P); /* a late wake-up finds the tasks taken, or joins a later job: both fine */
    }
    pthread_mutex_unlock(&P->mu);
    return NULL;
}

cr_pool *cr_pool_create(int threads)
{
    if (threads <= 1) return NULL;
    cr_pool *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    if (pthread_mutex_init(&P->mu, NULL)) {
        free(P);
        return NULL;
    }
    pthread_cond_init(&P->go, NULL);
    pthread_cond_init(&P->done, NULL);
    /* workers block every signal: the caller's handlers (SIGINT ends a run cleanly)
     * keep running on the caller's thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    for (int i = 0; i < threads - 1 && i < CR_MAX_THREADS; ++i) {
        if (pthread_create(&P->tid[i], NULL, worker_main, P)) break;
        P->workers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (P->workers == 0) {
        cr_pool_destroy(P);
        return NULL;
    }
    return P;
}

void cr_pool_destroy(cr_pool *P)
{
    if (!P) return;
    pthread_mutex_lock(&P->mu);
    P->quit = 1;
    pthread_cond_broadcast(&P->go);
    pthread_mutex_unlock(&P->mu);
    for (int i = 0; i < P->workers; ++i) pthread_join(P->tid[i], NULL);
    pthread_cond_destroy(&P->go);
    pthread_cond_destroy(&P->done);
    pthread_mutex_destroy(&P->mu);
    free(P);
}

int cr_pool_threads(const cr_pool *P) { return P ? P->workers + 1 : 1; }

void cr_pool_run(cr_pool *P, int tasks, cr_pool_fn fn, void *arg)
{
    if (!P || tasks <= 1) {
        for (int k = 0; k < tasks; ++k) fn(arg, k);
        return;
    }
    pthread_mutex_lock(&P->mu);
    P->fn = fn, P->arg = arg, P->tasks = tasks, P->next = 0, P->finished = 0, P->mode = cr_fpmode_get();
    P->generation++;
    pthread_cond_broadcast(&P->go);
    work(P);
    /* only tasks a worker has claimed can be outstanding */
    while (P->finished < P->tasks) pthread_cond_wait(&P->done, &P->mu);
    pthread_mutex_unlock(&P->mu);
}

int cr_threads_default(void)
{
    const char *v = getenv("COSSERAT_THREADS");
    if (!v || !*v) v = getenv("OMP_NUM_THREADS");
    if (v && *v) {
        int n = atoi(v);
        return n < 1 ? 1 : (n > CR_MAX_THREADS ? CR_MAX_THREADS : n);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > CR_MAX_THREADS ? CR_MAX_THREADS : (int)n);
}
