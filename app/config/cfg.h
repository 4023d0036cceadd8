/* cfg.h - the run configuration: an INI file (libinih) plus section.key=value overrides,
 * checked against a table of known keys, parsed on rank 0 and broadcast.
 *
 * Every key is declared once in a cfg_key table (the core's [run], [output], [debug] and
 * each workload's own).  Values are kept as validated strings with the file and line they
 * came from; typed getters read them.  Unknown sections and keys, bad values and values
 * out of range are configuration errors (HY_EUSAGE) whose message names FILE:LINE, the key
 * and what is allowed. */
#ifndef HY_CFG_H
#define HY_CFG_H

#include <stdint.h>
#include <stdio.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CFG_INT,    /* integer in [min, max]; accepts 1e6-style and k/M/G suffixes */
  CFG_REAL,   /* real in [min, max] */
  CFG_BOOL,   /* true/false, yes/no, on/off, 1/0 */
  CFG_ENUM,   /* one of choices, "a|b|c" */
  CFG_STR,    /* any text (paths, names) */
  CFG_GRID,   /* "auto" or "PxQ" */
  CFG_INT_LIST,   /* "a, b, c": 1..CFG_LIST_MAX integers, each as CFG_INT in [min, max] */
  CFG_GRID_LIST   /* "1x2, 2x1, auto": 1..CFG_LIST_MAX grids, each as CFG_GRID */
} cfg_type;

/* Most elements of a list-valued key (CFG_INT_LIST, CFG_GRID_LIST).  An element that fails
 * its check is named in the error by number and text ("element 2 ('0') is out of range"). */
#define CFG_LIST_MAX 64

typedef struct {
  const char *section;
  const char *key;
  cfg_type type;
  const char *def;       /* default as text ("" for none) */
  double min, max;       /* CFG_INT / CFG_REAL bounds */
  const char *choices;   /* CFG_ENUM: "a|b|c" */
  const char *help;      /* one line for --help */
} cfg_key;

/* Longest text value (CFG_STR) accepted, in bytes: the options' path buffers hold 1024 bytes;
 * a longer value is a configuration error naming the key and this limit, never truncated. */
#define CFG_STR_MAX 1023

/* A key table ends with an entry whose section is NULL. */
#define CFG_END { NULL, NULL, CFG_STR, NULL, 0, 0, NULL, NULL }

/* The registry's size is not fixed: cfg_init counts the keys of the core and of every
 * workload and allocates the arrays below (up to CFG_MAX_KEYS, a sanity bound only; more is a
 * clear error naming the count). */
/* The name cfg_parse_text is given for the embedded default configuration. */
#define CFG_EMBEDDED_NAME "(embedded default)"

#define CFG_MAX_KEYS 100000

typedef struct {
  int nkeys;
  const cfg_key **keys;   /* every known key (nkeys) */
  char **val;             /* its value (default if never set) */
  int *line;              /* line in the file, 0 default, -1 command line */
  int *set;               /* 1 when given in the file or on the command line */
  char file[1024];        /* the config file ("" for the embedded default) */
} hy_cfg;

/* Make an empty configuration knowing every key of the core and of every workload, each at
 * its default.  Local. */
int cfg_init(hy_cfg *c);
void cfg_free(hy_cfg *c);

/* Parse an INI file (or, when path is NULL, the text given) over the defaults.  Errors name
 * FILE:LINE.  Local (rank 0). */
int cfg_parse_file(hy_cfg *c, const char *path);
int cfg_parse_text(hy_cfg *c, const char *name, const char *text);

/* Resolve a configuration file name: as given when it has a '/' or exists here, else in
 * $HYBRID_DATADIR, then the install's share/hybrid/config (cfg_path.c).  Local. */
int cfg_find_file(const char *name, char *out, size_t n);

/* Apply one "section.key=value" override.  Local (rank 0). */
int cfg_override(hy_cfg *c, const char *arg);

/* Check the workload's cross-key rules (required keys, combinations).  Local (rank 0). */
int cfg_check(hy_cfg *c);

/* Send rank 0's configuration to every rank of comm.  Collective. */
int cfg_bcast(hy_cfg *c, MPI_Comm comm);

/* Typed getters by "section.key".  Asking for an undeclared key is a programming error
 * (hy_fatal).  Local. */
int64_t cfg_int(const hy_cfg *c, const char *name);
double cfg_real(const hy_cfg *c, const char *name);
int cfg_bool(const hy_cfg *c, const char *name);
const char *cfg_str(const hy_cfg *c, const char *name);
/* Index of the value among the key's choices. */
int cfg_enum(const hy_cfg *c, const char *name);
/* 1 when the value equals s (for enums and strings). */
int cfg_is(const hy_cfg *c, const char *name, const char *s);
/* 1 when the key was set in the file or on the command line. */
int cfg_given(const hy_cfg *c, const char *name);
/* CFG_GRID: 0 and 0 for auto. */
void cfg_grid(const hy_cfg *c, const char *name, int *p, int *q);
/* List-valued keys: cfg_int (CFG_INT_LIST) and cfg_grid (CFG_GRID_LIST) read the first
 * element; these read them all, in order, into out / p, q (at most max) and return how many
 * the value holds (1..CFG_LIST_MAX). */
int cfg_int_list(const hy_cfg *c, const char *name, int64_t *out, int max);
int cfg_grid_list(const hy_cfg *c, const char *name, int *p, int *q, int max);
/* "FILE:LINE" (or "command line" / "default") where the key's value came from. */
const char *cfg_where(const hy_cfg *c, const char *name, char *buf, int len);

/* A configuration error about a key: "FILE:LINE: key 'section.key' msg" (HY_EUSAGE).  For
 * workloads' cfg checks.  Local. */
int cfg_err(const hy_cfg *c, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Keys set in the file or on the command line that neither the core's table nor `used` (the
 * selected workload's key table) declares: nobody reads them.  Their indices into c->keys go
 * to idx (at most max); returns how many there are.  Local. */
int cfg_unused(const hy_cfg *c, const cfg_key *used, int *idx, int max);

/* The declared default of "section.key" (core or any workload), or NULL.  Local. */
const char *cfg_default(const char *name);

/* Print every section and key with type, default and help (for --help).  Local. */
void cfg_print_help(FILE *out);

/* Write the effective configuration as a JSON object {"section": {"key": "value"}} (the
 * record's "config").  Local. */
void cfg_write_json(const hy_cfg *c, FILE *out, int indent);

#ifdef __cplusplus
}
#endif
#endif
