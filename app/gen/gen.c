/* gen.c - Poisson and upwind convection-diffusion generators, row by row, from one table of
 * stencils (filled by field name). */
#include "gen/gen.h"
#include "hybrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Diffusion weights of a stencil (the off-diagonal entry at an offset, before convection; 0:
 * the offset is not in the stencil).  Local. */
typedef double (*gen_weight_fn)(int dx, int dy, int dz);

/* The 5- or 7-point Laplacian: -1 at the 2 dim axis neighbours. */
static double gen_w_axis(int dx, int dy, int dz) {
  return abs(dx) + abs(dy) + abs(dz) == 1 ? -1.0 : 0.0;
}

/* The 27-point box: -1 at every neighbour of the 3x3x3 cube. */
static double gen_w_box(int dx, int dy, int dz) {
  return (dx || dy || dz) ? -1.0 : 0.0;
}

/* The 13-point diamond |dx| + |dy| <= 2: -1 at distance 1, -1/2 at the diagonal (+-1, +-1),
 * -1/4 at distance 2 on the axes (second moment 6 in x and in y: 3 h^2 times -Laplacian). */
static double gen_w_diamond(int dx, int dy, int dz) {
  (void)dz;
  int ax = abs(dx), ay = abs(dy);
  if (ax + ay == 1) return -1.0;
  if (ax == 1 && ay == 1) return -0.5;
  if (ax + ay == 2) return -0.25;
  return 0.0;
}

typedef struct {
  const char *name;
  int dim;              /* 2 or 3 */
  int radius;           /* offsets in [-radius, radius] per dimension */
  int per;              /* entries of an interior row */
  int conv;             /* upwind convection on the axis neighbours at distance 1 */
  gen_weight_fn weight; /* diffusion weights */
} gen_stencil;

/* Indexed by gen_kind. */
static const gen_stencil gen_table[] = {
  [GEN_POISSON2D] = { .name = "poisson2d", .dim = 2, .radius = 1, .per = 5, .conv = 0, .weight = gen_w_axis },
  [GEN_POISSON3D] = { .name = "poisson3d", .dim = 3, .radius = 1, .per = 7, .conv = 0, .weight = gen_w_axis },
  [GEN_CONVDIFF2D] = { .name = "convdiff2d", .dim = 2, .radius = 1, .per = 5, .conv = 1, .weight = gen_w_axis },
  [GEN_CONVDIFF3D] = { .name = "convdiff3d", .dim = 3, .radius = 1, .per = 7, .conv = 1, .weight = gen_w_axis },
  [GEN_CONVDIFF3D27] = { .name = "convdiff3d27", .dim = 3, .radius = 1, .per = 27, .conv = 1, .weight = gen_w_box },
  [GEN_CONVDIFF2D13] = { .name = "convdiff2d13", .dim = 2, .radius = 2, .per = 13, .conv = 1, .weight = gen_w_diamond },
};
#define GEN_KINDS ((int)(sizeof gen_table / sizeof gen_table[0]))

const char gen_choices[] = "poisson2d|poisson3d|convdiff2d|convdiff3d|convdiff3d27|convdiff2d13";

/* Name -> kind; HY_EUSAGE for an unknown name.  Local. */
int gen_kind_from_name(const char *name, gen_kind *kind) {
  for (int i = 0; i < GEN_KINDS; i++)
    if (!strcmp(name, gen_table[i].name)) { *kind = (gen_kind)i; return HY_OK; }
  return hy_err(HY_EUSAGE, "unknown generator '%s' (allowed: %s)", name, gen_choices);
}

/* Entries of an interior row of kind.  Local. */
int gen_stencil_points(gen_kind kind) { return gen_table[kind].per; }

/* Grid for about rows rows.  Local. */
void gen_grid(gen_kind kind, int64_t rows, int64_t *side, int *dim, int64_t *n) {
  int d = gen_table[kind].dim;
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

/* Row r of the matrix (grid point c) appended at out->colind/val + nz, columns increasing;
 * returns the new nz.  Local. */
static int64_t gen_row(const gen_stencil *st, int64_t side, double peclet, int64_t r,
                       const int64_t c[3], hy_csr *out, int64_t nz) {
  int dim = st->dim, rad = st->radius;
  int64_t sy = side, sz = side * side;
  /* the row's entries in increasing column order: offsets dz, dy, dx in -radius..radius */
  double diag = 0;
  int64_t dpos = -1;
  for (int dz = (dim == 3 ? -rad : 0); dz <= (dim == 3 ? rad : 0); dz++)
    for (int dy = -rad; dy <= rad; dy++)
      for (int dx = -rad; dx <= rad; dx++) {
        if (!dx && !dy && !dz) {
          dpos = nz;
          out->colind[nz] = (int32_t)r;
          out->val[nz++] = 0; /* filled below */
          continue;
        }
        double v = st->weight(dx, dy, dz);
        if (v == 0.0) continue;
        int64_t q[3] = { c[0] + dx, c[1] + dy, c[2] + dz };
        int inside = 1;
        for (int d = 0; d < dim; d++)
          if (q[d] < 0 || q[d] >= side) inside = 0;
        /* diffusion: the diagonal counts every neighbour's |weight|, also those outside
         * (Dirichlet boundary), so rows stay diagonally dominant */
        diag += -v;
        if (st->conv && abs(dx) + abs(dy) + abs(dz) == 1) {
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
        out->colind[nz] = (int32_t)(r + dx + dy * sy + dz * sz);
        out->val[nz++] = v;
      }
  out->val[dpos] = diag;
  return nz;
}

/* Rows [r0, r1) as local CSR with global columns.  Local. */
int gen_rows(gen_kind kind, int64_t side, int dim, double peclet, int64_t r0, int64_t r1,
             hy_csr *out) {
  memset(out, 0, sizeof *out);
  if ((int)kind < 0 || (int)kind >= GEN_KINDS || gen_table[kind].dim != dim)
    return hy_err(HY_ESYS, "gen_rows: generator %d has no %d-D stencil", (int)kind, dim);
  const gen_stencil *st = &gen_table[kind];
  int64_t n = dim == 2 ? side * side : side * side * side;
  if (r0 < 0 || r1 > n || r0 > r1) return hy_err(HY_ESYS, "gen_rows: bad row range");
  int64_t m = r1 - r0;
  la_csr_alloc(out, m, n, m * st->per);   /* room; nnz set below */
  int64_t nz = 0;
  out->rowptr[0] = 0;
  for (int64_t r = r0; r < r1; r++) {
    int64_t c[3] = { r % side, (r / side) % side, dim == 3 ? r / (side * side) : 0 };
    nz = gen_row(st, side, peclet, r, c, out, nz);
    out->rowptr[r - r0 + 1] = nz;
  }
  out->nnz = nz;
  return HY_OK;
}
