// The agent's store of the host peaks a program reports (agent/io/host_peaks):
// what becomes the trace's "cpu" device, and what does not.
#include "agent/io/host_peaks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace brickprof::agent {
namespace {

// The entry a dump would write now, or null.
const Device* host_device(Trace& t) {
  add_host_device(t);
  return t.devices.empty() ? nullptr : &t.devices.back();
}

TEST(HostPeaks, BothFiguresAndHowBecomeTheCpuDevice) {
  set_host_peaks(150, 20, "read probe");
  Trace t;
  const Device* d = host_device(t);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->id, kHostDeviceId);
  EXPECT_EQ(d->name, "cpu");
  EXPECT_DOUBLE_EQ(d->peak_gflops, 150);
  EXPECT_DOUBLE_EQ(d->peak_gbps, 20);
  EXPECT_EQ(d->peaks_source, "measured by the program (read probe)");
}

TEST(HostPeaks, NonsenseIsNotMeasuredAndNothingMeasuredIsNoEntry) {
  set_host_peaks(-5, NAN, nullptr);
  Trace t;
  EXPECT_EQ(host_device(t), nullptr);
  set_host_peaks(INFINITY, 20, nullptr);
  const Device* d = host_device(t);
  ASSERT_NE(d, nullptr);
  EXPECT_DOUBLE_EQ(d->peak_gflops, 0);
  EXPECT_EQ(d->peaks_source, "measured by the program");
}

TEST(HostPeaks, TheLastCallWinsAndTheTextIsCopied) {
  std::string how = "first";
  set_host_peaks(1, 2, how.c_str());
  how = "second";
  set_host_peaks(3, 0, how.c_str());
  how = "changed";
  Trace t;
  const Device* d = host_device(t);
  ASSERT_NE(d, nullptr);
  EXPECT_DOUBLE_EQ(d->peak_gflops, 3);
  EXPECT_DOUBLE_EQ(d->peak_gbps, 0);  // not merged with the first call's
  EXPECT_EQ(d->peaks_source, "measured by the program (second)");
}

TEST(HostPeaks, LongTextIsCutBetweenCharacters) {
  std::string how(kHostPeaksHowBytes - 1, 'a');
  how += "\xc3\xa9\xc3\xa9";  // "éé": the first straddles the limit
  set_host_peaks(1, 1, how.c_str());
  Trace t;
  const Device* d = host_device(t);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->peaks_source,
            "measured by the program (" + std::string(kHostPeaksHowBytes - 1, 'a') + ")");
}

TEST(HostPeaks, ThreadsSettingAtOnceLeaveOneWholeCall) {
  std::vector<std::thread> threads;
  for (int k = 1; k <= 4; ++k)
    threads.emplace_back([k] {
      const std::string how = "thread " + std::to_string(k);
      for (int i = 0; i < 2000; ++i) set_host_peaks(k, k * 10, how.c_str());
    });
  for (auto& th : threads) th.join();
  Trace t;
  const Device* d = host_device(t);
  ASSERT_NE(d, nullptr);
  const int k = static_cast<int>(d->peak_gflops);
  EXPECT_DOUBLE_EQ(d->peak_gbps, k * 10);  // never one call's FLOP/s with another's bandwidth
  EXPECT_EQ(d->peaks_source, "measured by the program (thread " + std::to_string(k) + ")");
}

}  // namespace
}  // namespace brickprof::agent
