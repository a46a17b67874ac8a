// The progress line on stderr: nothing in the first second, a bar while
// reading, the step after, erased when done, nothing at all when disabled.
#include "tools/progress.h"

#include <gtest/gtest.h>

#include <sstream>

namespace brickprof::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct FakeClock {
  Clock::time_point now{};
  Progress::Clock fn() {
    return [this] { return now; };
  }
};

TEST(Progress, QuietForTheFirstSecondThenABar) {
  FakeClock clock;
  std::ostringstream out;
  Progress p(true, out, clock.fn(), false);
  ReadProgress read = p.reading("big.json");
  ASSERT_TRUE(read);
  read(1 << 20, 4 << 20);
  clock.now += std::chrono::milliseconds(900);
  read(2 << 20, 4 << 20);
  EXPECT_EQ(out.str(), "");  // quick work shows nothing
  clock.now += std::chrono::milliseconds(200);
  read(3 << 20, 4 << 20);
  EXPECT_EQ(out.str(),
            "\rbrickprof: reading big.json [##################......] 75% 3.0MiB of 4.0MiB "
            "1.1s\033[K");
  // At most ten redraws a second.
  out.str("");
  read(3 << 20, 4 << 20);
  EXPECT_EQ(out.str(), "");
  clock.now += std::chrono::milliseconds(150);
  p.step("computing --critical-path");
  EXPECT_EQ(out.str(), "\rbrickprof: computing --critical-path... 1.2s\033[K");
  out.str("");
  p.done();
  EXPECT_EQ(out.str(), "\r\033[K");  // erased, before the command's output
  out.str("");
  p.step("more");
  p.done();
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, DisabledDrawsNothingAndGivesTheReaderNoCallback) {
  FakeClock clock;
  std::ostringstream out;
  Progress p(false, out, clock.fn(), false);
  EXPECT_FALSE(p.reading("x.json"));
  clock.now += std::chrono::seconds(5);
  p.step("computing");
  p.tick();
  p.done();
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, NothingErasedWhenNothingWasDrawn) {
  FakeClock clock;
  std::ostringstream out;
  {
    Progress p(true, out, clock.fn(), false);
    p.step("quick");
  }
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, BarText) {
  EXPECT_EQ(progress_bar_text("a.json", "2 of 3", 0, 0),
            "reading a.json (2 of 3) [........................] 0% 0B of 0B");
  EXPECT_EQ(progress_bar_text("a.json", "", 5, 4),
            "reading a.json [########################] 100% 4B of 4B");
}

TEST(Progress, NotWantedWhenQuietOrInCi) {
  EXPECT_FALSE(progress_wanted(true));
  setenv("CI", "true", 1);
  EXPECT_FALSE(progress_wanted(false));
  unsetenv("CI");
}

}  // namespace
}  // namespace brickprof::cli
