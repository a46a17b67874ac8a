// The rows of a per-name table (report --cpu-counters, --gpu-metrics): one
// per node kind and name, however many nodes share them, and the order a
// user reads them in.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "trace/model/trace.h"

namespace brickprof {

class RowsByKindAndName {
 public:
  explicit RowsByKindAndName(const Trace& trace) : trace_(trace) {}

  // The row of `node`, and whether it is new (rows are numbered as they come).
  std::pair<size_t, bool> add(const Node& node) {
    auto [it, fresh] = rows_.emplace(key(node), rows_.size());
    return {it->second, fresh};
  }
  // The row of `node`, if one was added.
  std::optional<size_t> find(const Node& node) const {
    auto it = rows_.find(key(node));
    if (it == rows_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::string key(const Node& node) const {
    std::string k = std::to_string(static_cast<int>(node.kind)) + ":";
    k += trace_.name(node);
    return k;
  }

  const Trace& trace_;
  std::unordered_map<std::string, size_t> rows_;
};

// Bricks first (the table a user reads), then kernels, layers and scopes.
inline int row_kind_rank(NodeKind k) {
  switch (k) {
    case NodeKind::kBrick:
      return 0;
    case NodeKind::kKernel:
      return 1;
    case NodeKind::kLayer:
      return 2;
    default:
      return 3;
  }
}

}  // namespace brickprof
