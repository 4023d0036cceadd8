/* shape_fixture/app/config/cfg.c - the configuration itself may read keys anywhere. */
int64_t cfg_int(const hy_cfg *c, const char *name) { return 0; }
static int use(const hy_cfg *c) { return (int)cfg_int(c, "run.seed"); }
