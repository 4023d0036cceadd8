/* gen.c - Poisson and upwind convection-diffusion generators, row by row. */
#include "gen/gen.h"
#include "hybrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char gen_choices[] = "poisson2d|poisson3d|convdiff2d|convdiff3d|convdiff3d27";
static const char *gen_names[] = { "poisson2d", "poisson3d", "convdiff2d", "convdiff3d",
                                   "convdiff3d27" };

/* Name -> kind; HY_EUSAGE for an unknown name.  Local. */
int gen_kind_from_name(const char *name, gen_kind *kind) {
  for (int i = 0; i < 5; i++)
    if (!strcmp(name, gen_names[i])) { *kind = (gen_kind)i; return HY_OK; }
  return hy_err(HY_EUSAGE, "unknown generator '%s' (allowed: %s)", name, gen_choices);
}

/* Grid for about rows rows.  Local. */
void gen_grid(gen_kind kind, int64_t rows, int64_t *side, int *dim, int64_t *n) {
  int d = (kind == GEN_POISSON2D || kind == GEN_CONVDIFF2D) ? 2 : 3;
  int64_t s = (int64_t)floor(pow((double)rows, 1.0 / d) + 1e-9);
  while (s > 1 && (d == 2 ? s * s : s * s * s) > rows) s--;
  while ((d == 2 ? (s + 1) * (s + 1) : (s + 1) * (s + 1) * (s + 1)) <= rows) s++;
  if (s < 2) s = 2;
  *side = s;
  *dim = d;
  *n = d == 2 ? s * s : s * s * s;
}

/* Velocity direction factors of the convection term per dimension (mixed signs, so that
 * upwinding picks different neighbours in different directions). */
static const double vel[3] = { 1.0, -0.7, 0.4 };

/* Rows [r0, r1) as local CSR with global columns.  Local. */
int gen_rows(gen_kind kind, int64_t side, int dim, double peclet, int64_t r0, int64_t r1,
             hy_csr *out) {
  memset(out, 0, sizeof *out);
  int64_t n = dim == 2 ? side * side : side * side * side;
  if (r0 < 0 || r1 > n || r0 > r1) return hy_err(HY_ESYS, "gen_rows: bad row range");
  int wide = kind == GEN_CONVDIFF3D27;
  int per = wide ? 27 : 2 * dim + 1;
  int conv = kind == GEN_CONVDIFF2D || kind == GEN_CONVDIFF3D || kind == GEN_CONVDIFF3D27;
  int64_t m = r1 - r0;
  out->m = m;
  out->n = n;
  HY_MALLOC(out->rowptr, m + 1);
  HY_MALLOC(out->colind, m * per);
  HY_MALLOC(out->val, m * per);
  int64_t nz = 0;
  out->rowptr[0] = 0;
  int64_t sx = 1, sy = side, sz = side * side;
  for (int64_t r = r0; r < r1; r++) {
    int64_t c[3] = { r % side, (r / side) % side, dim == 3 ? r / sz : 0 };
    /* the row's entries in increasing column order: offsets dz, dy, dx in -1..1 */
    double diag = 0;
    int64_t dpos = -1;
    for (int dz = (dim == 3 ? -1 : 0); dz <= (dim == 3 ? 1 : 0); dz++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          int nzero = (dx != 0) + (dy != 0) + (dz != 0);
          if (!wide && nzero > 1) continue;
          if (nzero == 0) {
            dpos = nz;
            out->colind[nz] = (int32_t)r;
            out->val[nz++] = 0; /* filled below */
            continue;
          }
          int64_t q[3] = { c[0] + dx, c[1] + dy, c[2] + dz };
          int inside = 1;
          for (int d = 0; d < dim; d++)
            if (q[d] < 0 || q[d] >= side) inside = 0;
          /* diffusion: -1 per neighbour; the diagonal counts every neighbour, also those
           * outside (Dirichlet boundary), so rows stay diagonally dominant */
          double v = -1.0;
          diag += 1.0;
          if (conv && nzero == 1) {
            /* first-order upwind for w . grad u with w = peclet * vel (scaled by h) */
            int d = dx ? 0 : (dy ? 1 : 2);
            int off = dx ? dx : (dy ? dy : dz);
            double w = peclet * vel[d];
            if ((w > 0 && off < 0) || (w < 0 && off > 0)) {
              v -= fabs(w);
              diag += fabs(w);
            }
          }
          if (!inside) continue;
          out->colind[nz] = (int32_t)(r + dx * sx + dy * sy + dz * sz);
          out->val[nz++] = v;
        }
    out->val[dpos] = diag;
    out->rowptr[r - r0 + 1] = nz;
  }
  out->nnz = nz;
  return HY_OK;
}
