// distributedInfo (see distributed_info.h).
#include "trace/formats/distributed_info.h"

#include <algorithm>

#include "trace/json/json_writer.h"
#include "trace/model/bricks.h"

namespace brickprof {
namespace {

// "nccl" when NCCL's kernels ran, "mpi" for MPI calls or an MPI launcher.
std::string backend_of(const Trace& t, bool nccl_kernels) {
  if (nccl_kernels) return "nccl";
  const std::string& l = t.process.launcher;
  if (!t.communicators.empty() || !t.comm_calls.empty() || l == "open-mpi" || l == "pmi" ||
      l == "pmix" || l == "mvapich" || l == "mpi")
    return "mpi";
  return "unknown";
}

}  // namespace

bool is_one_rank(const Trace& t) { return t.sources.empty() && t.process.rank >= 0; }

bool ran_communication_kernels(const Trace& t) {
  for (const Node& n : t.nodes)
    if (n.kind == NodeKind::kKernel && is_communication_kernel(t.name(n))) return true;
  return false;
}

std::optional<std::string> distributed_info_json(const Trace& t, bool nccl_kernels) {
  if (!is_one_rank(t)) return std::nullopt;
  std::string json = "{\"backend\": ";
  append_json_string(json, backend_of(t, nccl_kernels));
  json += ", \"rank\": " + std::to_string(t.process.rank);
  const int64_t world = std::max<int64_t>(t.process.world_size, t.process.rank + 1);
  json += ", \"world_size\": " + std::to_string(world) + "}";
  return json;
}

}  // namespace brickprof
