// What device_memory_app does, for the program and the test that checks
// its trace (device_memory_test.cpp): per-layer weights, decode steps that
// each allocate and free an activation from a pool (stream ordered) and
// leak a fixed amount in one scope, a VMM mapping, pinned and registered
// host memory, managed memory, and finally an allocation that does not fit.
#pragma once

#include <cstdint>

namespace device_memory_app {

inline constexpr int kLayers = 3;
inline constexpr uint64_t kMiB = 1ull << 20;
inline constexpr uint64_t weight_bytes(int layer) { return (layer + 1) * kMiB; }
inline constexpr int kSteps = 4;
inline constexpr uint64_t kActivationBytes = 2 * kMiB + 4096;  // from a pool, freed in the step
inline constexpr uint64_t kLeakBytes = 64 * 1024;              // per step, never freed
inline constexpr char kStepScope[] = "decode_step";
inline constexpr char kAttentionScope[] = "attention";
inline constexpr char kLeakScope[] = "kv_append";
inline constexpr uint64_t kPinnedBytes = 1 * kMiB;
inline constexpr uint64_t kRegisteredBytes = 64 * 1024;
inline constexpr uint64_t kReserveBytes = 8 * kMiB;
inline constexpr uint64_t kPhysicalBytes = 4 * kMiB;
inline constexpr uint64_t kManagedBytes = 1 * kMiB;
inline constexpr char kOomScope[] = "too_big";

// argv[1]: how it ends after the failed allocation: kExit (frees what it
// holds, returns 0), kUnderscoreExit (_exit(3) at once), kKill (SIGKILL:
// no exit path runs). argv[2]: the file where it lists each memory call
// it made, one line each: api op source address bytes result scope.
inline constexpr char kExit[] = "exit";
inline constexpr char kUnderscoreExit[] = "_exit";
inline constexpr char kKill[] = "kill";
inline constexpr char kStdout[] = "device memory app: out of memory as expected\n";

}  // namespace device_memory_app
