// Which rank each node of a trace belongs to: a merged trace's sources
// (by the thread or device each source's ids were mapped to), or the one
// process of a recorded trace. The cross-rank views start here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

inline constexpr uint32_t kNoRank = UINT32_MAX;

struct RankIndex {
  struct Rank {
    int64_t rank = -1;    // the process's rank (-1: not launched as one)
    std::string label;    // "rank 0", as merge named the source
    uint32_t source = 0;  // Trace::sources[source]; 0 for a recorded trace
  };
  std::vector<Rank> ranks;        // one per source, in source order
  std::vector<uint32_t> of_node;  // node -> index into ranks, kNoRank if none
  // "rank 3", or "?" for kNoRank.
  const std::string& label(uint32_t index) const {
    static const std::string unknown = "?";
    return index < ranks.size() ? ranks[index].label : unknown;
  }
};

// {"index", "rank", "label"} per rank, under `key`: what the views' rank
// indices refer to.
class JsonWriter;
void write_ranks_json(JsonWriter& w, const RankIndex& ranks);

RankIndex index_ranks(const Trace& trace);

}  // namespace brickprof
