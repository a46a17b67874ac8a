// start_gpu_source in a process without a GPU driver: returns null with a
// clear status and leaves the recorder untouched (no hook, no events).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "agent/io/config.h"
#include "agent/gpu_source.h"

namespace brickprof::agent {
namespace {

TEST(StartGpuSource, NoLibcudaMeansCpuOnly) {
  if (void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(h);
    GTEST_SKIP() << "libcuda present: this test is for machines without a driver";
  }
  Config config;
  std::string status;
  auto source = start_gpu_source(config, &status);
  EXPECT_EQ(source, nullptr);
#ifdef BRICKPROF_TEST_NO_CUDA_BUILD
  EXPECT_EQ(status, "unavailable: agent built without CUDA");
#else
  EXPECT_EQ(status, "unavailable: no libcuda");
#endif
}

#ifndef BRICKPROF_TEST_NO_CUDA_BUILD
TEST(StartGpuSource, SyncNoneSubscribesNothing) {
  Config config;
  config.sync = SyncMode::kNone;
  std::string status;
  EXPECT_EQ(start_gpu_source(config, &status), nullptr);
  EXPECT_EQ(status, "off: BRICKPROF_SYNC=none (CPU scopes only)");
}
#endif

}  // namespace
}  // namespace brickprof::agent
