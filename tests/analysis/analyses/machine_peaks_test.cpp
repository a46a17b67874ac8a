// Host peaks for the CPU roofline (cpu_peaks) and a GPU's (gpu_peaks): each
// figure from its override, the trace's devices[] entry, or the built-in table,
// and a source that says which figure came from where.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/analyses/machine_peaks.h"
#include "analysis/analyses/roofline.h"
#include "analysis/analyses/trace_merge.h"
#include "test_util.h"

namespace brickprof {
namespace {

constexpr const char* kProgram = "measured by the program (read probe, FMA probe)";
constexpr const char* kAvx512Row = "default (built-in AVX-512 CPU peaks, not measured)";

// A CPU trace whose names say AVX-512 (as bricklayer's do), with a host
// entry holding `gflops` and `gbps` (0 = not measured) unless both are 0.
Trace cpu_trace(double gflops, double gbps) {
  Trace t;
  t.strings.intern("gemv_q4k avx512");
  if (gflops > 0 || gbps > 0) {
    Device cpu;
    cpu.id = kHostDeviceId;
    cpu.name = "cpu";
    cpu.peak_gflops = gflops;
    cpu.peak_gbps = gbps;
    cpu.peaks_source = kProgram;
    t.devices.push_back(cpu);
  }
  return t;
}

TEST(CpuPeaks, NothingMeasuredIsTheTableRowOfTheBackend) {
  Peaks p = cpu_peaks(cpu_trace(0, 0), {});
  EXPECT_DOUBLE_EQ(p.gflops, 2000);
  EXPECT_DOUBLE_EQ(p.gbps, 100);
  EXPECT_EQ(p.source, kAvx512Row);
  EXPECT_TRUE(p.is_default());
}

TEST(CpuPeaks, BothMeasuredAreTheEntrysAndItsSource) {
  Peaks p = cpu_peaks(cpu_trace(150, 20), {});
  EXPECT_DOUBLE_EQ(p.gflops, 150);
  EXPECT_DOUBLE_EQ(p.gbps, 20);
  EXPECT_EQ(p.source, kProgram);
  EXPECT_FALSE(p.is_default());
}

TEST(CpuPeaks, OnlyBandwidthMeasuredKeepsItAndLabelsTheTableFlops) {
  Peaks p = cpu_peaks(cpu_trace(0, 20), {});
  EXPECT_DOUBLE_EQ(p.gflops, 2000);  // the AVX-512 row
  EXPECT_DOUBLE_EQ(p.gbps, 20);      // measured, not the row's 100
  EXPECT_EQ(p.source, std::string("FLOP/s ") + kAvx512Row + "; bandwidth " + kProgram);
  EXPECT_FALSE(p.is_default());
}

TEST(CpuPeaks, OnlyFlopsMeasuredKeepsItAndLabelsTheTableBandwidth) {
  Peaks p = cpu_peaks(cpu_trace(150, 0), {});
  EXPECT_DOUBLE_EQ(p.gflops, 150);
  EXPECT_DOUBLE_EQ(p.gbps, 100);
  EXPECT_EQ(p.source, std::string("FLOP/s ") + kProgram + "; bandwidth " + kAvx512Row);
}

TEST(CpuPeaks, AnOverrideReplacesOnlyItsOwnFigure) {
  Peaks p = cpu_peaks(cpu_trace(150, 20), PeakOverrides{0, 7, 0});
  EXPECT_DOUBLE_EQ(p.gflops, 150);
  EXPECT_DOUBLE_EQ(p.gbps, 7);
  EXPECT_EQ(p.source, std::string("FLOP/s ") + kProgram + "; bandwidth override");
  Peaks both = cpu_peaks(cpu_trace(150, 20), PeakOverrides{300, 7, 0});
  EXPECT_DOUBLE_EQ(both.gflops, 300);
  EXPECT_EQ(both.source, "override");
  Peaks table = cpu_peaks(cpu_trace(0, 0), PeakOverrides{300, 0, 0});
  EXPECT_DOUBLE_EQ(table.gbps, 100);
  EXPECT_EQ(table.source, std::string("FLOP/s override; bandwidth ") + kAvx512Row);
}

TEST(CpuPeaks, AnyCaseOfCpuIsTheHostAndAGpuEntryIsNot) {
  Trace t = cpu_trace(0, 0);
  Device gpu;
  gpu.name = "NVIDIA H100";
  gpu.peak_gflops = 60000;
  gpu.peak_gbps = 3350;
  t.devices.push_back(gpu);
  EXPECT_EQ(cpu_peaks(t, {}).source, kAvx512Row);
  Device host;
  host.name = "CPU (Xeon)";
  host.peak_gbps = 20;
  t.devices.push_back(host);
  Peaks p = cpu_peaks(t, {});
  EXPECT_DOUBLE_EQ(p.gbps, 20);
  EXPECT_EQ(p.source, std::string("FLOP/s ") + kAvx512Row + "; bandwidth measured");
}

TEST(CpuPeaks, MergedTracesKeepTheMeasuredHostPeaks) {
  // merge renumbers the host entries and renames them "rank N: cpu".
  Trace rank0 = cpu_trace(150, 20), rank1 = cpu_trace(140, 19);
  rank0.process.rank = 0;
  rank1.process.rank = 1;
  Trace merged = merge_traces({rank0, rank1});
  ASSERT_EQ(merged.devices.size(), 2u);
  EXPECT_EQ(merged.devices[1].name, "rank 1: cpu");
  EXPECT_NE(merged.devices[1].id, kHostDeviceId);
  Peaks p = cpu_peaks(merged, {});
  EXPECT_DOUBLE_EQ(p.gflops, 140);  // the last host entry speaks for the host
  EXPECT_DOUBLE_EQ(p.gbps, 19);
  EXPECT_EQ(p.source, kProgram);
  // ... and is not taken for GPU 1's entry.
  EXPECT_EQ(gpu_peaks(merged, merged.devices[1].id, {}).source,
            "default (built-in RTX 4090 GPU peaks, not measured)");
}

constexpr const char* kGpuRow = "default (built-in RTX 4090 GPU peaks, not measured)";

// GPU 0 with `gflops` and `gbps` as the agent recorded them (0 = unknown).
Trace gpu_trace(double gflops, double gbps) {
  Trace t;
  Device gpu;
  gpu.id = 0;
  gpu.name = "Test GPU";
  gpu.peak_gflops = gflops;
  gpu.peak_gbps = gbps;
  gpu.peaks_source = "device attributes";
  t.devices.push_back(gpu);
  return t;
}

TEST(GpuPeaks, RecordedPeaksAreTheDevicesAndItsSource) {
  Peaks p = gpu_peaks(gpu_trace(1000, 100), 0, {});
  EXPECT_DOUBLE_EQ(p.gflops, 1000);
  EXPECT_DOUBLE_EQ(p.gbps, 100);
  EXPECT_EQ(p.source, "device attributes");
  Peaks none = gpu_peaks(gpu_trace(0, 0), 0, {});
  EXPECT_DOUBLE_EQ(none.gflops, 83000);
  EXPECT_EQ(none.source, kGpuRow);
  EXPECT_TRUE(none.is_default());
}

TEST(GpuPeaks, AnOverrideReplacesOnlyItsOwnFigure) {
  Peaks p = gpu_peaks(gpu_trace(1000, 100), 0, PeakOverrides{0, 50, 0});
  EXPECT_DOUBLE_EQ(p.gflops, 1000);
  EXPECT_DOUBLE_EQ(p.gbps, 50);
  EXPECT_EQ(p.source, "FLOP/s device attributes; bandwidth override");
  Peaks both = gpu_peaks(gpu_trace(1000, 100), 0, PeakOverrides{2000, 50, 0});
  EXPECT_DOUBLE_EQ(both.gflops, 2000);
  EXPECT_EQ(both.source, "override");
}

// A GPU whose peaks were not recorded: the override is named, not hidden
// behind the table's label.
TEST(GpuPeaks, AnOverrideIsNamedWhereTheDeviceRecordedNone) {
  Peaks p = gpu_peaks(gpu_trace(0, 0), 0, PeakOverrides{0, 3350, 0});
  EXPECT_DOUBLE_EQ(p.gflops, 83000);
  EXPECT_DOUBLE_EQ(p.gbps, 3350);
  EXPECT_EQ(p.source, std::string("FLOP/s ") + kGpuRow + "; bandwidth override");
  EXPECT_FALSE(p.is_default());
  Peaks unknown_device = gpu_peaks(Trace{}, 3, PeakOverrides{60000, 0, 0});
  EXPECT_EQ(unknown_device.source, std::string("FLOP/s override; bandwidth ") + kGpuRow);
}

// The roofline places CPU bricks against the measured roof and says so.
TEST(CpuPeaks, RooflineUsesTheMeasuredBandwidth) {
  Trace t = test::load("roofline.json");  // RmsNorm: CPU, 0.25 FLOP/B
  Device cpu;
  cpu.id = kHostDeviceId;
  cpu.name = "cpu";
  cpu.peak_gbps = 20;
  cpu.peaks_source = kProgram;
  t.devices.push_back(cpu);
  Roofline r = compute_roofline(t, {});
  const RooflineEntry* norm = nullptr;
  for (const RooflineEntry& e : r.entries)
    if (e.name == "RmsNorm") norm = &e;
  ASSERT_NE(norm, nullptr);
  EXPECT_DOUBLE_EQ(norm->peaks.gbps, 20);
  EXPECT_DOUBLE_EQ(norm->roof_gflops(), 5.0);  // 0.25 FLOP/B x 20 GB/s
  std::ostringstream out;
  out << test::render("roofline", t, {}, false);
  // Each figure's origin in the heading, the instruction set the table row
  // stands for, and the program's own words after the figures.
  EXPECT_NE(out.str().find("CPU peak (AVX2, FLOP/s built-in default, not measured; bandwidth "
                           "measured by the program): "),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find(" FLOP/B (read probe, FMA probe)\n"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace brickprof
