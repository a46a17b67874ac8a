/* A job whose ranks launch kernels: rank r launches 2 + r empty "axpy"
   kernels and 1 "scale" kernel, each in a brick, then every rank meets in an
   MPI_Allreduce and finalizes before it tears its context down, so the job
   summary (tests/mpi/mpi_job_summary.py) has a kernel table to check against
   the traces. Runs on the fake driver (tests/fakes/cuda_driver, on
   LD_LIBRARY_PATH). Prints one line per rank and exits 0; any driver call
   that fails aborts the job with its name. */
#include <brickprof/brickprof.h>
#include <cuda.h>
#include <mpi.h>
#include <stdio.h>

/* What nvcc would emit for the two kernels, bodies left out. */
static const char kPtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".visible .entry axpy(\n\t.param .u64 y,\n\t.param .u64 x\n)\n{\n\tret;\n}\n\n"
    ".visible .entry scale(\n\t.param .u64 y,\n\t.param .u32 n\n)\n{\n\tret;\n}\n";

#define CHECK(call)                                                     \
  do {                                                                  \
    CUresult check_result = (call);                                     \
    if (check_result != CUDA_SUCCESS) {                                 \
      fprintf(stderr, "%s failed: %d\n", #call, (int)check_result);     \
      MPI_Abort(MPI_COMM_WORLD, 1);                                     \
    }                                                                   \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CUdevice device;
  CUcontext ctx;
  CUmodule module;
  CUfunction axpy, scale;
  CUdeviceptr buffer;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuCtxCreate(&ctx, NULL, 0, device));
  CHECK(cuModuleLoadData(&module, kPtx));
  CHECK(cuModuleGetFunction(&axpy, module, "axpy"));
  CHECK(cuModuleGetFunction(&scale, module, "scale"));
  CHECK(cuMemAlloc(&buffer, 4096));
  int n = 1024;
  void* axpy_args[] = {&buffer, &buffer};
  void* scale_args[] = {&buffer, &n};
  BRICKPROF_PUSH_BRICK(BRICKPROF_BRICK_UP_PROJECTION, 1024);
  for (int i = 0; i < 2 + rank; ++i)
    CHECK(cuLaunchKernel(axpy, 4, 1, 1, 256, 1, 1, 0, NULL, axpy_args, NULL));
  BRICKPROF_POP();
  BRICKPROF_PUSH_BRICK(BRICKPROF_BRICK_DOWN_PROJECTION, 1024);
  CHECK(cuLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, NULL, scale_args, NULL));
  BRICKPROF_POP();
  CHECK(cuCtxSynchronize());
  double mine = rank, sum = 0;
  BRICKPROF_PUSH_BRICK_NAMED("AllReduce", 1);
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  BRICKPROF_POP();
  printf("rank %d: %d kernels, sum %g\n", rank, 3 + rank, sum);
  MPI_Finalize();
  CHECK(cuMemFree(buffer));
  CHECK(cuModuleUnload(module));
  CHECK(cuCtxDestroy(ctx));
  return 0;
}
