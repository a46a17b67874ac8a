// Writes Chrome trace event JSON (see export_chrome.h).
#include "trace/formats/chrome.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "trace/derive/memory_accounts.h"
#include "trace/formats/distributed_info.h"
#include "trace/formats/source_processes.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/queries.h"

namespace brickprof {
namespace {

// Microseconds with nanosecond precision. Whole microseconds are written as
// integers; otherwise the shortest double that round-trips, which for n/1000
// is the exact 3-decimal form.
void write_us(JsonWriter& w, std::string_view key, int64_t ns) {
  w.key(key);
  if (ns % 1000 == 0)
    w.value(ns / 1000);
  else
    w.value(static_cast<double>(ns) / 1000.0);
}

void write_metadata(JsonWriter& w, std::string_view what, int64_t pid, int64_t tid,
                    std::string_view name) {
  w.newline().begin_object();
  w.field("ph", "M").field("name", what).field("pid", pid).field("tid", tid);
  w.key("args").begin_object().field("name", name).end_object();
  w.end_object();
}

void write_sort_index(JsonWriter& w, int64_t pid, int64_t index) {
  w.newline().begin_object();
  w.field("ph", "M").field("name", "process_sort_index").field("pid", pid).field("tid", 0);
  w.key("args").begin_object().field("sort_index", index).end_object();
  w.end_object();
}

void write_dims(JsonWriter& w, std::string_view key, const uint32_t (&d)[3]) {
  w.key(key).begin_array().value(d[0]).value(d[1]).value(d[2]).end_array();
}

void write_args(JsonWriter& w, uint32_t id, const Node& node, const GpuDetail* g,
                const CommCall* call) {
  w.key("args").begin_object();
  w.field("node", id);
  switch (node.kind) {
    case NodeKind::kLayer:
      w.field("layer", node.layer_index);
      break;
    case NodeKind::kBrick:
      w.field("brick_id", static_cast<int>(node.brick_id));
      w.field("category", to_string(node.category));
      break;
    default:
      if (node.category != Category::kNone) w.field("category", to_string(node.category));
      break;
  }
  if (call) {
    w.field("mpi_op", to_string(call->op)).field("bytes", call->bytes);
    if (call->seq) w.field("seq", call->seq);
    if (call->peer >= 0) w.field("peer", call->peer);
  }
  if (node.elements) w.field("elements", node.elements);
  if (node.flops > 0) w.field("flops", node.flops);
  if (node.bytes_moved > 0) w.field("bytes_moved", node.bytes_moved);
  if (g) {
    w.field("device", g->device).field("stream", g->stream).field("correlation", g->correlation);
    switch (node.kind) {
      case NodeKind::kKernel:
        write_dims(w, "grid", g->grid);
        write_dims(w, "block", g->block);
        w.field("smem", g->smem).field("registers", g->registers);
        w.key("ptx_hash").hex(g->ptx_hash);
        break;
      case NodeKind::kTransfer:
      case NodeKind::kMemset:
        w.field("bytes", g->bytes).field("direction", to_string(g->direction));
        w.field("src_kind", to_string(g->src_kind)).field("dst_kind", to_string(g->dst_kind));
        break;
      case NodeKind::kSync:
        w.field("sync", to_string(g->sync));
        break;
      default:
        break;
    }
  }
  if (node.parent != kNoNode) w.field("parent", node.parent);
  w.end_object();
}

// "GPU 0 (NVIDIA H100 80GB HBM3)".
std::string gpu_process_name(const Trace& trace, uint32_t device) {
  std::string name = "GPU " + std::to_string(device);
  for (const Device& d : trace.devices)
    if (d.id == device && !d.name.empty()) name += " (" + d.name + ")";
  return name;
}

// Capture windows on a track of their own in the (first) CPU process, so
// what was not recorded is visible as the space between them.
void write_capture_windows(JsonWriter& w, const std::vector<TimeRange>& windows, int64_t pid) {
  if (windows.empty()) return;
  write_metadata(w, "thread_name", pid, kCaptureTid, "capture windows");
  for (size_t i = 0; i < windows.size(); ++i) {
    w.newline().begin_object();
    w.field("ph", "X").field("name", "capture window " + std::to_string(i + 1));
    w.field("cat", "capture").field("pid", pid).field("tid", kCaptureTid);
    write_us(w, "ts", windows[i].start_ns);
    write_us(w, "dur", windows[i].end_ns - windows[i].start_ns);
    w.end_object();
  }
}

// One sample of a counter track ("ph":"C"): the track is named `name` on
// process `pid`, its value under `arg`.
void write_counter(JsonWriter& w, std::string_view name, std::string_view cat, int64_t pid,
                   int64_t t, std::string_view arg, double value) {
  w.newline().begin_object();
  w.field("ph", "C").field("name", name).field("cat", cat);
  w.field("pid", pid).field("tid", 0);
  write_us(w, "ts", t);
  w.key("args").begin_object().field(arg, value).end_object();
  w.end_object();
}

// The program's counters (each sample holds until the next) and its tokens
// so far, a track each on the reporting thread's process.
void write_program_counters(JsonWriter& w, const Trace& trace, const SourceProcesses& cpu) {
  std::map<int64_t, double> tokens;  // by process, so far
  for (const CounterSample& c : trace.counters) {
    const int64_t pid = cpu.of(c.thread).pid;
    if (c.kind == CounterKind::kTokens)
      write_counter(w, kTokensName, "tokens", pid, c.time_ns, "tokens", tokens[pid] += c.value);
    else
      write_counter(w, trace.strings.view(c.name), "counter", pid, c.time_ns, "value", c.value);
  }
}

// Each memory account's live bytes as a counter track ("ph":"C", one sample
// per change) on its device's process, the host's on its CPU process; a
// device with memory but no GPU work gets its process named here.
void write_memory_counters(JsonWriter& w, const Trace& trace, const SourceProcesses& cpu,
                           const std::set<std::pair<uint32_t, uint32_t>>& streams) {
  if (trace.memory.empty()) return;
  MemoryAccounts accounts(trace);
  std::vector<std::string> labels;
  std::vector<int64_t> pids;
  std::set<uint32_t> named;  // GPUs with a process name
  for (const auto& [device, stream] : streams) named.insert(device);
  walk_memory_live(trace, accounts, [&](uint32_t account, int64_t t, uint64_t live) {
    if (account >= labels.size()) {  // a new account: its first change
      const MemoryAccountKey& key = accounts.keys()[account];
      labels.push_back(account_label(trace, key));
      const bool host = key.device == kHostDeviceId;
      const size_t process = std::min<size_t>(key.source, cpu.list().size() - 1);
      pids.push_back(host ? cpu.list()[process].pid : kGpuPidBase + key.device);
      if (!host && named.insert(key.device).second) {
        write_metadata(w, "process_name", pids.back(), 0, gpu_process_name(trace, key.device));
        write_sort_index(w, pids.back(), 1 + key.device);
      }
    }
    write_counter(w, labels[account], "memory", pids[account], t, "bytes",
                  static_cast<double>(live));
  });
}

}  // namespace

struct ChromeSink::State {
  State(const Trace& h, std::ostream& out) : header(h), cpu(h), w(out) {}
  const Trace& header;
  const SourceProcesses cpu;
  JsonWriter w;
};

ChromeSink::ChromeSink(std::ostream& out) : out_(out) {}

ChromeSink::~ChromeSink() = default;

void ChromeSink::begin(const TraceHead& head) {
  s_ = std::make_unique<State>(head.header, out_);
  const Trace& trace = s_->header;
  const SourceProcesses& cpu = s_->cpu;
  JsonWriter& w = s_->w;
  std::set<uint32_t> threads = head.node_threads;
  // A thread's name: the last non-empty one the trace lists for it.
  std::map<uint32_t, std::string_view> names;
  for (const ThreadInfo& t : trace.threads) {
    threads.insert(t.tid);
    if (!t.name.empty()) names[t.tid] = t.name;
  }
  w.begin_object();
  // First, so the rank is the first "rank" a line-by-line reader meets.
  if (const auto info = distributed_info_json(trace, head.nccl_kernels))
    w.key("distributedInfo").raw(*info);
  w.key("traceEvents").begin_array();
  for (size_t i = 0; i < cpu.list().size(); ++i) {
    write_metadata(w, "process_name", cpu.list()[i].pid, 0, cpu.list()[i].name);
    // CPU processes first (the last at 0), then the GPUs at 1 + device.
    write_sort_index(w, cpu.list()[i].pid,
                     static_cast<int64_t>(i) - static_cast<int64_t>(cpu.list().size() - 1));
  }
  for (uint32_t tid : threads) {
    auto named = names.find(tid);
    std::string name =
        named != names.end() ? std::string(named->second) : "Thread " + std::to_string(tid);
    write_metadata(w, "thread_name", cpu.of(tid).pid, tid, name);
  }
  uint32_t last_device = UINT32_MAX;
  for (auto [device, stream] : head.streams) {
    int64_t gpid = kGpuPidBase + device;
    if (device != last_device) {
      write_metadata(w, "process_name", gpid, 0, gpu_process_name(trace, device));
      write_sort_index(w, gpid, 1 + device);
      last_device = device;
    }
    write_metadata(w, "thread_name", gpid, stream, "Stream " + std::to_string(stream));
  }
  write_capture_windows(w, trace.diagnostics.capture_windows, cpu.list().front().pid);
  write_memory_counters(w, trace, cpu, head.streams);
  write_program_counters(w, trace, cpu);
}

void ChromeSink::node(const NodeEvent& e) {
  const SourceProcesses& cpu = s_->cpu;
  const Trace& header = s_->header;
  JsonWriter& w = s_->w;
  const GpuDetail* g = e.detail;
  const Node* parent = e.parent;
  Node node = e.node;
  if (node.parent != kNoNode) node.parent = header.file_id(node.parent);  // as the file names it
  const uint32_t id = header.file_id(e.id);
  std::string_view name = e.name;
  const bool gpu = g && is_gpu_kind(node.kind);
  const int64_t epid = gpu ? kGpuPidBase + g->device : cpu.of(node.thread).pid;
  const int64_t etid = gpu ? g->stream : node.thread;
  w.newline().begin_object();
  // node_label allocates; most nodes carry their name as is.
  std::string label;
  if (name.empty() || node.kind == NodeKind::kTransfer || node.kind == NodeKind::kMemset) {
    label = node_label(name, node, g);
    name = label;
  }
  w.field("ph", "X").field("name", name).field("cat", to_string(node.kind));
  w.field("pid", epid).field("tid", etid);
  write_us(w, "ts", node.start_ns);
  write_us(w, "dur", node.duration_ns());
  write_args(w, id, node, g, e.call);
  w.end_object();
  if (!gpu || !parent) return;
  // A flow from the launching scope (at the API call, held inside the
  // scope so the arrow binds to it) to the GPU slice.
  if (!is_cpu_kind(parent->kind)) return;
  // Without a correlation id, one far above CUPTI's 32-bit counters.
  uint64_t flow_id = g->correlation ? g->correlation : (uint64_t{1} << 40) + id;
  int64_t at = g->api_start_ns ? g->api_start_ns : parent->start_ns;
  at = std::clamp(at, parent->start_ns, parent->end_ns);
  w.newline().begin_object();
  w.field("ph", "s").field("name", "launch").field("cat", "launch").field("id", flow_id);
  w.field("pid", cpu.of(parent->thread).pid).field("tid", parent->thread);
  write_us(w, "ts", at);
  w.end_object();
  w.newline().begin_object();
  w.field("ph", "f").field("bp", "e").field("name", "launch").field("cat", "launch");
  w.field("id", flow_id).field("pid", epid).field("tid", etid);
  write_us(w, "ts", node.start_ns);
  w.end_object();
}

// A rank computing on its CPU: its compute as Kineto kernel events on
// stream 0 of a process of its own, in whole microseconds as Kineto writes
// device events, so HTA's kernel-based temporal breakdown measures the CPU.
void ChromeSink::cpu_work_track() {
  const std::string label = "CPU work (rank " + std::to_string(s_->header.process.rank) + ")";
  write_metadata(s_->w, "process_name", kCpuWorkPid, 0, label);
  write_metadata(s_->w, "thread_name", kCpuWorkPid, 0, "compute (leaf bricks and scopes)");
}

void ChromeSink::cpu_work(const NodeEvent& e) {
  JsonWriter& w = s_->w;
  const Trace& header = s_->header;
  const auto whole_us = [](int64_t ns) { return (ns + 500) / 1000; };
  const int64_t ts = whole_us(e.node.start_ns);
  w.newline().begin_object();
  w.field("ph", "X").field("name", e.name).field("cat", "kernel");
  w.field("pid", kCpuWorkPid).field("tid", 0).field("ts", ts);
  w.field("dur", whole_us(e.node.end_ns) - ts);
  w.key("args").begin_object().field("node", header.file_id(e.id)).field("stream", 0).end_object();
  w.end_object();
}

// Kineto's step annotation, on the step's thread of the CPU process.
void ChromeSink::step(const NodeEvent& e, size_t n) {
  JsonWriter& w = s_->w;
  const Trace& header = s_->header;
  w.newline().begin_object();
  w.field("ph", "X").field("name", "ProfilerStep#" + std::to_string(n));
  w.field("cat", "user_annotation").field("pid", header.process.pid).field("tid", e.node.thread);
  w.key("ts").value(static_cast<double>(e.node.start_ns) / 1000.0);
  w.key("dur").value(static_cast<double>(e.node.end_ns - e.node.start_ns) / 1000.0);
  w.key("args").begin_object().field("node", header.file_id(e.id)).end_object();
  w.end_object();
}

void ChromeSink::end(const TraceStats*) {
  const Trace& trace = s_->header;
  JsonWriter& w = s_->w;
  w.end_array();
  w.field("displayTimeUnit", "ns");
  w.key("otherData").begin_object();
  w.field("clock", trace.process.clock).field("pid", trace.process.pid);
  w.field("host", trace.process.host);
  w.end_object();
  w.end_object().newline();
  w.flush();
}

}  // namespace brickprof
