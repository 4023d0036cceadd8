/* mpi_hello.c - the smallest MPI program: launched by jobs/selftest.slurm (HYBRID_BIN) in the
 * slurm tests to check that srun starts ranks of each installed MPI library (MPICH: pmi2, Open
 * MPI: pmix).  Rank 0 prints the rank count (from an all-reduce) and the library's name. */
#include <mpi.h>
#include <stdio.h>

/* Count the ranks with an all-reduce and print it with the library version.  Collective. */
int main(int argc, char **argv) {
  int rank, size, one = 1, sum = 0, len = 0;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 5;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Get_library_version(lib, &len);
  for (int i = 0; i < len; i++)
    if (lib[i] == '\n') lib[i] = ' ';
  if (rank == 0) printf("mpi_hello: %d of %d ranks answered: %.60s\n", sum, size, lib);
  MPI_Finalize();
  return sum == size ? 0 : 4;
}
