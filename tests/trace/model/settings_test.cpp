// The BRICKPROF_* table: each row's values checked as the agent and `run`
// check them, and each row documented in README.md, the user's doc of it.
#include "trace/model/settings.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/read_file.h"

namespace brickprof::settings {
namespace {

TEST(Settings, EveryRowIsInTheReadme) {
  const std::string readme = test::read_file(BRICKPROF_SOURCE_ROOT "/README.md");
  ASSERT_FALSE(readme.empty());
  for (const Setting& s : kSettings)
    EXPECT_NE(readme.find("`" + std::string(s.variable) + "`"), std::string::npos)
        << s.variable << " has no row in README.md's table of settings";
}

TEST(Settings, Peaks) {
  const Setting& gflops = setting("BRICKPROF_PEAK_GFLOPS");
  EXPECT_EQ(problem(gflops, "1234.5"), "");
  EXPECT_EQ(peak_value("1234.5"), 1234.5);
  for (const char* bad : {"fast", "-3", "0", "inf", "nan", "0x10", "1e400", ""}) {
    EXPECT_FALSE(peak_value(bad)) << bad;
    EXPECT_NE(problem(gflops, bad), "") << bad;
  }
  EXPECT_EQ(problem(gflops, "fast"), "'fast' is not a positive number");
  EXPECT_EQ(valid_values(gflops), "a positive number");
}

TEST(Settings, Counts) {
  const Setting& depth = setting("BRICKPROF_PYTHON_DEPTH");
  EXPECT_EQ(count_value(depth, "256"), 256u);
  EXPECT_FALSE(count_value(depth, "257"));
  EXPECT_FALSE(count_value(depth, "-1"));
  EXPECT_EQ(valid_values(depth), "0 to 256");
  const Setting& shift = setting("BRICKPROF_TEST_CLOCK_SHIFT_NS");
  EXPECT_EQ(count_value(shift, "7300000000"), 7300000000u);
  EXPECT_FALSE(count_value(shift, "9223372036854775808"));  // past INT64_MAX
}

TEST(Settings, Choices) {
  const Setting& sync = setting("BRICKPROF_SYNC");
  EXPECT_EQ(choice_index(sync, "none"), 3);
  EXPECT_EQ(problem(sync, "sometimes"), "'sometimes' is not deferred, per-layer, immediate or none");
}

}  // namespace
}  // namespace brickprof::settings
