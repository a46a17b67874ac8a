// Multi-rank merge (see trace_merge.h).
#include "analysis/analyses/trace_merge.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>
#include <utility>

namespace brickprof {
namespace {

// The warnings a merge writes; a merged input's are written anew.
constexpr std::string_view kMergedRanks = "merged ranks: ";
constexpr std::string_view kManyHosts = "merged traces from ";

// "rank 0", then "rank 0 #2", "rank 0 #3" for repeats, so two runs of one
// rank (or two merged traces that both hold rank 0) stay apart.
std::string unique_label(const std::string& wanted, std::set<std::string>& used) {
  std::string label = wanted;
  for (int n = 2; !used.insert(label).second; ++n) label = wanted + " #" + std::to_string(n);
  return label;
}

// `name` with its "<from>: " prefix replaced by "<to>: ", or `to: name` when
// it has none (a source that was not merged before).
std::string relabel(const std::string& name, const std::string& from, const std::string& to) {
  if (!from.empty() && name.size() > from.size() + 1 && name.compare(0, from.size(), from) == 0 &&
      name.compare(from.size(), 2, ": ") == 0)
    return to + name.substr(from.size());
  return to + ": " + name;
}

// One input's sources: its own (a merged trace) or one made from its process.
std::vector<SourceInfo> sources_of(const Trace& t, size_t position, const std::string& file) {
  if (!t.sources.empty()) return t.sources;
  SourceInfo s;
  int64_t rank = t.process.rank >= 0 ? t.process.rank : static_cast<int64_t>(position);
  s.label = "rank " + std::to_string(rank);
  s.file = file;
  s.process = t.process;
  s.cupti = t.diagnostics.cupti;
  s.nvtx = t.diagnostics.nvtx;
  return {s};
}

// Joins per-source status lines: the line itself when all agree.
std::string joined_status(const std::vector<SourceInfo>& sources, std::string SourceInfo::*field,
                          const std::string& fallback) {
  if (sources.empty()) return fallback;
  bool same = std::all_of(sources.begin(), sources.end(),
                          [&](const SourceInfo& s) { return s.*field == sources.front().*field; });
  if (same) return sources.front().*field;
  std::string out;
  for (const SourceInfo& s : sources) out += (out.empty() ? "" : "; ") + s.label + ": " + s.*field;
  return out;
}

// Moves a recorded trace's times onto rank 0's clock: t - offset(t), the
// line through its clock-sync samples. Identity for a trace without them
// (rank 0 itself, a program without MPI) and for a merged one (done).
class Alignment {
 public:
  explicit Alignment(const Trace& t) : sync_(t.sources.empty() ? &t.process.clock_sync : nullptr) {
    if (sync_ && sync_->samples.empty()) sync_ = nullptr;
  }
  int64_t operator()(int64_t local_ns) const { return sync_ ? sync_->aligned(local_ns) : local_ns; }
  // A node's times, its end never before its start.
  void node(Node& n) const {
    n.start_ns = (*this)(n.start_ns);
    n.end_ns = std::max(n.start_ns, (*this)(n.end_ns));
  }
  void detail(GpuDetail& g) const {
    g.api_start_ns = (*this)(g.api_start_ns);
    g.api_end_ns = (*this)(g.api_end_ns);
  }
  SourceInfo::Alignment describe() const {
    SourceInfo::Alignment a;
    if (!sync_) return a;
    a.applied = true;
    a.at_ns = sync_->samples.front().local_ns;
    a.offset_ns = sync_->offset_at(a.at_ns);
    if (sync_->samples.size() > 1 && sync_->samples.back().local_ns != a.at_ns)
      a.drift = (sync_->offset_at(sync_->samples.back().local_ns) - a.offset_ns) /
                static_cast<double>(sync_->samples.back().local_ns - a.at_ns);
    return a;
  }

 private:
  const ClockSync* sync_;
};

// Whether every source's clock was measured against the same reference rank
// (an MPI job): then their times are one timeline whatever the hosts.
bool one_timeline(const std::vector<SourceInfo>& sources) {
  if (sources.empty() || !sources.front().process.clock_sync.measured()) return false;
  const int32_t reference = sources.front().process.clock_sync.reference_rank;
  return std::all_of(sources.begin(), sources.end(), [&](const SourceInfo& s) {
    return s.process.clock_sync.reference_rank == reference;
  });
}

// What the inputs merged so far have taken: ids, labels and PTX hashes.
struct MergedSoFar {
  Trace out;
  std::set<std::string> labels;
  uint32_t next_device = 0;
  uint32_t next_thread = 1;
  uint32_t next_range_lane = kRangeLaneBase;
  std::unordered_map<uint64_t, size_t> ptx_index;  // hash -> position in out.ptx
};

// Appends one input to the merged trace, its ids moved past the earlier
// inputs'. The steps run in this order because each numbers what the next
// refers to (devices and threads before nodes, nodes before calls).
class InputMerge {
 public:
  InputMerge(MergedSoFar& m, const Trace& t, size_t position, const std::string& file)
      : m_(m),
        out_(m.out),
        t_(t),
        was_merged_(!t.sources.empty()),
        sources_(sources_of(t, position, file)) {}

  void append() {
    label_sources();
    map_devices_and_threads();
    const Alignment align(t_);
    if (!was_merged_) sources_[0].alignment = align.describe();
    node_base_ = static_cast<uint32_t>(out_.nodes.size());
    append_python();
    append_nodes_and_edges(align);
    append_communication();
    append_memory(align);
    keep_one_ptx_per_hash();
    remap_source_ids();
    merge_diagnostics();
    for (SourceInfo& s : sources_) out_.sources.push_back(std::move(s));
  }

 private:
  // Unique labels, and which of this input's sources owns each of its
  // thread and device ids (a plain input is one source that owns all).
  void label_sources() {
    for (size_t s = 0; s < sources_.size(); ++s) {
      for (const SourceInfo::IdMap& id : sources_[s].threads) thread_owner_[id.id] = s;
      for (const SourceInfo::IdMap& id : sources_[s].devices) device_owner_[id.id] = s;
      old_labels_.push_back(was_merged_ ? sources_[s].label : "");
      sources_[s].label = unique_label(sources_[s].label, m_.labels);
    }
  }

  std::string name_in(size_t s, const std::string& name) const {
    return relabel(name, old_labels_[s], sources_[s].label);
  }

  static size_t owner(const std::unordered_map<uint32_t, size_t>& owners, uint32_t id) {
    auto it = owners.find(id);
    return it == owners.end() ? size_t{0} : it->second;
  }

  void map_devices_and_threads() {
    for (const Device& d : t_.devices) {
      Device copy = d;
      copy.id = m_.next_device++;
      copy.name = name_in(owner(device_owner_, d.id), d.name);
      device_map_[d.id] = copy.id;
      out_.devices.push_back(copy);
    }
    for (const ThreadInfo& th : t_.threads)
      out_.threads.push_back(ThreadInfo{
          thread_of(th.tid), name_in(owner(thread_owner_, th.tid),
                                     th.name.empty() ? std::to_string(th.tid) : th.name)});
  }

  // Range lanes stay range lanes (annotations, left out of the graph).
  uint32_t thread_of(uint32_t tid) {
    uint32_t& next = is_range_lane(tid) ? m_.next_range_lane : m_.next_thread;
    auto [it, added] = thread_map_.emplace(tid, next);
    if (added) ++next;
    return it->second;
  }

  // A device a node names but the input does not list gets a placeholder.
  uint32_t device_of(uint32_t d) {
    auto [it, added] = device_map_.emplace(d, m_.next_device);
    if (added) {
      Device placeholder;
      placeholder.id = m_.next_device++;
      placeholder.name = sources_.front().label + ": device " + std::to_string(d);
      out_.devices.push_back(placeholder);
    }
    return it->second;
  }

  // Python stacks: appended, their ids and frame ids moved past the earlier inputs'.
  void append_python() {
    stack_base_ = static_cast<uint32_t>(out_.python_stacks.size());
    const auto frame_base = static_cast<uint32_t>(out_.python_frames.size());
    out_.python_frames.insert(out_.python_frames.end(), t_.python_frames.begin(),
                              t_.python_frames.end());
    for (std::vector<uint32_t> stack : t_.python_stacks) {
      for (uint32_t& f : stack) f += frame_base;
      out_.python_stacks.push_back(std::move(stack));
    }
  }

  void append_nodes_and_edges(const Alignment& align) {
    for (const Node& n : t_.nodes) {
      Node copy = n;
      copy.name = out_.strings.intern(t_.name(n));
      copy.parent = n.parent == kNoNode ? kNoNode : n.parent + node_base_;
      copy.thread = thread_of(n.thread);
      align.node(copy);
      if (const GpuDetail* d = t_.detail(n)) {
        GpuDetail g = *d;
        g.device = device_of(d->device);
        align.detail(g);
        if (g.python_stack != kNoPythonStack) g.python_stack += stack_base_;
        out_.add_gpu_node(copy, g);
      } else {
        copy.detail = kNoDetail;
        out_.add_node(copy);
      }
    }
    for (const Edge& e : t_.edges) out_.add_edge(e.src + node_base_, e.dst + node_base_, e.type);
  }

  // Communicators belong to the source that used them; calls follow their
  // nodes and communicators.
  void append_communication() {
    const auto comm_base = static_cast<uint32_t>(out_.communicators.size());
    const auto source_base = static_cast<uint32_t>(out_.sources.size());
    for (const Communicator& c : t_.communicators) {
      Communicator copy = c;
      copy.id += comm_base;
      copy.source = source_base + (was_merged_ ? c.source : 0);
      out_.communicators.push_back(std::move(copy));
    }
    for (const CommCall& c : t_.comm_calls) {
      CommCall copy = c;
      copy.node += node_base_;
      copy.comm += comm_base;
      out_.comm_calls.push_back(copy);
    }
  }

  // CPU counters follow their nodes. Inputs that counted other events
  // (another BRICKPROF_CPU_COUNTERS mode) cannot share the section: the
  // first input's events are kept, and a warning names what was left out.
  void append_cpu_counters() {
    const CpuCounters& in = t_.cpu_counters;
    if (in.nodes.empty()) return;
    CpuCounters& out = out_.cpu_counters;
    if (out.events.empty()) out.events = in.events;
    if (out.events != in.events) {
      out_.diagnostics.warnings.push_back(
          "merge: CPU counters of an input left out: it counted other events than the first");
      return;
    }
    for (NodeCpuCounters n : in.nodes) {
      n.node += node_base_;
      out.nodes.push_back(n);
    }
  }

  // GPU metrics follow their kernels' nodes, as the CPU counters do; the
  // sampling counts add up.
  void append_gpu_metrics() {
    const GpuMetrics& in = t_.gpu_metrics;
    if (in.empty()) return;
    GpuMetrics& out = out_.gpu_metrics;
    if (out.metrics.empty()) {
      out.metrics = in.metrics;
      out.weights = in.weights;
      out.passes = in.passes;
      out.every = in.every;
    }
    if (out.metrics != in.metrics || out.weights != in.weights) {
      out_.diagnostics.warnings.push_back(
          "merge: GPU metrics of an input left out: it collected other metrics than the first");
      return;
    }
    out.occurrences_sampled += in.occurrences_sampled;
    out.occurrences_skipped += in.occurrences_skipped;
    for (NodeGpuMetrics n : in.nodes) {
      n.node += node_base_;
      out.nodes.push_back(std::move(n));
    }
  }

  // Memory events and counter samples follow their threads, devices, scopes
  // and stacks (shapes, checksums and tiles their nodes); host
  // memory keeps the host's device id. Put in time order with the other
  // inputs' once all are in (sort_memory).
  void append_memory(const Alignment& align) {
    for (const MemoryEvent& e : t_.memory) {
      MemoryEvent copy = e;
      copy.time_ns = align(e.time_ns);
      copy.thread = thread_of(e.thread);
      if (e.device != kHostDeviceId) copy.device = device_of(e.device);
      if (e.scope != kNoNode) copy.scope += node_base_;
      if (e.python_stack != kNoPythonStack) copy.python_stack += stack_base_;
      copy.name = out_.strings.intern(t_.strings.view(e.name));
      out_.memory.push_back(copy);
    }
    for (const NodeShape& s : t_.shapes) {
      out_.shapes.push_back(s);
      out_.shapes.back().node += node_base_;
    }
    for (const CounterSample& c : t_.counters) {
      CounterSample copy = c;
      copy.time_ns = align(c.time_ns);
      copy.thread = thread_of(c.thread);
      if (c.scope != kNoNode) copy.scope += node_base_;
      copy.name = out_.strings.intern(t_.strings.view(c.name));
      out_.counters.push_back(copy);
    }
    for (const TileStats& s : t_.tiles) {  // by node, as the nodes are appended
      out_.tiles.push_back(s);
      out_.tiles.back().node += node_base_;
      out_.tiles.back().thread = thread_of(s.thread);
    }
    append_cpu_counters();
    append_gpu_metrics();
    for (const OutputChecksum& c : t_.checksums) {
      out_.checksums.push_back(c);
      out_.checksums.back().node += node_base_;
      out_.checksums.back().name = out_.strings.intern(t_.strings.view(c.name));
    }
  }

  // Ranks load the same modules: keep one per hash, preferring one with text.
  void keep_one_ptx_per_hash() {
    for (const PtxModule& mod : t_.ptx) {
      auto [it, added] = m_.ptx_index.emplace(mod.hash, out_.ptx.size());
      if (added)
        out_.ptx.push_back(mod);
      else if (out_.ptx[it->second].source.empty() && !mod.source.empty())
        out_.ptx[it->second] = mod;
    }
  }

  // Sources now name the merged ids: a plain input's maps are made here,
  // a merged input's are carried through this renumbering.
  void remap_source_ids() {
    if (!was_merged_) {
      for (const auto& [old_id, new_id] : thread_map_)
        sources_[0].threads.push_back({new_id, old_id});
      for (const auto& [old_id, new_id] : device_map_)
        sources_[0].devices.push_back({new_id, old_id});
    } else {
      for (SourceInfo& s : sources_) {
        for (SourceInfo::IdMap& id : s.threads)
          id.id = thread_map_.count(id.id) ? thread_map_[id.id] : id.id;
        for (SourceInfo::IdMap& id : s.devices)
          id.id = device_map_.count(id.id) ? device_map_[id.id] : id.id;
      }
    }
    for (SourceInfo& s : sources_) {
      auto by_id = [](const SourceInfo::IdMap& a, const SourceInfo::IdMap& b) {
        return a.id < b.id;
      };
      std::sort(s.threads.begin(), s.threads.end(), by_id);
      std::sort(s.devices.begin(), s.devices.end(), by_id);
    }
  }

  void merge_diagnostics() {
    const Diagnostics& dg = t_.diagnostics;
    Diagnostics& merged = out_.diagnostics;
    merged.dropped_events += dg.dropped_events;
    merged.dropped_names += dg.dropped_names;
    merged.ignored_api_calls += dg.ignored_api_calls;
    merged.dropped_activity_records += dg.dropped_activity_records;
    merged.zero_timestamp_records += dg.zero_timestamp_records;
    merged.unbalanced_pops += dg.unbalanced_pops;
    merged.open_scopes_at_exit += dg.open_scopes_at_exit;
    merged.scopes_cut_by_capture += dg.scopes_cut_by_capture;
    merged.records_outside_capture += dg.records_outside_capture;
    if (dg.checksum_mode != "off") merged.checksum_mode = dg.checksum_mode;  // times perturbed
    if (dg.capture != "all") {  // which part of each run was recorded
      std::string part = was_merged_ ? dg.capture : sources_[0].label + ": " + dg.capture;
      merged.capture = merged.capture == "all" ? part : merged.capture + "; " + part;
    }
    if (dg.cpu_counters != "off") {  // what each run's CPU counters were
      std::string part = was_merged_ ? dg.cpu_counters : sources_[0].label + ": " + dg.cpu_counters;
      merged.cpu_counters = merged.cpu_counters == "off" ? part : merged.cpu_counters + "; " + part;
    }
    if (dg.gpu_metrics != "off") {  // what each run's range profiler did
      std::string part = was_merged_ ? dg.gpu_metrics : sources_[0].label + ": " + dg.gpu_metrics;
      merged.gpu_metrics = merged.gpu_metrics == "off" ? part : merged.gpu_metrics + "; " + part;
    }
    for (const std::string& w : dg.warnings) {
      if (!was_merged_) {
        merged.warnings.push_back(sources_[0].label + ": " + w);
        continue;
      }
      if (w.compare(0, kMergedRanks.size(), kMergedRanks) == 0 ||
          w.compare(0, kManyHosts.size(), kManyHosts) == 0)
        continue;    // written anew by merged_warnings
      size_t s = 0;  // the source whose label the warning starts with
      while (s < sources_.size() &&
             w.compare(0, old_labels_[s].size() + 2, old_labels_[s] + ": ") != 0)
        ++s;
      merged.warnings.push_back(s < sources_.size() ? name_in(s, w) : w);
    }
  }

  MergedSoFar& m_;
  Trace& out_;
  const Trace& t_;
  const bool was_merged_;
  std::vector<SourceInfo> sources_;
  std::vector<std::string> old_labels_;
  std::unordered_map<uint32_t, size_t> thread_owner_, device_owner_;
  std::unordered_map<uint32_t, uint32_t> device_map_, thread_map_;  // input id -> merged id
  uint32_t node_base_ = 0;
  uint32_t stack_base_ = 0;
};

// The merged process is the first source's (a real pid, program and host),
// over the span of all of them; rank -1 says it is several.
void merge_process(Trace& out) {
  if (!out.sources.empty()) out.process = out.sources.front().process;
  out.process.rank = -1;
  out.process.clock_sync = {};  // the merged times are rank 0's: nothing left to align
  for (size_t i = 0; i < out.sources.size(); ++i) {
    const SourceInfo& s = out.sources[i];
    // The span on the merged timeline (sources keep their own clock's).
    const ClockSync& sync = s.process.clock_sync;
    auto aligned = [&](int64_t ns) {
      return s.alignment.applied ? ns - static_cast<int64_t>(std::llround(sync.offset_at(ns))) : ns;
    };
    if (i == 0 || aligned(s.process.start_ns) < out.process.start_ns)
      out.process.start_ns = aligned(s.process.start_ns);
    out.process.end_ns = std::max(out.process.end_ns, aligned(s.process.end_ns));
  }
}

// Capture windows belong to one process's recorder: one list for several
// would clip one rank's GPUs with another's windows. Only a merge of a
// single process keeps them.
void merge_capture_windows(Trace& out, const std::vector<Trace>& inputs) {
  if (out.sources.size() != 1) return;
  out.diagnostics.capture_windows = inputs[0].diagnostics.capture_windows;
  out.diagnostics.activity_off = inputs[0].diagnostics.activity_off;
}

// The statuses and warnings that speak of the merge as a whole.
void merged_warnings(Trace& out) {
  out.diagnostics.cupti = joined_status(out.sources, &SourceInfo::cupti, out.diagnostics.cupti);
  out.diagnostics.nvtx = joined_status(out.sources, &SourceInfo::nvtx, out.diagnostics.nvtx);
  std::set<std::string> hosts;
  std::string list;
  for (const SourceInfo& s : out.sources) {
    if (!s.process.host.empty()) hosts.insert(s.process.host);
    std::string rank = s.label.compare(0, 5, "rank ") == 0 ? s.label.substr(5) : s.label;
    list += (list.empty() ? "" : ", ") + rank + " (pid " + std::to_string(s.process.pid) + ")";
  }
  if (hosts.size() > 1 && !one_timeline(out.sources)) {
    std::string names;
    for (const std::string& h : hosts) names += (names.empty() ? "" : ", ") + h;
    out.diagnostics.warnings.push_back(std::string(kManyHosts) + std::to_string(hosts.size()) +
                                       " hosts (" + names +
                                       "): each host has its own clock, so times across hosts "
                                       "are not on one timeline");
  }
  out.diagnostics.warnings.push_back(std::string(kMergedRanks) + list);
}

}  // namespace

bool align_to_reference_clock(Trace& trace) {
  const Alignment align(trace);
  if (!align.describe().applied) return false;
  for (Node& n : trace.nodes) align.node(n);
  for (GpuDetail& g : trace.gpu) align.detail(g);
  for (MemoryEvent& e : trace.memory) e.time_ns = align(e.time_ns);
  return true;
}

Trace merge_traces(const std::vector<Trace>& inputs, const std::vector<std::string>& files) {
  MergedSoFar merged;
  for (size_t r = 0; r < inputs.size(); ++r)
    InputMerge(merged, inputs[r], r, r < files.size() ? files[r] : "").append();
  Trace& out = merged.out;
  merge_process(out);
  merge_capture_windows(out, inputs);
  std::stable_sort(out.memory.begin(), out.memory.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) { return a.time_ns < b.time_ns; });
  std::stable_sort(out.counters.begin(), out.counters.end(),
                   [](const CounterSample& a, const CounterSample& b) { return a.time_ns < b.time_ns; });
  merged_warnings(out);
  return std::move(out);
}

}  // namespace brickprof
