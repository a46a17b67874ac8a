// The agents of an MPI job finding each other through PMIx (see peers.h).
#include "agent/mpi/peers.h"

#include <memory>

#include "agent/mpi/pmix.h"

namespace brickprof::agent::mpi {
namespace {

constexpr int kAgentWaitS = 2;    // step 2: rank 0 publishes as it leaves MPI_Init
constexpr int kReadyWaitS = 2;    // step 3
constexpr int kMembersWaitS = 30;  // step 4: rank 0 has the agent, it will publish
constexpr const char* kAgentKey = "brickprof.agent";
constexpr const char* kReadyKey = "brickprof.ready";
constexpr const char* kMembersKey = "brickprof.members";

std::string list(const std::vector<int>& ranks, size_t shown = 16) {
  std::string out;
  for (size_t i = 0; i < ranks.size() && i < shown; ++i)
    out += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > shown) out += " and " + std::to_string(ranks.size() - shown) + " more";
  return out;
}

std::string encode(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += std::to_string(r) + " ";
  return out;
}

std::vector<int> decode(const std::string& text) {
  std::vector<int> out;
  int value = -1;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      value = (value < 0 ? 0 : value * 10) + (c - '0');
    } else if (value >= 0) {
      out.push_back(value);
      value = -1;
    }
  }
  return out;
}

Peers as_rank_zero(int64_t world_size) {
  std::vector<int64_t> others;
  for (int64_t r = 1; r < world_size; ++r) others.push_back(r);
  std::unique_ptr<bool[]> ready(new bool[others.size()]);
  pmix::lookup_all(others.data(), others.size(), kReadyKey, kReadyWaitS, ready.get());
  Peers peers;
  std::vector<int> without;
  peers.members.push_back(0);
  for (size_t i = 0; i < others.size(); ++i)
    (ready[i] ? peers.members : without).push_back(static_cast<int>(others[i]));
  // Published even when alone: the ready ranks wait for it.
  if (!pmix::publish(kMembersKey, encode(peers.members))) {
    // A rank that reads nothing in time leaves itself out, so do we.
    peers.members.clear();
    peers.note = "MPI: the list of ranks with the brickprof agent could not be published (PMIx): "
                 "this rank's clock is not aligned with the others'";
    return peers;
  }
  if (!without.empty())
    peers.note = "MPI: " + std::to_string(world_size - static_cast<int64_t>(without.size())) +
                 " of " + std::to_string(world_size) +
                 " ranks have the brickprof agent; ranks without it (or that did not answer "
                 "within " + std::to_string(kReadyWaitS) + " s of MPI_Init): " + list(without) +
                 ". Their calls are in no trace and their clocks are not aligned with this one";
  if (peers.members.size() < 2) peers.members.clear();
  return peers;
}

Peers as_other_rank(int64_t world_rank) {
  Peers peers;
  std::string ignored;
  if (!pmix::lookup(0, kAgentKey, kAgentWaitS, &ignored)) {
    peers.note = "MPI: rank 0 has no brickprof agent (none seen within " +
                 std::to_string(kAgentWaitS) +
                 " s of MPI_Init): this rank's clock is not aligned with rank 0's, and which "
                 "other ranks have the agent is not known here";
    return peers;
  }
  std::string members;
  if (!pmix::publish(kReadyKey, "1") ||
      !pmix::lookup(0, kMembersKey, kMembersWaitS, &members)) {
    peers.note = "MPI: rank 0 has the brickprof agent but the two could not agree (PMIx): this "
                 "rank's clock is not aligned with rank 0's";
    return peers;
  }
  peers.members = decode(members);
  bool in = false;
  for (int r : peers.members) in = in || r == world_rank;
  if (!in) {
    peers.members.clear();
    peers.note = "MPI: this rank answered rank 0 too late (over " + std::to_string(kReadyWaitS) +
                 " s after MPI_Init): its clock is not aligned with rank 0's";
  }
  if (peers.members.size() < 2) peers.members.clear();
  return peers;
}

}  // namespace

Peers find_peers(int64_t world_rank, int64_t world_size) {
  if (world_size < 2) return {};
  if (!pmix::available() || pmix::own_rank() != world_rank) {
    Peers peers;
    peers.note = "MPI: the launcher offers no PMIx, through which the ranks with the brickprof "
                 "agent find each other: the clocks are not aligned across ranks (a job on one "
                 "machine shares one clock anyway)";
    return peers;
  }
  if (!pmix::publish(kAgentKey, "1")) {
    Peers peers;
    peers.note = "MPI: this rank could not tell the others it has the brickprof agent (PMIx): "
                 "its clock is not aligned with theirs";
    return peers;
  }
  return world_rank == 0 ? as_rank_zero(world_size) : as_other_rank(world_rank);
}

}  // namespace brickprof::agent::mpi
