// CUPTI's memory records into memory events (see memory_activity.h).
#include "agent/io/memory_activity.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "agent/io/memory_events.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent {

MemoryActivityEvents::MemoryActivityEvents(const std::vector<MemoryActivity>* records)
    : records_(records) {
  if (records_ == nullptr) return;
  launched_.resize(records_->size());
  for (uint32_t i = 0; i < records_->size(); ++i) {
    const MemoryActivity& r = (*records_)[i];
    if (r.kind == MemoryActivity::Kind::kAlloc || r.kind == MemoryActivity::Kind::kRelease)
      by_correlation_.emplace_back(r.correlation, i);
  }
  std::sort(by_correlation_.begin(), by_correlation_.end());
}

void MemoryActivityEvents::launch(uint64_t correlation, uint32_t scope, uint32_t tid,
                                  uint32_t python_stack) {
  auto it = std::lower_bound(by_correlation_.begin(), by_correlation_.end(),
                             std::pair<uint64_t, uint32_t>(correlation, 0));
  for (; it != by_correlation_.end() && it->first == correlation; ++it)
    launched_[it->second] = {scope, tid, python_stack, true};
}

void MemoryActivityEvents::finish(MemoryEvents& out, uint32_t reserve_thread) const {
  if (records_ == nullptr || records_->empty()) return;
  const std::vector<MemoryActivity>& records = *records_;
  // Buffers complete in any order: the reserve is followed in time order.
  std::vector<uint32_t> order(records.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return records[a].time_ns < records[b].time_ns;
  });
  const uint32_t reserve_site = Recorder::intern_api_name("memory pool reserve");
  const uint32_t graph_site = Recorder::intern_api_name("graph memory node");
  // pool -> the bytes of its last reserve event; none until it held some.
  std::unordered_map<uint64_t, uint64_t> reserve;
  for (uint32_t i : order) {
    const MemoryActivity& r = records[i];
    MemoryEvent e;
    e.time_ns = r.time_ns;
    e.device = r.device;
    if (launched_[i].seen) {  // a graph's node, at a launch
      MemoryEvent g = e;
      g.thread = launched_[i].thread;
      g.scope = launched_[i].scope;
      g.python_stack = launched_[i].python_stack;
      g.source = MemorySource::kGraph;
      g.op = r.kind == MemoryActivity::Kind::kAlloc ? MemoryOp::kAlloc : MemoryOp::kFree;
      g.address = r.address;
      g.bytes = g.op == MemoryOp::kAlloc ? r.bytes : 0;
      out.add(g, graph_site);
    }
    if (!r.pool_size_known || r.pool == 0) continue;
    auto level = reserve.find(r.pool);
    const bool destroyed = r.kind == MemoryActivity::Kind::kPoolDestroyed;
    if (level == reserve.end() ? destroyed || r.pool_size == 0
                               : !destroyed && level->second == r.pool_size)
      continue;  // no change
    e.thread = reserve_thread;
    e.source = MemorySource::kPoolReserve;
    e.op = destroyed ? MemoryOp::kFree : MemoryOp::kAlloc;
    e.address = r.pool;
    e.bytes = destroyed ? 0 : r.pool_size;
    if (destroyed)
      reserve.erase(level);
    else
      reserve[r.pool] = e.bytes;
    out.add(e, reserve_site);
  }
}

}  // namespace brickprof::agent
