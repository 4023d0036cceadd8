/* shape_fixture/app/runtime/rt.c - the runtime opens the backend: it may name its kind. */
int rt_open(hy_ctx *ctx) { return k_backend_open(&ctx->be, K_HOST, -1) || ctx->be.kind != K_HOST; }
