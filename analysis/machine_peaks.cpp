// Peak lookup for the roofline and transfer views (see machine_peaks.h).
#include "analysis/machine_peaks.h"

#include <algorithm>
#include <cctype>

namespace brickprof {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

const Device* find_gpu(const Trace& t, uint32_t id) {
  for (const Device& d : t.devices)
    if (d.id == id && !is_cpu_device(d)) return &d;
  return nullptr;
}

}  // namespace

std::string_view to_string(Backend b) {
  switch (b) {
    case Backend::kScalar: return "scalar";
    case Backend::kAvx2: return "AVX2";
    case Backend::kAvx512: return "AVX-512";
    case Backend::kNeon: return "NEON";
    case Backend::kGpu: return "GPU RTX 4090";
  }
  return "?";
}

Peaks backend_default(Backend b) {
  Peaks p;
  switch (b) {
    case Backend::kScalar: p.gflops = 100; p.gbps = 25; break;
    case Backend::kAvx2: p.gflops = 500; p.gbps = 50; break;
    case Backend::kAvx512: p.gflops = 2000; p.gbps = 100; break;
    case Backend::kNeon: p.gflops = 200; p.gbps = 40; break;
    case Backend::kGpu: p.gflops = 83000; p.gbps = 1008; break;
  }
  p.source = "default (seed table: " + std::string(to_string(b)) + ", not measured)";
  return p;
}

bool is_cpu_device(const Device& d) { return lower(d.name).rfind("cpu", 0) == 0; }

Peaks gpu_peaks(const Trace& t, uint32_t device, const PeakOverrides& o) {
  Peaks p;
  const Device* d = find_gpu(t, device);
  Peaks fallback = backend_default(Backend::kGpu);
  if (d && d->peak_gflops > 0) p.gflops = d->peak_gflops;
  if (d && d->peak_gbps > 0) p.gbps = d->peak_gbps;
  p.source = d && !d->peaks_source.empty() ? d->peaks_source : "device attributes";
  if (o.gflops > 0) p.gflops = o.gflops;
  if (o.gbps > 0) p.gbps = o.gbps;
  if (o.gflops > 0 || o.gbps > 0) p.source = "override";
  if (p.gflops <= 0 || p.gbps <= 0) {
    if (p.gflops <= 0) p.gflops = fallback.gflops;
    if (p.gbps <= 0) p.gbps = fallback.gbps;
    p.source = fallback.source;
  }
  return p;
}

Peaks cpu_peaks(const Trace& t, const PeakOverrides& o) {
  Peaks p;
  for (const Device& d : t.devices) {
    if (!is_cpu_device(d)) continue;
    p.gflops = d.peak_gflops;
    p.gbps = d.peak_gbps;
    p.source = d.peaks_source.empty() ? "measured" : d.peaks_source;
  }
  if (o.gflops > 0) p.gflops = o.gflops;
  if (o.gbps > 0) p.gbps = o.gbps;
  if (o.gflops > 0 || o.gbps > 0) p.source = "override";
  if (p.gflops > 0 && p.gbps > 0) return p;
  // Names are interned, so scanning the string table is cheap at any size.
  Backend b = Backend::kAvx2;
  bool avx512 = false, avx2 = false, neon = false, scalar = false;
  for (StringId i = 0; i < t.strings.size(); ++i) {
    std::string s = lower(t.strings.view(i));
    avx512 = avx512 || s.find("avx512") != std::string::npos || s.find("avx-512") != std::string::npos;
    avx2 = avx2 || s.find("avx2") != std::string::npos;
    neon = neon || s.find("neon") != std::string::npos;
    scalar = scalar || s.find("scalar") != std::string::npos;
  }
  if (avx512) b = Backend::kAvx512;
  else if (avx2) b = Backend::kAvx2;
  else if (neon) b = Backend::kNeon;
  else if (scalar) b = Backend::kScalar;
  Peaks d = backend_default(b);
  if (p.gflops <= 0) p.gflops = d.gflops;
  if (p.gbps <= 0) p.gbps = d.gbps;
  p.source = d.source;
  return p;
}

Peaks link_peak(const Trace& t, uint32_t device, const PeakOverrides& o) {
  Peaks p;
  if (o.link_gbps > 0) {
    p.gbps = o.link_gbps;
    p.source = "override";
    return p;
  }
  const Device* d = find_gpu(t, device);
  std::string name = d ? lower(d->name) : "";
  bool fast = name.find("h100") != std::string::npos || name.find("h200") != std::string::npos ||
              name.find("gh200") != std::string::npos || name.find("b200") != std::string::npos;
  p.gbps = fast ? 50 : 25;
  p.source = fast ? "default (PCIe 5.0 x16, not measured)" : "default (PCIe 4.0 x16, not measured)";
  return p;
}

}  // namespace brickprof
