// The names offered for a name the trace does not have.
#include "analysis/analyses/closest_names.h"

#include <gtest/gtest.h>

namespace brickprof {
namespace {

using Names = std::vector<std::string_view>;

TEST(ClosestNames, CaseThenContainmentThenEdits) {
  const Names names = {"RmsNorm", "rmsnorm_kernel", "gate_gemv", "Layer 0", "decode token", "k"};
  EXPECT_EQ(closest_names(names, "rmsnorm"), (Names{"RmsNorm", "rmsnorm_kernel"}));
  EXPECT_EQ(closest_names(names, "layer 0"), (Names{"Layer 0"}));
  EXPECT_EQ(closest_names(names, "gate_gemm"), (Names{"gate_gemv"}));
  EXPECT_EQ(closest_names(names, "decode tokn"), (Names{"decode token"}));
  EXPECT_TRUE(closest_names(names, "zzz").empty());
  EXPECT_TRUE(closest_names(names, "q").empty());  // one letter: no containment, "k" is 1 edit
}

TEST(ClosestNames, AtMostTheLimitAndTheNote) {
  const Names names = {"step a", "step b", "step c", "step d"};
  EXPECT_EQ(closest_names(names, "step").size(), 3u);
  EXPECT_EQ(closest_names_note(names, "step"), "; closest: 'step a', 'step b', 'step c'");
  EXPECT_EQ(closest_names_note(names, "nothing like it"), "");
}

// Names of megabytes are compared by length first: nothing letter by letter.
TEST(ClosestNames, HugeNamesCostNothing) {
  const std::string huge(8 << 20, 'B');
  const Names names = {huge, "Bx"};
  EXPECT_EQ(closest_names(names, "B"), (Names{}));
  EXPECT_EQ(closest_names(names, "BB"), (Names{"Bx"}));
}

TEST(ClosestNames, OptionsAndCommands) {
  const Names options = {"--summary", "--tree", "--critical-path", "--roofline", "--ranks"};
  EXPECT_EQ(closest_names(options, "--sumary"), (Names{"--summary"}));
  EXPECT_EQ(closest_names(options, "--tere"), (Names{"--tree"}));  // a swap
  EXPECT_EQ(closest_names(options, "--Summary"), (Names{"--summary"}));
  EXPECT_EQ(closest_names(options, "--crit"), (Names{"--critical-path"}));
  EXPECT_TRUE(closest_names(options, "--nothing-like-it").empty());
  const Names commands = {"run", "report", "diff", "merge", "ptx", "view"};
  EXPECT_EQ(closest_names(commands, "reprot"), (Names{"report"}));
  EXPECT_EQ(closest_names(commands, "dif"), (Names{"diff"}));
  EXPECT_EQ(closest_names(commands, "rn").front(), "run");
}

}  // namespace
}  // namespace brickprof
