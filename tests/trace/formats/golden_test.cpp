// Golden-text tests (perfetto diff-test style): a small hand-made trace in
// tests/data/ and the exact expected output of a text exporter next to it.
#include <gtest/gtest.h>

#include "tests/support/test_traces.h"
#include "trace/json/trace_json.h"
#include "trace/output/sink.h"
#include "trace/output/whole_trace.h"

namespace brickprof {
namespace {

struct Golden {
  const char* trace;     // fixture trace
  const char* format;    // exporter name
  const char* expected;  // fixture with the exact output
};

class GoldenTest : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenTest, MatchesExactly) {
  const Golden& g = GetParam();
  Trace trace = read_trace_file(test::data_path(g.trace));
  MemorySink sink;
  ASSERT_TRUE(write_outputs(trace, {g.format}, sink).failures.empty());
  EXPECT_EQ(sink.text(g.format), test::read_file(test::data_path(g.expected)));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenTest,
                         ::testing::Values(Golden{"tree_small.json", "tree", "tree_small.tree.txt"},
                                           Golden{"tree_small.json", "folded",
                                                  "tree_small.folded"}),
                         [](const auto& info) { return std::string(info.param.format); });

}  // namespace
}  // namespace brickprof
