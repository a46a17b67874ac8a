// The trace's memory events and shapes (see memory_events.h).
#include "agent/io/memory_events.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "agent/io/program_memory_devices.h"
#include "agent/recorder/budget.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent {
namespace {

// An event, its name's site, and its slot in the sort's order.
constexpr uint64_t kEventBytes = sizeof(MemoryEvent) + sizeof(uint32_t) + sizeof(uint32_t);
constexpr uint64_t kShapesBytes = sizeof(std::pair<uint32_t, uint32_t>);

}  // namespace

MemoryEvents::~MemoryEvents() { budget::release(charged_); }

void MemoryEvents::add(const MemoryEvent& e, uint32_t name_site) {
  if (!budget::charge_for_write(kEventBytes)) {
    ++dropped_;
    return;
  }
  charged_ += kEventBytes;
  events_.push_back(e);
  name_sites_.push_back(name_site);
}

void MemoryEvents::add_shapes(uint32_t node, uint32_t signature_site) {
  if (!budget::charge_for_write(kShapesBytes)) {
    ++dropped_;
    return;
  }
  charged_ += kShapesBytes;
  shapes_.emplace_back(node, signature_site);
}

void MemoryEvents::fill(Trace& trace) const {
  std::vector<uint32_t> order(events_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return events_[a].time_ns < events_[b].time_ns;
  });
  trace.memory.clear();
  trace.memory.reserve(order.size());
  for (uint32_t i : order) {
    MemoryEvent e = events_[i];
    e.name = trace.strings.intern(Recorder::site(name_sites_[i]).name);
    trace.memory.push_back(e);
  }
  place_program_memory(trace.memory);

  trace.shapes.clear();
  uint64_t unreadable = 0;
  for (const auto& [node, site] : shapes_) {
    NodeShape shape;
    shape.node = node;
    if (!Recorder::parse_shapes_signature(Recorder::site(site).name, &shape)) {
      ++unreadable;
      continue;
    }
    trace.shapes.push_back(std::move(shape));
  }
  // By node, a node's last record last; then keep that one.
  std::stable_sort(trace.shapes.begin(), trace.shapes.end(),
                   [](const NodeShape& a, const NodeShape& b) { return a.node < b.node; });
  auto last = std::unique(trace.shapes.rbegin(), trace.shapes.rend(),
                          [](const NodeShape& a, const NodeShape& b) { return a.node == b.node; });
  trace.shapes.erase(trace.shapes.begin(), last.base());

  if (dropped_ > 0)
    trace.diagnostics.warnings.push_back(
        std::to_string(dropped_) +
        " memory events and shapes records left out: they did not fit BRICKPROF_BUFFER_MB");
  if (unreadable > 0)
    trace.diagnostics.warnings.push_back(std::to_string(unreadable) +
                                         " shapes records left out: not a shapes signature");
}

}  // namespace brickprof::agent
