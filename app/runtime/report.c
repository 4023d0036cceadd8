/* report.c - phase timers, progress lines, metrics and the JSON results record. */
#include "runtime/runtime.h"
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Wall clock in seconds.  Local. */
double hy_wtime(void) { return MPI_Wtime(); }

static hy_phase *phase_get(hy_ctx *ctx, const char *name) {
  for (int i = 0; i < ctx->nphases; i++)
    if (!strcmp(ctx->phases[i].name, name)) return &ctx->phases[i];
  if (ctx->nphases >= HY_MAX_PHASES) hy_fatal(HY_ESYS, "internal: too many phases");
  hy_phase *p = &ctx->phases[ctx->nphases++];
  snprintf(p->name, sizeof p->name, "%s", name);
  p->total = 0;
  p->t0 = -1;
  return p;
}

/* Start a phase (device work queued before is waited for first).  Local. */
void hy_phase_begin(hy_ctx *ctx, const char *name) {
  if (ctx->be.ops) ctx->be.ops->sync(&ctx->be);
  hy_phase *p = phase_get(ctx, name);
  p->t0 = hy_wtime();
}

/* Stop it (waits for the device work of the phase).  Local. */
void hy_phase_end(hy_ctx *ctx, const char *name) {
  if (ctx->be.ops) ctx->be.ops->sync(&ctx->be);
  hy_phase *p = phase_get(ctx, name);
  if (p->t0 >= 0) p->total += hy_wtime() - p->t0;
  p->t0 = -1;
}

/* Seconds accumulated in a phase.  Local. */
double hy_phase_seconds(const hy_ctx *ctx, const char *name) {
  for (int i = 0; i < ctx->nphases; i++)
    if (!strcmp(ctx->phases[i].name, name)) return ctx->phases[i].total;
  return 0;
}

/* Reduce phases over ranks by rank 0's names.  Collective. */
int rt_phases_json(hy_ctx *ctx, char **json, int print) {
  int n = ctx->nphases;
  HY_MPI(MPI_Bcast(&n, 1, MPI_INT, 0, ctx->comm));
  char names[HY_MAX_PHASES][48];
  memset(names, 0, sizeof names);
  if (ctx->rank == 0)
    for (int i = 0; i < n; i++) memcpy(names[i], ctx->phases[i].name, 48);
  HY_MPI(MPI_Bcast(names, n * 48, MPI_CHAR, 0, ctx->comm));
  double mine[HY_MAX_PHASES], mn[HY_MAX_PHASES], mx[HY_MAX_PHASES], sum[HY_MAX_PHASES];
  for (int i = 0; i < n; i++) mine[i] = hy_phase_seconds(ctx, names[i]);
  HY_MPI(MPI_Reduce(mine, mn, n, MPI_DOUBLE, MPI_MIN, 0, ctx->comm));
  HY_MPI(MPI_Reduce(mine, mx, n, MPI_DOUBLE, MPI_MAX, 0, ctx->comm));
  HY_MPI(MPI_Reduce(mine, sum, n, MPI_DOUBLE, MPI_SUM, 0, ctx->comm));
  *json = NULL;
  if (ctx->rank != 0) return HY_OK;
  size_t cap = (size_t)n * 160 + 16;
  char *s = malloc(cap);
  if (!s) hy_fatal(HY_ESYS, "out of memory");
  size_t l = (size_t)snprintf(s, cap, "{");
  if (print && n) printf("\n%-24s %12s %12s %12s\n", "phase (s)", "min", "avg", "max");
  for (int i = 0; i < n; i++) {
    double avg = sum[i] / ctx->size;
    l += (size_t)snprintf(s + l, cap - l, "%s\n    \"%s\": {\"min\": %.9g, \"avg\": %.9g, \"max\": %.9g}",
                          i ? "," : "", names[i], mn[i], avg, mx[i]);
    if (print) printf("%-24s %12.6f %12.6f %12.6f\n", names[i], mn[i], avg, mx[i]);
  }
  snprintf(s + l, cap - l, "\n  }");
  *json = s;
  return HY_OK;
}

/* ---------------------------------------------------------------- progress */

/* Start a progress report.  Every rank; rank 0 prints.  */
void hy_progress_begin(hy_progress *p, const hy_ctx *ctx, const char *label, double total) {
  memset(p, 0, sizeof *p);
  p->ctx = ctx;
  snprintf(p->label, sizeof p->label, "%s", label);
  p->total = total > 0 ? total : 1;
  p->t0 = p->last = hy_wtime();
  /* run.progress_mode: auto (a bar on a terminal, else lines), bar, lines, off */
  int mode = ctx->progress_mode;
  p->tty = mode == 1 ? 1 : mode == 0 ? isatty(STDERR_FILENO) : 0;
  p->active = ctx->rank == 0 && mode != 3 && (p->tty || ctx->progress_interval > 0);
}

/* Report done out of total: a bar on a terminal (at most 10 updates a second), a line every
 * progress seconds otherwise.  Local. */
void hy_progress_update(hy_progress *p, double done) {
  if (!p || !p->active) return;
  double now = hy_wtime();
  double frac = done / p->total;
  if (frac > 1) frac = 1;
  if (p->tty) {
    if (now - p->last < 0.1) return;
    int w = 40, f = (int)(frac * w);
    char bar[64];
    for (int i = 0; i < w; i++) bar[i] = i < f ? '#' : '.';
    bar[w] = '\0';
    double eta = frac > 0 ? (now - p->t0) * (1 - frac) / frac : 0;
    fprintf(stderr, "\r%-16s [%s] %5.1f%%  %.1fs, eta %.1fs ", p->label, bar, 100 * frac, now - p->t0, eta);
    p->width_done = 1;
  } else {
    if (now - p->last < p->ctx->progress_interval) return;
    double eta = frac > 0 ? (now - p->t0) * (1 - frac) / frac : 0;
    fprintf(stderr, "hybrid: %s: %.1f%% after %.1f s (eta %.1f s)\n", p->label, 100 * frac,
            now - p->t0, eta);
  }
  fflush(stderr);
  p->last = now;
}

/* Finish the report (clears the bar).  Local. */
void hy_progress_end(hy_progress *p) {
  if (!p || !p->active) return;
  if (p->tty && p->width_done) fprintf(stderr, "\r%-90s\r", "");
  fflush(stderr);
  p->active = 0;
}

/* Progress of a value driven down toward target, on a log scale from the first value.  Local. */
void hy_progress_toward(hy_progress *p, double v, double target) {
  if (!p || !p->active) return;
  if (!(v > 0) || !(target > 0) || !isfinite(v)) return;
  if (p->v0 == 0) p->v0 = v;
  double f = p->v0 > target && v < p->v0 ? log(p->v0 / v) / log(p->v0 / target) : 0;
  if (f > 1 || v <= target) f = 1;
  if (f > p->best) p->best = f;
  hy_progress_update(p, p->best * p->total);
}

/* Work of the first j of n elimination steps, n^3 - (n - j)^3.  Local. */
double hy_lu_work_done(int64_t n, int64_t j) {
  if (j > n) j = n;
  if (j < 0) j = 0;
  double r = (double)(n - j);
  return (double)n * n * n - r * r * r;
}

/* ---------------------------------------------------------------- metrics */

/* Length of the valid UTF-8 sequence at s (2..4), or 0 when s does not start one (a stray
 * continuation byte, an overlong form, a surrogate, beyond U+10FFFF, cut short).  Local. */
static int utf8_len(const unsigned char *s) {
  int n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : 0;
  if (s[0] >= 0xF5) n = 0;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (n == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0))) return 0;
  if (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))) return 0;
  return n;
}

/* Write s as the inside of a JSON string: quotes, backslashes and control characters escaped;
 * valid UTF-8 copied; every byte that is not valid UTF-8 written as \u00XX (its Latin-1
 * reading), so that the record stays valid JSON whatever a value holds.  Local. */
void hy_json_escape(FILE *out, const char *str) {
  const unsigned char *s = (const unsigned char *)str;
  while (*s) {
    unsigned char ch = *s;
    int n = ch >= 0x80 ? utf8_len(s) : 1;
    if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
    else if (ch == '\n') fputs("\\n", out);
    else if (ch == '\t') fputs("\\t", out);
    else if (ch < 0x20 || ch == 0x7f || n == 0) fprintf(out, "\\u%04x", ch);
    else fwrite(s, 1, (size_t)n, out);
    s += n ? n : 1;
  }
}

static void metric_set(hy_ctx *ctx, const char *name, char *json) {
  if (ctx->rank != 0 || !json) { free(json); return; }
  for (int i = 0; i < ctx->nmetrics; i++)
    if (!strcmp(ctx->metrics[i].name, name)) {
      free(ctx->metrics[i].json);
      ctx->metrics[i].json = json;
      return;
    }
  if (ctx->nmetrics >= HY_MAX_METRICS) { free(json); return; }
  snprintf(ctx->metrics[ctx->nmetrics].name, sizeof ctx->metrics[0].name, "%s", name);
  ctx->metrics[ctx->nmetrics++].json = json;
}

static char *fmt_alloc(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

static char *num_json(double v) {
  if (v != v || v > 1.7e308 || v < -1.7e308) return fmt_alloc("null"); /* JSON has no NaN/Inf */
  return fmt_alloc("%.17g", v);
}

void hy_metric_num(hy_ctx *ctx, const char *name, double v) { metric_set(ctx, name, num_json(v)); }
void hy_metric_int(hy_ctx *ctx, const char *name, long long v) {
  metric_set(ctx, name, fmt_alloc("%lld", v));
}
void hy_metric_str(hy_ctx *ctx, const char *name, const char *s) {
  if (ctx->rank != 0) return;
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m) return;
  fputc('"', m);
  hy_json_escape(m, s);
  fputc('"', m);
  fclose(m);
  metric_set(ctx, name, buf);
}
void hy_metric_json(hy_ctx *ctx, const char *name, const char *json) {
  metric_set(ctx, name, fmt_alloc("%s", json));
}

/* The deciding in-run check.  Local. */
void hy_validation(hy_ctx *ctx, const char *check, double value, double threshold, int passed) {
  if (ctx->rank != 0) return;
  char *v = num_json(value), *t = num_json(threshold);
  free(ctx->validation_json);
  ctx->validation_json = fmt_alloc("{\"check\": \"%s\", \"value\": %s, \"threshold\": %s, \"passed\": %s}",
                                   check, v ? v : "null", t ? t : "null", passed ? "true" : "false");
  free(v);
  free(t);
}

void hy_verdict(hy_ctx *ctx, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->verdict, sizeof ctx->verdict, fmt, ap);
  va_end(ap);
}

void hy_printf0(const hy_ctx *ctx, const char *fmt, ...) {
  if (ctx->rank != 0) return;
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

/* ---------------------------------------------------------------- record */

/* mkdir -p.  Local. */
static int mkdirs(const char *path) {
  char tmp[1024];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(tmp, 0775) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  if (mkdir(tmp, 0775) != 0 && errno != EEXIST) return -1;
  return 0;
}

/* Make [output] dir and check that a file can be created in it, before the run, so that an
 * unusable folder does not cost a whole run.  Collective (rank 0 checks, all agree). */
int rt_record_dir_check(hy_ctx *ctx) {
  int rc = HY_OK;
  if (ctx->rank == 0) {
    if (mkdirs(ctx->out_dir) != 0) {
      rc = hy_err(HY_ESYS, "[output] dir '%s': cannot create the folder: %s", ctx->out_dir,
                  strerror(errno));
    } else {
      char base[1200], probe[1300];
      snprintf(base, sizeof base, "%s/.probe", ctx->out_dir);
      int fd = -1;
      rc = io_tmp_create(base, probe, sizeof probe, &fd);
      if (rc == HY_OK) {
        close(fd);
        unlink(probe);
      }
    }
  }
  return hy_agree(ctx->comm, rc);
}

/* A JSON string, or null when s is NULL or empty.  Local. */
static void json_str_or_null(FILE *f, const char *s) {
  if (!s || !*s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  hy_json_escape(f, s);
  fputc('"', f);
}

/* The record's build and run context: CUDA runtime and driver, NCCL, cuDNN (from the backend
 * table; null on the host backend / when not linked), argv, the Slurm job and step.  Local (rank 0). */
static void write_build_run(FILE *f, const hy_ctx *ctx) {
  fprintf(f, "  \"cuda\": ");
  if (ctx->be.runtime_version[0]) {
    fprintf(f, "{\"runtime\": ");
    json_str_or_null(f, ctx->be.runtime_version);
    fprintf(f, ", \"driver\": ");
    json_str_or_null(f, ctx->be.driver_version);
    fputc('}', f);
  } else {
    fputs("null", f);
  }
  fprintf(f, ",\n  \"cuda_pool\": %s", ctx->pool_json[0] ? ctx->pool_json : "null");
  fprintf(f, ",\n  \"nccl\": ");
  json_str_or_null(f, ctx->be.nccl_version);
  fprintf(f, ",\n  \"cudnn\": ");
  json_str_or_null(f, ctx->be.cudnn_version);
  fprintf(f, ",\n  \"argv\": [");
  for (int i = 0; i < ctx->argc && ctx->argv; i++) {
    fprintf(f, "%s\"", i ? ", " : "");
    hy_json_escape(f, ctx->argv[i]);
    fputc('"', f);
  }
  fprintf(f, "],\n  \"slurm\": ");
  const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
  if (job && *job) {
    fprintf(f, "{\"job_id\": ");
    json_str_or_null(f, job);
    fprintf(f, ", \"step_id\": ");
    json_str_or_null(f, step);
    fputc('}', f);
  } else {
    fputs("null", f);
  }
  fputs(",\n", f);
}

/* Write the record under a temporary name and link it to a name that does not exist yet.
 * Local (rank 0). */
int rt_record_write(hy_ctx *ctx, const char *workload, int exit_code, const char *devices,
                    const char *phases, const char *errmsg, char *path_out, size_t path_len) {
  const char *dir = ctx->out_dir;
  if (mkdirs(dir) != 0)
    return hy_err(HY_ESYS, "[output] dir '%s': cannot create the folder: %s", dir, strerror(errno));
  char tbase[1200], tmp[1300];
  /* a random name opened O_EXCL | O_NOFOLLOW: jobs sharing the folder never collide */
  snprintf(tbase, sizeof tbase, "%s/.record", dir);
  int fd = -1;
  HY_CALL(io_tmp_create(tbase, tmp, sizeof tmp, &fd));
  FILE *f = fdopen(fd, "w");
  if (!f) {
    int e = errno;
    close(fd);
    unlink(tmp);
    return hy_err(HY_ESYS, "%s: cannot write the results record: %s", tmp, strerror(e));
  }
  const char *status = exit_code == HY_OK ? "passed" : exit_code == HY_EVALID ? "failed" : "error";
  time_t now = time(NULL);
  struct tm tmv;
  gmtime_r(&now, &tmv);
  char stamp[32];
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  fprintf(f, "{\n  \"workload\": \"%s\",\n  \"status\": \"%s\",\n  \"exit_code\": %d,\n", workload,
          status, exit_code);
  fprintf(f, "  \"version\": \"%s (%s)\",\n  \"date\": \"%s\",\n  \"mpi_library\": \"", hy_version(),
          hy_git_id(), stamp);
  hy_json_escape(f, rt_mpi_library());
  fprintf(f, "\",\n  \"compiler\": \"");
  hy_json_escape(f, rt_compiler());
  fprintf(f, "\",\n  \"blas\": {\"library\": \"");
  hy_json_escape(f, ctx->blas);
  fprintf(f, "\", \"threads\": %d},\n  \"threads\": {\"per_rank\": %d, \"from\": \"%s\"},\n",
          ctx->blas_threads, ctx->threads, ctx->threads_why ? ctx->threads_why : "");
  write_build_run(f, ctx);
  fprintf(f, "  \"ranks\": %d,\n  \"nodes\": %d,\n  \"backend\": \"%s\",\n", ctx->size, ctx->nnodes,
          ctx->be.name ? ctx->be.name : "none");
  fprintf(f, "  \"devices\": %s,\n", devices ? devices : "[]");
  fprintf(f, "  \"config_file\": \"");
  hy_json_escape(f, ctx->cfg->file);
  fprintf(f, "\",\n  \"config\": ");
  cfg_write_json(ctx->cfg, f, 2);
  fprintf(f, ",\n  \"phases\": %s,\n", phases ? phases : "{}");
  fprintf(f, "  \"metrics\": {");
  for (int i = 0; i < ctx->nmetrics; i++)
    fprintf(f, "%s\n    \"%s\": %s", i ? "," : "", ctx->metrics[i].name, ctx->metrics[i].json);
  fprintf(f, "%s},\n", ctx->nmetrics ? "\n  " : "");
  fprintf(f, "  \"validation\": %s,\n", ctx->validation_json ? ctx->validation_json : "null");
  fprintf(f, "  \"unused_keys\": %s,\n", ctx->unused_keys_json ? ctx->unused_keys_json : "[]");
  fprintf(f, "  \"verdict\": \"");
  hy_json_escape(f, ctx->verdict);
  fprintf(f, "\",\n  \"error\": ");
  if (errmsg && *errmsg) {
    fputc('"', f);
    hy_json_escape(f, errmsg);
    fputc('"', f);
  } else {
    fputs("null", f);
  }
  fprintf(f, ",\n  \"wall_seconds\": %.6f\n}\n", hy_wtime() - ctx->t_start);
  int e = 0;
  if (fflush(f) != 0 || ferror(f)) e = errno ? errno : EIO;
  if (!e && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS) e = errno;
  if (fclose(f) != 0 && !e) e = errno;
  if (e) {
    unlink(tmp);
    return hy_err(HY_ESYS, "%s: writing the results record failed: %s", tmp, strerror(e));
  }
  /* a name that never replaces an earlier record: link() fails if it exists */
  char base[128], path[1400];
  strftime(base, sizeof base, "%Y%m%d-%H%M%S", &tmv);
  for (int k = 0; k < 10000; k++) {
    if (k == 0) snprintf(path, sizeof path, "%s/%s-%s.json", dir, workload, base);
    else snprintf(path, sizeof path, "%s/%s-%s-%d.json", dir, workload, base, k);
    if (link(tmp, path) == 0) {
      unlink(tmp);
      if (path_out) snprintf(path_out, path_len, "%s", path);
      return HY_OK;
    }
    if (errno != EEXIST) break;
  }
  e = errno;
  unlink(tmp);
  return hy_err(HY_ESYS, "%s: cannot create the results record: %s", path, strerror(e));
}

/* [debug] fail_rank inside a stage: this rank stops alone.  Local. */
void hy_debug_point(const hy_ctx *ctx, const char *stage) {
  if (ctx->debug.fail_rank != ctx->rank || strcmp(ctx->debug.fail_stage, stage) != 0) return;
  hy_fatal(ctx->debug.fail_code,
           "injected failure ([debug] fail_rank = %d, fail_stage = %s): this rank stops alone",
           ctx->debug.fail_rank, stage);
}
