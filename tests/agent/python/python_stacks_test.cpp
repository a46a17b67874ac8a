// The interned Python stack table (agent/python/stack_table.h), fed made-up
// frames: a stack is found by its frames' objects and positions, stored
// once by its lines (positions on the same lines share it), frames are
// shared between stacks, a code object's address reused by another with
// other names or another line table never answers with the old names, a
// frame that cannot be read leaves the stack out, and the budget holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "agent/python/stack_table.h"

namespace brickprof::agent::python {
namespace {

// Stand-ins for the interpreter's objects: a code object is an address,
// its names and line table live in buffers the test may rewrite in place
// (as a freed object's address is reused by another), and a line table
// here is one byte per position: the line's offset from the first line.
struct FakeCode {
  std::string filename, name;
  std::vector<uint8_t> linetable;
  int32_t first_line = 100;
};

class FakeSource final : public FrameSource {
 public:
  // The key of `code` at `position`, as the reader would make it.
  FrameKey key(FakeCode& code, int64_t position) const { return {&code, position}; }
  bool content(const FrameKey& key, CodeContent* out, ReadError* error) const override {
    ++reads;
    const auto* code = static_cast<const FakeCode*>(key.code);
    if (code->filename.empty()) {
      *error = ReadError::kBadName;
      return false;
    }
    out->filename = {reinterpret_cast<const uint8_t*>(code->filename.data()),
                     static_cast<uint32_t>(code->filename.size()), 1};
    out->name = {reinterpret_cast<const uint8_t*>(code->name.data()),
                 static_cast<uint32_t>(code->name.size()), 1};
    out->linetable = {code->linetable.data(), static_cast<uint32_t>(code->linetable.size())};
    out->first_line = code->first_line;
    return true;
  }
  int64_t line(const FrameKey& key, const CodeContent& code, size_t* read) const override {
    ++lines;
    const BytesView& t = code.linetable;
    *read = std::min<size_t>(t.size, static_cast<size_t>(key.position) + 1);  // up to its byte
    return key.position < static_cast<int64_t>(t.size) ? code.first_line + t.data[key.position]
                                                       : -1;
  }
  mutable std::atomic<int> reads{0};  // the test's threads share the source
  mutable std::atomic<int> lines{0};
};

FakeCode forward{"/src/model.py", "Model.forward", {12, 12, 12, 13, 13}};
FakeCode main_code{"/src/run.py", "main", {0, 1, 2, 3}};

TEST(PythonStackTable, OneIdPerDistinctStack) {
  FakeSource src;
  StackTable table;
  ReadError e;
  const FrameKey a[] = {src.key(forward, 0), src.key(main_code, 2)};
  const FrameKey a_too[] = {src.key(forward, 1), src.key(main_code, 2)};  // same lines
  const FrameKey b[] = {src.key(forward, 3), src.key(main_code, 2)};

  EXPECT_EQ(table.find(a, 2, src), 0u);
  const uint32_t id_a = table.add(a, 2, src, &e);
  EXPECT_EQ(id_a, 1u);
  EXPECT_EQ(e, ReadError::kNone);
  const int lines_after_add = src.lines;
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(table.find(a, 2, src), id_a);
  EXPECT_EQ(src.lines, lines_after_add);  // a found stack costs no line-table walk
  EXPECT_EQ(table.find(b, 2, src), 0u);
  EXPECT_EQ(table.add(b, 2, src, &e), 2u);
  EXPECT_EQ(table.find(a_too, 2, src), 0u);
  EXPECT_EQ(table.add(a_too, 2, src, &e), id_a);  // same lines: same stack
  EXPECT_EQ(table.find(a_too, 2, src), id_a);
  EXPECT_EQ(table.add(a, 1, src, &e), 3u);  // a prefix is another stack
  const std::vector<PythonFrame> frames = table.frames();
  ASSERT_EQ(frames.size(), 3u);  // forward:112, main:102, forward:113
  EXPECT_EQ(frames[0].file, "/src/model.py");
  EXPECT_EQ(frames[0].line, 112);
  EXPECT_EQ(frames[0].function, "Model.forward");
  EXPECT_EQ(frames[1].function, "main");
  EXPECT_EQ(frames[1].line, 102);
  EXPECT_EQ(frames[2].line, 113);
  EXPECT_EQ(table.stacks(), (std::vector<std::vector<uint32_t>>{{0, 1}, {2, 1}, {0}}));
}

// A code object freed and its address (and its names' and line table's)
// reused by another: the stack found by those addresses is checked against
// what they hold now, and read afresh when they hold something else.
TEST(PythonStackTable, AReusedAddressNeverGivesTheOldNames) {
  FakeSource src;
  StackTable table;
  ReadError e;
  FakeCode cell{"<cell1>", "f", {0, 0, 5}};
  const FrameKey k[] = {src.key(cell, 2)};
  const uint32_t first = table.add(k, 1, src, &e);
  ASSERT_EQ(first, 1u);
  EXPECT_EQ(table.find(k, 1, src), first);

  cell.filename = "<cell2>";  // same length, same address, other text
  EXPECT_EQ(table.find(k, 1, src), 0u);
  const uint32_t second = table.add(k, 1, src, &e);
  EXPECT_EQ(second, 2u);
  EXPECT_EQ(table.find(k, 1, src), second);

  cell.linetable = {0, 0, 5, 9};  // a table that grew past what the line depends on
  EXPECT_EQ(table.find(k, 1, src), second);

  cell.linetable = {0, 0, 7};  // an edited body under the same names
  EXPECT_EQ(table.find(k, 1, src), 0u);
  const uint32_t third = table.add(k, 1, src, &e);
  EXPECT_EQ(third, 3u);

  cell.name = "g";
  EXPECT_EQ(table.find(k, 1, src), 0u);
  EXPECT_EQ(table.add(k, 1, src, &e), 4u);

  cell.first_line = 300;  // the same body further down its file
  EXPECT_EQ(table.find(k, 1, src), 0u);
  EXPECT_EQ(table.add(k, 1, src, &e), 5u);

  cell = FakeCode{"<cell1>", "f", {0, 0, 5}};  // back as first seen: the first stack again
  EXPECT_EQ(table.find(k, 1, src), first);
  const std::vector<PythonFrame> f = table.frames();
  const auto& stacks = table.stacks();
  auto frame_of = [&](uint32_t id) { return f[stacks[id - 1][0]]; };
  EXPECT_EQ(frame_of(first).file, "<cell1>");
  EXPECT_EQ(frame_of(second).file, "<cell2>");
  EXPECT_EQ(frame_of(second).line, 105);
  EXPECT_EQ(frame_of(third).line, 107);
  EXPECT_EQ(frame_of(4).function, "g");
  EXPECT_EQ(frame_of(5).line, 307);
}

TEST(PythonStackTable, AFrameThatCannotBeReadLeavesTheStackOut) {
  FakeSource src;
  StackTable table;
  FakeCode unnamed{"", "f", {0}};
  const FrameKey k[] = {src.key(forward, 0), src.key(unnamed, 0)};
  ReadError e;
  EXPECT_EQ(table.add(k, 2, src, &e), 0u);
  EXPECT_EQ(e, ReadError::kBadName);
  EXPECT_EQ(table.find(k, 2, src), 0u);
  EXPECT_TRUE(table.stacks().empty());
  EXPECT_EQ(table.refused(), 0u);  // not the budget's doing
}

// Threads finding stacks while another adds: find() takes no lock.
TEST(PythonStackTable, FindsWhileAnotherThreadAdds) {
  FakeSource src;
  StackTable table;
  ReadError e;
  const FrameKey a[] = {src.key(forward, 0), src.key(main_code, 1)};
  const uint32_t id = table.add(a, 2, src, &e);
  std::vector<FakeCode> codes(2000, FakeCode{"/src/gen.py", "g", {0, 1, 2, 3}});
  std::thread adder([&] {
    for (FakeCode& c : codes) {
      const FrameKey k[] = {src.key(c, 1), src.key(main_code, 1)};
      table.add(k, 2, src, &e);
    }
  });
  bool all_found = true;
  for (int i = 0; i < 20000; ++i) all_found &= table.find(a, 2, src) == id;
  adder.join();
  EXPECT_TRUE(all_found);
  for (FakeCode& c : codes) {
    const FrameKey k[] = {src.key(c, 1), src.key(main_code, 1)};
    EXPECT_NE(table.find(k, 2, src), 0u);
  }
  EXPECT_EQ(table.stacks().size(), 2u);  // all the generated ones share one: same text
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
  FakeSource src;
  g_left = 400 * 1024;
  StackTable table(MemoryHooks{take, nullptr});
  ReadError e;
  const FrameKey first[] = {src.key(forward, 1), src.key(main_code, 2)};
  ASSERT_EQ(table.add(first, 2, src, &e), 1u);
  std::vector<FakeCode> codes(100000, FakeCode{"/src/gen.py", "g", {}});
  size_t refused_at = 0;
  for (size_t i = 0; i < codes.size() && refused_at == 0; ++i) {
    codes[i].linetable = {static_cast<uint8_t>(i % 200)};
    codes[i].name = "g" + std::to_string(i);
    const FrameKey k[] = {src.key(codes[i], 0), src.key(main_code, 2)};
    if (table.add(k, 2, src, &e) == 0) refused_at = i;
  }
  EXPECT_NE(refused_at, 0u);
  EXPECT_EQ(table.refused(), 1u);
  EXPECT_EQ(table.find(first, 2, src), 1u);  // still found
}

}  // namespace
}  // namespace brickprof::agent::python
