// output_prefix_pattern: BRICKPROF_OUTPUT as a user writes it.
#include "trace/output/output_name.h"

#include <gtest/gtest.h>

namespace brickprof {
namespace {

TEST(OutputName, KnownExtensionsAreNotDoubled) {
  EXPECT_EQ(output_prefix_pattern("trace.json"), "trace");
  EXPECT_EQ(output_prefix_pattern("trace.json.gz"), "trace");
  EXPECT_EQ(output_prefix_pattern("runs/t.trace.json"), "runs/t");
  EXPECT_EQ(output_prefix_pattern("t.tree.txt"), "t");
  EXPECT_EQ(output_prefix_pattern("t.pftrace"), "t");
  EXPECT_EQ(output_prefix_pattern("t.dot"), "t");
  EXPECT_EQ(output_prefix_pattern("run-%p"), "run-%p");
  EXPECT_EQ(output_prefix_pattern("my.data"), "my.data");
  EXPECT_EQ(output_prefix_pattern(".json"), ".json");        // nothing would be left
  EXPECT_EQ(output_prefix_pattern("runs/.json"), "runs/.json");
}

TEST(OutputName, ATrailingSlashIsAFolderWithTheDefaultNames) {
  EXPECT_EQ(output_prefix_pattern("runs/"), "runs/brickprof-%n-%p");
  EXPECT_EQ(output_prefix_pattern("/tmp/a/b/"), "/tmp/a/b/brickprof-%n-%p");
  EXPECT_EQ(output_folder("runs/brickprof-%n-%p"), "runs");
  EXPECT_EQ(output_folder("/t"), "/");
  EXPECT_EQ(output_folder("t"), "");
}

}  // namespace
}  // namespace brickprof
