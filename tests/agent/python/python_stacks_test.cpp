// The interned Python stack table (agent/python/stack_table.h), fed made-up
// code addresses: a stack is found by its positions, stored once by its
// lines (positions on the same lines share it), frames are shared between
// stacks, each code object is described and kept once, and the budget holds.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "agent/python/stack_table.h"

namespace brickprof::agent::python {
namespace {

// Two code objects standing in for Python functions.
const int kForward = 0, kMain = 0;
const void* const kForwardCode = &kForward;
const void* const kMainCode = &kMain;

struct Fixture {
  std::map<const void*, int> described, kept;
  StackTable::Describe describe = [this](const void* code, std::string* file, std::string* fn) {
    ++described[code];
    *file = code == kForwardCode ? "/src/model.py" : "/src/run.py";
    *fn = code == kForwardCode ? "Model.forward" : "main";
    return true;
  };
  StackTable::Keep keep = [this](const void* code) { ++kept[code]; };
};

TEST(PythonStackTable, OneIdPerDistinctStack) {
  Fixture fx;
  StackTable table;
  // Positions (bytecode offsets) and the lines they are on.
  const FrameKey a[] = {{kForwardCode, 40}, {kMainCode, 8}};
  const int64_t a_lines[] = {212, 30};
  const FrameKey b[] = {{kForwardCode, 52}, {kMainCode, 8}};
  const int64_t b_lines[] = {213, 30};
  const FrameKey a_too[] = {{kForwardCode, 44}, {kMainCode, 8}};  // another call on line 212

  EXPECT_EQ(table.find(a, 2), 0u);
  const uint32_t id_a = table.add(a, a_lines, 2, fx.describe, fx.keep);
  EXPECT_EQ(id_a, 1u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(table.find(a, 2), id_a);
  EXPECT_EQ(table.find(b, 2), 0u);
  EXPECT_EQ(table.add(b, b_lines, 2, fx.describe, fx.keep), 2u);
  EXPECT_EQ(table.find(a_too, 2), 0u);
  EXPECT_EQ(table.add(a_too, a_lines, 2, fx.describe, fx.keep), id_a);  // same lines: same stack
  EXPECT_EQ(table.find(a_too, 2), id_a);
  EXPECT_EQ(table.add(a, a_lines, 1, fx.describe, fx.keep), 3u);  // a prefix is another stack
  // Each code object described and kept once, however often it is seen.
  EXPECT_EQ(fx.described, (std::map<const void*, int>{{kForwardCode, 1}, {kMainCode, 1}}));
  EXPECT_EQ(fx.kept, fx.described);
  const std::vector<PythonFrame> frames = table.frames();
  ASSERT_EQ(frames.size(), 3u);  // forward:212, main:30, forward:213
  EXPECT_EQ(frames[0].file, "/src/model.py");
  EXPECT_EQ(frames[0].line, 212);
  EXPECT_EQ(frames[0].function, "Model.forward");
  EXPECT_EQ(frames[1].function, "main");
  EXPECT_EQ(frames[2].line, 213);
  EXPECT_EQ(table.stacks(), (std::vector<std::vector<uint32_t>>{{0, 1}, {2, 1}, {0}}));
}

TEST(PythonStackTable, CodeThatCannotBeDescribedLeavesTheStackOut) {
  StackTable table;
  int kept = 0;
  const FrameKey a[] = {{kForwardCode, 1}};
  const int64_t lines[] = {1};
  EXPECT_EQ(table.add(
                a, lines, 1, [](const void*, std::string*, std::string*) { return false; },
                [&](const void*) { ++kept; }),
            0u);
  EXPECT_EQ(kept, 0);
  EXPECT_EQ(table.find(a, 1), 0u);
  EXPECT_TRUE(table.stacks().empty());
  EXPECT_EQ(table.refused(), 1u);
}

// A budget that runs out: stacks already interned keep their ids, new ones
// get 0 and are counted.
uint64_t g_left = 0;
bool take(uint64_t bytes) {
  if (bytes > g_left) return false;
  g_left -= bytes;
  return true;
}

TEST(PythonStackTable, TheBudgetBoundsIt) {
  Fixture fx;
  g_left = 2000;
  StackTable table(MemoryHooks{take, nullptr});
  const FrameKey first[] = {{kForwardCode, 1}, {kMainCode, 2}};
  const int64_t first_lines[] = {1, 2};
  ASSERT_EQ(table.add(first, first_lines, 2, fx.describe, fx.keep), 1u);
  int64_t refused_at = 0;
  for (int64_t line = 10; line < 1000 && refused_at == 0; ++line) {
    const FrameKey k[] = {{kForwardCode, line}, {kMainCode, 2}};
    const int64_t lines[] = {line, 2};
    if (table.add(k, lines, 2, fx.describe, fx.keep) == 0) refused_at = line;
  }
  EXPECT_NE(refused_at, 0);
  EXPECT_EQ(table.refused(), 1u);
  EXPECT_EQ(table.find(first, 2), 1u);  // still found
}

}  // namespace
}  // namespace brickprof::agent::python
