/* test_keyranges.c - every numeric and enumerated key of the registry at both ends of its
 * range, generated from the key tables themselves: cfg_init knows the core's keys and those of
 * every workload in app/workloads.c (this program links the real registry), so a workload
 * added there is covered without touching this file.
 *   int:  min and max accepted (and read back exactly), min - 1 and max + 1 refused;
 *   real: min and max accepted (read back exactly), the next representable double past each
 *         refused (past 0: 1e-300, since strtod refuses subnormals for another reason);
 *   enum: every choice accepted (and read back), an unknown one refused;
 *   bool: every spelling accepted, another refused; grid: auto and PxQ accepted, 0xQ refused;
 *   lists: both ends accepted and read back, a list with an element past an end refused
 *         naming element 2; a grid list with 0xQ second refused so.
 * A refusal must be the range/value message (HY_EUSAGE, "out of range" / "is not allowed"),
 * not another error.  Exit 0 when every check passes, 1 otherwise (each failure printed). */
#include "config/cfg.h"
#include "hybrid.h"
#include "workload.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int nchecks, nfailed;

/* Set name=value on c as a command-line override; 1 when the outcome is the wanted one
 * (accepted, or refused with a message containing why).  Local. */
static int try_value(hy_cfg *c, const char *name, const char *value, int accept, const char *why) {
  char arg[512];
  snprintf(arg, sizeof arg, "%s=%s", name, value);
  hy_err_clear();
  int rc = cfg_override(c, arg);
  int good = accept ? rc == HY_OK : rc == HY_EUSAGE && strstr(hy_err_msg(), why) != NULL;
  nchecks++;
  if (!good) {
    nfailed++;
    printf("FAILED: %s = '%s' should be %s; got rc %d: %s\n", name, value,
           accept ? "accepted" : "refused", rc, rc ? hy_err_msg() : "(accepted)");
  }
  hy_err_clear();
  return good;
}

/* A read-back check.  Local. */
static void readback(int cond, const char *name, const char *value, const char *got) {
  nchecks++;
  if (!cond) {
    nfailed++;
    printf("FAILED: %s = '%s' was accepted but reads back as %s\n", name, value, got);
  }
}

/* The enum's choices one by one: accepted and read back as written.  Local. */
static void enum_choices(hy_cfg *c, const char *name, const char *choices) {
  const char *p = choices;
  while (*p) {
    char ch[128];
    size_t l = strcspn(p, "|");
    snprintf(ch, sizeof ch, "%.*s", (int)l, p);
    if (try_value(c, name, ch, 1, "")) readback(!strcmp(cfg_str(c, name), ch), name, ch, cfg_str(c, name));
    p += l;
    if (*p == '|') p++;
  }
  try_value(c, name, "no-such-choice", 0, "is not allowed");
}

/* A number printed so that it reads back exactly.  Local. */
static const char *num(char *buf, double v, int integer) {
  if (integer) snprintf(buf, 64, "%.0f", v);
  else snprintf(buf, 64, "%.17g", v);
  return buf;
}

/* The value just past bound b in direction dir (+1 above, -1 below).  Local. */
static double past(double b, int dir) {
  if (b == 0) return dir * 1e-300;
  return nextafter(b, dir * INFINITY);
}

/* Both ends of one key.  Local. */
static void key_ends(hy_cfg *c, const cfg_key *k, int *counts) {
  char name[160], v[64];
  snprintf(name, sizeof name, "%s.%s", k->section, k->key);
  switch (k->type) {
  case CFG_INT:
    counts[0]++;
    for (int end = 0; end < 2; end++) {
      double b = end ? k->max : k->min;
      if (try_value(c, name, num(v, b, 1), 1, ""))
        readback(cfg_int(c, name) == (int64_t)b, name, v, "another integer");
      try_value(c, name, num(v, end ? b + 1 : b - 1, 1), 0, "out of range");
    }
    break;
  case CFG_REAL:
    counts[1]++;
    for (int end = 0; end < 2; end++) {
      double b = end ? k->max : k->min;
      if (try_value(c, name, num(v, b, 0), 1, ""))
        readback(cfg_real(c, name) == b, name, v, "another number");
      try_value(c, name, num(v, past(b, end ? 1 : -1), 0), 0, "out of range");
    }
    break;
  case CFG_ENUM:
    counts[2]++;
    enum_choices(c, name, k->choices ? k->choices : "");
    break;
  case CFG_BOOL: {
    counts[3]++;
    const char *t[] = { "true", "yes", "on", "1", "false", "no", "off", "0" };
    for (int i = 0; i < 8; i++)
      if (try_value(c, name, t[i], 1, "")) readback(cfg_bool(c, name) == (i < 4), name, t[i], "the other truth value");
    try_value(c, name, "maybe", 0, "is not a boolean");
    break;
  }
  case CFG_GRID: {
    counts[4]++;
    int p, q;
    if (try_value(c, name, "3x5", 1, "")) {
      cfg_grid(c, name, &p, &q);
      readback(p == 3 && q == 5, name, "3x5", "another grid");
    }
    try_value(c, name, "auto", 1, "");
    try_value(c, name, "0x2", 0, "is not a process grid");
    break;
  }
  case CFG_INT_LIST: {
    /* each end alone and both in one list, read back; a list whose second element is past
     * an end refused naming that element */
    counts[5]++;
    char list[160], v2[64];
    for (int end = 0; end < 2; end++) {
      double b = end ? k->max : k->min;
      if (try_value(c, name, num(v, b, 1), 1, ""))
        readback(cfg_int(c, name) == (int64_t)b, name, v, "another integer");
      snprintf(list, sizeof list, "%s, %s", num(v, k->min, 1), num(v2, end ? b + 1 : b - 1, 1));
      try_value(c, name, list, 0, "element 2");
      try_value(c, name, list, 0, "out of range");
    }
    snprintf(list, sizeof list, "%s, %s", num(v, k->min, 1), num(v2, k->max, 1));
    if (try_value(c, name, list, 1, "")) {
      int64_t got[2] = { 0, 0 };
      int cnt = cfg_int_list(c, name, got, 2);
      readback(cnt == 2 && got[0] == (int64_t)k->min && got[1] == (int64_t)k->max, name, list,
               "other integers");
    }
    break;
  }
  case CFG_GRID_LIST: {
    counts[5]++;
    int p[2], q[2];
    if (try_value(c, name, "3x5, auto", 1, "")) {
      int cnt = cfg_grid_list(c, name, p, q, 2);
      readback(cnt == 2 && p[0] == 3 && q[0] == 5 && p[1] == 0 && q[1] == 0, name, "3x5, auto",
               "other grids");
    }
    try_value(c, name, "auto", 1, "");
    try_value(c, name, "1x1, 0x2", 0, "element 2 ('0x2') is not a process grid");
    break;
  }
  default:
    break;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hy_cfg c;
  if (cfg_init(&c) != HY_OK) {
    printf("FAILED: cfg_init: %s\n", hy_err_msg());
    return 1;
  }
  int counts[6] = { 0 };
  for (int i = 0; i < c.nkeys; i++) key_ends(&c, c.keys[i], counts);
  /* every workload's section is in the registry the test iterated */
  printf("keyranges: workloads");
  for (int w = 0; hy_workloads[w]; w++) {
    int mine = 0;
    for (const cfg_key *k = hy_workloads[w]->keys; k && k->section; k++) mine++;
    printf(" %s (%d keys)", hy_workloads[w]->name, mine);
  }
  printf("\nkeyranges: %d keys: %d int, %d real, %d enum, %d bool, %d grid, %d list; %d checks, %d "
         "failed: %s\n", c.nkeys, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5],
         nchecks, nfailed,
         nfailed ? "FAILED" : "PASSED");
  cfg_free(&c);
  MPI_Finalize();
  return nfailed || counts[0] == 0 || counts[1] == 0 || counts[2] == 0 ? 1 : 0;
}
