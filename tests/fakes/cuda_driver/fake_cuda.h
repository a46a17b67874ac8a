// What the fake CUDA driver and fake CUPTI promise, shared by the fakes and
// the tests: the fake GPU "runs" a kernel for a fixed time per block and a
// copy at a fixed rate, so every GPU duration in a trace is known up front.
#pragma once

#include <cstdint>

namespace fake_cuda {

inline constexpr char kDeviceName[] = "Fake GPU";
inline constexpr int kSmCount = 132;
inline constexpr int kCcMajor = 9;
inline constexpr int kCcMinor = 0;

// sm_90's launch limits, which the fake driver enforces as the real one
// does (CUDA_ERROR_INVALID_VALUE) and reports through cuDeviceGetAttribute.
inline constexpr unsigned kMaxThreadsPerBlock = 1024;
inline constexpr unsigned kMaxBlockDim[3] = {1024, 1024, 64};
inline constexpr unsigned kMaxGridDim[3] = {2147483647u, 65535, 65535};
// Shared memory per block: the default, and what a function may opt in to
// with cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
inline constexpr int kSharedPerBlock = 48 * 1024;
inline constexpr int kSharedPerBlockOptin = 227 * 1024;

// Kernel duration = gridX * gridY * gridZ * kNsPerBlock.
inline constexpr uint64_t kNsPerBlock = 1000;
// Copy duration = bytes / kBytesPerNs.
inline constexpr uint64_t kBytesPerNs = 16;
// The first cuMemAlloc returns this; later ones follow it.
inline constexpr uint64_t kHeapBase = 0x7f0000000000ull;
// Each device's memory (cuDeviceTotalMem), 80 GiB as an H100's; what does not
// fit is refused with CUDA_ERROR_OUT_OF_MEMORY (driver_memory.cpp).
inline constexpr uint64_t kDeviceMemory = 80ull << 30;
// CUPTI's id of the default (NULL) stream in the fake.
inline constexpr uint32_t kDefaultStreamId = 7;

// Environment switches read by the fakes.
// How many devices the fake driver reports (default 1); all alike.
inline constexpr char kEnvDevices[] = "FAKE_CUDA_DEVICES";
// Each device's memory in bytes (default kDeviceMemory).
inline constexpr char kEnvDeviceMemory[] = "FAKE_CUDA_DEVICE_MEMORY";
// cuptiSubscribe fails with CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
// naming this value as the subscriber already there.
inline constexpr char kEnvOtherSubscriber[] = "FAKE_CUPTI_OTHER_SUBSCRIBER";
// cuptiSubscribe fails in the copies of the fake libcupti named here (tests
// put a second copy on the search path): comma-separated FILE=CODE entries,
// FILE the path of a copy, CODE the CUptiResult number it answers with.
inline constexpr char kEnvSubscribeError[] = "FAKE_CUPTI_SUBSCRIBE_ERROR";
// The Nth call of cuptiActivityEnable (1-based) fails with
// CUPTI_ERROR_NOT_COMPATIBLE, as for a kind this device cannot collect.
inline constexpr char kEnvFailActivityEnable[] = "FAKE_CUPTI_FAIL_ACTIVITY_ENABLE";
// At exit the fake CUPTI prints to stderr how many records it wrote into
// client buffers and how many kernel records it generated (kept or
// dropped): "fake CUPTI: N records written to client buffers, K kernel
// records generated".
inline constexpr char kEnvReportRecords[] = "FAKE_CUPTI_REPORT_RECORDS";
// The first N kernel records are dropped as if no buffer space was left.
inline constexpr char kEnvDropKernels[] = "FAKE_CUPTI_DROP_KERNELS";
// Walking a delivered buffer fails (CUPTI_ERROR_INVALID_KIND) at its Nth
// record (1-based), as with a record kind this CUPTI cannot describe.
inline constexpr char kEnvUnreadableRecord[] = "FAKE_CUPTI_UNREADABLE_RECORD";

}  // namespace fake_cuda
