// CHECK(call) in the test programs that drive the fake driver: a driver call
// that must succeed; when it fails, the call and its CUresult go to stderr
// and the enclosing function (main) returns 1.
#pragma once

#include <cuda.h>

#include <cstdio>

#define CHECK(call)                                                      \
  do {                                                                   \
    CUresult check_result = (call);                                      \
    if (check_result != CUDA_SUCCESS) {                                  \
      std::fprintf(stderr, "%s failed: %d\n", #call, (int)check_result); \
      return 1;                                                          \
    }                                                                    \
  } while (0)
