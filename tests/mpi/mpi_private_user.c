/* An MPI user the program loads privately (dlopen RTLD_LOCAL), as Python
   loads mpi4py: its MPI library is not in the global scope, so the agent's
   wrappers must find PMPI_* through the loaded objects. */
#include <mpi.h>
#include <stdio.h>

int run_mpi(void) {
  MPI_Init(NULL, NULL);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double mine = rank + 1.0, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  printf("private rank %d: sum %.0f\n", rank, sum);
  MPI_Finalize();
  return 0;
}
