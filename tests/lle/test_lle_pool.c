/* test_lle_pool.c - the persistent thread pool of kernels/host/lle_pool.c (k_lle_pool_*), which
 * chol-nd's order, factor and solves run on: for pools of 1..5 threads and jobs of 1..7 threads
 * (more than the pool: clamped), every job runs fn exactly once on each of its threads with
 * the same nt; barriers inside a job hold (no thread passes round r before all wrote it);
 * k_lle_pool_for covers [0, n) exactly once in contiguous ranges for n = 0..200; thousands of
 * jobs back to back and jobs after pauses longer than the workers' spin (the sleep and wake
 * path) run to completion.  A watchdog (alarm) turns a hang (a lost wake-up, a dropped task the
 * caller waits for) into a failure.  Exit 0 pass, 1 fail. */
#include "k_lle.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MAXT = 8, ROUNDS = 50 };

/* A job's record: calls per thread, the nt each thread saw, the barrier rounds. */
typedef struct {
  k_lle_pool *p;
  atomic_int calls[MAXT];
  atomic_int bad_nt;
  int want_nt;
  int barrier;               /* 1: run the barrier rounds */
  volatile int mark[MAXT];
  atomic_int bad_bar;
} job_rec;

/* The job: count the call, check nt, then optionally ROUNDS barrier rounds.  Local. */
static void job_fn(void *arg, int tid, int nt) {
  job_rec *r = arg;
  atomic_fetch_add(&r->calls[tid], 1);
  if (nt != r->want_nt) atomic_fetch_add(&r->bad_nt, 1);
  if (!r->barrier) return;
  for (int q = 1; q <= ROUNDS; q++) {
    r->mark[tid] = q;
    k_lle_pool_barrier(r->p, nt);
    for (int j = 0; j < nt; j++)
      if (r->mark[j] != q) atomic_fetch_add(&r->bad_bar, 1);
    k_lle_pool_barrier(r->p, nt);
  }
}

/* k_lle_pool_for's check: hits per index. */
typedef struct {
  atomic_int *hit;
  atomic_int bad;
} for_rec;

/* One range: every index hit once, the range non-empty.  Local. */
static void for_fn(void *arg, int64_t i0, int64_t i1) {
  for_rec *r = arg;
  if (i0 >= i1) atomic_fetch_add(&r->bad, 1);
  for (int64_t i = i0; i < i1; i++) atomic_fetch_add(&r->hit[i], 1);
}

/* The watchdog: a hang is a failure.  Local. */
static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "FAIL: k_lle_pool hung (a lost wake-up or a task the caller waits for was dropped)\n";
  if (write(2, msg, sizeof msg - 1) < 0) _exit(1);
  _exit(1);
}

/* One job of nt threads on p (barrier rounds or not): its failures counted.  Local. */
static int one_job(k_lle_pool *p, int size, int nt, int barrier) {
  job_rec r;
  memset(&r, 0, sizeof r);
  r.p = p;
  r.barrier = barrier;
  int eff = nt < 1 ? 1 : nt > size ? size : nt;
  r.want_nt = eff;
  k_lle_pool_run(p, nt, job_fn, &r);
  int bad = atomic_load(&r.bad_nt) + atomic_load(&r.bad_bar);
  for (int t = 0; t < MAXT; t++) bad += atomic_load(&r.calls[t]) != (t < eff);
  return bad;
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);   /* the lines before a hang kept */
  signal(SIGALRM, on_alarm);
  alarm(120);
  int fails = 0;
  for (int size = 1; size <= 5; size++) {
    k_lle_pool *p = k_lle_pool_new(size);
    int got = k_lle_pool_size(p), bad = 0;
    if (got != size) { printf("FAIL: pool of %d threads has %d\n", size, got); fails++; }
    for (int nt = 0; nt <= 7; nt++)
      for (int rep = 0; rep < 20; rep++) bad += one_job(p, got, nt, rep % 2);
    for (int rep = 0; rep < 1000; rep++) bad += one_job(p, got, 1 + rep % got, 0);   /* back to back */
    for (int rep = 0; rep < 6; rep++) {   /* after a pause longer than the spin: the sleep path */
      struct timespec ts = { 0, 2000000 };
      nanosleep(&ts, NULL);
      bad += one_job(p, got, got, rep % 2);
    }
    int badfor = 0;
    for (int n = 0; n <= 200; n++) {
      atomic_int hit[200];
      for (int i = 0; i < 200; i++) atomic_init(&hit[i], 0);
      for_rec r = { hit, 0 };
      k_lle_pool_for(p, got, n, for_fn, &r);
      badfor += atomic_load(&r.bad);
      for (int i = 0; i < 200; i++) badfor += atomic_load(&hit[i]) != (i < n);
    }
    printf("%s pool of %d thread(s): %d job failure(s) (a thread called not once, a wrong nt, a barrier passed "
           "early), %d k_lle_pool_for failure(s)\n", bad || badfor ? "FAIL" : "ok  ", got, bad, badfor);
    fails += bad + badfor;
    k_lle_pool_free(p);
  }
  /* a NULL pool runs the job on the caller's thread */
  job_rec r;
  memset(&r, 0, sizeof r);
  r.want_nt = 1;
  k_lle_pool_run(NULL, 4, job_fn, &r);
  int badnull = atomic_load(&r.calls[0]) != 1 || atomic_load(&r.calls[1]) != 0 || atomic_load(&r.bad_nt);
  printf("%s NULL pool: the job once on the caller's thread\n", badnull ? "FAIL" : "ok  ");
  fails += badnull;
  return fails ? 1 : 0;
}
