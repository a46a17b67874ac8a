/* A small job for the cross-rank checks of a Parquet dataset (any number of
   ranks, four in the test): layers of bricks whose CPU work grows with the
   rank (the last rank the slowest), an AllReduce brick, collectives of every
   wait pattern (all-to-all, rooted both ways, prefix) on MPI_COMM_WORLD and
   on two half-size communicators, point-to-point calls and a non-blocking
   collective. Prints one line per rank and exits 0. Usage: mpi_job [LAYERS] */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */

#include <brickprof/brickprof.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Work of a known length on the CPU (a busy wait: sleeping would be idle). */
static void work_us(long us) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 < us);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int layers = argc > 1 ? atoi(argv[1]) : 3;
  const long base_us = 300 + 150L * rank; /* the last rank the slowest */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
  double x[256], sum[256];
  int ints[64], gathered[64 * 64], scattered[64];
  long one = 1, prefix = 0, before = 0;
  for (int i = 0; i < 256; ++i) x[i] = rank + i;
  for (int i = 0; i < 64; ++i) ints[i] = rank;
  for (int layer = 0; layer < layers; ++layer) {
    BRICKPROF_PUSH_LAYER(layer);
    BRICKPROF_PUSH_BRICK(BRICKPROF_BRICK_RMS_NORM, 4096);
    work_us(base_us / 3);
    BRICKPROF_POP();
    BRICKPROF_PUSH_BRICK(BRICKPROF_BRICK_ATTENTION_SCORE, 4096);
    work_us(base_us);
    BRICKPROF_POP();
    BRICKPROF_PUSH_BRICK_NAMED("AllReduce", 256);
    MPI_Allreduce(x, sum, 256, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    BRICKPROF_POP();
    BRICKPROF_PUSH_BRICK(BRICKPROF_BRICK_GATE_PROJECTION, 1024);
    work_us(base_us / 2);
    BRICKPROF_POP();
    BRICKPROF_PUSH_BRICK_NAMED("my_fused_op", 16);
    work_us(50);
    BRICKPROF_POP();
    MPI_Bcast(ints, 64, MPI_INT, layer % size, MPI_COMM_WORLD);
    MPI_Reduce(x, sum, 256, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Gather(ints, 1, MPI_INT, gathered, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
    MPI_Scatter(gathered, 1, MPI_INT, scattered, 1, MPI_INT, 1 % size, MPI_COMM_WORLD);
    MPI_Allgather(ints, 1, MPI_INT, gathered, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(gathered, 1, MPI_INT, scattered, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Scan(&one, &prefix, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&one, &before, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(x, sum, 16, MPI_DOUBLE, MPI_MAX, half);
    MPI_Barrier(MPI_COMM_WORLD);
    BRICKPROF_POP();
  }
  int token = rank, got = -1;
  MPI_Request requests[2];
  MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD, &requests[0]);
  MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 9, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  double local = rank + 1.0, total = 0;
  MPI_Request reduce;
  MPI_Iallreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &reduce);
  MPI_Wait(&reduce, MPI_STATUS_IGNORE);
  MPI_Comm_free(&half);
  printf("rank %d of %d: %d layers, prefix %ld, peer %d, total %.0f\n", rank, size, layers, prefix,
         got, total);
  MPI_Finalize();
  return 0;
}
