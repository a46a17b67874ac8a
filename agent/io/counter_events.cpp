// The trace's counter samples and tokens (see counter_events.h).
#include "agent/io/counter_events.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "agent/recorder/budget.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent {
namespace {

// A sample, its name's site, and its slot in the sort's order.
constexpr uint64_t kSampleBytes = sizeof(CounterSample) + sizeof(uint32_t) + sizeof(uint32_t);

}  // namespace

CounterEvents::~CounterEvents() { budget::release(charged_); }

void CounterEvents::add(const CounterSample& s, uint32_t name_site) {
  if (!budget::charge_for_write(kSampleBytes)) {
    ++dropped_;
    return;
  }
  charged_ += kSampleBytes;
  samples_.push_back(s);
  name_sites_.push_back(name_site);
}

void CounterEvents::fill(Trace& trace) const {
  std::vector<uint32_t> order(samples_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return samples_[a].time_ns < samples_[b].time_ns;
  });
  trace.counters.clear();
  trace.counters.reserve(order.size());
  const StringId tokens = trace.strings.intern(kTokensName);
  for (uint32_t i : order) {
    CounterSample s = samples_[i];
    s.name = s.kind == CounterKind::kTokens ? tokens
                                            : trace.strings.intern(Recorder::site(name_sites_[i]).name);
    trace.counters.push_back(s);
  }
  if (dropped_ > 0)
    trace.diagnostics.warnings.push_back(
        std::to_string(dropped_) +
        " counter samples and tokens left out: they did not fit BRICKPROF_BUFFER_MB");
}

}  // namespace brickprof::agent
