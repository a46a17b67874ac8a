// Small queries over a brickprof JSON trace read with nlohmann::json, for
// tests that check what the agent recorded.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace brickprof::test::trace_query {

using nlohmann::json;

inline int64_t duration(const json& n) {
  return n["end_ns"].get<int64_t>() - n["start_ns"].get<int64_t>();
}

inline uint64_t blocks(const json& kernel) {
  const json& g = kernel["grid"];
  return g[0].get<uint64_t>() * g[1].get<uint64_t>() * g[2].get<uint64_t>();
}

inline std::vector<const json*> of_kind(const json& t, const std::string& kind) {
  std::vector<const json*> out;
  for (const json& n : t["nodes"])
    if (n["kind"] == kind) out.push_back(&n);
  return out;
}

inline const json& parent_of(const json& t, const json& n) {
  return t["nodes"][n["parent"].get<size_t>()];
}

// The nearest ancestor of `n` named `name`, or null.
inline const json* ancestor_named(const json& t, const json& n, const std::string& name) {
  for (const json* p = &n; !(*p)["parent"].is_null();) {
    p = &parent_of(t, *p);
    if ((*p)["name"] == name) return p;
  }
  return nullptr;
}

// The graph node a kernel was replayed from, 0 for a direct launch.
inline uint64_t graph_node(const json& kernel) {
  auto it = kernel.find("graph_node");
  return it == kernel.end() ? 0 : it->get<uint64_t>();
}

// The flags of every `brickprof report` view, text and JSON, and of every
// export: what replaying a trace through the whole analysis path runs.
inline const std::vector<std::vector<std::string>>& report_views() {
  static const std::vector<std::vector<std::string>> views = {
      {"--summary", "--tree", "--critical-path", "--roofline", "--transfers", "--gpu-idle",
       "--launches", "--analyze"},
      {"--summary", "--critical-path", "--roofline", "--transfers", "--gpu-idle", "--launches",
       "--analyze", "--json"},
      {"--dot"},
      {"--chrome"},
      {"--folded"}};
  return views;
}

inline bool has_edge(const json& t, uint64_t src, uint64_t dst, const std::string& type) {
  for (const json& e : t["edges"])
    if (e["src"] == src && e["dst"] == dst && e["type"] == type) return true;
  return false;
}

}  // namespace brickprof::test::trace_query
