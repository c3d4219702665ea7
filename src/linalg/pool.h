/* A small persistent pool of worker threads for coarse parallel regions (one region
 * per factorization or solve phase, never one per small loop). The caller takes part:
 * tasks are claimed one at a time under a mutex by whoever is free, so a worker that
 * the scheduler has not started yet never holds the caller up (on a loaded machine
 * the caller simply does every task, at serial speed). Every wait blocks on a
 * condition variable: no spinning. */
#ifndef COSSERAT_POOL_H
#define COSSERAT_POOL_H

typedef struct cr_pool cr_pool;
typedef void (*cr_pool_fn)(void *arg, int task);

/* A pool for `threads` threads in all, the caller included (threads - 1 workers, fewer
 * if creation fails). NULL when threads <= 1 or no worker could be started. */
cr_pool *cr_pool_create(int threads);
void cr_pool_destroy(cr_pool *pool);
/* threads in all, the caller included (1 for a NULL pool) */
int cr_pool_threads(const cr_pool *pool);
/* Runs fn(arg, k) for k = 0..tasks-1 and returns when all have finished. A NULL pool
 * runs them in order on the caller. */
void cr_pool_run(cr_pool *pool, int tasks, cr_pool_fn fn, void *arg);

/* The project's one thread-count setting: COSSERAT_THREADS, else OMP_NUM_THREADS, else
 * the online CPUs, clamped to 1..CR_MAX_THREADS. The CLI's --threads N sets
 * COSSERAT_THREADS. */
#define CR_MAX_THREADS 64
int cr_threads_default(void);

#endif
