// distributedInfo and the CPU work track (see distributed_info.h).
#include "trace/formats/distributed_info.h"

#include <algorithm>

#include "trace/derive/cpu_work.h"
#include "trace/json/json_writer.h"
#include "trace/model/bricks.h"

namespace brickprof {
namespace {

bool one_rank(const Trace& t) { return t.sources.empty() && t.process.rank >= 0; }

// "nccl" when NCCL's kernels ran, "mpi" for MPI calls or an MPI launcher.
std::string backend_of(const Trace& t, bool nccl_kernels) {
  if (nccl_kernels) return "nccl";
  const std::string& l = t.process.launcher;
  if (!t.communicators.empty() || !t.comm_calls.empty() || l == "open-mpi" || l == "pmi" ||
      l == "pmix" || l == "mvapich" || l == "mpi")
    return "mpi";
  return "unknown";
}

int64_t whole_us(int64_t ns) { return (ns + 500) / 1000; }

}  // namespace

bool ran_communication_kernels(const Trace& t) {
  for (const Node& n : t.nodes)
    if (n.kind == NodeKind::kKernel && is_communication_kernel(t.name(n))) return true;
  return false;
}

std::optional<std::string> distributed_info_json(const Trace& t, bool nccl_kernels) {
  if (!one_rank(t)) return std::nullopt;
  std::string json = "{\"backend\": ";
  append_json_string(json, backend_of(t, nccl_kernels));
  json += ", \"rank\": " + std::to_string(t.process.rank);
  const int64_t world = std::max<int64_t>(t.process.world_size, t.process.rank + 1);
  json += ", \"world_size\": " + std::to_string(world) + "}";
  return json;
}

void write_cpu_work_track(const Trace& t, int64_t pid, JsonWriter& w) {
  if (!one_rank(t)) return;
  for (const Node& n : t.nodes)
    if (is_device_op(n.kind)) return;  // measured on its GPUs
  const std::vector<CpuWork> work = classify_cpu_work(t);
  const std::string label = "CPU work (rank " + std::to_string(t.process.rank) + ")";
  auto metadata = [&](const char* what, const std::string& name) {
    w.newline().begin_object();
    w.field("ph", "M").field("name", what).field("pid", pid).field("tid", 0);
    w.key("args").begin_object().field("name", name).end_object();
    w.end_object();
  };
  metadata("process_name", label);
  metadata("thread_name", "compute (leaf bricks and scopes)");
  for (uint32_t id = 0; id < t.nodes.size(); ++id) {
    if (work[id] != CpuWork::kCompute) continue;
    const Node& n = t.nodes[id];
    const int64_t ts = whole_us(n.start_ns);
    w.newline().begin_object();
    w.field("ph", "X").field("name", t.name(n)).field("cat", "kernel");
    w.field("pid", pid).field("tid", 0).field("ts", ts).field("dur", whole_us(n.end_ns) - ts);
    w.key("args").begin_object().field("node", t.file_id(id)).field("stream", 0).end_object();
    w.end_object();
  }
}

void write_profiler_steps(const Trace& t, int64_t pid, JsonWriter& w) {
  if (!one_rank(t) || t.steps_name.empty()) return;
  std::vector<uint32_t> steps;
  for (uint32_t id = 0; id < t.nodes.size(); ++id) {
    const Node& n = t.nodes[id];
    if (n.parent == kNoNode && is_cpu_kind(n.kind) && t.name(n) == t.steps_name)
      steps.push_back(id);
  }
  std::sort(steps.begin(), steps.end(),
            [&](uint32_t a, uint32_t b) { return t.nodes[a].start_ns < t.nodes[b].start_ns; });
  for (size_t k = 0; k < steps.size(); ++k) {
    const Node& n = t.nodes[steps[k]];
    w.newline().begin_object();
    w.field("ph", "X").field("name", "ProfilerStep#" + std::to_string(k));
    w.field("cat", "user_annotation").field("pid", pid).field("tid", n.thread);
    w.key("ts").value(static_cast<double>(n.start_ns) / 1000.0);
    w.key("dur").value(static_cast<double>(n.end_ns - n.start_ns) / 1000.0);
    w.key("args").begin_object().field("node", t.file_id(steps[k])).end_object();
    w.end_object();
  }
}

}  // namespace brickprof
