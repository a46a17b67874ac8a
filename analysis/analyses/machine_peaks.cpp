// Peak lookup for the roofline and transfer views (see machine_peaks.h).
#include "analysis/analyses/machine_peaks.h"

#include <algorithm>
#include <iterator>

#include "analysis/model/name_key.h"

namespace brickprof {
namespace {

const Device* find_gpu(const Trace& t, uint32_t id) {
  for (const Device& d : t.devices)
    if (d.id == id && !is_cpu_device(t, d)) return &d;
  return nullptr;
}

// One peak figure and where it came from.
struct PeakValue {
  double value = 0;
  std::string source;
};

// The override if set, else the trace's value if known (0 = not measured).
PeakValue pick(double override_value, double recorded, const std::string& recorded_source) {
  if (override_value > 0) return {override_value, "override"};
  if (recorded > 0) return {recorded, recorded_source};
  return {};
}

// Both figures, each missing one from `table`; the source names each
// figure's origin when they differ.
Peaks combine(PeakValue flops, PeakValue bw, const Peaks& table) {
  if (flops.value <= 0) flops = {table.gflops, table.source};
  if (bw.value <= 0) bw = {table.gbps, table.source};
  Peaks p;
  p.gflops = flops.value;
  p.gbps = bw.value;
  p.source = peaks_source_label(flops.source, bw.source);
  return p;
}

// The SIMD backend the trace's names mention (avx512/avx2/neon/scalar),
// AVX2 if none. Names are interned, so the string table is short at any size.
Backend backend_named_in(const Trace& t) {
  bool avx512 = false, avx2 = false, neon = false, scalar = false;
  for (StringId i = 0; i < t.strings.size(); ++i) {
    std::string s = lower_case(t.strings.view(i));
    avx512 =
        avx512 || s.find("avx512") != std::string::npos || s.find("avx-512") != std::string::npos;
    avx2 = avx2 || s.find("avx2") != std::string::npos;
    neon = neon || s.find("neon") != std::string::npos;
    scalar = scalar || s.find("scalar") != std::string::npos;
  }
  if (avx512) return Backend::kAvx512;
  if (avx2) return Backend::kAvx2;
  if (neon) return Backend::kNeon;
  if (scalar) return Backend::kScalar;
  return Backend::kAvx2;
}

// Each backend's name and built-in peaks, in Backend's order.
struct BuiltIn {
  std::string_view name;
  double gflops, gbps;
};
constexpr BuiltIn kBuiltIn[] = {
    {"scalar", 100, 25}, {"AVX2", 500, 50},         {"AVX-512", 2000, 100},
    {"NEON", 200, 40},   {"RTX 4090", 83000, 1008},
};
static_assert(std::size(kBuiltIn) == static_cast<size_t>(Backend::kGpu) + 1);

}  // namespace

std::string_view to_string(Backend b) { return kBuiltIn[static_cast<size_t>(b)].name; }

Peaks backend_default(Backend b) {
  Peaks p;
  p.gflops = kBuiltIn[static_cast<size_t>(b)].gflops;
  p.gbps = kBuiltIn[static_cast<size_t>(b)].gbps;
  // The figures are brickprof's own, typical of the backend: say so, and
  // that nothing here was measured.
  p.source = "default (built-in " + std::string(to_string(b)) +
             (b == Backend::kGpu ? " GPU" : " CPU") + " peaks, not measured)";
  return p;
}

bool is_cpu_device(const Trace& t, const Device& d) {
  if (d.id == kHostDeviceId || lower_case(d.name).rfind("cpu", 0) == 0) return true;
  for (const SourceInfo& s : t.sources)
    for (const SourceInfo::IdMap& m : s.devices)
      if (m.id == d.id && m.source_id == kHostDeviceId) return true;
  return false;
}

Peaks gpu_peaks(const Trace& t, uint32_t device, const PeakOverrides& o) {
  const Device* d = find_gpu(t, device);
  const std::string recorded =
      d && !d->peaks_source.empty() ? d->peaks_source : "device attributes";
  // Each figure on its own, as for the host: an override of one must not
  // call the other one overridden, nor be hidden behind the table's label
  // when the device recorded no peaks at all.
  PeakValue flops = pick(o.gflops, d ? d->peak_gflops : 0, recorded);
  PeakValue bw = pick(o.gbps, d ? d->peak_gbps : 0, recorded);
  return combine(flops, bw, backend_default(Backend::kGpu));
}

Peaks cpu_peaks(const Trace& t, const PeakOverrides& o) {
  // The last "cpu" entry (a merged trace may hold several) speaks for the host.
  const Device* cpu = nullptr;
  for (const Device& d : t.devices)
    if (is_cpu_device(t, d)) cpu = &d;
  const std::string recorded = cpu && !cpu->peaks_source.empty() ? cpu->peaks_source : "measured";
  // Each value on its own: a program may measure its bandwidth but not its
  // FLOP/s, and the label must not call the other one measured.
  PeakValue flops = pick(o.gflops, cpu ? cpu->peak_gflops : 0, recorded);
  PeakValue bw = pick(o.gbps, cpu ? cpu->peak_gbps : 0, recorded);
  // Naming the backend scans every string: only when the table is needed.
  if (flops.value > 0 && bw.value > 0) return combine(flops, bw, Peaks{});
  return combine(flops, bw, backend_default(backend_named_in(t)));
}

Peaks link_peak(const Trace& t, uint32_t device, const PeakOverrides& o) {
  Peaks p;
  if (o.link_gbps > 0) {
    p.gbps = o.link_gbps;
    p.source = "override";
    return p;
  }
  const Device* d = find_gpu(t, device);
  std::string name = d ? lower_case(d->name) : "";
  bool fast = name.find("h100") != std::string::npos || name.find("h200") != std::string::npos ||
              name.find("gh200") != std::string::npos || name.find("b200") != std::string::npos;
  p.gbps = fast ? 50 : 25;
  p.source = fast ? "default (PCIe 5.0 x16, not measured)" : "default (PCIe 4.0 x16, not measured)";
  return p;
}

std::string peaks_source_label(std::string_view flops_source, std::string_view bandwidth_source) {
  if (flops_source == bandwidth_source) return std::string(flops_source);
  return "FLOP/s " + std::string(flops_source) + "; bandwidth " + std::string(bandwidth_source);
}

}  // namespace brickprof
