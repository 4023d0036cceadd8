/* shape_fixture/app/demo/demo.c - planted violations of tests/tools/shape.sh (and
 * look-alikes that must pass).  Not compiled.  EXPECTED lists what shape.sh must report. */
#include "workload.h"

static const cfg_key demo_keys[] = {
  { "demo", "k0", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k1", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k2", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k3", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k4", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k5", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k6", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k7", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k8", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k9", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k10", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k11", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k12", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k13", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k14", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k15", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k16", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k17", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k18", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k19", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k20", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k21", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k22", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k23", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k24", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k25", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k26", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k27", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k28", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k29", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k30", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k31", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k32", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k33", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k34", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k35", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k36", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k37", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k38", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k39", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k40", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k41", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k42", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k43", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k44", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k45", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k46", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k47", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k48", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k49", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k50", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k51", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k52", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k53", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k54", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k55", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k56", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k57", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k58", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k59", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k60", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k61", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k62", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k63", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k64", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k65", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k66", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k67", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k68", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k69", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k70", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k71", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k72", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k73", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k74", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k75", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k76", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k77", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k78", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k79", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k80", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k81", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k82", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k83", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k84", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k85", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k86", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k87", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k88", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k89", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k90", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k91", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k92", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k93", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k94", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k95", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k96", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k97", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k98", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k99", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k100", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k101", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k102", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k103", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k104", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k105", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k106", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k107", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k108", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k109", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k110", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k111", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k112", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k113", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k114", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k115", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k116", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k117", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k118", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k119", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k120", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k121", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k122", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k123", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k124", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k125", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k126", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k127", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k128", CFG_INT, "1", 0, 9, NULL, "a key" },
  { "demo", "k129", CFG_INT, "1", 0, 9, NULL, "a key" },
  CFG_END
};

/* 121 lines: too long */
static int demo_long(int x)
{
  x += 0;
  x += 1;
  x += 2;
  x += 3;
  x += 4;
  x += 5;
  x += 6;
  x += 7;
  x += 8;
  x += 9;
  x += 10;
  x += 11;
  x += 12;
  x += 13;
  x += 14;
  x += 15;
  x += 16;
  x += 17;
  x += 18;
  x += 19;
  x += 20;
  x += 21;
  x += 22;
  x += 23;
  x += 24;
  x += 25;
  x += 26;
  x += 27;
  x += 28;
  x += 29;
  x += 30;
  x += 31;
  x += 32;
  x += 33;
  x += 34;
  x += 35;
  x += 36;
  x += 37;
  x += 38;
  x += 39;
  x += 40;
  x += 41;
  x += 42;
  x += 43;
  x += 44;
  x += 45;
  x += 46;
  x += 47;
  x += 48;
  x += 49;
  x += 50;
  x += 51;
  x += 52;
  x += 53;
  x += 54;
  x += 55;
  x += 56;
  x += 57;
  x += 58;
  x += 59;
  x += 60;
  x += 61;
  x += 62;
  x += 63;
  x += 64;
  x += 65;
  x += 66;
  x += 67;
  x += 68;
  x += 69;
  x += 70;
  x += 71;
  x += 72;
  x += 73;
  x += 74;
  x += 75;
  x += 76;
  x += 77;
  x += 78;
  x += 79;
  x += 80;
  x += 81;
  x += 82;
  x += 83;
  x += 84;
  x += 85;
  x += 86;
  x += 87;
  x += 88;
  x += 89;
  x += 90;
  x += 91;
  x += 92;
  x += 93;
  x += 94;
  x += 95;
  x += 96;
  x += 97;
  x += 98;
  x += 99;
  x += 100;
  x += 101;
  x += 102;
  x += 103;
  x += 104;
  x += 105;
  x += 106;
  x += 107;
  x += 108;
  x += 109;
  x += 110;
  x += 111;
  x += 112;
  x += 113;
  x += 114;
  x += 115;
  x += 116;
  return x;
}

/* 120 lines: allowed */
static int demo_ok_120(int x) {
  x += 0;
  x += 1;
  x += 2;
  x += 3;
  x += 4;
  x += 5;
  x += 6;
  x += 7;
  x += 8;
  x += 9;
  x += 10;
  x += 11;
  x += 12;
  x += 13;
  x += 14;
  x += 15;
  x += 16;
  x += 17;
  x += 18;
  x += 19;
  x += 20;
  x += 21;
  x += 22;
  x += 23;
  x += 24;
  x += 25;
  x += 26;
  x += 27;
  x += 28;
  x += 29;
  x += 30;
  x += 31;
  x += 32;
  x += 33;
  x += 34;
  x += 35;
  x += 36;
  x += 37;
  x += 38;
  x += 39;
  x += 40;
  x += 41;
  x += 42;
  x += 43;
  x += 44;
  x += 45;
  x += 46;
  x += 47;
  x += 48;
  x += 49;
  x += 50;
  x += 51;
  x += 52;
  x += 53;
  x += 54;
  x += 55;
  x += 56;
  x += 57;
  x += 58;
  x += 59;
  x += 60;
  x += 61;
  x += 62;
  x += 63;
  x += 64;
  x += 65;
  x += 66;
  x += 67;
  x += 68;
  x += 69;
  x += 70;
  x += 71;
  x += 72;
  x += 73;
  x += 74;
  x += 75;
  x += 76;
  x += 77;
  x += 78;
  x += 79;
  x += 80;
  x += 81;
  x += 82;
  x += 83;
  x += 84;
  x += 85;
  x += 86;
  x += 87;
  x += 88;
  x += 89;
  x += 90;
  x += 91;
  x += 92;
  x += 93;
  x += 94;
  x += 95;
  x += 96;
  x += 97;
  x += 98;
  x += 99;
  x += 100;
  x += 101;
  x += 102;
  x += 103;
  x += 104;
  x += 105;
  x += 106;
  x += 107;
  x += 108;
  x += 109;
  x += 110;
  x += 111;
  x += 112;
  x += 113;
  x += 114;
  x += 115;
  x += 116;
  return x;
}

/* reads its keys once: allowed */
void demo_opts_from_cfg(const hy_cfg *c, int *n) {
  *n = (int)cfg_int(c, "demo.k0");
}

/* the workload's rank-0 cross-key check: allowed */
static int demo_check(hy_cfg *c) {
  return cfg_is(c, "demo.k1", "1") ? HY_OK : cfg_err(c, "demo.k1", "must be 1");
}

/* a driver reading a key by name, testing the backend, reading the environment */
static int demo_run(hy_ctx *ctx) {
  int64_t n = cfg_int(ctx->cfg, "demo.k2");
  const char *s = "cfg_int(ctx->cfg, in a string) and getenv(\"HYBRID_IN_STRING\")";
  /* getenv("HYBRID_IN_COMMENT") and cfg_real( in a comment */
  if (ctx->be.kind == K_CUDA) n++;
  const char *e = getenv("HYBRID_DEMO_KNOB");
  const char *m = getenv("HYBRID_IO_MEM_LIMIT");
  return n > 0 && s && e && m ? HY_OK : HY_EUSAGE;
}
