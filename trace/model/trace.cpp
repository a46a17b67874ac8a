// Names of the trace model's enums, and node construction (see trace.h).
#include "trace/model/trace.h"

#include <algorithm>
#include <array>

namespace brickprof {
namespace {

template <typename E, size_t N>
bool parse_from(std::string_view text, const std::array<std::string_view, N>& names, E* out) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == text) {
      *out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

constexpr std::array<std::string_view, 7> kNodeKinds = {"layer",    "brick",  "scope", "kernel",
                                                        "transfer", "memset", "sync"};
constexpr std::array<std::string_view, 5> kEdgeTypes = {"contains", "launches", "sequence",
                                                        "depends_on", "transfer"};
constexpr std::array<std::string_view, 6> kCategories = {"Norm",  "Attention",     "FFN",
                                                         "Other", "Communication", "None"};
constexpr std::array<std::string_view, 6> kDirections = {"unknown", "H2D", "D2H",
                                                         "D2D",     "H2H", "peer"};
constexpr std::array<std::string_view, 6> kMemoryKinds = {"unknown", "pageable", "pinned",
                                                          "device",  "managed",  "array"};
constexpr std::array<std::string_view, 6> kSyncKinds = {"unknown", "stream",      "context",
                                                        "event",   "stream_wait", "device"};

}  // namespace

std::string_view to_string(NodeKind v) { return kNodeKinds[static_cast<size_t>(v)]; }
std::string_view to_string(EdgeType v) { return kEdgeTypes[static_cast<size_t>(v)]; }
std::string_view to_string(Category v) { return kCategories[static_cast<size_t>(v)]; }
std::string_view to_string(Direction v) { return kDirections[static_cast<size_t>(v)]; }
std::string_view to_string(MemoryKind v) { return kMemoryKinds[static_cast<size_t>(v)]; }
std::string_view to_string(SyncKind v) { return kSyncKinds[static_cast<size_t>(v)]; }

bool parse(std::string_view t, NodeKind* o) { return parse_from(t, kNodeKinds, o); }
bool parse(std::string_view t, EdgeType* o) { return parse_from(t, kEdgeTypes, o); }
bool parse(std::string_view t, Category* o) { return parse_from(t, kCategories, o); }
bool parse(std::string_view t, Direction* o) { return parse_from(t, kDirections, o); }
bool parse(std::string_view t, MemoryKind* o) { return parse_from(t, kMemoryKinds, o); }
bool parse(std::string_view t, SyncKind* o) { return parse_from(t, kSyncKinds, o); }

uint32_t Trace::add_node(const Node& node) {
  nodes.push_back(node);
  return static_cast<uint32_t>(nodes.size() - 1);
}

const CommCall* Trace::comm_call(uint32_t node) const {
  auto it = std::lower_bound(comm_calls.begin(), comm_calls.end(), node,
                             [](const CommCall& c, uint32_t n) { return c.node < n; });
  return it != comm_calls.end() && it->node == node ? &*it : nullptr;
}

uint32_t Trace::add_gpu_node(Node node, const GpuDetail& d) {
  node.detail = static_cast<uint32_t>(gpu.size());
  gpu.push_back(d);
  return add_node(node);
}

}  // namespace brickprof
