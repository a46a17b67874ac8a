/* MPI calls at the edges of what the agent records, for mpi_edges.py (run
   with 3 ranks): v-collectives and a rooted collective on an
   intercommunicator between {0} and {1, 2}, whose count arrays have the
   remote group's length; then calls the agent counts but does not record
   (MPI_Test, MPI_Testall, MPI_Waitsome, persistent requests started with
   MPI_Start and MPI_Startall). Prints one line per rank. */
#include <mpi.h>
#include <stdio.h>

/* A count array and what lies after it in memory: an agent that reads
   past the array's length reads this instead. */
struct counts {
  int n[2];
  int after;
};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3) {
    if (rank == 0) fprintf(stderr, "mpi_edges: run with 3 ranks\n");
    MPI_Finalize();
    return 2;
  }
  /* Group A = {0}, group B = {1, 2}; each group's leader is its first. */
  const int in_a = rank == 0;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, in_a ? 0 : 1, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? 1 : 0, 7, &inter);

  /* Allgatherv: A's rank sends 1 int, B's ranks 2 and 3 (their world
     rank + 1); each receives from the remote group. */
  int mine[3] = {rank, rank, rank}, got[8];
  struct counts from = in_a ? (struct counts){{2, 3}, 1000} : (struct counts){{1, 1000}, 1000};
  int displs[2] = {0, in_a ? 2 : 1};
  MPI_Allgatherv(mine, rank + 1, MPI_INT, got, from.n, displs, MPI_INT, inter);

  /* Alltoallv: A sends 1 int to each of B and receives 2 from each; B
     sends 2 to A and receives 1. */
  struct counts to = in_a ? (struct counts){{1, 1}, 1000} : (struct counts){{2, 1000}, 1000};
  struct counts back = in_a ? (struct counts){{2, 2}, 1000} : (struct counts){{1, 1000}, 1000};
  int sdispls[2] = {0, 1}, rdispls[2] = {0, 2}, out[4] = {rank, rank, rank, rank}, in[4];
  MPI_Alltoallv(out, to.n, sdispls, MPI_INT, in, back.n, rdispls, MPI_INT, inter);

  /* Gatherv to A's rank (MPI_ROOT there): B's ranks send 2 and 3 ints. */
  int gathered[5];
  struct counts at_root = {{2, 3}, 1000};
  int gdispls[2] = {0, 2};
  MPI_Gatherv(mine, in_a ? 0 : rank + 1, MPI_INT, gathered, at_root.n, gdispls, MPI_INT,
              in_a ? MPI_ROOT : 0, inter);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);

  /* Counted, not recorded: a ring exchange completed by tests, by
     MPI_Waitsome, and by persistent requests. */
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int token = rank, received = -1, flag = 0, done = 0, indices[2];
  MPI_Request requests[2];
  MPI_Irecv(&received, 1, MPI_INT, prev, 1, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(&token, 1, MPI_INT, next, 1, MPI_COMM_WORLD, &requests[1]);
  while (!flag) MPI_Test(&requests[0], &flag, MPI_STATUS_IGNORE);
  flag = 0;
  while (!flag) MPI_Testall(1, &requests[1], &flag, MPI_STATUSES_IGNORE);
  MPI_Irecv(&received, 1, MPI_INT, prev, 2, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(&token, 1, MPI_INT, next, 2, MPI_COMM_WORLD, &requests[1]);
  while (done < 2) {
    int count = 0;
    MPI_Waitsome(2, requests, &count, indices, MPI_STATUSES_IGNORE);
    done += count;
  }
  MPI_Recv_init(&received, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, &requests[0]);
  MPI_Send_init(&token, 1, MPI_INT, next, 3, MPI_COMM_WORLD, &requests[1]);
  MPI_Start(&requests[0]);
  MPI_Start(&requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  MPI_Startall(2, requests);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  MPI_Request_free(&requests[0]);
  MPI_Request_free(&requests[1]);

  printf("rank %d: gathered from the other group %d %d, token from %d\n", rank, got[0],
         got[in_a ? 2 : 0], received);
  MPI_Finalize();
  return 0;
}
