// Memory events resolved into accounts and kept (see memory_ledger.h).
#include "analysis/analyses/memory_ledger.h"

#include <algorithm>

namespace brickprof {
namespace {

class Builder {
 public:
  Builder(const Trace& t, MemoryLedger& l) : t_(t), l_(l), accounts_(t) {}

  void run() {
    l_.events.resize(t_.memory.size());
    l_.order = memory_event_order(t_);
    for (uint32_t id : l_.order) event(id);
    for (AccountSeries& a : l_.accounts) a.live_at_exit = a.live.empty() ? 0 : a.live.back();
  }

 private:
  // The account's live bytes go up or down by `bytes` at event `id`.
  void record(AccountSeries& a, uint32_t id, uint64_t bytes, bool up) {
    const uint64_t before = a.live.empty() ? 0 : a.live.back();
    const uint64_t after = up ? before + bytes : before - bytes;
    a.events.push_back(id);
    a.live.push_back(after);
    if (after > a.peak) {
      a.peak = after;
      a.peak_at = a.events.size() - 1;
    }
  }

  // Ends the live allocation `alloc` at event `by`.
  void end(AccountSeries& a, uint32_t alloc, uint32_t by) {
    ResolvedEvent& r = l_.events[alloc];
    r.pair = by;
    r.ended_at = static_cast<uint32_t>(a.events.size());
    a.freed += r.bytes;
    record(a, by, r.bytes, false);
  }

  void event(uint32_t id) {
    const MemoryEvent& e = t_.memory[id];
    switch (e.op) {
      case MemoryOp::kMap:
        ++l_.maps;
        l_.mapped_bytes += e.bytes;
        break;
      case MemoryOp::kUnmap:
        ++l_.unmaps;
        break;
      case MemoryOp::kTrim:
        ++l_.trims;
        break;
      default:
        break;
    }
    const MemoryOutcome o = accounts_.apply(id, e);
    if (o.account == kNoAccount) return;
    if (o.account == l_.accounts.size()) {
      l_.accounts.emplace_back();
      l_.accounts.back().key = accounts_.keys()[o.account];
    }
    AccountSeries& a = l_.accounts[o.account];
    ResolvedEvent& r = l_.events[id];
    switch (o.kind) {
      case MemoryOutcome::Kind::kFailed:
        ++a.failed;
        if (e.result == kCudaErrorOutOfMemory) ++a.out_of_memory;
        if (e.op == MemoryOp::kAlloc)
          l_.failed.push_back({id, o.account, static_cast<uint32_t>(a.events.size())});
        return;
      case MemoryOutcome::Kind::kUnpaired:
        ++a.unpaired_frees;
        return;
      case MemoryOutcome::Kind::kFreed:
        r.account = o.account;
        r.pair = o.ended;
        r.bytes = o.ended_bytes;
        ++a.frees;
        end(a, o.ended, id);
        return;
      case MemoryOutcome::Kind::kAllocated:
        r.account = o.account;
        r.bytes = o.bytes;
        if (o.ended != kNoEvent) {
          // A pool's reserve event replaces its previous level: no free lost.
          if (a.key.account != MemoryAccount::kPoolReserve) ++a.unrecorded_frees;
          end(a, o.ended, id);
        }
        ++a.allocations;
        a.allocated += o.bytes;
        r.at = static_cast<uint32_t>(a.events.size());
        record(a, id, o.bytes, true);
        return;
      default:
        return;
    }
  }

  const Trace& t_;
  MemoryLedger& l_;
  MemoryAccounts accounts_;
};

}  // namespace

uint64_t AccountSeries::live_at(int64_t time_ns, bool inclusive, const Trace& trace) const {
  const auto it =
      inclusive ? std::upper_bound(events.begin(), events.end(), time_ns,
                                   [&](int64_t t, uint32_t e) { return t < trace.memory[e].time_ns; })
                : std::lower_bound(events.begin(), events.end(), time_ns,
                                   [&](uint32_t e, int64_t t) { return trace.memory[e].time_ns < t; });
  return it == events.begin() ? 0 : live[static_cast<size_t>(it - events.begin()) - 1];
}

uint32_t MemoryLedger::account_of(const MemoryAccountKey& key) const {
  for (size_t i = 0; i < accounts.size(); ++i)
    if (accounts[i].key == key) return static_cast<uint32_t>(i);
  return kNoAccount;
}

int64_t MemoryLedger::ended_ns(const Trace& trace, uint32_t alloc) const {
  const uint32_t by = events[alloc].pair;
  return by == kNoEvent ? INT64_MAX : trace.memory[by].time_ns;
}

MemoryLedger build_memory_ledger(const Trace& trace) {
  MemoryLedger ledger;
  Builder(trace, ledger).run();
  return ledger;
}

}  // namespace brickprof
