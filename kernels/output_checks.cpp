// bricklayer's output checks (see output_checks.h).
#include "kernels/output_checks.h"

#include <brickprof/brickprof.h>

#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

namespace bricklayer {
namespace {

// The elements of `n`'s output that its op wrote, as (offset, count) runs:
// a KV-cache write fills each sequence's rows at the step's position, every
// other op the step's first rows.
std::vector<std::pair<int64_t, int64_t>> written(const Graph& g, const Node& n, int pos) {
  if (n.op != Op::Copy) return {{0, g.rows() * n.n}};
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int b = 0; b < g.cfg.batch; ++b)
    runs.emplace_back((static_cast<int64_t>(b) * g.cfg.context + pos) * n.n, g.seq_tokens * n.n);
  return runs;
}

}  // namespace

Fault parse_fault(const std::string& spec, const Graph& g, std::string* error) {
  Fault f;
  const size_t first = spec.find(':');
  const size_t second = first == std::string::npos ? first : spec.find(':', first + 1);
  const std::string kind = spec.substr(0, first);
  if (second == std::string::npos || (kind != "perturb" && kind != "nan")) {
    *error = "--fault: expected perturb:LAYER:BRICK or nan:LAYER:BRICK, got '" + spec + "'";
    return f;
  }
  const std::string layer = spec.substr(first + 1, second - first - 1);
  const std::string brick = spec.substr(second + 1);
  char* end = nullptr;
  const long index = std::strtol(layer.c_str(), &end, 10);
  if (layer.empty() || *end != '\0' || index < 0 || index >= static_cast<long>(g.layers.size())) {
    *error = "--fault: LAYER must be from 0 to " + std::to_string(g.layers.size() - 1) + ", got '" +
             layer + "'";
    return f;
  }
  std::string names;
  const auto [begin, stop] = g.layers[static_cast<size_t>(index)];
  for (size_t i = begin; i < stop; ++i) {
    const std::string name = brick_name(g.nodes[i].brick);
    if (name == brick) {
      f.kind = kind == "nan" ? FaultKind::Nan : FaultKind::Perturb;
      f.layer = static_cast<int>(index);
      f.brick = g.nodes[i].brick;
      return f;
    }
    if (names.find(name) == std::string::npos) names += (names.empty() ? "" : ", ") + name;
  }
  *error = "--fault: no brick '" + brick + "' in a layer (" + names + ")";
  return f;
}

void check_output(const Graph& g, const Node& n, Dispatcher& d, const Step& s,
                  const OutputChecks& checks) {
  const Fault& f = checks.fault;
  const bool faulted = f.kind != FaultKind::None && n.layer == f.layer && n.brick == f.brick;
  if (!faulted && !checks.checksums) return;
  static thread_local std::vector<float> host;
  for (const auto& [offset, count] : written(g, n, s.pos)) {
    host.resize(static_cast<size_t>(count));
    d.read_at(n.out, offset, host.data(), count);
    if (faulted) {
      if (f.kind == FaultKind::Nan)
        host[0] = std::numeric_limits<float>::quiet_NaN();
      else
        for (float& x : host) x *= 1.0f + 1e-2f;
      d.write_at(n.out, offset, host.data(), count);
    }
    if (checks.checksums)
      brickprof_checksum(g.tensors[static_cast<size_t>(n.out)].name.c_str(), host.data(),
                         static_cast<uint64_t>(count), "f32");
  }
}

}  // namespace bricklayer
