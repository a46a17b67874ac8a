// Memory events into accounts (see memory_accounts.h).
#include "trace/derive/memory_accounts.h"

#include <algorithm>
#include <numeric>

namespace brickprof {
namespace {

std::string device_name(uint32_t device) {
  return device == kHostDeviceId ? "host" : "GPU " + std::to_string(device);
}

}  // namespace

std::string account_label(const Trace& trace, const MemoryAccountKey& key) {
  std::string label;
  if (trace.sources.size() > 1 && key.source < trace.sources.size())
    label = trace.sources[key.source].label + ": ";
  switch (key.account) {
    case MemoryAccount::kDevice:
      return label + device_name(key.device) + " device memory";
    case MemoryAccount::kManaged:
      return label + device_name(key.device) + " managed memory";
    case MemoryAccount::kHostPinned:
      return label + (key.device == kHostDeviceId
                          ? "host pinned memory"
                          : "host pinned memory (" + device_name(key.device) + ")");
    case MemoryAccount::kPoolReserve:
      return label + device_name(key.device) + " pool reserve";
    case MemoryAccount::kProgram:
      return label + "program pool \"" + std::string(trace.strings.view(key.pool)) + "\" on " +
             device_name(key.device);
    default:
      return label + "no account";
  }
}

std::unordered_map<uint32_t, uint32_t> source_of_threads(const Trace& trace) {
  std::unordered_map<uint32_t, uint32_t> out;
  if (trace.sources.size() > 1)
    for (uint32_t s = 0; s < trace.sources.size(); ++s)
      for (const SourceInfo::IdMap& id : trace.sources[s].threads) out[id.id] = s;
  return out;
}

MemoryAccounts::MemoryAccounts(const Trace& trace) : source_of_thread_(source_of_threads(trace)) {}

uint32_t MemoryAccounts::find(const MemoryAccountKey& key) const {
  for (size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key) return static_cast<uint32_t>(i);
  return kNoAccount;
}

uint32_t MemoryAccounts::find_or_add(const MemoryAccountKey& key) {
  const uint32_t found = find(key);
  if (found != kNoAccount) return found;
  keys_.push_back(key);
  return static_cast<uint32_t>(keys_.size() - 1);
}

// The live allocation a free ends: at its address in its account, or for
// cuMemFree (source device) in the device's managed memory, which the
// driver API frees with cuMemFree too (cuMemAllocManaged's documentation).
bool MemoryAccounts::take(const MemoryAccountKey& key, uint64_t address, MemoryOutcome& out) {
  MemoryAccountKey where = key;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const uint32_t account = find(where);
    auto live = account == kNoAccount ? live_.end() : live_.find({account, address});
    if (live != live_.end()) {
      out.kind = MemoryOutcome::Kind::kFreed;
      out.account = account;
      out.ended = live->second.event;
      out.ended_bytes = live->second.bytes;
      live_.erase(live);
      return true;
    }
    if (key.account != MemoryAccount::kDevice) break;
    where.account = MemoryAccount::kManaged;
  }
  return false;
}

// Maps and unmaps add no bytes; the last unmap of a handle released while
// mapped frees it (see the header).
MemoryOutcome MemoryAccounts::apply_mapping(const MemoryEvent& e) {
  MemoryOutcome out;
  if (e.result != 0) return out;
  if (e.op == MemoryOp::kMap) {
    if (e.pool == 0) return out;  // an older trace: no handle named
    handle_at_[e.address] = e.pool;
    ++mappings_of_[e.pool];
    return out;
  }
  auto at = handle_at_.find(e.address);
  if (at == handle_at_.end()) return out;
  const uint64_t handle = at->second;
  handle_at_.erase(at);
  auto count = mappings_of_.find(handle);
  if (count == mappings_of_.end() || --count->second > 0) return out;
  mappings_of_.erase(count);
  auto released = released_mapped_.find(handle);
  if (released == released_mapped_.end()) return out;
  auto live = live_.find({released->second, handle});
  released_mapped_.erase(released);
  if (live == live_.end()) return out;
  out.kind = MemoryOutcome::Kind::kFreed;
  out.account = live->first.account;
  out.ended = live->second.event;
  out.ended_bytes = live->second.bytes;
  live_.erase(live);
  return out;
}

MemoryOutcome MemoryAccounts::apply(uint32_t id, const MemoryEvent& e) {
  MemoryOutcome out;
  if (e.source == MemorySource::kMapping) return apply_mapping(e);
  if (e.op != MemoryOp::kAlloc && e.op != MemoryOp::kFree) return out;
  const MemoryAccount kind = account_of(e.source);
  if (kind == MemoryAccount::kNone) return out;
  MemoryAccountKey key{kind, e.device, kind == MemoryAccount::kProgram ? e.name : StringId{0}, 0};
  if (!source_of_thread_.empty()) {
    auto source = source_of_thread_.find(e.thread);
    if (source != source_of_thread_.end()) key.source = source->second;
  }
  if (e.op == MemoryOp::kFree && e.result == 0 && e.source == MemorySource::kPhysical &&
      mappings_of_.count(e.address) != 0) {
    const uint32_t account = find(key);
    if (account != kNoAccount && live_.count({account, e.address}) != 0) {
      released_mapped_[e.address] = account;  // freed at its last unmap
      return out;
    }
  }
  if (e.op == MemoryOp::kFree && e.result == 0 && take(key, e.address, out)) return out;
  out.account = find_or_add(key);
  if (e.result != 0) {
    out.kind = MemoryOutcome::Kind::kFailed;
    return out;
  }
  if (e.op == MemoryOp::kFree) {
    out.kind = MemoryOutcome::Kind::kUnpaired;
    return out;
  }
  out.kind = MemoryOutcome::Kind::kAllocated;
  out.bytes = e.bytes;
  auto [live, added] = live_.try_emplace(AddressKey{out.account, e.address}, Live{id, e.bytes});
  if (!added) {
    out.ended = live->second.event;
    out.ended_bytes = live->second.bytes;
    live->second = {id, e.bytes};
  }
  return out;
}

void walk_memory_live(const Trace& trace, MemoryAccounts& accounts,
                      const std::function<void(uint32_t, int64_t, uint64_t)>& visit) {
  std::vector<uint64_t> live;
  const auto each = [&](uint32_t id) {
    const MemoryOutcome o = accounts.apply(id, trace.memory[id]);
    if (o.kind != MemoryOutcome::Kind::kFreed && o.kind != MemoryOutcome::Kind::kAllocated) return;
    if (o.account >= live.size()) live.resize(o.account + 1, 0);
    live[o.account] += o.bytes;
    live[o.account] -= o.ended_bytes;
    visit(o.account, trace.memory[id].time_ns, live[o.account]);
  };
  const auto earlier = [&](const MemoryEvent& a, const MemoryEvent& b) {
    return a.time_ns < b.time_ns;
  };
  if (std::is_sorted(trace.memory.begin(), trace.memory.end(), earlier)) {
    for (uint32_t id = 0; id < trace.memory.size(); ++id) each(id);
  } else {
    for (uint32_t id : memory_event_order(trace)) each(id);
  }
}

std::vector<uint32_t> memory_event_order(const Trace& trace) {
  std::vector<uint32_t> order(trace.memory.size());
  std::iota(order.begin(), order.end(), 0u);
  const auto earlier = [&](uint32_t a, uint32_t b) {
    return trace.memory[a].time_ns < trace.memory[b].time_ns;
  };
  if (!std::is_sorted(order.begin(), order.end(), earlier))
    std::stable_sort(order.begin(), order.end(), earlier);
  return order;
}

}  // namespace brickprof
