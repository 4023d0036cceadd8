/* cfg.c - INI parsing through libinih, key tables, validation, overrides, broadcast. */
#include "config/cfg.h"
#include "hybrid.h"
#include "workload.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The core's own keys. */
static const cfg_key core_keys[] = {
  { "run", "workload", CFG_STR, "selftest", 0, 0, NULL,
    "workload to run (see the list of workloads above) when a configuration file names none" },
  { "run", "backend", CFG_ENUM, "auto", 0, 0, "auto|cuda|host",
    "auto: CUDA when compiled in and a device is visible, else host" },
  { "run", "seed", CFG_INT, "42", 0, 4294967295.0, NULL,
    "seed of every random generator (same data for any rank count)" },
  { "run", "progress", CFG_REAL, "10", 0, 86400, NULL,
    "seconds between progress lines in batch logs (0: none; fractions allowed); a bar on a terminal" },
  { "run", "progress_mode", CFG_ENUM, "auto", 0, 0, "auto|bar|lines|off",
    "auto: a bar when stderr is a terminal, else lines every run.progress seconds; bar: the bar "
    "also into a pipe (mpiexec, tee); lines: lines also on a terminal; off: nothing" },
  { "run", "blas_threads", CFG_INT, "0", 0, 1024, NULL,
    "threads of the BLAS/LAPACK calls (0: the rank's threads, from OMP_NUM_THREADS, "
    "SLURM_CPUS_PER_TASK or the CPU affinity); a threaded BLAS (OpenBLAS) may change the last "
    "bits of dense LAPACK/GEMM results with the count, so fix it to compare runs bit for bit" },
  { "run", "cuda_pool", CFG_ENUM, "on", 0, 0, "on|off",
    "CUDA backend: device buffers from a stream-ordered memory pool that keeps freed memory, so an allocation or free inside a timed region does not synchronise the device (the record's cuda_pool: peak and reserved bytes); off: cudaMalloc / cudaFree. Kept memory is released at the end and before a memory pre-check" },
  { "run", "name", CFG_STR, "", 0, 0, NULL, "free label copied into the results record" },
  { "run", "exit_file", CFG_STR, "", 0, 0, NULL,
    "a rank that ends the job alone (MPI_Abort: a local fatal error) first writes its exit code into this new file, so that a job script can report hybrid's code instead of the launcher's (srun: 137); jobs/*.slurm set it; empty: none" },
  { "output", "dir", CFG_STR, "results", 0, 0, NULL,
    "folder of the JSON results records (created if missing)" },
  { "output", "record", CFG_BOOL, "true", 0, 0, NULL, "write a JSON results record" },
  { "debug", "fail_rank", CFG_INT, "-1", -1, 1e9, NULL,
    "tests: this rank fails alone (local fatal error) during the run; -1 none" },
  { "debug", "fail_code", CFG_INT, "5", 1, 5, NULL, "tests: exit code of that failure" },
  { "debug", "fail_stage", CFG_STR, "", 0, 0, NULL,
    "tests: where fail_rank fails: a workload's stage name (see its README section); empty: before the run" },
  { "debug", "fail_alloc", CFG_INT, "0", 0, 1e15, NULL,
    "tests: with fail_rank, that rank's allocations of at least this many bytes (HY_MALLOC and the backend's alloc) fail as if memory were exhausted, instead of the failure before the run; 0: off" },
  { "debug", "perturb", CFG_REAL, "0", -1e6, 1e6, NULL,
    "tests: relative perturbation of the result after the computation, before the in-run check (0: none; selftest: > 0 the daxpy result and the copies, < 0 the dot and the copies)" },
  { "debug", "host_coll", CFG_BOOL, "false", 0, 0, NULL,
    "tests: on the host backend the device-collective transport (app/comm) runs with MPI underneath, so CI runs that path" },
  CFG_END
};

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Index of "section.key", or -1.  Local. */
static int find_key(const hy_cfg *c, const char *section, const char *key) {
  for (int i = 0; i < c->nkeys; i++)
    if (!strcasecmp(c->keys[i]->section, section) && !strcasecmp(c->keys[i]->key, key)) return i;
  return -1;
}

static int find_name(const hy_cfg *c, const char *name) {
  const char *dot = strchr(name, '.');
  if (!dot || dot - name >= 64) return -1;
  char sec[64];
  memcpy(sec, name, (size_t)(dot - name));
  sec[dot - name] = '\0';
  return find_key(c, sec, dot + 1);
}

static int known_section(const hy_cfg *c, const char *section) {
  for (int i = 0; i < c->nkeys; i++)
    if (!strcasecmp(c->keys[i]->section, section)) return 1;
  return 0;
}

/* Append a key table (keys already known are skipped); cap is the arrays' size.  Local. */
static int add_table(hy_cfg *c, const cfg_key *t, int cap) {
  for (; t && t->section; t++) {
    if (find_key(c, t->section, t->key) >= 0) continue; /* shared keys declared twice */
    if (c->nkeys >= cap)
      return hy_err(HY_ESYS, "internal: more configuration keys than counted (%d)", cap);
    c->keys[c->nkeys] = t;
    c->val[c->nkeys] = xstrdup(t->def ? t->def : "");
    if (!c->val[c->nkeys]) return hy_err(HY_ESYS, "out of memory");
    c->line[c->nkeys] = 0;
    c->set[c->nkeys] = 0;
    c->nkeys++;
  }
  return HY_OK;
}

/* Empty configuration with every key at its default.  Local. */
int cfg_init(hy_cfg *c) {
  memset(c, 0, sizeof *c);
  size_t cap = 0;
  for (const cfg_key *t = core_keys; t->section; t++) cap++;
  for (int w = 0; hy_workloads[w]; w++)
    for (const cfg_key *t = hy_workloads[w]->keys; t && t->section; t++) cap++;
  if (cap > CFG_MAX_KEYS)
    return hy_err(HY_ESYS, "internal: %zu configuration keys in the registry, more than "
                  "CFG_MAX_KEYS = %d (app/config/cfg.h)", cap, CFG_MAX_KEYS);
  c->keys = calloc(cap + 1, sizeof *c->keys);
  c->val = calloc(cap + 1, sizeof *c->val);
  c->line = calloc(cap + 1, sizeof *c->line);
  c->set = calloc(cap + 1, sizeof *c->set);
  if (!c->keys || !c->val || !c->line || !c->set) {
    cfg_free(c);
    return hy_err(HY_ESYS, "out of memory for %zu configuration keys", cap);
  }
  HY_CALL(add_table(c, core_keys, (int)cap));
  for (int w = 0; hy_workloads[w]; w++) HY_CALL(add_table(c, hy_workloads[w]->keys, (int)cap));
  return HY_OK;
}

/* Release the values and the arrays.  Local. */
void cfg_free(hy_cfg *c) {
  if (c->val)
    for (int i = 0; i < c->nkeys; i++) free(c->val[i]);
  free(c->keys);
  free(c->val);
  free(c->line);
  free(c->set);
  memset(c, 0, sizeof *c);
}

/* "a, b, c" list of the keys of a section. */
static void section_keys(const hy_cfg *c, const char *section, char *buf, size_t len) {
  buf[0] = '\0';
  for (int i = 0; i < c->nkeys; i++)
    if (!strcasecmp(c->keys[i]->section, section)) {
      size_t l = strlen(buf);
      snprintf(buf + l, len - l, "%s%s", l ? ", " : "", c->keys[i]->key);
    }
}

static void section_list(const hy_cfg *c, char *buf, size_t len) {
  buf[0] = '\0';
  for (int i = 0; i < c->nkeys; i++) {
    int seen = 0;
    for (int j = 0; j < i; j++)
      if (!strcasecmp(c->keys[j]->section, c->keys[i]->section)) seen = 1;
    if (seen) continue;
    size_t l = strlen(buf);
    snprintf(buf + l, len - l, "%s[%s]", l ? ", " : "", c->keys[i]->section);
  }
}

/* Describe what a key allows ("integer in [1, 100]", "one of a|b"). */
static void allowed(const cfg_key *k, char *buf, size_t len) {
  switch (k->type) {
  case CFG_INT: snprintf(buf, len, "an integer in [%.15g, %.15g]", k->min, k->max); break;
  case CFG_REAL: snprintf(buf, len, "a number in [%.15g, %.15g]", k->min, k->max); break;
  case CFG_BOOL: snprintf(buf, len, "true or false"); break;
  case CFG_ENUM: snprintf(buf, len, "one of %s", k->choices); break;
  case CFG_GRID: snprintf(buf, len, "auto or PxQ (P, Q >= 1)"); break;
  case CFG_INT_LIST:
    snprintf(buf, len, "1 to %d comma-separated integers, each in [%.15g, %.15g]", CFG_LIST_MAX,
             k->min, k->max);
    break;
  case CFG_GRID_LIST:
    snprintf(buf, len, "1 to %d comma-separated grids, each auto or PxQ (P, Q >= 1)", CFG_LIST_MAX);
    break;
  default: snprintf(buf, len, "text"); break;
  }
}

/* Parse an integer with optional exponent or k/M/G suffix. */
static int parse_int(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno) return 0;
  if (*end == 'k' || *end == 'K') { v *= 1e3; end++; }
  else if (*end == 'M') { v *= 1e6; end++; }
  else if (*end == 'G') { v *= 1e9; end++; }
  while (isspace((unsigned char)*end)) end++;
  if (*end || !isfinite(v) || v != floor(v)) return 0;
  *out = v;
  return 1;
}

static int parse_bool(const char *s, int *b) {
  static const char *t[] = { "true", "yes", "on", "1" }, *f[] = { "false", "no", "off", "0" };
  for (int i = 0; i < 4; i++) {
    if (!strcasecmp(s, t[i])) { *b = 1; return 1; }
    if (!strcasecmp(s, f[i])) { *b = 0; return 1; }
  }
  return 0;
}

static int enum_index(const char *choices, const char *s) {
  int idx = 0;
  const char *p = choices;
  size_t n = strlen(s);
  while (*p) {
    const char *bar = strchr(p, '|');
    size_t l = bar ? (size_t)(bar - p) : strlen(p);
    if (l == n && !strncasecmp(p, s, n)) return idx;
    idx++;
    if (!bar) break;
    p = bar + 1;
  }
  return -1;
}

static int parse_grid(const char *s, int *p, int *q) {
  if (!strcasecmp(s, "auto")) { *p = *q = 0; return 1; }
  char x;
  int a, b, n = 0;
  if (sscanf(s, "%d%c%d%n", &a, &x, &b, &n) == 3 && (x == 'x' || x == 'X') && s[n] == '\0' &&
      a >= 1 && b >= 1) {
    *p = a;
    *q = b;
    return 1;
  }
  return 0;
}

/* The type one element of a key's value has (a list's element type, else the key's).  Local. */
static cfg_type elem_type(cfg_type t) {
  return t == CFG_INT_LIST ? CFG_INT : t == CFG_GRID_LIST ? CFG_GRID : t;
}

/* Check one value v of type t against key k; head names it in a message ("key 's.k' = 'v'",
 * or for a list's element "key 's.k' = 'a, b': element 2 ('b')"), where is "FILE:LINE".
 * Local. */
static int check_one(const cfg_key *k, cfg_type t, const char *v, const char *where,
                     const char *head, const char *allow) {
  switch (t) {
  case CFG_INT: {
    double d;
    if (!parse_int(v, &d))
      return hy_err(HY_EUSAGE, "%s: %s is not an integer; allowed: %s", where, head, allow);
    if (d < k->min || d > k->max)
      return hy_err(HY_EUSAGE, "%s: %s is out of range; allowed: %s", where, head, allow);
    return HY_OK;
  }
  case CFG_REAL: {
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    while (isspace((unsigned char)*end)) end++;
    /* ERANGE on underflow is fine: a denormal such as 1e-320 is a finite number */
    if (end == v || *end || !isfinite(d))
      return hy_err(HY_EUSAGE, "%s: %s is not a finite number; allowed: %s", where, head, allow);
    if (d < k->min || k->max < d)
      return hy_err(HY_EUSAGE, "%s: %s is out of range; allowed: %s", where, head, allow);
    return HY_OK;
  }
  case CFG_BOOL: {
    int b;
    if (!parse_bool(v, &b))
      return hy_err(HY_EUSAGE, "%s: %s is not a boolean; allowed: %s", where, head, allow);
    return HY_OK;
  }
  case CFG_ENUM:
    if (enum_index(k->choices, v) < 0)
      return hy_err(HY_EUSAGE, "%s: %s is not allowed; allowed: %s", where, head, allow);
    return HY_OK;
  case CFG_GRID: {
    int p, q;
    if (!parse_grid(v, &p, &q))
      return hy_err(HY_EUSAGE, "%s: %s is not a process grid; allowed: %s", where, head, allow);
    return HY_OK;
  }
  default:
    if (strlen(v) > CFG_STR_MAX)
      return hy_err(HY_EUSAGE, "%s: key '%s.%s' holds %zu characters; at most %d are allowed (a "
                    "longer value is refused, never truncated)", where, k->section, k->key, strlen(v), CFG_STR_MAX);
    return HY_OK;
  }
}

/* Element i (0-based) of a comma-separated list, blanks around it trimmed, into buf; 0 when
 * the list has fewer elements.  Local. */
static int list_elem(const char *v, int i, char *buf, size_t len) {
  const char *p = v;
  for (; i > 0; i--) {
    p = strchr(p, ',');
    if (!p) return 0;
    p++;
  }
  while (isspace((unsigned char)*p)) p++;
  size_t l = strcspn(p, ",");
  while (l > 0 && isspace((unsigned char)p[l - 1])) l--;
  snprintf(buf, len, "%.*s", (int)(l < len ? l : len - 1), p);
  return 1;
}

/* Number of elements of a comma-separated list.  Local. */
static int list_count(const char *v) {
  int n = 1;
  for (const char *p = v; *p; p++) n += *p == ',';
  return n;
}

/* Check one value against its key (each element of a list); message with where ("FILE:LINE").
 * Local. */
static int check_value(const cfg_key *k, const char *v, const char *where) {
  char allow[256], head[4400];
  allowed(k, allow, sizeof allow);
  cfg_type t = elem_type(k->type);
  if (t == k->type) {
    snprintf(head, sizeof head, "key '%s.%s' = '%s'", k->section, k->key, v);
    return check_one(k, t, v, where, head, allow);
  }
  int n = list_count(v);
  if (n > CFG_LIST_MAX)
    return hy_err(HY_EUSAGE, "%s: key '%s.%s' holds %d elements; allowed: %s", where, k->section,
                  k->key, n, allow);
  for (int i = 0; i < n; i++) {
    char e[4096];
    list_elem(v, i, e, sizeof e);
    if (!e[0])
      return hy_err(HY_EUSAGE, "%s: key '%s.%s' = '%s': element %d is empty; allowed: %s", where,
                    k->section, k->key, v, i + 1, allow);
    snprintf(head, sizeof head, "key '%s.%s' = '%s': element %d ('%s')", k->section, k->key, v,
             i + 1, e);
    HY_CALL(check_one(k, t, e, where, head, allow));
  }
  return HY_OK;
}

/* Set section.key = value coming from where/line.  Local. */
static int set_value(hy_cfg *c, const char *section, const char *key, const char *value,
                     const char *where, int line) {
  char buf[8192];
  if (!section[0])
    return hy_err(HY_EUSAGE, "%s: key '%s' is outside any section; sections: %s", where, key,
                  (section_list(c, buf, sizeof buf), buf));
  if (!known_section(c, section))
    return hy_err(HY_EUSAGE, "%s: unknown section [%s]; allowed sections: %s", where, section,
                  (section_list(c, buf, sizeof buf), buf));
  int i = find_key(c, section, key);
  if (i < 0)
    return hy_err(HY_EUSAGE, "%s: key '%s' is not known in section [%s]; allowed keys: %s",
                  where, key, section, (section_keys(c, section, buf, sizeof buf), buf));
  if (line > 0 && c->set[i] && c->line[i] > 0)
    return hy_err(HY_EUSAGE, "%s: key '%s.%s' is given twice (first at line %d)", where,
                  c->keys[i]->section, key, c->line[i]);
  /* values are trimmed by inih; strip quotes around text */
  char v[4096];
  if (strlen(value) >= sizeof v)
    return hy_err(HY_EUSAGE, "%s: key '%s.%s' holds %zu characters; at most %d are allowed (a "
                  "longer value is refused, never truncated)", where, c->keys[i]->section, key,
                  strlen(value), CFG_STR_MAX);
  snprintf(v, sizeof v, "%s", value);
  size_t l = strlen(v);
  if (l >= 2 && ((v[0] == '"' && v[l - 1] == '"') || (v[0] == '\'' && v[l - 1] == '\''))) {
    memmove(v, v + 1, l - 2);
    v[l - 2] = '\0';
  }
  HY_CALL(check_value(c->keys[i], v, where));
  if (c->keys[i]->type == CFG_ENUM) {
    /* keep the choice as declared ("CUDA" -> "cuda"): code compares values with strcmp */
    const char *p = c->keys[i]->choices;
    for (int k = enum_index(p, v); k > 0; k--) p = strchr(p, '|') + 1;
    snprintf(v, sizeof v, "%.*s", (int)strcspn(p, "|"), p);
  }
  char *d = xstrdup(v);
  if (!d) return hy_err(HY_ESYS, "out of memory");
  free(c->val[i]);
  c->val[i] = d;
  c->line[i] = line;
  c->set[i] = 1;
  return HY_OK;
}

typedef struct {
  hy_cfg *c;
  const char *name;
  int line;     /* line of the last line handed to inih */
  int rc;       /* first error */
  int rc_line;  /* its line */
  /* reader state */
  FILE *fp;
  const char *text;
  const char *cur;  /* the raw line inih is parsing */
} parse_state;

static int handler(void *user, const char *section, const char *name, const char *value) {
  parse_state *st = user;
  if (st->rc != HY_OK) return 1;
  char where[1100];
  snprintf(where, sizeof where, "%s:%d", st->name, st->line);
  if (!name) { /* a section header alone (INI_CALL_HANDLER_ON_NEW_SECTION builds) */
    return 1;
  }
  /* inih keeps the blanks of "[ name ]" (check_sections accepts them): trim them here */
  char sec[256];
  while (isspace((unsigned char)*section)) section++;
  snprintf(sec, sizeof sec, "%s", section);
  for (size_t l = strlen(sec); l > 0 && isspace((unsigned char)sec[l - 1]); l--) sec[l - 1] = '\0';
  /* inih joins an indented line to the previous key's value (multi-line values): no key
   * takes one, and an indented "key = value" line would be misread as such */
  const char *raw = st->cur ? st->cur : "";
  while (*raw == ' ' || *raw == '\t') raw++;
  size_t nl = strlen(name);
  const char *after = raw + nl;
  while (*after == ' ' || *after == '\t') after++;
  if (strncasecmp(raw, name, nl) != 0 || (*after != '=' && *after != ':')) {
    st->rc = hy_err(HY_EUSAGE, "%s: indented line read as a continuation of key '%s.%s' (INI "
                    "multi-line value); remove the indentation", where, sec, name);
    st->rc_line = st->line;
    return 1;
  }
  int rc = set_value(st->c, sec, name, value ? value : "", where, st->line);
  if (rc != HY_OK) {
    st->rc = rc;
    st->rc_line = st->line;
  }
  return 1;
}

/* inih reader over text that counts lines (so that messages can name them). */
static char *reader_text(char *buf, int size, void *stream) {
  parse_state *st = stream;
  if (!*st->text) return NULL;
  const char *nl = strchr(st->text, '\n');
  size_t n = nl ? (size_t)(nl - st->text + 1) : strlen(st->text);
  if (n > (size_t)size - 1) n = (size_t)size - 1;
  memcpy(buf, st->text, n);
  buf[n] = '\0';
  st->cur = st->text;
  st->text += n;
  st->line++;
  return buf;
}

/* Check that every section header names a known section (inih only reports keys).  */
static int check_sections(hy_cfg *c, const char *name, const char *text, FILE *fp) {
  char line[4096], buf[4096];
  int ln = 0;
  for (;;) {
    if (fp) {
      if (!fgets(line, sizeof line, fp)) break;
    } else {
      if (!*text) break;
      const char *nl = strchr(text, '\n');
      size_t n = nl ? (size_t)(nl - text + 1) : strlen(text);
      if (n >= sizeof line) n = sizeof line - 1;
      memcpy(line, text, n);
      line[n] = '\0';
      text += n;
    }
    ln++;
    /* inih reads lines into INI_MAX_LINE bytes and parses the rest of a longer line as a
     * line of its own: refuse such lines instead of truncating values */
    size_t len = strcspn(line, "\r\n");
    if (len > INI_MAX_LINE - 2 || (!line[len] && len == sizeof line - 1))
      return hy_err(HY_EUSAGE, "%s:%d: line longer than %d characters (the INI parser's limit)",
                    name, ln, INI_MAX_LINE - 2);
    /* a bare CR (not before the LF) is a line end to some editors and not to inih, which
     * would read "; note<CR>reps = 7" as one comment and "[a]<CR>k = 1" as a header:
     * refuse it instead of reading a line other than the one shown */
    char *cr = strchr(line, '\r');
    if (cr && cr[1] != '\n' && cr[1] != '\0')
      return hy_err(HY_EUSAGE, "%s:%d: a carriage return (CR) inside the line, not before its line feed "
                    "(column %d): line ends are LF or CR LF; a bare CR is not a line end", name, ln,
                    (int)(cr - line) + 1);
    char *s = line;
    while (isspace((unsigned char)*s)) s++;
    if (*s != '[') continue;
    char *e = strchr(s, ']');
    if (!e) continue; /* inih reports it as a syntax error */
    *e = '\0';
    char *sec = s + 1;
    while (isspace((unsigned char)*sec)) sec++;
    for (char *t = e - 1; t >= sec && isspace((unsigned char)*t); t--) *t = '\0';
    if (!known_section(c, sec))
      return hy_err(HY_EUSAGE, "%s:%d: unknown section [%s]; allowed sections: %s", name, ln, sec,
                    (section_list(c, buf, sizeof buf), buf));
  }
  return HY_OK;
}

static int parse_common(hy_cfg *c, parse_state *st) {
  int r = ini_parse_stream(reader_text, st, handler, st);
  if (st->rc != HY_OK && (r <= 0 || st->rc_line < r)) return st->rc;
  if (r > 0) {
    hy_err_clear(); /* an earlier syntax error explains a later value error: report it */
    return hy_err(HY_EUSAGE, "%s:%d: syntax error: expected '[section]', 'key = value' or a "
                  "comment (';' or '#')", st->name, r);
  }
  if (r < 0) return hy_err(HY_EUSAGE, "%s: cannot read the configuration", st->name);
  return HY_OK;
}

/* Parse an INI file over the current values.  The file is read whole first: the section
 * check and inih both need the text, and a pipe cannot be read twice nor a directory at
 * all (both used to leave the defaults in place silently).  Local. */
int cfg_parse_file(hy_cfg *c, const char *path) {
  FILE *fp = fopen(path, "r");
  if (!fp)
    return hy_err(HY_EUSAGE, "%s: cannot open the configuration file: %s", path, strerror(errno));
  char *text = NULL;
  size_t len = 0, cap = 0, got;
  do {
    if (cap - len < 4097) {
      char *t = realloc(text, cap = cap ? 2 * cap : 65536);
      if (!t) {
        free(text);
        fclose(fp);
        return hy_err(HY_ESYS, "%s: out of memory reading the configuration file", path);
      }
      text = t;
    }
    got = fread(text + len, 1, cap - len - 1, fp);
    len += got;
  } while (got > 0);
  int e = errno, bad = ferror(fp);
  fclose(fp);
  text[len] = '\0';
  int rc = HY_OK;
  if (bad)
    rc = hy_err(HY_EUSAGE, "%s: cannot read the configuration file: %s", path, strerror(e));
  else if (strlen(text) != len)
    rc = hy_err(HY_EUSAGE, "%s: the configuration file contains a NUL byte (not a text file)", path);
  else
    rc = cfg_parse_text(c, path, text);
  free(text);
  return rc;
}

/* Parse configuration text (the embedded defaults).  Local. */
int cfg_parse_text(hy_cfg *c, const char *name, const char *text) {
  snprintf(c->file, sizeof c->file, "%s", name);
  HY_CALL(check_sections(c, name, text, NULL));
  parse_state st = { c, name, 0, HY_OK, 0, NULL, text, NULL };
  return parse_common(c, &st);
}

/* Apply "section.key=value".  Local. */
int cfg_override(hy_cfg *c, const char *arg) {
  const char *eq = strchr(arg, '=');
  const char *dot = strchr(arg, '.');
  if (!eq || !dot || dot > eq || dot == arg)
    return hy_err(HY_EUSAGE, "command line: argument '%s' is not section.key=value", arg);
  char sec[64], key[64], where[160];
  size_t ls = (size_t)(dot - arg), lk = (size_t)(eq - dot - 1);
  if (ls >= sizeof sec || lk >= sizeof key || lk == 0)
    return hy_err(HY_EUSAGE, "command line: argument '%s' is not section.key=value", arg);
  memcpy(sec, arg, ls);
  sec[ls] = '\0';
  memcpy(key, dot + 1, lk);
  key[lk] = '\0';
  snprintf(where, sizeof where, "command line '%.100s'", arg);
  return set_value(c, sec, key, eq + 1, where, -1);
}

/* Workload cross-key rules.  Local. */
int cfg_check(hy_cfg *c) {
  const char *w = cfg_str(c, "run.workload");
  const hy_workload *wl = hy_workload_find(w);
  if (!wl) {
    char names[1024] = "";
    for (int i = 0; hy_workloads[i]; i++) {
      size_t l = strlen(names);
      snprintf(names + l, sizeof names - l, "%s%s", i ? "|" : "", hy_workloads[i]->name);
    }
    return cfg_err(c, "run.workload", "= '%s' is not a workload; allowed: one of %s", w, names);
  }
  if (wl->check) HY_CALL(wl->check(c));
  return HY_OK;
}

/* Broadcast rank 0's values as "section.key=value" lines.  Collective. */
int cfg_bcast(hy_cfg *c, MPI_Comm comm) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  long long len = 0;
  char *buf = NULL;
  if (rank == 0) {
    for (int i = 0; i < c->nkeys; i++) len += (long long)strlen(c->val[i]) + 2 + 3 * sizeof(int);
    len += (long long)sizeof c->file;
    buf = malloc((size_t)len);
    if (!buf) hy_fatal(HY_ESYS, "out of memory broadcasting the configuration");
    char *p = buf;
    memcpy(p, c->file, sizeof c->file);
    p += sizeof c->file;
    for (int i = 0; i < c->nkeys; i++) {
      memcpy(p, &c->line[i], sizeof(int)); p += sizeof(int);
      memcpy(p, &c->set[i], sizeof(int)); p += sizeof(int);
      size_t l = strlen(c->val[i]) + 1;
      memcpy(p, c->val[i], l);
      p += l;
    }
    len = p - buf;
  }
  HY_MPI(MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm));
  if (rank != 0) {
    buf = malloc((size_t)len);
    if (!buf) hy_fatal(HY_ESYS, "out of memory receiving the configuration");
  }
  HY_MPI(MPI_Bcast(buf, (int)len, MPI_CHAR, 0, comm));
  if (rank != 0) {
    const char *p = buf;
    memcpy(c->file, p, sizeof c->file);
    p += sizeof c->file;
    for (int i = 0; i < c->nkeys; i++) {
      memcpy(&c->line[i], p, sizeof(int)); p += sizeof(int);
      memcpy(&c->set[i], p, sizeof(int)); p += sizeof(int);
      free(c->val[i]);
      c->val[i] = xstrdup(p);
      if (!c->val[i]) hy_fatal(HY_ESYS, "out of memory receiving the configuration");
      p += strlen(p) + 1;
    }
  }
  free(buf);
  return HY_OK;
}

static int must_find(const hy_cfg *c, const char *name) {
  int i = find_name(c, name);
  if (i < 0) hy_fatal(HY_ESYS, "internal: configuration key '%s' is not declared", name);
  return i;
}

int64_t cfg_int(const hy_cfg *c, const char *name) {
  int64_t v = 0;
  cfg_int_list(c, name, &v, 1);
  return v;
}

/* Every element of an integer (list) key.  Local. */
int cfg_int_list(const hy_cfg *c, const char *name, int64_t *out, int max) {
  const char *v = c->val[must_find(c, name)];
  int n = list_count(v);
  for (int i = 0; i < n && i < max; i++) {
    char e[4096];
    double d = 0;
    list_elem(v, i, e, sizeof e);
    parse_int(e, &d);
    out[i] = (int64_t)d;
  }
  return n;
}

double cfg_real(const hy_cfg *c, const char *name) {
  return strtod(c->val[must_find(c, name)], NULL);
}

int cfg_bool(const hy_cfg *c, const char *name) {
  int b = 0;
  parse_bool(c->val[must_find(c, name)], &b);
  return b;
}

const char *cfg_str(const hy_cfg *c, const char *name) { return c->val[must_find(c, name)]; }

int cfg_enum(const hy_cfg *c, const char *name) {
  int i = must_find(c, name);
  return enum_index(c->keys[i]->choices ? c->keys[i]->choices : "", c->val[i]);
}

int cfg_is(const hy_cfg *c, const char *name, const char *s) {
  return !strcasecmp(c->val[must_find(c, name)], s);
}

int cfg_given(const hy_cfg *c, const char *name) { return c->set[must_find(c, name)]; }

void cfg_grid(const hy_cfg *c, const char *name, int *p, int *q) {
  cfg_grid_list(c, name, p, q, 1);
}

/* Every element of a grid (list) key; auto is 0 x 0.  Local. */
int cfg_grid_list(const hy_cfg *c, const char *name, int *p, int *q, int max) {
  const char *v = c->val[must_find(c, name)];
  int n = list_count(v);
  for (int i = 0; i < n && i < max; i++) {
    char e[4096];
    p[i] = q[i] = 0;
    list_elem(v, i, e, sizeof e);
    parse_grid(e, &p[i], &q[i]);
  }
  return n;
}

const char *cfg_where(const hy_cfg *c, const char *name, char *buf, int len) {
  int i = must_find(c, name);
  if (c->line[i] > 0) snprintf(buf, (size_t)len, "%s:%d", c->file, c->line[i]);
  else if (c->line[i] < 0) snprintf(buf, (size_t)len, "command line");
  else snprintf(buf, (size_t)len, "%s: default", c->file[0] ? c->file : "configuration");
  return buf;
}

/* "FILE:LINE: key 'section.key' ..." configuration error.  Local. */
int cfg_err(const hy_cfg *c, const char *name, const char *fmt, ...) {
  char msg[2048], where[1100];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return hy_err(HY_EUSAGE, "%s: key '%s' %s", cfg_where(c, name, where, sizeof where), name, msg);
}

/* 1 when table t declares section.key.  Local. */
static int in_table(const cfg_key *t, const cfg_key *k) {
  for (; t && t->section; t++)
    if (!strcasecmp(t->section, k->section) && !strcasecmp(t->key, k->key)) return 1;
  return 0;
}

/* Keys given that neither the core nor the selected workload reads.  Keys that only the
 * embedded default configuration set (no file given: the first workload's text) are not the
 * user's: `hybrid run.workload=gauss` does not warn about spai's defaults.  Local. */
int cfg_unused(const hy_cfg *c, const cfg_key *used, int *idx, int max) {
  int n = 0;
  int embedded = !strcmp(c->file, CFG_EMBEDDED_NAME);
  for (int i = 0; i < c->nkeys; i++) {
    if (!c->set[i] || in_table(core_keys, c->keys[i]) || in_table(used, c->keys[i])) continue;
    if (embedded && c->line[i] > 0) continue;
    if (n < max) idx[n] = i;
    n++;
  }
  return n;
}

/* The declared default of a key.  Local. */
const char *cfg_default(const char *name) {
  const char *dot = strchr(name, '.');
  if (!dot) return NULL;
  size_t ls = (size_t)(dot - name);
  for (int w = -1; w < 0 || hy_workloads[w]; w++)
    for (const cfg_key *t = w < 0 ? core_keys : hy_workloads[w]->keys; t && t->section; t++)
      if (strlen(t->section) == ls && !strncasecmp(t->section, name, ls) && !strcasecmp(t->key, dot + 1))
        return t->def;
  return NULL;
}

static const char *type_name(cfg_type t) {
  switch (t) {
  case CFG_INT: return "int";
  case CFG_REAL: return "real";
  case CFG_BOOL: return "bool";
  case CFG_ENUM: return "enum";
  case CFG_GRID: return "grid";
  case CFG_INT_LIST: return "ints";
  case CFG_GRID_LIST: return "grids";
  default: return "text";
  }
}

/* --help listing of sections and keys.  Local. */
void cfg_print_help(FILE *out) {
  hy_cfg c;
  if (cfg_init(&c) != HY_OK) return;
  const char *prev = "";
  for (int i = 0; i < c.nkeys; i++) {
    const cfg_key *k = c.keys[i];
    if (strcmp(prev, k->section)) {
      fprintf(out, "\n  [%s]\n", k->section);
      prev = k->section;
    }
    char allow[256];
    allowed(k, allow, sizeof allow);
    fprintf(out, "    %-16s %-5s default '%s'; %s\n      %s\n", k->key, type_name(k->type),
            k->def ? k->def : "", allow, k->help ? k->help : "");
  }
  cfg_free(&c);
}

/* The effective configuration as JSON.  Local. */
/* One value typed: integers and reals as JSON numbers (an empty or non-finite value as
 * null), booleans as true/false, the rest as strings.  Local. */
static void write_json_value(const hy_cfg *c, int j, FILE *out) {
  const cfg_key *k = c->keys[j];
  char name[160];
  snprintf(name, sizeof name, "%s.%s", k->section, k->key);
  if ((k->type == CFG_INT || k->type == CFG_REAL || k->type == CFG_BOOL) && !c->val[j][0]) {
    fputs("null", out);
  } else if (k->type == CFG_INT) {
    fprintf(out, "%lld", (long long)cfg_int(c, name));
  } else if (k->type == CFG_REAL) {
    double v = cfg_real(c, name);
    if (isfinite(v)) fprintf(out, "%.17g", v);
    else fputs("null", out);
  } else if (k->type == CFG_BOOL) {
    fputs(cfg_bool(c, name) ? "true" : "false", out);
  } else if ((k->type == CFG_INT_LIST || k->type == CFG_GRID_LIST) && list_count(c->val[j]) > 1) {
    /* several elements: a JSON array (integers as numbers, grids as strings); one element
     * is written as the single-valued type is */
    int n = list_count(c->val[j]);
    fputc('[', out);
    for (int i = 0; i < n; i++) {
      char e[4096];
      list_elem(c->val[j], i, e, sizeof e);
      double d = 0;
      if (k->type == CFG_INT_LIST && parse_int(e, &d)) fprintf(out, "%s%lld", i ? ", " : "", (long long)d);
      else {
        fprintf(out, "%s\"", i ? ", " : "");
        hy_json_escape(out, e);
        fputc('"', out);
      }
    }
    fputc(']', out);
  } else if (k->type == CFG_INT_LIST) {
    fprintf(out, "%lld", (long long)cfg_int(c, name));
  } else {
    fputc('"', out);
    hy_json_escape(out, c->val[j]);
    fputc('"', out);
  }
}

void cfg_write_json(const hy_cfg *c, FILE *out, int indent) {
  fprintf(out, "{");
  const char *prev = NULL;
  int first_sec = 1;
  /* keys are grouped by table order; emit sections in first-seen order */
  for (int i = 0; i < c->nkeys; i++) {
    const char *sec = c->keys[i]->section;
    int seen = 0;
    for (int j = 0; j < i; j++)
      if (!strcasecmp(c->keys[j]->section, sec)) seen = 1;
    if (seen) continue;
    fprintf(out, "%s\n%*s\"%s\": {", first_sec ? "" : ",", indent + 2, "", sec);
    first_sec = 0;
    int first = 1;
    for (int j = i; j < c->nkeys; j++) {
      if (strcasecmp(c->keys[j]->section, sec)) continue;
      fprintf(out, "%s\"%s\": ", first ? "" : ", ", c->keys[j]->key);
      write_json_value(c, j, out);
      first = 0;
    }
    fprintf(out, "}");
    prev = sec;
  }
  (void)prev;
  fprintf(out, "\n%*s}", indent, "");
}
