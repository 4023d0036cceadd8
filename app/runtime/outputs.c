/* outputs.c - before a run: no output file may be an input file or another output (same path
 * after resolving the folder, or same inode), so that a run never replaces its own input nor
 * writes two outputs over each other. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* realpath */
#endif
#include "runtime/runtime.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Where path would live: realpath of its folder + "/" + its last name; the path itself when
 * the folder does not exist (the write fails later, naming it).  Local. */
static void out_canonical(const char *path, char *out, size_t len) {
  char dir[PATH_MAX + 1], res[PATH_MAX + 1];
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == path) snprintf(dir, sizeof dir, "/");
  else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  if (!realpath(dir, res)) {
    snprintf(out, len, "%s", path);
    return;
  }
  snprintf(out, len, "%s/%s", strcmp(res, "/") ? res : "", base);
}

/* 1 when a and b name the same file: the same canonical path, or the same device and inode
 * (hard links, symlinks).  Local. */
static int out_same(const char *a, const char *b) {
  char ca[2 * PATH_MAX + 2], cb[2 * PATH_MAX + 2];
  out_canonical(a, ca, sizeof ca);
  out_canonical(b, cb, sizeof cb);
  if (!strcmp(ca, cb)) return 1;
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* 1 when key i is an output file key: a text key of [output] other than dir.  Local. */
static int out_is_output(const hy_cfg *c, int i) {
  const cfg_key *k = c->keys[i];
  return k->type == CFG_STR && !strcmp(k->section, "output") && strcmp(k->key, "dir") != 0 && c->val[i][0];
}

/* Rank 0's check over every pair (output key, output key) and (output key, text key of a
 * workload section naming an existing file).  Local. */
static int out_check_pairs(const hy_cfg *c) {
  for (int i = 0; i < c->nkeys; i++) {
    if (!out_is_output(c, i)) continue;
    for (int j = 0; j < c->nkeys; j++) {
      const cfg_key *k = c->keys[j];
      if (j == i || k->type != CFG_STR || !c->val[j][0] || (out_is_output(c, j) && j < i)) continue;
      struct stat st;
      int input = !out_is_output(c, j);
      if (input && (!strcmp(k->section, "output") || !strcmp(k->section, "run") || !strcmp(k->section, "debug") ||
                    stat(c->val[j], &st) != 0 || !S_ISREG(st.st_mode)))
        continue;   /* labels ([run] name) and stage names are not files */
      if (!out_same(c->val[i], c->val[j])) continue;
      char ni[300], nj[300], wi[1100], wj[1100];
      snprintf(ni, sizeof ni, "output.%s", c->keys[i]->key);
      snprintf(nj, sizeof nj, "%s.%s", k->section, k->key);
      return hy_err(HY_EUSAGE, "%s: key '%s' = '%s' and %s: key '%s' = '%s' name the same file; %s",
                    cfg_where(c, ni, wi, sizeof wi), ni, c->val[i], cfg_where(c, nj, wj, sizeof wj), nj, c->val[j],
                    input ? "an output must not replace an input (choose another name)"
                          : "two outputs must not overwrite each other (choose another name)");
    }
  }
  return HY_OK;
}

/* Refuse outputs that name an input file or each other (configuration error, exit 1).
 * Collective (rank 0 checks, all agree). */
int rt_output_paths_check(hy_ctx *ctx) {
  int rc = ctx->rank == 0 ? out_check_pairs(ctx->cfg) : HY_OK;
  return hy_agree(ctx->comm, rc);
}
