// Which account a memory event changes and by how much: the one rule that
// report --memory (analysis/analyses/memory_ledger.h), the Chrome and
// Perfetto counter tracks and the HTML chart all follow.
//
// Accounts: device memory the driver handed out (cuMemAlloc*, stream-
// ordered allocations, VMM physical handles), managed memory, pinned host
// memory (allocated or registered), and the program's allocators, one
// account per pool name; each per device (kHostDeviceId for the host's).
// A free carries no size: it ends the live allocation at its (account,
// address); cuMemFree (a device free) also ends managed memory, which the
// driver frees with it. A free of an address with nothing live there is
// counted and changes nothing; so does a failed call (result != 0). An
// allocation at an address still live ends the earlier one there (its free
// was not recorded). Maps, unmaps and pool trims move no account: a
// mapping is of physical memory counted at cuMemCreate, and what a trim
// gives back shows in the pool reserve account. But cuMemRelease of a
// handle still mapped frees nothing yet ("freed when all outstanding
// mappings to the memory are unmapped", CUDA driver API, cuMemRelease):
// the handle's last cuMemUnmap ends it (a map names its handle in `pool`).
//
// From CUPTI's activity records: a graph's memory-allocation node (source
// graph) counts in device memory like any allocation, and its free ends it
// by address. The pool reserve account holds, per device, what each
// stream-ordered pool holds from the device: a pool_reserve event is the
// pool's whole reserve at that moment (an allocation at the pool's address,
// so it ends the pool's previous level; a free when the pool is destroyed).
// A pool's allocations are inside its reserve, so the device and pool
// reserve accounts overlap and are never summed. No byte is counted twice:
// an activity record of a call the callbacks recorded adds no event.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

inline constexpr uint32_t kNoEvent = std::numeric_limits<uint32_t>::max();
inline constexpr uint32_t kNoAccount = std::numeric_limits<uint32_t>::max();
// CUresult CUDA_ERROR_OUT_OF_MEMORY.
inline constexpr int32_t kCudaErrorOutOfMemory = 2;

struct MemoryAccountKey {
  MemoryAccount account = MemoryAccount::kDevice;
  uint32_t device = 0;  // CUDA ordinal, or kHostDeviceId
  StringId pool = 0;    // the program's pool name (kProgram only), else 0
  // The process (Trace::sources' index) in a merged trace, by the event's
  // thread: two ranks' host memory, and their addresses, are not one
  // account. 0 otherwise.
  uint32_t source = 0;
  bool operator==(const MemoryAccountKey&) const = default;
};

// "GPU 0 device memory", "host pinned memory", "program pool \"kv_cache\"
// on GPU 0" ("rank 1: host pinned memory" in a merged trace): the account
// as every output names it.
std::string account_label(const Trace& trace, const MemoryAccountKey& key);

// A merged trace's threads -> the source (Trace::sources' index) each came
// from; empty for a trace of one process. What MemoryAccountKey::source is.
std::unordered_map<uint32_t, uint32_t> source_of_threads(const Trace& trace);

// What one event did.
struct MemoryOutcome {
  enum class Kind : uint8_t {
    kNone,      // a map, unmap or trim, a release of a handle still mapped, or a
                // source of no account
    kFailed,    // result != 0: nothing changed
    kUnpaired,  // a free with nothing live at its address
    kFreed,     // ended `ended` (its bytes: `ended_bytes`); on a last unmap, the
                // handle released while mapped
    kAllocated  // added `bytes`; ended `ended` too when its address was live
  };
  Kind kind = Kind::kNone;
  uint32_t account = kNoAccount;
  uint64_t bytes = 0;  // allocated
  uint32_t ended = kNoEvent;
  uint64_t ended_bytes = 0;
};

// The accounts as events are applied in time order. Holds the live
// allocations only (by address), so a writer can stream any trace's events
// through it.
class MemoryAccounts {
 public:
  explicit MemoryAccounts(const Trace& trace);
  MemoryOutcome apply(uint32_t id, const MemoryEvent& event);
  const std::vector<MemoryAccountKey>& keys() const { return keys_; }
  uint32_t find(const MemoryAccountKey& key) const;  // kNoAccount if none

 private:
  uint32_t find_or_add(const MemoryAccountKey& key);
  MemoryOutcome apply_mapping(const MemoryEvent& event);
  bool take(const MemoryAccountKey& key, uint64_t address, MemoryOutcome& out);
  struct AddressKey {
    uint32_t account;
    uint64_t address;
    bool operator==(const AddressKey&) const = default;
  };
  struct AddressHash {
    size_t operator()(const AddressKey& k) const {
      return std::hash<uint64_t>()(k.address * 0x9E3779B97F4A7C15ull ^ k.account);
    }
  };
  struct Live {
    uint32_t event;
    uint64_t bytes;
  };
  std::vector<MemoryAccountKey> keys_;
  std::unordered_map<AddressKey, Live, AddressHash> live_;
  std::unordered_map<uint32_t, uint32_t> source_of_thread_;  // merged traces only
  // VMM: each mapped range's handle, each handle's mappings, and the
  // handles released while mapped (-> their account).
  std::unordered_map<uint64_t, uint64_t> handle_at_;
  std::unordered_map<uint64_t, uint32_t> mappings_of_;
  std::unordered_map<uint64_t, uint32_t> released_mapped_;
};

// Each account's live bytes after every event that changed it, in time
// order: what the counter tracks draw. `visit(account, time_ns,
// live_bytes)`, accounts numbered as `accounts.keys()` (which it fills).
// Holds the live allocations and, for events out of time order, their order.
void walk_memory_live(const Trace& trace, MemoryAccounts& accounts,
                      const std::function<void(uint32_t, int64_t, uint64_t)>& visit);

// The events' ids in time order (ties as recorded): 0..n-1 when they are
// in order already, as recorded traces are.
std::vector<uint32_t> memory_event_order(const Trace& trace);

}  // namespace brickprof
