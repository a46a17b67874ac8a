// PMIx client calls (see pmix.h), declared here from PMIx's ABI (the
// structures and constants of pmix_common.h, the same in PMIx 3, 4 and 5)
// so that the agent builds and loads without PMIx.
#include "agent/mpi/pmix.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "agent/mpi/abi.h"

namespace brickprof::agent::mpi::pmix {
namespace {

constexpr size_t kMaxNamespace = 255;  // PMIX_MAX_NSLEN
constexpr size_t kMaxKey = 511;        // PMIX_MAX_KEYLEN
constexpr int kSuccess = 0;            // PMIX_SUCCESS
constexpr int kNotFound = -46;         // PMIX_ERR_NOT_FOUND
constexpr uint16_t kInt = 6;           // PMIX_INT
constexpr uint16_t kString = 3;        // PMIX_STRING
constexpr uint8_t kGlobal = 3;         // PMIX_GLOBAL: every process of the job may read it
constexpr const char* kTimeout = "pmix.timeout";  // PMIX_TIMEOUT, an int of seconds

struct Proc {  // pmix_proc_t
  char nspace[kMaxNamespace + 1];
  uint32_t rank;
};
struct Value {  // pmix_value_t: its type, then a union of 24 bytes
  uint16_t type;
  union {
    int32_t integer;
    char* string;
    unsigned char bytes[24];
  } data;
};
struct Info {  // pmix_info_t
  char key[kMaxKey + 1];
  uint32_t flags;
  Value value;
};
static_assert(sizeof(Proc) == 260 && offsetof(Proc, rank) == 256);
static_assert(sizeof(Value) == 32 && offsetof(Value, data) == 8);
static_assert(sizeof(Info) == 552 && offsetof(Info, value) == 520);

using InitializedFn = int();
using PutFn = int(uint8_t scope, const char* key, Value* value);
using CommitFn = int();
using GetFn = int(const Proc* proc, const char* key, const Info* info, size_t ninfo, Value** value);
using ValueCallback = void (*)(int status, Value* value, void* data);
using GetNbFn = int(const Proc* proc, const char* key, const Info* info, size_t ninfo,
                    ValueCallback callback, void* data);
using ValueDestructFn = void(Value* value);

Pmpi<InitializedFn> pmix_initialized("PMIx_Initialized");
Pmpi<PutFn> pmix_put("PMIx_Put");
Pmpi<CommitFn> pmix_commit("PMIx_Commit");
Pmpi<GetFn> pmix_get("PMIx_Get");
Pmpi<GetNbFn> pmix_get_nb("PMIx_Get_nb");
Pmpi<ValueDestructFn> pmix_value_destruct("PMIx_Value_destruct");

// The launcher names each client's namespace and rank in its environment.
bool proc_of(int64_t rank, Proc* proc) {
  const char* nspace = std::getenv("PMIX_NAMESPACE");
  if (!nspace || !*nspace || std::strlen(nspace) > kMaxNamespace || rank < 0) return false;
  std::memset(proc, 0, sizeof *proc);
  std::strcpy(proc->nspace, nspace);
  proc->rank = static_cast<uint32_t>(rank);
  return true;
}

Info timeout_info(int seconds) {
  Info info;
  std::memset(&info, 0, sizeof info);
  std::strcpy(info.key, kTimeout);
  info.value.type = kInt;
  info.value.data.integer = seconds;
  return info;
}

// A value PMIx handed over (PMIX_VALUE_RELEASE).
void release(Value* value) {
  if (!value) return;
  if (auto* destruct = pmix_value_destruct.get()) {
    destruct(value);
    std::free(value);
  }  // else left: a few bytes, once
}

// One lookup_all: its answers outlive a caller that stopped waiting (a late
// answer lands here), so a batch not fully answered is never freed.
enum Answer : int { kWaiting, kFound, kAskAgain, kNone };
struct Batch {
  explicit Batch(size_t n) : answers(new std::atomic<int>[n]), slots(new Slot[n]) {}
  struct Slot {
    Batch* batch;
    size_t index;
  };
  std::unique_ptr<std::atomic<int>[]> answers;
  std::unique_ptr<Slot[]> slots;
};

// A rank's store answers "not found" for a key it did not have at its last
// commit; one that commits the key later then needs asking again.
Answer answer_of(int status) {
  return status == kSuccess ? kFound : status == kNotFound ? kAskAgain : kNone;
}

void on_answer(int status, Value*, void* data) {
  auto* slot = static_cast<Batch::Slot*>(data);
  slot->batch->answers[slot->index].store(answer_of(status));
}

std::chrono::steady_clock::time_point after(int seconds) {
  return std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
}

int seconds_left(std::chrono::steady_clock::time_point deadline) {
  const auto left = deadline - std::chrono::steady_clock::now();
  return static_cast<int>(std::chrono::ceil<std::chrono::seconds>(left).count());
}

void pause_before_asking_again() { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }

}  // namespace

bool available() {
  auto* initialized = pmix_initialized.get();
  Proc proc;
  return initialized && initialized() && pmix_put.get() && pmix_commit.get() && pmix_get.get() &&
         pmix_get_nb.get() && own_rank() >= 0 && proc_of(0, &proc);
}

int64_t own_rank() {
  const char* rank = std::getenv("PMIX_RANK");
  if (!rank || !*rank) return -1;
  char* end = nullptr;
  const long long value = std::strtoll(rank, &end, 10);
  return *end == '\0' && value >= 0 ? value : -1;
}

bool publish(const char* key, const std::string& value) {
  Value v;
  std::memset(&v, 0, sizeof v);
  v.type = kString;
  v.data.string = const_cast<char*>(value.c_str());  // PMIx copies it
  return pmix_put.get()(kGlobal, key, &v) == kSuccess && pmix_commit.get()() == kSuccess;
}

bool lookup(int64_t rank, const char* key, int timeout_s, std::string* value) {
  Proc proc;
  if (!proc_of(rank, &proc)) return false;
  const auto deadline = after(timeout_s);
  for (int left = timeout_s; left > 0; left = seconds_left(deadline)) {
    const Info info = timeout_info(left);
    Value* got = nullptr;
    const int status = pmix_get.get()(&proc, key, &info, 1, &got);
    if (status == kSuccess && got) {
      const bool ok = got->type == kString && got->data.string;
      if (ok) *value = got->data.string;
      release(got);
      return ok;
    }
    if (answer_of(status) != kAskAgain) return false;
    pause_before_asking_again();
  }
  return false;
}

void lookup_all(const int64_t* ranks, size_t count, const char* key, int timeout_s,
                bool* found) {
  auto* batch = new Batch(count);
  const auto deadline = after(timeout_s);
  for (size_t i = 0; i < count; ++i) {
    batch->slots[i] = {batch, i};
    batch->answers[i].store(kAskAgain);
  }
  // Ask every rank whose answer is not final, until all are or time is up;
  // PMIx itself answers a rank that never publishes when the wait it was
  // given ends.
  for (int left = timeout_s; left > 0; left = seconds_left(deadline)) {
    bool final = true;
    for (size_t i = 0; i < count; ++i) {
      int answer = batch->answers[i].load();
      if (answer == kAskAgain) {
        Proc proc;
        const Info info = timeout_info(left);
        batch->answers[i].store(kWaiting);
        if (!proc_of(ranks[i], &proc) ||
            pmix_get_nb.get()(&proc, key, &info, 1, on_answer, &batch->slots[i]) != kSuccess)
          batch->answers[i].store(kNone);
        answer = batch->answers[i].load();
      }
      final = final && (answer == kFound || answer == kNone);
    }
    if (final) break;
    pause_before_asking_again();
  }
  bool all_final = true;
  for (size_t i = 0; i < count; ++i) {
    const int answer = batch->answers[i].load();
    found[i] = answer == kFound;
    all_final = all_final && (answer == kFound || answer == kNone);
  }
  if (all_final) delete batch;
}

}  // namespace brickprof::agent::mpi::pmix
