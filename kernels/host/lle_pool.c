/* lle_pool.c - a persistent pool of worker threads for lle's host kernels (chol-nd's order,
 * numeric factor and block solves; the driver's column-parallel loops through
 * k_lle_pool_for).  Created once per eigen-solve: the workers start once and are parked
 * between jobs, instead of a pthread_create / pthread_join per phase (N = 20k on the H200:
 * ~20 phases per solve at 16 threads, each with its start-ups and a futex barrier per top
 * supernode).
 *
 * A job is fn(arg, tid, nt) on threads 0..nt-1, the caller's thread being tid 0; the caller
 * returns when every thread of the job has returned.  Work is split by the job itself (tid,
 * nt, or a counter it shares), so which thread runs a task never changes what a task computes:
 * the callers keep their results the same bit for bit at any thread count.  A worker waits for
 * the next job by spinning on the job word for POOL_SPIN_NS (CPU pause, then sched_yield), then sleeps on the
 * pool's condition variable; the barrier inside a job and the caller's wait for the job's end
 * wait the same way.  The job word holds the job's sequence number and its thread count, so a
 * worker that is not in a job never reads the job's other fields (a caller may change them for
 * the next job while such a worker is still asleep).  No file-scope state, no MPI. */
#include "k_lle.h"
#include "hybrid.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

enum { POOL_MAXT = 64, POOL_NT_BITS = 8 };
/* nanoseconds a waiting thread spins before it sleeps (a job follows the last within a few
 * microseconds inside a phase; between phases the workers sleep) */
#define POOL_SPIN_NS 60000
/* CPU pauses before the spin turns to sched_yield (where more threads than cores are runnable,
 * e.g. OpenBLAS's idle threads spinning after a call, a pure pause spin holds the core the
 * thread it waits for needs) */
enum { POOL_PAUSES = 2048 };

/* One worker's identity. */
typedef struct {
  k_lle_pool *p;
  int tid;
} pool_who;

struct k_lle_pool {
  int size;                       /* threads, the caller's included */
  pthread_t th[POOL_MAXT];
  pool_who who[POOL_MAXT];
  pthread_mutex_t mu;             /* the sleepers' lock and condition */
  pthread_cond_t cv;
  _Alignas(64) atomic_uint job;   /* (sequence << POOL_NT_BITS) | the job's threads */
  _Alignas(64) atomic_uint done;  /* workers of the job that finished */
  _Alignas(64) atomic_uint bar_count, bar_gen;   /* the barrier: arrivals, episodes */
  _Alignas(64) atomic_int nsleep; /* threads asleep (or about to be) on cv */
  void (*fn)(void *arg, int tid, int nt);
  void *arg;
  int quit;
  _Atomic int64_t spin_ns;        /* a waiting thread spins this long before it sleeps */
};

/* The CPU's spin-wait hint.  Local. */
static inline void pool_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Monotonic nanoseconds.  Local. */
static int64_t pool_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Wait until *w != v (ne = 1) or *w == v (ne = 0): spin the pool's spin_ns, then sleep on the
 * pool's condition variable (woken by pool_wake); the value seen returned.  Local. */
static unsigned pool_wait(k_lle_pool *p, atomic_uint *w, unsigned v, int ne) {
  int64_t t0 = 0;
  for (unsigned i = 0;; i++) {
    unsigned g = atomic_load_explicit(w, memory_order_acquire);
    if ((g != v) == ne) return g;
    if ((i & 255) == 255 || i >= POOL_PAUSES) {   /* the clock each time once it yields */
      int64_t t = pool_ns();
      if (!t0) t0 = t;
      else if (t - t0 > atomic_load_explicit(&p->spin_ns, memory_order_relaxed)) break;
    }
    if (i < POOL_PAUSES) pool_relax();
    else sched_yield();   /* another runnable thread (OpenBLAS's, a busy core) gets the core */
  }
  pthread_mutex_lock(&p->mu);
  atomic_fetch_add(&p->nsleep, 1);   /* seq_cst against pool_wake's store and load */
  unsigned g;
  while (((g = atomic_load(w)) != v) != ne) pthread_cond_wait(&p->cv, &p->mu);
  atomic_fetch_sub(&p->nsleep, 1);
  pthread_mutex_unlock(&p->mu);
  return g;
}

/* After a word a thread may wait on changed (seq_cst): wake the sleepers, if any.  Local. */
static void pool_wake(k_lle_pool *p) {
  if (atomic_load(&p->nsleep) > 0) {
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
  }
}

/* A worker: wait for a job that includes it, run it, report it done; until quit.  Local. */
static void *pool_worker(void *a) {
  pool_who *who = a;
  k_lle_pool *p = who->p;
  unsigned seen = 0;   /* the word at the pool's creation: a job may be posted before this thread runs */
  for (;;) {
    seen = pool_wait(p, &p->job, seen, 1);
    if (p->quit) break;
    int nt = (int)(seen & ((1u << POOL_NT_BITS) - 1));
    if (who->tid >= nt) continue;   /* not in this job: its fields are not ours to read */
    p->fn(p->arg, who->tid, nt);
    if (atomic_fetch_add(&p->done, 1) + 1 == (unsigned)nt - 1) pool_wake(p);
  }
  return NULL;
}

/* A pool of threads threads (the caller's included: threads - 1 workers; at most 64); fewer
 * where a thread cannot start.  Host.  Local. */
k_lle_pool *k_lle_pool_new(int threads) {
  k_lle_pool *p = NULL;
  HY_CALLOC(p, 1);
  if (threads < 1) threads = 1;
  if (threads > POOL_MAXT) threads = POOL_MAXT;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  atomic_store(&p->spin_ns, POOL_SPIN_NS);
  p->size = 1;
  for (int t = 1; t < threads; t++) {
    p->who[t] = (pool_who){ p, t };
    if (pthread_create(&p->th[t], NULL, pool_worker, &p->who[t]) != 0) break;
    p->size = t + 1;
  }
  return p;
}

/* How long a waiting thread of the pool spins before it sleeps (ns <= 0: the default
 * POOL_SPIN_NS); NULL: nothing.  Host.  Local. */
void k_lle_pool_set_spin(k_lle_pool *p, int64_t ns) {
  if (p) atomic_store(&p->spin_ns, ns > 0 ? ns : POOL_SPIN_NS);
}

/* The pool's threads (the caller's included); 1 for NULL.  Host.  Local. */
int k_lle_pool_size(const k_lle_pool *p) { return p ? p->size : 1; }

/* Post a job for nt threads (the caller waits for it separately).  Local. */
static void pool_post(k_lle_pool *p, int nt, void (*fn)(void *, int, int), void *arg) {
  p->fn = fn;
  p->arg = arg;
  atomic_store(&p->done, 0);
  atomic_store(&p->bar_count, 0);
  unsigned seq = (atomic_load(&p->job) >> POOL_NT_BITS) + 1;
  atomic_store(&p->job, (seq << POOL_NT_BITS) | (unsigned)nt);   /* seq_cst: then pool_wake */
  pool_wake(p);
}

/* fn(arg, tid, nt) on nt threads (at most the pool's: tid 0 the caller's); returns when all
 * have returned.  A NULL pool or nt <= 1: fn(arg, 0, 1) here.  Host.  Local. */
void k_lle_pool_run(k_lle_pool *p, int nt, void (*fn)(void *arg, int tid, int nt), void *arg) {
  if (nt > k_lle_pool_size(p)) nt = k_lle_pool_size(p);
  if (nt <= 1) { fn(arg, 0, 1); return; }
  pool_post(p, nt, fn, arg);
  fn(arg, 0, nt);
  pool_wait(p, &p->done, (unsigned)nt - 1, 0);
}

/* Wait until all nt threads of the job in work have arrived (nt: the job's count; every one of
 * them must call it the same number of times).  Host.  Local. */
void k_lle_pool_barrier(k_lle_pool *p, int nt) {
  if (!p || nt <= 1) return;
  unsigned g = atomic_load_explicit(&p->bar_gen, memory_order_acquire);
  if (atomic_fetch_add_explicit(&p->bar_count, 1, memory_order_acq_rel) + 1 == (unsigned)nt) {
    atomic_store_explicit(&p->bar_count, 0, memory_order_relaxed);
    atomic_fetch_add(&p->bar_gen, 1);   /* seq_cst: then pool_wake */
    pool_wake(p);
  } else
    pool_wait(p, &p->bar_gen, g, 1);
}

/* k_lle_pool_for's job. */
typedef struct {
  void (*fn)(void *arg, int64_t i0, int64_t i1);
  void *arg;
  int64_t n;
} pool_for_job;

/* Thread tid's range [n tid / nt, n (tid + 1) / nt).  Local. */
static void pool_for_run(void *a, int tid, int nt) {
  pool_for_job *j = a;
  int64_t i0 = j->n * tid / nt, i1 = j->n * (tid + 1) / nt;
  if (i0 < i1) j->fn(j->arg, i0, i1);
}

/* fn(arg, i0, i1) over [0, n) in min(nt, pool size, n) contiguous ranges, one a thread (the
 * ranges write disjoint memory).  Host.  Local. */
void k_lle_pool_for(k_lle_pool *p, int nt, int64_t n, void (*fn)(void *arg, int64_t i0, int64_t i1), void *arg) {
  if (n <= 0) return;
  if (nt > n) nt = (int)n;
  pool_for_job j = { fn, arg, n };
  k_lle_pool_run(p, nt, pool_for_run, &j);
}

/* Stop and join the workers, free the pool (NULL: nothing).  Host.  Local. */
void k_lle_pool_free(k_lle_pool *p) {
  if (!p) return;
  p->quit = 1;
  unsigned seq = (atomic_load(&p->job) >> POOL_NT_BITS) + 1;
  atomic_store(&p->job, seq << POOL_NT_BITS);
  pthread_mutex_lock(&p->mu);   /* every worker, asleep or not */
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  for (int t = 1; t < p->size; t++) pthread_join(p->th[t], NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  free(p);
}
