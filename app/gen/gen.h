/* gen.h - matrix generators: finite-difference Poisson and upwind convection-diffusion on a
 * regular grid (one table of stencils in gen.c).  Each rank generates only its own rows, so sizes of tens of millions of rows
 * never pass through one rank.  Row i of the global matrix is the same for any rank count. */
#ifndef HY_GEN_H
#define HY_GEN_H

#include <stdint.h>
#include "io/io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GEN_POISSON2D = 0,   /* 5-point Laplacian, SPD */
  GEN_POISSON3D,       /* 7-point Laplacian, SPD */
  GEN_CONVDIFF2D,      /* 5-point diffusion + first-order upwind convection, nonsymmetric */
  GEN_CONVDIFF3D,      /* 7-point diffusion + upwind convection, nonsymmetric */
  GEN_CONVDIFF3D27,    /* 27-point diffusion + upwind convection (cfd2-like: ~25 nnz/row) */
  GEN_CONVDIFF2D13     /* 13-point diamond |i| + |j| <= 2 diffusion + upwind convection
                        * (imagesensor-like: ~13 nnz/row), nonsymmetric for peclet > 0 */
} gen_kind;

/* The choices string for the config key ("poisson2d|poisson3d|...") and name -> kind.  Local. */
extern const char gen_choices[];
int gen_kind_from_name(const char *name, gen_kind *kind);

/* Entries of an interior row of kind (5, 7, 27 or 13).  Local. */
int gen_stencil_points(gen_kind kind);

/* Grid of a generator for a requested number of rows: side = floor(rows^(1/d)) (at least 2),
 * n = side^d.  Local. */
void gen_grid(gen_kind kind, int64_t rows, int64_t *side, int *dim, int64_t *n);

/* Rows [r0, r1) of the n x n matrix of kind on a grid of side^dim points, with cell Peclet
 * number peclet (convection strength per cell; 0 gives pure diffusion).  Local CSR with m =
 * r1 - r0 rows and global (sorted) column indices.  Local. */
int gen_rows(gen_kind kind, int64_t side, int dim, double peclet, int64_t r0, int64_t r1,
             hy_csr *out);

#ifdef __cplusplus
}
#endif
#endif
