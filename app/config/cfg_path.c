/* cfg_path.c - where a configuration file named on the command line is found.
 *
 * A name with a '/' is used as given.  A bare name (e.g. "spai.ini") is looked up in the
 * current directory, then in $HYBRID_DATADIR (and $HYBRID_DATADIR/config), then in the
 * install prefix's share/hybrid/config: the prefix is found from the executable's own path
 * (/proc/self/exe: BIN/../share/hybrid/config, so a relocated install works), then the
 * prefix the build was configured with (HYBRID_CONFIG_DIR). */
#include "cfg.h"
#include "hybrid.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef HYBRID_CONFIG_DIR
#define HYBRID_CONFIG_DIR ""
#endif

/* The folder of the running executable's share/hybrid/config into dir ("" if unknown).  Local. */
static void exe_config_dir(char *dir, size_t n) {
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  dir[0] = '\0';
  if (len <= 0) return;
  exe[len] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return;
  *slash = '\0';
  snprintf(dir, n, "%s/../share/hybrid/config", exe);
}

/* Resolve a configuration file name into out (see the file comment); HY_EUSAGE naming every
 * place looked in when it is in none.  Local. */
int cfg_find_file(const char *name, char *out, size_t n) {
  if (strchr(name, '/') || access(name, F_OK) == 0) {
    snprintf(out, n, "%s", name);
    return HY_OK;
  }
  char exedir[PATH_MAX + 32];
  exe_config_dir(exedir, sizeof exedir);
  const char *env = getenv("HYBRID_DATADIR");
  char envcfg[PATH_MAX + 8] = "";
  if (env && *env) snprintf(envcfg, sizeof envcfg, "%s/config", env);
  const char *dirs[] = { env && *env ? env : NULL, envcfg[0] ? envcfg : NULL,
                         exedir[0] ? exedir : NULL, HYBRID_CONFIG_DIR[0] ? HYBRID_CONFIG_DIR : NULL };
  char tried[2048];
  int used = snprintf(tried, sizeof tried, "./%s", name);
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    if (!dirs[i]) continue;
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s", dirs[i], name);
    if (access(path, F_OK) == 0) {
      if (strlen(path) >= n)
        return hy_err(HY_EUSAGE, "%s: configuration path longer than %zu characters", path, n - 1);
      snprintf(out, n, "%s", path);
      return HY_OK;
    }
    if (used > 0 && (size_t)used < sizeof tried)
      used += snprintf(tried + used, sizeof tried - (size_t)used, ", %s", path);
  }
  return hy_err(HY_EUSAGE, "%s: cannot open the configuration file: %s (looked in %s; a bare name "
                "is looked up in the current directory, $HYBRID_DATADIR, then the install's "
                "share/hybrid/config)", name, strerror(ENOENT), tried);
}
