// closest_names: "did you mean" by edit distance and by prefix.
#include "analysis/model/closest_names.h"

#include <gtest/gtest.h>

namespace brickprof {
namespace {

TEST(ClosestNames, TyposSwapsCaseAndPrefixes) {
  const std::vector<std::string> options = {"--summary", "--tree", "--critical-path", "--roofline",
                                            "--ranks"};
  EXPECT_EQ(closest_names("--sumary", options), std::vector<std::string>{"--summary"});
  EXPECT_EQ(closest_names("--tere", options), std::vector<std::string>{"--tree"});  // a swap
  EXPECT_EQ(closest_names("--Summary", options), std::vector<std::string>{"--summary"});
  EXPECT_EQ(closest_names("--crit", options), std::vector<std::string>{"--critical-path"});
  EXPECT_TRUE(closest_names("--nothing-like-it", options).empty());
  const std::vector<std::string> commands = {"run", "report", "diff", "merge", "ptx", "view"};
  EXPECT_EQ(closest_names("reprot", commands), std::vector<std::string>{"report"});
  EXPECT_EQ(closest_names("dif", commands), std::vector<std::string>{"diff"});
  EXPECT_EQ(closest_names("rn", commands).front(), "run");
}

}  // namespace
}  // namespace brickprof
