// Peak lookup for the roofline and transfer views (see machine_peaks.h).
#include "analysis/analyses/machine_peaks.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include "trace/model/device_peaks.h"
#include "trace/model/name_key.h"

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

// Which SIMD backends a text mentions (avx512/avx2/neon/scalar).
struct Mentions {
  bool avx512 = false, avx2 = false, neon = false, scalar = false;

  void read(std::string_view text) {
    const std::string s = lower_case(text);
    avx512 =
        avx512 || s.find("avx512") != std::string::npos || s.find("avx-512") != std::string::npos;
    avx2 = avx2 || s.find("avx2") != std::string::npos;
    neon = neon || s.find("neon") != std::string::npos;
    scalar = scalar || s.find("scalar") != std::string::npos;
  }
  // The widest one mentioned.
  std::optional<Backend> backend() const {
    if (avx512) return Backend::kAvx512;
    if (avx2) return Backend::kAvx2;
    if (neon) return Backend::kNeon;
    if (scalar) return Backend::kScalar;
    return std::nullopt;
  }
};

// The SIMD backend the trace's names mention, if any. Names are interned,
// so the string table is short at any size.
std::optional<Backend> backend_mentioned_in(const Trace& t) {
  Mentions m;
  for (StringId i = 0; i < t.strings.size(); ++i) m.read(t.strings.view(i));
  return m.backend();
}

// The same, AVX2 if none: the built-in table's row for the host.
Backend backend_named_in(const Trace& t) {
  return backend_mentioned_in(t).value_or(Backend::kAvx2);
}

constexpr std::string_view kMeasuredBy = "measured by the program";

// A source's words without the program's description: "measured by the
// program (read probe ...)" -> "measured by the program"; the table's
// "default (built-in RTX 4090 GPU peaks, not measured)" -> "built-in RTX
// 4090 default, not measured" (for a CPU without the row, which the
// heading names as the instruction set); others as they are.
std::string short_source(std::string_view source, bool gpu) {
  if (source.substr(0, kMeasuredBy.size()) == kMeasuredBy) return std::string(kMeasuredBy);
  if (source.substr(0, 8) != "default ") return std::string(source);
  if (!gpu) return "built-in default, not measured";
  return "built-in " + std::string(to_string(Backend::kGpu)) + " default, not measured";
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

std::string peaks_heading(const Trace& t, bool gpu, uint32_t device, const Peaks& p) {
  // A mixed source is "FLOP/s <a>; bandwidth <b>": shorten each part.
  std::string origin;
  const std::string_view source = p.source;
  constexpr std::string_view kFlops = "FLOP/s ", kBandwidth = "; bandwidth ";
  const size_t split = source.find(kBandwidth);
  if (source.substr(0, kFlops.size()) == kFlops && split != std::string_view::npos)
    origin = std::string(kFlops) +
             short_source(source.substr(kFlops.size(), split - kFlops.size()), gpu) +
             std::string(kBandwidth) + short_source(source.substr(split + kBandwidth.size()), gpu);
  else
    origin = short_source(source, gpu);
  if (gpu) {
    const Device* d = find_gpu(t, device);
    const std::string name = d && !d->name.empty() ? d->name + ", " : "";
    return "GPU " + std::to_string(device) + " peak (" + name + origin + ")";
  }
  // The instruction set: the one the measurement names, else the trace's
  // names (what the table row was picked by, for a default).
  Mentions said;
  said.read(source);
  std::optional<Backend> isa = said.backend();
  if (!isa) isa = backend_mentioned_in(t);
  if (!isa && p.is_default()) isa = Backend::kAvx2;
  return "CPU peak (" + (isa ? std::string(to_string(*isa)) + ", " : std::string()) + origin + ")";
}

std::string peaks_detail(const Peaks& p) {
  // The program's description, in the parentheses after kMeasuredBy.
  const size_t at = p.source.find(kMeasuredBy);
  if (at == std::string::npos) return "";
  std::string_view rest = std::string_view(p.source).substr(at + kMeasuredBy.size());
  if (rest.substr(0, 2) != " (") return "";
  rest.remove_prefix(2);
  // Up to the parenthesis that closes it.
  int depth = 1;
  for (size_t i = 0; i < rest.size(); ++i) {
    depth += rest[i] == '(' ? 1 : rest[i] == ')' ? -1 : 0;
    if (depth == 0) return std::string(rest.substr(0, i));
  }
  return std::string(rest);
}

}  // namespace brickprof
