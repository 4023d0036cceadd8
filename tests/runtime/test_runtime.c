/* test_runtime.c - MPI unit test of the error discipline and the configuration broadcast (run
 * at 2 and 3 ranks): hy_err first-wins and traces; hy_agree when no rank, one rank (1), several
 * ranks or rank 0 fail (every rank gets the largest code, rank 0 the first failing rank's
 * message and origin); cfg_parse_text + cfg_override on rank 0, then cfg_bcast: every rank
 * has the same values, lines, given flags and file name.  Linked with tests/config/cfgtest.c.
 * Exit 0 when every check passed on every rank, 1 otherwise. */
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, fails, checks;

/* Count one check; print failures on any rank, passes on rank 0.  Local. */
static void ok(int cond, const char *what) {
  checks++;
  if (!cond) fails++;
  if (!cond || rank == 0) printf("[rank %d] %-4s %s\n", rank, cond ? "ok" : "FAIL", what);
  fflush(stdout);
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

/* A failure recorded two calls deep, to see the trace and the origin.  Local. */
/* "(rank R on HOST) msg", the form hy_agree gives rank 0 (one host: every rank's) */
static const char *fromhost(int r, const char *msg) {
  static char buf[600];
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  snprintf(buf, sizeof buf, "(rank %d on %s) %s", r, host, msg);
  return buf;
}

static int inner(int code) { return hy_err(code, "inner failed with %d", code); }
static int outer(int code) {
  HY_CALL(inner(code));
  return HY_OK;
}

/* One line with every key's value, line and given flag (to compare ranks).  Local. */
static void cfg_digest(const hy_cfg *c, char *out, size_t len) {
  size_t l = (size_t)snprintf(out, len, "%s|%d", c->file, c->nkeys);
  for (int i = 0; i < c->nkeys && l < len; i++)
    l += (size_t)snprintf(out + l, len - l, "|%s.%s=%s@%d/%d", c->keys[i]->section, c->keys[i]->key,
                          c->val[i], c->line[i], c->set[i]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char what[4096];
  if (size < 2) {
    if (rank == 0) printf("test_runtime needs at least 2 ranks\n");
    MPI_Finalize();
    return 1;
  }

  /* first error wins, HY_CALL adds the trace, the origin is the first hy_err */
  hy_err_clear();
  int rc = outer(HY_EINPUT);
  hy_err(HY_ESYS, "second error");
  ok(rc == HY_EINPUT && !strcmp(hy_err_msg(), "inner failed with 2"), "first error wins");
  ok(strstr(hy_err_where(), "test_runtime.c:") != NULL, "origin names this file");
  hy_err_clear();
  ok(hy_err_msg()[0] == '\0', "hy_err_clear");
  ok(!strcmp(hy_code_name(HY_EVALID), "validation failed") && !strcmp(hy_code_name(HY_ESYS), "system"),
     "hy_code_name");

  /* nobody fails */
  hy_err_clear();
  rc = hy_agree(comm, HY_OK);
  ok(rc == HY_OK && hy_err_msg()[0] == '\0', "hy_agree: all ok -> ok, no message");

  /* rank 1 alone fails: every rank gets its code, rank 0 its message and origin */
  hy_err_clear();
  int line = __LINE__ + 1;
  rc = rank == 1 ? hy_err(HY_EINPUT, "rank one: bad thing %d", 42) : HY_OK;
  rc = hy_agree(comm, rc);
  snprintf(what, sizeof what, "hy_agree: rank 1 fails -> code %d on every rank (want 2)", rc);
  ok(rc == HY_EINPUT, what);
  if (rank == 0) {
    char where[64];
    snprintf(where, sizeof where, "test_runtime.c:%d", line);
    snprintf(what, sizeof what, "rank 0 got '%s' from '%s'", hy_err_msg(), hy_err_where());
    ok(!strcmp(hy_err_msg(), fromhost(1, "rank one: bad thing 42")) && ends_with(hy_err_where(), where), what);
  } else if (rank == 1) {
    ok(!strcmp(hy_err_msg(), "rank one: bad thing 42"), "rank 1 keeps its own message");
  } else {
    snprintf(what, sizeof what, "rank %d (not failing) has '%s'", rank, hy_err_msg());
    ok(!strcmp(hy_err_msg(), "rank 1 failed"), what);
  }

  /* several ranks fail with different codes: the largest code, the lowest rank's message */
  hy_err_clear();
  rc = HY_OK;
  if (rank == 1) rc = hy_err(HY_ENUMERIC, "rank one: breakdown");
  if (rank == size - 1 && rank != 1) rc = hy_err(HY_ESYS, "last rank: out of memory");
  rc = hy_agree(comm, rc);
  int want = size > 2 ? HY_ESYS : HY_ENUMERIC;
  snprintf(what, sizeof what, "hy_agree: ranks 1 and %d fail -> code %d (want %d)", size - 1, rc, want);
  ok(rc == want, what);
  if (rank == 0) ok(!strcmp(hy_err_msg(), fromhost(1, "rank one: breakdown")), "rank 0 gets the lowest failing rank's message");

  /* rank 0 fails too: it keeps its own message */
  hy_err_clear();
  rc = rank == 0 ? hy_err(HY_EUSAGE, "rank zero: usage") : rank == 1 ? hy_err(HY_ESYS, "rank one: io") : HY_OK;
  rc = hy_agree(comm, rc);
  ok(rc == HY_ESYS, "hy_agree: ranks 0 and 1 fail -> largest code 5");
  if (rank == 0) ok(!strcmp(hy_err_msg(), "rank zero: usage"), "rank 0 keeps its own message");

  /* agreement twice in a row (messages do not leak between rounds once cleared) */
  hy_err_clear();
  rc = hy_agree(comm, rank == size - 1 ? hy_err(HY_EVALID, "last rank: check failed") : HY_OK);
  ok(rc == HY_EVALID, "hy_agree: last rank fails -> 4");
  if (rank == 0) {
    snprintf(what, sizeof what, "%s", fromhost(size - 1, "last rank: check failed"));
    ok(!strcmp(hy_err_msg(), what), what);
  }
  hy_err_clear();

  /* configuration: parse and override on rank 0, broadcast, compare on every rank */
  hy_cfg c;
  ok(cfg_init(&c) == HY_OK, "cfg_init");
  if (rank == 0) {
    static const char text[] =
      "[run]\n"                  /* 1 */
      "workload = cfgtest\n"     /* 2 */
      "seed = 7\n"               /* 3 */
      "name = round trip\n"      /* 4 */
      "[cfgtest]\n"              /* 5 */
      "ratio = 0.125\n"          /* 6 */
      "grid = 1x3\n"             /* 7 */
      "mode = GAMMA\n"           /* 8 */
      "label = \"x y\"\n";       /* 9 */
    rc = cfg_parse_text(&c, "rt.ini", text);
    if (rc == HY_OK) rc = cfg_override(&c, "cfgtest.count=123");
    if (rc == HY_OK) rc = cfg_override(&c, "selftest.n=12345");
    if (rc == HY_OK) rc = cfg_override(&c, "cfgtest.flag=on");
    if (rc == HY_OK) rc = cfg_check(&c);
    ok(rc == HY_OK, rc == HY_OK ? "rank 0 parses and overrides" : hy_err_msg());
  }
  ok(cfg_bcast(&c, comm) == HY_OK, "cfg_bcast");
  char where[1200];
  ok(!strcmp(c.file, "rt.ini"), "file name broadcast");
  ok(!strcmp(cfg_str(&c, "run.workload"), "cfgtest") && cfg_int(&c, "run.seed") == 7 &&
     !strcmp(cfg_str(&c, "run.name"), "round trip"), "run section values");
  ok(cfg_real(&c, "cfgtest.ratio") == 0.125 && cfg_int(&c, "cfgtest.count") == 123 &&
     cfg_int(&c, "selftest.n") == 12345 && cfg_bool(&c, "cfgtest.flag") == 1, "numbers and overrides");
  int p = 0, q = 0;
  cfg_grid(&c, "cfgtest.grid", &p, &q);
  ok(p == 1 && q == 3 && !strcmp(cfg_str(&c, "cfgtest.mode"), "gamma") && cfg_enum(&c, "cfgtest.mode") == 2 &&
     !strcmp(cfg_str(&c, "cfgtest.label"), "x y"), "grid, enum, text");
  ok(!strcmp(cfg_where(&c, "cfgtest.grid", where, sizeof where), "rt.ini:7") &&
     !strcmp(cfg_where(&c, "selftest.n", where, sizeof where), "command line") &&
     cfg_given(&c, "cfgtest.ratio") && !cfg_given(&c, "selftest.reps"), "lines and given flags");
  ok(cfg_int(&c, "selftest.reps") == 5 && cfg_is(&c, "run.backend", "auto"), "defaults untouched");
  /* the whole table equals rank 0's */
  static char mine[65536], root[65536];
  cfg_digest(&c, mine, sizeof mine);
  memcpy(root, mine, sizeof mine);
  MPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, comm);
  ok(!strcmp(mine, root), "every key, value, line and flag equals rank 0's");
  cfg_free(&c);

  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, comm);
  if (rank == 0) printf("%d rank(s): %s (%d checks on rank 0, %d failure(s) over all ranks)\n", size,
                        all ? "FAILED" : "PASSED", checks, all);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return all ? 1 : 0;
}
