// Cross-rank collective matching and waits (see collectives.h).
#include "analysis/analyses/collectives.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "trace/json/json_writer.h"

namespace brickprof {
namespace {

struct InstanceKey {
  uint64_t comm_key;
  uint64_t seq;
  bool operator==(const InstanceKey&) const = default;
};
struct InstanceKeyHash {
  size_t operator()(const InstanceKey& k) const {
    return static_cast<size_t>(k.comm_key * 0x9e3779b97f4a7c15ull ^ k.seq);
  }
};

int64_t clamp_wait(int64_t until, const CollectiveCall& c) {
  return std::clamp<int64_t>(until - c.arrival_ns, 0, c.end_ns - c.arrival_ns);
}

// Each call's wait, by the op's pattern; `root` is the root's comm rank.
void assign_waits(CollectiveInstance& inst, CollectiveCall* calls, int32_t root) {
  const WaitPattern pattern = wait_pattern(inst.op);
  CollectiveCall* end = calls + inst.call_count;
  const CollectiveCall* root_call = nullptr;
  for (CollectiveCall* c = calls; c != end; ++c)
    if (c->comm_rank == root) root_call = c;
  switch (pattern) {
    case WaitPattern::kAllToAll:
      for (CollectiveCall* c = calls; c != end; ++c)
        c->wait_ns = clamp_wait(inst.last_arrival_ns, *c);
      break;
    case WaitPattern::kOneToAll:
      if (root_call)
        for (CollectiveCall* c = calls; c != end; ++c)
          if (c != root_call) c->wait_ns = clamp_wait(root_call->arrival_ns, *c);
      break;
    case WaitPattern::kAllToOne:
      for (CollectiveCall* c = calls; c != end; ++c)
        if (c->comm_rank == root) c->wait_ns = clamp_wait(inst.last_arrival_ns, *c);
      break;
    case WaitPattern::kPrefix: {
      std::sort(calls, end, [](const CollectiveCall& a, const CollectiveCall& b) {
        return a.comm_rank < b.comm_rank;
      });
      int64_t latest = INT64_MIN;
      for (CollectiveCall* c = calls; c != end; ++c) {
        latest = std::max(latest, c->arrival_ns);
        c->wait_ns = clamp_wait(latest, *c);
      }
      break;
    }
    case WaitPattern::kNone:
      break;
  }
}

}  // namespace

CollectiveReport analyze_collectives(const Trace& t) {
  CollectiveReport r;
  r.ranks = index_ranks(t);
  // Instances in order of first sight, then each instance's calls together.
  std::unordered_map<InstanceKey, uint32_t, InstanceKeyHash> found;
  std::vector<uint32_t> instance_of(t.comm_calls.size(), UINT32_MAX);
  for (size_t i = 0; i < t.comm_calls.size(); ++i) {
    const CommCall& call = t.comm_calls[i];
    if (!is_collective(call.op) || call.seq == 0 || call.comm >= t.communicators.size() ||
        call.node >= t.nodes.size())
      continue;
    const Communicator& comm = t.communicators[call.comm];
    auto [it, added] =
        found.emplace(InstanceKey{comm.key, call.seq}, static_cast<uint32_t>(r.instances.size()));
    if (added) {
      CollectiveInstance inst;
      inst.op = call.op;
      inst.seq = call.seq;
      inst.comm = call.comm;
      inst.comm_size = comm.size;
      inst.bytes = call.bytes;
      const WaitPattern pattern = wait_pattern(call.op);
      if (pattern == WaitPattern::kOneToAll || pattern == WaitPattern::kAllToOne)
        inst.root = call.peer;
      r.instances.push_back(inst);
    }
    instance_of[i] = it->second;
    ++r.instances[it->second].call_count;
  }
  // Counting sort of the calls by instance.
  uint32_t next = 0;
  for (CollectiveInstance& inst : r.instances) {
    inst.first_call = next;
    next += inst.call_count;
    inst.call_count = 0;
  }
  r.calls.resize(next);
  for (size_t i = 0; i < t.comm_calls.size(); ++i) {
    if (instance_of[i] == UINT32_MAX) continue;
    const CommCall& call = t.comm_calls[i];
    CollectiveInstance& inst = r.instances[instance_of[i]];
    const Node& n = t.nodes[call.node];
    CollectiveCall& c = r.calls[inst.first_call + inst.call_count++];
    c.node = call.node;
    c.rank = r.ranks.of_node[call.node];
    c.comm_rank = t.communicators[call.comm].rank;
    c.arrival_ns = n.start_ns;
    c.end_ns = n.end_ns;
  }
  finish_collectives(r);
  return r;
}

void finish_collectives(CollectiveReport& r) {
  r.per_rank.resize(r.ranks.ranks.size());
  for (uint32_t i = 0; i < r.per_rank.size(); ++i) r.per_rank[i].rank = i;
  std::map<CommOp, CollectiveOpTotals> ops;
  for (size_t k = 0; k < r.instances.size(); ++k) {
    CollectiveInstance& inst = r.instances[k];
    CollectiveCall* calls = r.calls.data() + inst.first_call;
    inst.first_arrival_ns = INT64_MAX;
    inst.last_arrival_ns = INT64_MIN;
    for (uint32_t j = 0; j < inst.call_count; ++j) {
      const CollectiveCall& c = calls[j];
      inst.first_arrival_ns = std::min(inst.first_arrival_ns, c.arrival_ns);
      if (c.arrival_ns > inst.last_arrival_ns) {
        inst.last_arrival_ns = c.arrival_ns;
        inst.straggler = c.rank;
      }
      inst.end_ns = std::max(inst.end_ns, c.end_ns);
    }
    assign_waits(inst, calls, inst.root);
    CollectiveOpTotals& op = ops[inst.op];
    op.op = inst.op;
    ++op.instances;
    op.bytes += inst.bytes;
    op.skew_ns += inst.skew_ns();
    op.max_skew_ns = std::max(op.max_skew_ns, inst.skew_ns());
    for (uint32_t j = 0; j < inst.call_count; ++j) {
      const CollectiveCall& c = calls[j];
      inst.wait_ns += c.wait_ns;
      if (c.rank >= r.per_rank.size()) continue;
      RankWaits& w = r.per_rank[c.rank];
      ++w.calls;
      w.call_ns += c.end_ns - c.arrival_ns;
      w.wait_ns += c.wait_ns;
    }
    op.wait_ns += inst.wait_ns;
    if (inst.call_count > 1 && inst.straggler < r.per_rank.size())
      ++r.per_rank[inst.straggler].last_arrivals;
    if (!inst.complete()) ++r.incomplete;
  }
  for (auto& [op, totals] : ops) r.ops.push_back(totals);
  // In time order; the calls stay where they are (instances point at them).
  std::stable_sort(r.instances.begin(), r.instances.end(),
                   [](const CollectiveInstance& a, const CollectiveInstance& b) {
                     return a.first_arrival_ns < b.first_arrival_ns;
                   });
}

void write_collective_ops_json(JsonWriter& w, const std::vector<CollectiveOpTotals>& ops) {
  w.key("ops").begin_array();
  for (const CollectiveOpTotals& op : ops)
    w.newline()
        .begin_object()
        .field("op", to_string(op.op))
        .field("instances", op.instances)
        .field("bytes", op.bytes)
        .field("skew_ns", op.skew_ns)
        .field("max_skew_ns", op.max_skew_ns)
        .field("wait_ns", op.wait_ns)
        .end_object();
  w.end_array();
}

void write_instance_figures_json(JsonWriter& w, const CollectiveInstance& inst) {
  w.field("seq", inst.seq).field("comm_size", inst.comm_size).field("root", inst.root);
  w.field("bytes", inst.bytes).field("first_arrival_ns", inst.first_arrival_ns);
  w.field("last_arrival_ns", inst.last_arrival_ns).field("skew_ns", inst.skew_ns());
  w.field("end_ns", inst.end_ns).field("straggler", inst.straggler);
  w.field("wait_ns", inst.wait_ns).field("complete", inst.complete());
}

}  // namespace brickprof
