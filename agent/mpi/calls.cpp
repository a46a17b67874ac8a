// The MPI call log, the communicator registry and the process's place in
// MPI_COMM_WORLD (see calls.h).
#include "agent/mpi/calls.h"

#include <pthread.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_map>

#include "agent/lifecycle/agent.h"
#include "agent/lifecycle/critical_section.h"
#include "agent/mpi/clock_sync.h"
#include "agent/mpi/job_summary.h"
#include "agent/mpi/missed.h"
#include "agent/mpi/peers.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent::mpi {
namespace {

constexpr size_t kBlock = 4096;  // records per block of the log

using CommGroupFn = int(Handle, Handle*);
using GroupSizeFn = int(Handle, int*);
using GroupTranslateFn = int(Handle, int, const int*, Handle, int*);
using GroupFreeFn = int(Handle*);
using TypeSizeFn = int(Handle, int*);
using CommTestInterFn = int(Handle, int*);

Pmpi<CommGroupFn> pmpi_comm_group("PMPI_Comm_group");
Pmpi<GroupSizeFn> pmpi_group_size("PMPI_Group_size");
Pmpi<GroupTranslateFn> pmpi_group_translate("PMPI_Group_translate_ranks");
Pmpi<GroupFreeFn> pmpi_group_free("PMPI_Group_free");
Pmpi<TypeSizeFn> pmpi_type_size("PMPI_Type_size");
Pmpi<CommTestInterFn> pmpi_comm_test_inter("PMPI_Comm_test_inter");
Pmpi<CommIntFn> pmpi_comm_remote_size("PMPI_Comm_remote_size");

struct CommState {
  Communicator info;
  int remote_size = 0;  // an intercommunicator's remote group; 0 for an intracommunicator
  uint64_t seq = 0;     // collectives made on it so far
};

// Everything under one lock: MPI calls take microseconds, the lock tens of
// nanoseconds, and a program may call MPI from several threads. Nothing
// calls MPI while it is held: an MPI library may hold a lock of its own
// while it calls the program back (an attribute's delete callback, an
// error handler), and the program may call MPI there, through us.
struct State {
  std::mutex mutex;
  std::vector<std::unique_ptr<CallRecord[]>> blocks;
  uint64_t used = 0;      // slots handed out
  uint64_t capacity = 0;  // 0 until the first call reads the config
  uint64_t dropped = 0;
  std::vector<CommState> comms;                         // by id
  std::unordered_map<uint64_t, uint32_t> by_handle;     // live handles
  std::unordered_map<uint64_t, uint32_t> same_members;  // member hash -> communicators so far
  bool initialized = false;
  bool finalized = false;
  int64_t world_rank = -1;
  int64_t world_size = 0;
  ClockSync clock_sync;
  Handle sync_comm = 0;  // the members' own communicator (clock_sync.h)
  std::string peers_note;
};

// Never freed: calls may come in while the process exits.
State& state() {
  static State* s = new State();
  return *s;
}

// A fork child: only the forking thread goes on, and another may have held
// the lock. MPI does not survive fork; the log stays for the child's trace
// as the parent's events do not (the recorder starts afresh).
void after_fork_in_child() { new (&state().mutex) std::mutex(); }
[[maybe_unused]] const bool kForkHandler =
    (pthread_atfork(nullptr, nullptr, after_fork_in_child), true);

uint32_t site_of(CommOp op) {
  static std::atomic<uint32_t> sites[static_cast<size_t>(CommOp::kWaitany) + 1];
  std::atomic<uint32_t>& site = sites[static_cast<size_t>(op)];
  uint32_t id = site.load(std::memory_order_relaxed);
  if (id == 0) {  // "(other)" is site 0: a real site is never 0
    id = Recorder::intern_site(NodeKind::kScope, -1, mpi_function_name(op));
    site.store(id, std::memory_order_relaxed);
  }
  return id;
}

// The call log holds a record per call, up to an eighth of
// BRICKPROF_BUFFER_MB; past it calls are counted, not logged.
CallRecord* reserve_slot(State& s, uint64_t* index) {
  if (s.capacity == 0)
    s.capacity = std::max<uint64_t>(kBlock, config().buffer_bytes / 8 / sizeof(CallRecord));
  if (s.used >= s.capacity) {
    ++s.dropped;
    return nullptr;
  }
  if (s.used % kBlock == 0) s.blocks.emplace_back(new CallRecord[kBlock]);
  *index = s.used++;
  return &s.blocks.back()[*index % kBlock];
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

// The communicator's (local group's) members as world ranks, in its rank
// order; empty if MPI cannot say.
std::vector<int> world_ranks_of(Handle comm) {
  const Abi& a = abi();
  auto* group_of = pmpi_comm_group.get();
  auto* group_size = pmpi_group_size.get();
  auto* translate = pmpi_group_translate.get();
  auto* group_free = pmpi_group_free.get();
  if (!group_of || !group_size || !translate || !group_free) return {};
  Handle group = 0, world = 0;
  int n = 0;
  if (group_of(comm, &group) != kSuccess) return {};
  std::vector<int> out;
  if (group_size(group, &n) == kSuccess && n > 0 && group_of(a.comm_world, &world) == kSuccess) {
    std::vector<int> ranks(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) ranks[static_cast<size_t>(i)] = i;
    out.resize(static_cast<size_t>(n));
    if (translate(group, n, ranks.data(), world, out.data()) != kSuccess) out.clear();
    group_free(&world);
  }
  group_free(&group);
  return out;
}

// What MPI says of a communicator the registry has not seen: asked with no
// lock of ours held (see State).
struct Facts {
  int size = 0;
  int rank = -1;
  int remote_size = 0;
  uint64_t members = 0xcbf29ce484222325ull;  // hash of the members' world ranks
};

Facts ask_mpi(Handle comm) {
  Facts f;
  if (auto* size_of = pmpi_comm_size.get()) size_of(comm, &f.size);
  if (auto* rank_of = pmpi_comm_rank.get()) rank_of(comm, &f.rank);
  int inter = 0;
  if (auto* test = pmpi_comm_test_inter.get(); test && test(comm, &inter) == kSuccess && inter)
    if (auto* remote = pmpi_comm_remote_size.get()) remote(comm, &f.remote_size);
  for (int r : world_ranks_of(comm)) f.members = mix(f.members, static_cast<uint64_t>(r));
  return f;
}

// The registry entry of a live communicator, made on first sight: its key
// hashes its members' world ranks and how many communicators with the same
// members this process made before it, which every member agrees on.
CommState* find(State& s, Handle comm) {
  auto it = s.by_handle.find(abi().handle_bits(comm));
  return it == s.by_handle.end() ? nullptr : &s.comms[it->second];
}

CommState& add(State& s, Handle comm, const Facts& f) {
  const Abi& a = abi();
  if (CommState* known = find(s, comm)) return *known;  // another thread added it meanwhile
  CommState c;
  c.info.id = static_cast<uint32_t>(s.comms.size());
  const bool world = a.handle_bits(comm) == a.handle_bits(a.comm_world);
  c.info.name = world ? "MPI_COMM_WORLD" : "comm " + std::to_string(c.info.id);
  c.info.size = f.size;
  c.info.rank = f.rank;
  c.remote_size = f.remote_size;
  const uint32_t ordinal = s.same_members[f.members]++;
  c.info.key = mix(f.members, ordinal);
  s.by_handle.emplace(a.handle_bits(comm), c.info.id);
  s.comms.push_back(std::move(c));
  return s.comms.back();
}

// The entry for `comm`, asking MPI first if it is new. Under no lock; the
// returned copy is what the caller may use.
CommState known_or_added(State& s, Handle comm) {
  {
    AgentLock lock(s.mutex);
    if (CommState* known = find(s, comm)) return *known;
  }
  const Facts facts = ask_mpi(comm);
  AgentLock lock(s.mutex);
  return add(s, comm, facts);
}

}  // namespace

Call::Call(CommOp op, Handle comm) : op_(op) {
  State& s = state();
  {
    AgentLock lock(s.mutex);
    slot_ = reserve_slot(s, &slot_index_);
  }
  comm_ = comm;
  if (slot_) {
    *slot_ = CallRecord{};
    slot_->op = op;
  }
  // A call past the log's cap is still a scope, with no details to name.
  open_ = Recorder::push(site_of(op), slot_ ? kCallTag | slot_index_ : 0);
  if (!open_) slot_ = nullptr;  // recorder off or full: no node will name the slot
}

bool Call::done(int rc) {
  if (open_) Recorder::pop();
  open_ = false;
  if (rc != kSuccess) return false;
  State& s = state();
  {
    AgentLock lock(s.mutex);
    if ((!s.initialized && op_ != CommOp::kInit) || (s.finalized && op_ != CommOp::kFinalize))
      return false;
  }
  const CommState known = known_or_added(s, comm_);
  comm_size_ = std::max(1, known.info.size);
  comm_rank_ = known.info.rank;
  intercomm_ = known.remote_size > 0;
  peer_count_ = intercomm_ ? known.remote_size : comm_size_;
  // Collectives are numbered whether or not this one is logged, so every
  // member counts alike.
  AgentLock lock(s.mutex);
  CommState* c = find(s, comm_);
  const uint64_t seq = c && is_collective(op_) ? ++c->seq : 0;
  if (!slot_ || !c) return false;
  slot_->comm = c->info.id;
  slot_->seq = seq;
  return true;
}

bool Call::is_root(int root) const {
  return intercomm_ ? root == abi().root : root == comm_rank_;
}

bool Call::sits_out(int root) const { return intercomm_ && root == abi().proc_null; }

uint64_t Call::type_bytes(int64_t count, Handle type) {
  int size = 0;
  auto* f = pmpi_type_size.get();
  if (count <= 0 || !f || f(type, &size) != kSuccess || size < 0) return 0;
  return static_cast<uint64_t>(count) * static_cast<uint64_t>(size);
}

void Call::set_count(int64_t count) {
  if (slot_ && count > 0) slot_->elements = static_cast<uint64_t>(count);
}

void Call::set_bytes(uint64_t send, uint64_t recv) {
  if (!slot_) return;
  slot_->bytes = send;
  slot_->recv_bytes = recv;
}

void Call::set_peer(int peer, int tag) {
  if (!slot_) return;
  slot_->peer = peer;
  slot_->tag = tag;
}

void forget_communicator(Handle comm) {
  State& s = state();
  AgentLock lock(s.mutex);
  if (s.initialized) s.by_handle.erase(abi().handle_bits(comm));
}

void register_communicator(Handle comm) {
  State& s = state();
  {
    AgentLock lock(s.mutex);
    if (!s.initialized || s.finalized) return;
  }
  known_or_added(s, comm);
}

void after_finalize() {
  State& s = state();
  AgentLock lock(s.mutex);
  s.finalized = true;
}

void on_initialized() {
  State& s = state();
  const Abi& a = abi();
  {
    AgentLock lock(s.mutex);
    if (s.initialized) return;
    s.initialized = true;
  }
  const CommState world = known_or_added(s, a.comm_world);
  {
    AgentLock lock(s.mutex);
    s.world_rank = world.info.rank;
    s.world_size = world.info.size;
  }
  if (world.info.size < 2) return;  // no peer to find or to measure against
  // Outside the lock: the exchanges wait on the other ranks.
  Call sync(CommOp::kClockSync, a.comm_world);
  const Peers peers = find_peers(world.info.rank, world.info.size);
  const Handle comm = start_clock_sync(peers.members);
  ClockSync::Sample sample;
  const bool measured = comm && measure_clock(comm, &sample);
  sync.done(kSuccess);
  AgentLock lock(s.mutex);
  s.sync_comm = comm;
  s.peers_note = peers.note;
  if (!comm && !peers.note.empty())
    s.peers_note += ". No job summary is reduced either: it goes over the same members";
  if (comm) s.clock_sync.reference_rank = 0;
  if (measured) s.clock_sync.samples.push_back(sample);
}

void before_finalize() {
  State& s = state();
  Handle comm = 0;
  {
    AgentLock lock(s.mutex);
    if (!s.initialized || !s.sync_comm) return;
    comm = s.sync_comm;
    s.sync_comm = 0;
  }
  Call sync(CommOp::kClockSync, abi().comm_world);
  ClockSync::Sample sample;
  const bool measured = measure_clock(comm, &sample);
  sync.done(kSuccess);
  JobContext job;
  {
    AgentLock lock(s.mutex);
    if (measured) s.clock_sync.samples.push_back(sample);
    job = {s.world_rank, s.world_size, s.clock_sync, s.peers_note};
  }
  // Over the same members, with both clock samples taken: the summary's
  // times are on rank 0's clock as `merge` puts them.
  reduce_job_summary(comm, job);
  end_clock_sync(&comm);
}

bool collective_of(uint64_t recorded, CollectiveArrival* out) {
  if ((recorded & kCallTag) == 0) return false;
  const uint64_t slot = recorded & ~kCallTag;
  State& s = state();
  AgentLock lock(s.mutex);
  if (slot >= s.used) return false;
  const CallRecord& r = s.blocks[slot / kBlock][slot % kBlock];
  if (!is_collective(r.op) || r.seq == 0 || r.comm >= s.comms.size()) return false;
  const Communicator& comm = s.comms[r.comm].info;
  const WaitPattern pattern = wait_pattern(r.op);
  out->comm_key = comm.key;
  out->seq = r.seq;
  out->op = r.op;
  out->root = pattern == WaitPattern::kOneToAll || pattern == WaitPattern::kAllToOne ? r.peer : -1;
  out->comm_rank = comm.rank;
  out->comm_size = comm.size;
  out->bytes = r.bytes;
  return true;
}

Snapshot snapshot() {
  State& s = state();
  Snapshot out;
  {
    AgentLock lock(s.mutex);
    out.initialized = s.initialized;
    out.world_rank = s.world_rank;
    out.world_size = s.world_size;
    out.calls.reserve(s.used);
    for (uint64_t i = 0; i < s.used; ++i) out.calls.push_back(s.blocks[i / kBlock][i % kBlock]);
    for (const CommState& c : s.comms) out.communicators.push_back(c.info);
    out.clock_sync = s.clock_sync;
    out.dropped_calls = s.dropped;
    if (!s.peers_note.empty()) out.notes.push_back(s.peers_note);
  }
  for (std::string& note : missed_calls(out.initialized)) out.notes.push_back(std::move(note));
  return out;
}

}  // namespace brickprof::agent::mpi
