/* test_cfg.c - unit test of the configuration parser (app/config/cfg.c) on one rank: defaults,
 * a good file with a value of every type, overrides, the JSON of the effective configuration,
 * and bad text / overrides whose messages must name FILE:LINE (or the command line), the key
 * and what is allowed.  Linked with tests/config/cfgtest.c (a key of every type).
 * Prints one line per check; exit 0 when all pass, 1 otherwise. */
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails, checks;

/* Count one check and print it.  Local. */
static void ok(int cond, const char *what) {
  checks++;
  if (!cond) fails++;
  printf("%-4s %s\n", cond ? "ok" : "FAIL", what);
}

/* Parse text (or apply override when text is NULL) on fresh defaults; expect exit code 1 and
 * a message containing frag.  Local. */
static void bad(const char *text, const char *override, const char *frag) {
  hy_cfg c;
  hy_err_clear();
  if (cfg_init(&c) != HY_OK) { ok(0, "cfg_init"); return; }
  int rc = text ? cfg_parse_text(&c, "bad.ini", text) : cfg_override(&c, override);
  if (rc == HY_OK) rc = cfg_check(&c);
  char what[1024];
  int good = rc == HY_EUSAGE && strstr(hy_err_msg(), frag) != NULL;
  snprintf(what, sizeof what, "bad %s -> rc %d '%s' (want 1 and '%s')", text ? "text" : override,
           rc, hy_err_msg(), frag);
  ok(good, what);
  cfg_free(&c);
}

static const char good_text[] =
  "; a comment\n"                         /* 1 */
  "# another comment\n"                   /* 2 */
  "[run]\n"                               /* 3 */
  "workload = cfgtest   ; inline note\n"  /* 4 */
  "seed = 1k\n"                           /* 5 */
  "\n"                                    /* 6 */
  "[cfgtest]\n"                           /* 7 */
  "count = 1e2\n"                         /* 8 */
  "ratio = 2.5e-1\n"                      /* 9 */
  "flag = YES\n"                          /* 10 */
  "mode = Beta\n"                         /* 11 */
  "label = \"quoted \\\"text\\\"\"\n"     /* 12 */
  "grid = 2X3\n"                          /* 13 */
  "[ output ]\n"                          /* 14 */
  "record = off\n";                       /* 15 */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hy_cfg c;
  char buf[1200];

  /* defaults */
  ok(cfg_init(&c) == HY_OK, "cfg_init");
  ok(cfg_int(&c, "selftest.n") == 1000000 && cfg_int(&c, "run.seed") == 42, "integer defaults");
  ok(!strcmp(cfg_str(&c, "run.workload"), "selftest") && cfg_is(&c, "run.backend", "auto"),
     "text and enum defaults");
  ok(cfg_real(&c, "cfgtest.ratio") == 0.5 && !cfg_bool(&c, "cfgtest.flag") &&
     cfg_bool(&c, "output.record"), "real and boolean defaults");
  int p = -1, q = -1;
  cfg_grid(&c, "cfgtest.grid", &p, &q);
  ok(p == 0 && q == 0, "grid default auto -> 0x0");
  ok(!cfg_given(&c, "selftest.n") && !strcmp(cfg_where(&c, "selftest.n", buf, sizeof buf),
                                              "configuration: default"), "default: not given");
  cfg_free(&c);

  /* a good file with every type */
  cfg_init(&c);
  hy_err_clear();
  int rc = cfg_parse_text(&c, "good.ini", good_text);
  ok(rc == HY_OK, rc == HY_OK ? "good text parses" : hy_err_msg());
  ok(cfg_check(&c) == HY_OK, "good text passes cfg_check");
  ok(!strcmp(c.file, "good.ini"), "file name kept");
  ok(!strcmp(cfg_str(&c, "run.workload"), "cfgtest"), "inline comment stripped");
  ok(cfg_int(&c, "run.seed") == 1000, "1k = 1000");
  ok(cfg_int(&c, "cfgtest.count") == 100, "1e2 = 100");
  ok(cfg_real(&c, "cfgtest.ratio") == 0.25, "real 2.5e-1");
  ok(cfg_bool(&c, "cfgtest.flag") == 1 && cfg_bool(&c, "output.record") == 0, "YES / off");
  ok(!strcmp(cfg_str(&c, "cfgtest.mode"), "beta") && cfg_enum(&c, "cfgtest.mode") == 1,
     "enum 'Beta' kept as declared 'beta', index 1");
  ok(!strcmp(cfg_str(&c, "cfgtest.label"), "quoted \\\"text\\\""), "outer quotes stripped");
  cfg_grid(&c, "cfgtest.grid", &p, &q);
  ok(p == 2 && q == 3, "grid 2X3");
  ok(cfg_given(&c, "cfgtest.grid") && !cfg_given(&c, "cfgtest.expect"), "cfg_given");
  ok(!strcmp(cfg_where(&c, "cfgtest.ratio", buf, sizeof buf), "good.ini:9"), "where ratio = good.ini:9");
  ok(!strcmp(cfg_where(&c, "output.record", buf, sizeof buf), "good.ini:15"), "where record (spaced header)");

  /* overrides */
  hy_err_clear();
  ok(cfg_override(&c, "cfgtest.count=7") == HY_OK && cfg_int(&c, "cfgtest.count") == 7,
     "override count=7 over the file");
  ok(!strcmp(cfg_where(&c, "cfgtest.count", buf, sizeof buf), "command line"), "where: command line");
  ok(cfg_override(&c, "cfgtest.count=9") == HY_OK && cfg_int(&c, "cfgtest.count") == 9,
     "a second override of the same key wins (no duplicate error)");
  ok(cfg_override(&c, "run.backend=HOST") == HY_OK && !strcmp(cfg_str(&c, "run.backend"), "host"),
     "override enum HOST -> host");
  ok(cfg_override(&c, "cfgtest.label=a=b") == HY_OK && !strcmp(cfg_str(&c, "cfgtest.label"), "a=b"),
     "override value may contain '='");
  ok(cfg_override(&c, "cfgtest.ratio=1") == HY_OK && cfg_real(&c, "cfgtest.ratio") == 1.0,
     "real at its upper bound");

  /* the record's config object */
  char *js = NULL;
  size_t jl = 0;
  FILE *m = open_memstream(&js, &jl);
  cfg_write_json(&c, m, 2);
  fclose(m);
  ok(js && strstr(js, "\"count\": 9,") && strstr(js, "\"label\": \"a=b\"") &&
     strstr(js, "\"cfgtest\": {") && strstr(js, "\"selftest\": {"), "cfg_write_json has the values");
  /* typed: integers and reals as JSON numbers, booleans as booleans, text as strings */
  ok(js && strstr(js, "\"ratio\": 1,") && strstr(js, "\"record\": false") &&
     strstr(js, "\"flag\": true") && strstr(js, "\"seed\": 1000,") &&
     strstr(js, "\"backend\": \"host\"") && strstr(js, "\"grid\": \"2X3\""),
     "cfg_write_json: numbers as numbers, booleans as booleans");
  free(js);
  cfg_override(&c, "cfgtest.label=q\"b\\s\tt");
  js = NULL;
  m = open_memstream(&js, &jl);
  cfg_write_json(&c, m, 0);
  fclose(m);
  ok(js && strstr(js, "\"label\": \"q\\\"b\\\\s\\tt\""), "cfg_write_json escapes quote, backslash, tab");
  free(js);
  cfg_free(&c);

  /* bad text: FILE:LINE, key, what is allowed */
  bad("[cfgtest]\nratio = nan\n", NULL, "bad.ini:2: key 'cfgtest.ratio' = 'nan' is not a finite number");
  bad("[cfgtest]\nratio = inf\n", NULL, "'inf' is not a finite number");
  bad("[cfgtest]\nratio = 1e999\n", NULL, "'1e999' is not a finite number");
  bad("[cfgtest]\nratio = 0.5x\n", NULL, "'0.5x' is not a finite number; allowed: a number in [0, 1]");
  bad("[cfgtest]\nratio =\n", NULL, "bad.ini:2: key 'cfgtest.ratio' = '' is not a finite number");
  bad("[cfgtest]\nratio = 1.0000001\n", NULL, "is out of range; allowed: a number in [0, 1]");
  bad("[cfgtest]\nratio = -1e-300\n", NULL, "'-1e-300' is out of range");
  bad("[cfgtest]\n\ngrid = 3y4\n", NULL, "bad.ini:3: key 'cfgtest.grid' = '3y4' is not a process grid; allowed: auto or PxQ");
  bad("[cfgtest]\ngrid = 0x4\n", NULL, "'0x4' is not a process grid");
  bad("[cfgtest]\ngrid = 3x\n", NULL, "'3x' is not a process grid");
  bad("[cfgtest]\ngrid = 2x3x4\n", NULL, "'2x3x4' is not a process grid");
  bad("[cfgtest]\ngrid = -2x-3\n", NULL, "'-2x-3' is not a process grid");
  bad("[cfgtest]\nflag = 2\n", NULL, "'2' is not a boolean; allowed: true or false");
  bad("[cfgtest]\nmode = delta\n", NULL, "'delta' is not allowed; allowed: one of alpha|beta|gamma");
  bad("[cfgtest]\nmode = alph\n", NULL, "'alph' is not allowed");
  bad("[cfgtest]\ncount = 1001\n", NULL, "'1001' is out of range; allowed: an integer in [1, 1000]");
  bad("[cfgtest]\ncount = 1.5\n", NULL, "'1.5' is not an integer");
  bad("[cfgtest]\ncount = 1e400\n", NULL, "'1e400' is not an integer");
  bad("[cfgtest]\ncount = 5Q\n", NULL, "'5Q' is not an integer");
  bad("[cfgtest]\ncount = 2k\n", NULL, "'2k' is out of range");
  bad("[cfgtest]\ncount = 1\nCount = 2\n", NULL, "bad.ini:3: key 'cfgtest.Count' is given twice (first at line 2)");
  bad("[cfgtest\ncount = 1\n", NULL, "bad.ini:1: syntax error");
  bad("[cfgtest]\ncount 1\n", NULL, "bad.ini:2: syntax error");
  bad("count = 1\n", NULL, "bad.ini:1: key 'count' is outside any section");
  bad("[cfgtest]\n  count = 1\n  mode = beta\n", NULL, "bad.ini:3: indented line read as a continuation of key 'cfgtest.count'");
  bad("[cfgtest]\nnope = 1\n", NULL, "allowed keys: count, ratio, flag, mode, label, grid, expect");
  bad("[cfg test]\n", NULL, "bad.ini:1: unknown section [cfg test]; allowed sections: [run], [output], [debug], [selftest], [cfgtest]");
  bad("[run]\nworkload = cfgtest\n[cfgtest]\nmode = gamma\n", NULL, "bad.ini:4: key 'cfgtest.mode' = gamma needs [cfgtest] label");
  bad("[run]\nworkload = nosuch\n", NULL, "bad.ini:2: key 'run.workload' = 'nosuch' is not a workload; allowed: one of selftest|cfgtest");
  {
    char longline[400];
    snprintf(longline, sizeof longline, "[cfgtest]\nlabel = %0220d\n", 0);
    bad(longline, NULL, "bad.ini:2: line longer than 198 characters");
  }

  /* bad overrides */
  bad(NULL, "cfgtest.ratio=nan", "command line 'cfgtest.ratio=nan': key 'cfgtest.ratio' = 'nan' is not a finite number");
  bad(NULL, "cfgtest.grid=3y4", "command line 'cfgtest.grid=3y4': key 'cfgtest.grid' = '3y4' is not a process grid");
  bad(NULL, "cfgtestcount=1", "command line: argument 'cfgtestcount=1' is not section.key=value");
  bad(NULL, "cfgtest.=1", "is not section.key=value");
  bad(NULL, ".count=1", "is not section.key=value");
  bad(NULL, "nosuch.key=1", "command line 'nosuch.key=1': unknown section [nosuch]");
  bad(NULL, "cfgtest.nokey=1", "key 'nokey' is not known in section [cfgtest]; allowed keys: count,");
  bad(NULL, "cfgtest.count=0", "command line 'cfgtest.count=0': key 'cfgtest.count' = '0' is out of range");
  bad(NULL, "run.workload=nosuch", "command line: key 'run.workload' = 'nosuch' is not a workload");

  /* list-valued keys: every element read back in order, blanks trimmed; the first for
   * cfg_int / cfg_grid; JSON: one element as the single type, several as an array */
  cfg_init(&c);
  hy_err_clear();
  rc = cfg_parse_text(&c, "list.ini", "[cfgtest]\nsizes = 16, 1k ,1000\ngrids = 1x2, auto,3X1\n");
  ok(rc == HY_OK, rc == HY_OK ? "lists parse" : hy_err_msg());
  {
    int64_t v[4] = { 0 };
    int gp[4] = { -1, -1, -1, -1 }, gq[4] = { -1, -1, -1, -1 };
    int nv = cfg_int_list(&c, "cfgtest.sizes", v, 4), ng = cfg_grid_list(&c, "cfgtest.grids", gp, gq, 4);
    ok(nv == 3 && v[0] == 16 && v[1] == 1000 && v[2] == 1000, "int list 16, 1k ,1000 -> 16 1000 1000");
    ok(ng == 3 && gp[0] == 1 && gq[0] == 2 && gp[1] == 0 && gq[1] == 0 && gp[2] == 3 && gq[2] == 1,
       "grid list 1x2, auto,3X1 -> 1x2 0x0 3x1");
    ok(cfg_int(&c, "cfgtest.sizes") == 16, "cfg_int of a list: the first element");
    ok(cfg_int_list(&c, "cfgtest.sizes", v, 1) == 3 && v[1] == 1000, "max caps what is written, not the count");
    cfg_grid(&c, "cfgtest.grids", &p, &q);
    ok(p == 1 && q == 2, "cfg_grid of a list: the first element");
    js = NULL;
    m = open_memstream(&js, &jl);
    cfg_write_json(&c, m, 0);
    fclose(m);
    ok(js && strstr(js, "\"sizes\": [16, 1000, 1000]") && strstr(js, "\"grids\": [\"1x2\", \"auto\", \"3X1\"]"),
       "cfg_write_json: lists as arrays");
    free(js);
    ok(cfg_override(&c, "cfgtest.sizes=7") == HY_OK && cfg_int_list(&c, "cfgtest.sizes", v, 4) == 1 &&
       v[0] == 7, "a one-element list");
    js = NULL;
    m = open_memstream(&js, &jl);
    cfg_write_json(&c, m, 0);
    fclose(m);
    ok(js && strstr(js, "\"sizes\": 7,"), "cfg_write_json: a one-element list as a number");
    free(js);
  }
  cfg_free(&c);
  bad("[cfgtest]\nsizes = 16, 0, 8\n", NULL,
      "bad.ini:2: key 'cfgtest.sizes' = '16, 0, 8': element 2 ('0') is out of range; allowed: 1 to 64 "
      "comma-separated integers, each in [1, 1000]");
  bad("[cfgtest]\nsizes = 16, 2x\n", NULL, "element 2 ('2x') is not an integer");
  bad("[cfgtest]\nsizes = 16,,8\n", NULL, "key 'cfgtest.sizes' = '16,,8': element 2 is empty");
  bad("[cfgtest]\nsizes = 16,\n", NULL, "element 2 is empty");
  bad("[cfgtest]\nsizes = 1001\n", NULL, "element 1 ('1001') is out of range");
  bad(NULL, "cfgtest.grids=1x2,0x1", "command line 'cfgtest.grids=1x2,0x1': key 'cfgtest.grids' = "
      "'1x2,0x1': element 2 ('0x1') is not a process grid; allowed: 1 to 64 comma-separated grids");
  bad(NULL, "cfgtest.count=1,2", "key 'cfgtest.count' = '1,2' is not an integer");
  {
    char many[400] = "cfgtest.sizes=1";
    for (int i = 1; i < 65; i++) strcat(many, ",1");
    bad(NULL, many, "key 'cfgtest.sizes' holds 65 elements; allowed: 1 to 64");
  }

  printf("%d of %d checks passed\n", checks - fails, checks);
  MPI_Finalize();
  return fails ? 1 : 0;
}
