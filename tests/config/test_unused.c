/* test_unused.c - cfg_unused (the keys nobody reads) for every workload of the real registry:
 * for each selected workload W, one key of every other workload (one W does not declare), one
 * of W's own and core keys are set, on the command line and, separately, in a file; exactly the
 * other workloads' keys must be reported.  Workloads added to app/workloads.c are covered
 * without touching this file.  Exit 0 when every check passes, 1 otherwise. */
#include "config/cfg.h"
#include "hybrid.h"
#include "workload.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static int nchecks, nfailed;

/* 1 when table t declares section.key.  Local. */
static int declares(const cfg_key *t, const char *section, const char *key) {
  for (; t && t->section; t++)
    if (!strcasecmp(t->section, section) && !strcasecmp(t->key, key)) return 1;
  return 0;
}

/* A key of v that w does not declare and that is not a core section's, or NULL.  Local. */
static const cfg_key *foreign_key(const hy_workload *v, const hy_workload *w) {
  for (const cfg_key *k = v->keys; k && k->section; k++)
    if (!declares(w->keys, k->section, k->key) && strcmp(k->section, "run") &&
        strcmp(k->section, "output") && strcmp(k->section, "debug"))
      return k;
  return NULL;
}

/* The configuration for w with the keys set one way (file = 1: as INI text).  Checks the
 * report of cfg_unused against the keys expected.  Local. */
static void check_one(const hy_workload *w, int file) {
  hy_cfg c;
  if (cfg_init(&c) != HY_OK) { nchecks++; nfailed++; printf("FAILED: cfg_init\n"); return; }
  char text[16384], want[8192] = "";
  int nwant = 0, rc = HY_OK;
  snprintf(text, sizeof text, "[run]\nworkload = %s\nseed = 7\n[output]\nrecord = false\n", w->name);
  /* one of w's own keys, at its default (read: never reported) */
  const cfg_key *own = w->keys && w->keys->section ? w->keys : NULL;
  char arg[512];
  if (own) {
    size_t l = strlen(text);
    snprintf(text + l, sizeof text - l, "[%s]\n%s = %s\n", own->section, own->key, own->def);
  }
  for (int v = 0; hy_workloads[v]; v++) {
    const cfg_key *k = hy_workloads[v] == w ? NULL : foreign_key(hy_workloads[v], w);
    if (!k || declares(own ? w->keys : NULL, k->section, k->key)) continue;
    char name[160];
    snprintf(name, sizeof name, "%s.%s", k->section, k->key);
    if (strstr(want, name)) continue; /* shared by two other workloads */
    size_t l = strlen(want);
    snprintf(want + l, sizeof want - l, "%s%s", nwant++ ? "," : "", name);
    l = strlen(text);
    snprintf(text + l, sizeof text - l, "[%s]\n%s = %s\n", k->section, k->key, k->def);
  }
  if (file) {
    rc = cfg_parse_text(&c, "unused.ini", text);
  } else { /* the same keys as overrides */
    rc = cfg_parse_text(&c, "base.ini", "[run]\nseed = 7\n");
    snprintf(arg, sizeof arg, "run.workload=%s", w->name);
    if (rc == HY_OK) rc = cfg_override(&c, arg);
    char *save, *sec = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && rc == HY_OK; line = strtok_r(NULL, "\n", &save)) {
      if (line[0] == '[') { sec = line + 1; sec[strcspn(sec, "]")] = '\0'; continue; }
      char key[128], val[256];
      if (sscanf(line, "%127s = %255[^\n]", key, val) < 1) continue;
      if (sscanf(line, "%127s = %255[^\n]", key, val) == 1) val[0] = '\0';
      snprintf(arg, sizeof arg, "%s.%s=%s", sec, key, val);
      rc = cfg_override(&c, arg);
    }
  }
  int idx[256], n = rc == HY_OK ? cfg_unused(&c, w->keys, idx, 256) : -1;
  char got[8192] = "";
  for (int i = 0; i < n && i < 256; i++) {
    size_t l = strlen(got);
    snprintf(got + l, sizeof got - l, "%s%s.%s", i ? "," : "", c.keys[idx[i]]->section, c.keys[idx[i]]->key);
  }
  nchecks++;
  if (rc != HY_OK || n != nwant || strcmp(got, want)) {
    nfailed++;
    printf("FAILED: workload %s (%s): unused keys [%s], expected [%s]%s%s\n", w->name,
           file ? "file" : "command line", got, want, rc ? "; parse error: " : "", rc ? hy_err_msg() : "");
  } else {
    printf("ok: workload %s (%s): %d unused key(s): %s\n", w->name, file ? "file" : "command line", n, got);
  }
  hy_err_clear();
  cfg_free(&c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int nw = 0;
  for (int w = 0; hy_workloads[w]; w++, nw++) {
    check_one(hy_workloads[w], 1);
    check_one(hy_workloads[w], 0);
  }
  printf("unused: %d workload(s), %d checks, %d failed: %s\n", nw, nchecks, nfailed,
         nfailed || nw < 2 ? "FAILED" : "PASSED");
  MPI_Finalize();
  return nfailed || nw < 2 ? 1 : 0;
}
