// What the HTML page's timeline and flame graph agree on: which nodes are GPU
// work on a stream, and how a host thread is titled.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/model/trace.h"

namespace brickprof {

// Kernels, copies and memsets: work on a stream, timed by the GPU. A sync
// is a host wait: it sits on its thread among the scopes.
inline bool on_stream(NodeKind kind) {
  return kind == NodeKind::kKernel || kind == NodeKind::kTransfer || kind == NodeKind::kMemset;
}

// "Thread 42 (main)", or "Thread 42" without a name.
inline std::string thread_title(uint32_t tid, std::string_view name) {
  std::string out = "Thread " + std::to_string(tid);
  if (!name.empty()) out.append(" (").append(name).append(")");
  return out;
}

}  // namespace brickprof
