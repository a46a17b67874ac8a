// What fake_gpu_app does, for the program itself and for the test that
// checks its trace: two layers of RmsNorm (1 launch) and QkvProjection (3
// launches), an upload before them and a download after, each in a scope.
#pragma once

#include <cstdint>

namespace fake_gpu_app {

inline constexpr int kLayers = 2;
inline constexpr unsigned kRmsNormGrid = 2;         // blocks of the one RmsNorm launch
inline constexpr unsigned kQkvGrids[] = {3, 4, 5};  // Q, K and V launches, in order
inline constexpr unsigned kBlock = 256;
inline constexpr uint64_t kUploadBytes = 256 * 1024;   // H2D in scope "upload"
inline constexpr uint64_t kDownloadBytes = 16 * 1024;  // D2H in scope "download"
inline constexpr char kUploadScope[] = "upload";
inline constexpr char kDownloadScope[] = "download";

inline constexpr char kRmsNormKernel[] = "_Z14rmsnorm_kernelPfPKfi";
inline constexpr char kQkvKernel[] = "_Z8qkv_gemvPfPKfS1_i";
inline constexpr char kRmsNormDemangled[] = "rmsnorm_kernel(float*, float const*, int)";
inline constexpr char kQkvDemangled[] = "qkv_gemv(float*, float const*, float const*, int)";

// argv[1] == kKeepContext: exit without cuCtxDestroy, so the records are
// still pending when the process exits.
inline constexpr char kKeepContext[] = "keep-context";
// argv[1] == kExecAtEnd, argv[2] == PATH: after the download, with the
// records still pending, exec PATH; if that fails, the run goes on as usual.
inline constexpr char kExecAtEnd[] = "exec-at-end";
// argv[1] == kMany, argv[2] == N: instead of the layers, N RmsNorm launches
// in one brick (enough to fill several activity buffers mid-run).
inline constexpr char kMany[] = "many";
// argv[1] == kGraph, argv[2] == N: the layers and one async upload (in
// scope kStepUploadScope) are captured from a stream into a graph once,
// then the graph is launched N times (each in scope kReplayScope).
inline constexpr char kGraph[] = "graph";
inline constexpr char kStepUploadScope[] = "step upload";
// argv[1] == kProfileLastLayer: as with no arguments, with cuProfilerStart
// and cuProfilerStop around the last layer only. argv[1] == kGraph, argv[2]
// == N, argv[3] == kProfileReplays: around the N graph launches only.
inline constexpr char kProfileLastLayer[] = "profile-last-layer";
inline constexpr char kProfileReplays[] = "profile-replays";
inline constexpr char kReplayScope[] = "replay";
inline constexpr uint64_t kStepUploadBytes = 8 * 1024;
inline constexpr char kStdout[] = "fake gpu app: 8 launches, 2 copies\n";

}  // namespace fake_gpu_app
