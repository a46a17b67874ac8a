/* An unmodified MPI program (no brickprof header): the collectives, the
   point-to-point calls and the communicator the mpi tests expect to find in
   its trace, with known sizes. Prints one line per rank and exits 0.
   "mpi_app barriers N" (any number of ranks) makes N barriers instead. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc == 3 && strcmp(argv[1], "barriers") == 0) {
    const int n = atoi(argv[2]);
    for (int i = 0; i < n; ++i) MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: %d barriers\n", rank, n);
    MPI_Finalize();
    return 0;
  }
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "mpi_app: run with 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int ints[37];
  for (int i = 0; i < 37; ++i) ints[i] = rank == 1 ? i : -1;
  MPI_Bcast(ints, 37, MPI_INT, 1, MPI_COMM_WORLD);
  double x[1000], sum[1000];
  for (int i = 0; i < 1000; ++i) x[i] = rank + i;
  MPI_Allreduce(x, sum, 1000, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  float f[10], fsum[10];
  for (int i = 0; i < 10; ++i) f[i] = (float)(rank * i);
  MPI_Reduce(f, fsum, 10, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
  float g[5] = {0}, all[10];
  MPI_Allgather(g, 5, MPI_FLOAT, all, 5, MPI_FLOAT, MPI_COMM_WORLD);
  int three[3] = {rank, rank, rank}, gathered[6];
  MPI_Gather(three, 3, MPI_INT, gathered, 3, MPI_INT, 1, MPI_COMM_WORLD);
  double parts[8] = {0}, mine[4];
  MPI_Scatter(parts, 4, MPI_DOUBLE, mine, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int out[4] = {rank, rank, rank, rank}, in[4];
  MPI_Alltoall(out, 2, MPI_INT, in, 2, MPI_INT, MPI_COMM_WORLD);
  long one = 1, prefix = 0;
  MPI_Scan(&one, &prefix, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
  int sixteen[16];
  for (int i = 0; i < 16; ++i) sixteen[i] = rank;
  MPI_Allreduce(MPI_IN_PLACE, sixteen, 16, MPI_INT, MPI_MAX, reversed);
  MPI_Comm_free(&reversed);
  char message[100] = {0};
  if (rank == 0) {
    MPI_Send(message, 100, MPI_CHAR, 1, 5, MPI_COMM_WORLD);
  } else {
    MPI_Recv(message, 100, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  }
  int token = rank, got = -1;
  MPI_Request requests[2];
  MPI_Isend(&token, 1, MPI_INT, 1 - rank, 9, MPI_COMM_WORLD, &requests[0]);
  MPI_Irecv(&got, 1, MPI_INT, 1 - rank, 9, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  double local = rank + 1.0, total = 0;
  MPI_Request reduce;
  MPI_Iallreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &reduce);
  MPI_Wait(&reduce, MPI_STATUS_IGNORE);
  printf("rank %d of %d: bcast %d, sum %.0f, prefix %ld, max %d, peer %d, total %.0f\n", rank,
         size, ints[36], sum[999], prefix, sixteen[0], got, total);
  MPI_Finalize();
  return 0;
}
