! An MPI program in Fortran: its calls go through the Fortran bindings,
! which call PMPI_ directly, so the agent cannot record them; its trace
! must say so. Prints one line per rank.
program mpi_fortran
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  print '(A,I0,A,I0)', 'fortran rank ', rank, ': total ', total
  call MPI_Finalize(ierr)
end program mpi_fortran
