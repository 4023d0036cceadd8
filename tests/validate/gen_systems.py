#!/usr/bin/env python3
"""Write the linear systems the validate tests feed to `hybrid-validate solve`.

gen_systems.py OUTDIR [--seed S]

Pure Python (no numpy), written independently of app/io so that the files also check the
app's readers: Matrix Market (array, coordinate general, coordinate symmetric, gzip) and
PETSc binary (big-endian int32 / float64, classids 1211216 Mat and 1211214 Vec).

For each system a seeded x_true is drawn and b = A x_true is computed here, so x_true is an
independent solution of A x = b (up to cond(A) * eps):
  dense      50 x 50 uniform(-1, 1) entries (array format)
  sparse     200 x 200, ~6 entries per row, diagonally dominant, nonsymmetric
             (coordinate .mtx.gz and PETSc binary, vectors in both formats)
  spd        200 x 200 symmetric diagonally dominant (coordinate symmetric: lower triangle)
Plus the files of the negative tests: a perturbed x (relative error ~1e-5), an x with a NaN
(PETSc binary: Matrix Market rejects NaN), a b of the wrong length, a singular matrix, a
non-square matrix, a Matrix Market file with an out-of-range index and a truncated PETSc
binary matrix.
"""
import argparse
import gzip
import os
import random
import struct

MAT_CLASSID = 1211216
VEC_CLASSID = 1211214


def write_text(path, text):
    tmp = path + ".tmp"
    if path.endswith(".gz"):
        with gzip.open(tmp, "wt") as f:
            f.write(text)
    else:
        with open(tmp, "w") as f:
            f.write(text)
    os.replace(tmp, path)


def write_bytes(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def mm_array(path, m, n, colmajor):
    """colmajor: list of m*n values, column by column."""
    lines = ["%%MatrixMarket matrix array real general", "% written by gen_systems.py",
             "%d %d" % (m, n)]
    lines += ["%.17g" % v for v in colmajor]
    write_text(path, "\n".join(lines) + "\n")


def mm_vec(path, x):
    mm_array(path, len(x), 1, x)


def mm_coord(path, m, n, entries, symmetric=False):
    """entries: list of (i, j, v), 0-based."""
    kind = "symmetric" if symmetric else "general"
    lines = ["%%MatrixMarket matrix coordinate real " + kind, "% written by gen_systems.py",
             "%d %d %d" % (m, n, len(entries))]
    lines += ["%d %d %.17g" % (i + 1, j + 1, v) for (i, j, v) in entries]
    write_text(path, "\n".join(lines) + "\n")


def petsc_mat(path, m, n, rows):
    """rows: list of m lists of (j, v) sorted by j."""
    nz = sum(len(r) for r in rows)
    out = [struct.pack(">iiii", MAT_CLASSID, m, n, nz)]
    out.append(struct.pack(">%di" % m, *[len(r) for r in rows]))
    out.append(struct.pack(">%di" % nz, *[j for r in rows for (j, _) in r]))
    out.append(struct.pack(">%dd" % nz, *[v for r in rows for (_, v) in r]))
    write_bytes(path, b"".join(out))


def petsc_vec(path, x):
    write_bytes(path, struct.pack(">ii", VEC_CLASSID, len(x)) + struct.pack(">%dd" % len(x), *x))


def matvec_rows(rows, x):
    return [sum(v * x[j] for (j, v) in r) for r in rows]


def sparse_rows(rng, n, per_row, symmetric):
    """Diagonally dominant sparse rows: off-diagonals uniform(-1, 1), diagonal = sum|off| + 1."""
    off = [dict() for _ in range(n)]
    for i in range(n):
        for _ in range(per_row):
            j = rng.randrange(n)
            if j == i:
                continue
            v = rng.uniform(-1.0, 1.0)
            off[i][j] = v
            if symmetric:
                off[j][i] = v
    rows = []
    for i in range(n):
        d = sum(abs(v) for v in off[i].values()) + 1.0
        r = dict(off[i])
        r[i] = d
        rows.append(sorted(r.items()))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=20261130)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    P = lambda name: os.path.join(a.outdir, name)
    rng = random.Random(a.seed)

    # dense 50 x 50
    n = 50
    A = [[rng.uniform(-1.0, 1.0) for _ in range(n)] for _ in range(n)]  # A[i][j]
    x = [rng.uniform(-1.0, 1.0) for _ in range(n)]
    b = [sum(A[i][j] * x[j] for j in range(n)) for i in range(n)]
    mm_array(P("dense_A.mtx"), n, n, [A[i][j] for j in range(n) for i in range(n)])
    mm_vec(P("dense_b.mtx"), b)
    mm_vec(P("dense_x.mtx"), x)
    petsc_mat(P("dense_A.petsc"), n, n, [[(j, A[i][j]) for j in range(n)] for i in range(n)])
    xw = list(x)
    xw[7] += 1e-4  # relative error ~2e-5 in the 2-norm
    mm_vec(P("dense_x_wrong.mtx"), xw)

    # sparse 200 x 200 nonsymmetric
    n = 200
    rows = sparse_rows(rng, n, 5, symmetric=False)
    x = [rng.uniform(-1.0, 1.0) for _ in range(n)]
    b = matvec_rows(rows, x)
    ent = [(i, j, v) for i in range(n) for (j, v) in rows[i]]
    rng.shuffle(ent)  # Matrix Market entries need no order
    mm_coord(P("sparse_A.mtx.gz"), n, n, ent)
    mm_vec(P("sparse_b.mtx"), b)
    mm_vec(P("sparse_x.mtx"), x)
    petsc_mat(P("sparse_A.petsc"), n, n, rows)
    petsc_vec(P("sparse_b.petsc"), b)
    petsc_vec(P("sparse_x.petsc"), x)
    petsc_vec(P("sparse_x_nan.petsc"), x[:3] + [float("nan")] + x[4:])
    mm_vec(P("sparse_b_short.mtx"), b[:-1])
    xw = list(x)
    xw[123] += 1e-4
    petsc_vec(P("sparse_x_wrong.petsc"), xw)

    # spd 200 x 200, symmetric storage (lower triangle)
    rows = sparse_rows(rng, n, 3, symmetric=True)
    x = [rng.uniform(-1.0, 1.0) for _ in range(n)]
    b = matvec_rows(rows, x)
    mm_coord(P("spd_A.mtx"), n, n, [(i, j, v) for i in range(n) for (j, v) in rows[i] if j <= i],
             symmetric=True)
    mm_vec(P("spd_b.mtx"), b)
    mm_vec(P("spd_x.mtx"), x)

    # singular matrices (rank 2 of 3: row 3 = row 1 + row 2; a zero column) and a non-square one
    S = [[1.0, 2.0, 3.0], [0.5, -1.0, 4.0], [1.5, 1.0, 7.0]]
    mm_coord(P("singular_A.mtx"), 3, 3, [(i, j, S[i][j]) for i in range(3) for j in range(3)])
    mm_array(P("singular_dense_A.mtx"), 3, 3, [S[i][j] for j in range(3) for i in range(3)])
    mm_vec(P("singular_b.mtx"), [1.0, 2.0, 4.0])  # inconsistent: no solution
    mm_array(P("zerocol_A.mtx"), 3, 3, [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 4.0, 5.0, 7.0])
    mm_coord(P("rect_A.mtx"), 3, 2, [(0, 0, 1.0), (1, 1, 2.0), (2, 0, 3.0)])
    mm_vec(P("rect_b.mtx"), [1.0, 2.0, 3.0])

    # malformed inputs: an index outside the matrix; a PETSc matrix cut short
    write_text(P("bad_index.mtx"), "%%MatrixMarket matrix coordinate real general\n"
               "3 3 2\n1 1 1.0\n4 2 2.0\n")
    with open(P("sparse_A.petsc"), "rb") as f:
        data = f.read()
    write_bytes(P("bad_truncated.petsc"), data[: len(data) // 2])
    print("gen_systems.py: wrote test systems to %s (seed %d)" % (a.outdir, a.seed))


if __name__ == "__main__":
    main()
