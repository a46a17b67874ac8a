// The trace's tiles, as the exit write reads them from the recorder's kTile
// records (pass 1 of io/trace_stream.h): one entry per node, thread and
// level however many records a run of tiles took, held until the write puts
// them in the header, which the JSON writes.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof::agent {

class TileEvents {
 public:
  TileEvents() = default;
  TileEvents(const TileEvents&) = delete;
  TileEvents& operator=(const TileEvents&) = delete;
  ~TileEvents();

  // Adds `s` to its node's, thread's and level's entry. A new entry is
  // charged to the budget (the write's share); past it, or outside every
  // node, the tiles are counted and the trace's warnings say how many.
  void add(const TileStats& s);
  // Into `trace`: the entries by node, thread and level; the warnings.
  void fill(Trace& trace) const;

 private:
  std::vector<TileStats> entries_;
  std::unordered_map<uint64_t, uint32_t> index_;  // key(): where its entry is
  uint64_t charged_ = 0;
  uint64_t over_budget_ = 0;    // tiles
  uint64_t outside_nodes_ = 0;  // tiles
};

}  // namespace brickprof::agent
