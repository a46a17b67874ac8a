// The in-place frame reader (agent/python/frame_reader.h) on made-up
// interpreter memory laid out as CPython 3.12's (interpreter_layout.h): a
// stack is read innermost first with its names and lines; entry and
// incomplete frames are skipped; and every way the memory can be not as
// expected (another thread's state, a frame without a code object, a
// position outside its code, a name that is not a compact str, a chain that
// loops) ends the walk with its ReadError or a bound, never a crash or hang.
#include <gtest/gtest.h>
#include <pthread.h>

#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "agent/python/frame_reader.h"

namespace brickprof::agent::python {
namespace {

// Stand-ins for the type objects: only their addresses are compared.
alignas(16) char code_type[64], unicode_type[64], bytes_type[64];

template <typename T>
void put(std::vector<uint8_t>& object, uint32_t offset, T value) {
  std::memcpy(object.data() + offset, &value, sizeof value);
}

class FrameReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(table_layout(12, &layout_));
    symbols_.code_type = code_type;
    symbols_.unicode_type = unicode_type;
    symbols_.bytes_type = bytes_type;
    symbols_.this_thread_state = [] { return static_cast<void*>(g_tstate); };
    tstate_.assign(512, 0);
    cframe_.assign(64, 0);
    put(tstate_, layout_.tstate_thread_id, static_cast<unsigned long>(pthread_self()));
    put(tstate_, layout_.tstate_frame, static_cast<void*>(cframe_.data()));
    g_tstate = tstate_.data();
  }
  void TearDown() override { g_tstate = nullptr; }

  // A str: compact ASCII.
  std::vector<uint8_t>& str(const std::string& text) {
    auto& s = objects_.emplace_back(layout_.str_ascii_data + text.size() + 1, 0);
    put(s, layout_.ob_type, static_cast<const void*>(unicode_type));
    put(s, layout_.str_length, static_cast<int64_t>(text.size()));
    put(s, layout_.str_state, uint32_t{1u << 2 | 1u << 5 | 1u << 6});  // kind 1, compact, ascii
    std::memcpy(s.data() + layout_.str_ascii_data, text.data(), text.size());
    return s;
  }
  std::vector<uint8_t>& bytes(const std::vector<uint8_t>& data) {
    auto& b = objects_.emplace_back(layout_.bytes_data + data.size() + 1, 0);
    put(b, layout_.ob_type, static_cast<const void*>(bytes_type));
    put(b, layout_.bytes_size, static_cast<int64_t>(data.size()));
    std::memcpy(b.data() + layout_.bytes_data, data.data(), data.size());
    return b;
  }
  // A code object of `units` code units whose location table puts every
  // unit on first_line + its index (one entry per unit: a one-line delta).
  std::vector<uint8_t>& code(const std::string& file, const std::string& name, int32_t first_line,
                             int64_t units = 8) {
    std::vector<uint8_t> table;
    table.push_back(0x80 | 10 << 3);  // the first unit: code 10, on the first line
    table.push_back(0);
    table.push_back(0);
    for (int64_t u = 1; u < units; ++u) {
      table.push_back(0x80 | 11 << 3);  // code 11: one line further, one unit
      table.push_back(0);
      table.push_back(0);
    }
    auto& f = str(file);
    auto& n = str(name);
    auto& t = bytes(table);
    auto& c = objects_.emplace_back(layout_.code_units + 2 * units, 0);
    put(c, layout_.ob_type, static_cast<const void*>(code_type));
    put(c, layout_.code_size, units);
    put(c, layout_.code_filename, static_cast<void*>(f.data()));
    put(c, layout_.code_name, static_cast<void*>(n.data()));
    put(c, layout_.code_linetable, static_cast<void*>(t.data()));
    put(c, layout_.code_first_line, first_line);
    put(c, static_cast<uint32_t>(layout_.code_first_traceable), int32_t{1});
    return c;
  }
  // A frame at code unit `at` of `c`, pushed as the innermost.
  std::vector<uint8_t>& frame(std::vector<uint8_t>& c, int64_t at, int8_t owner = 0) {
    auto& f = objects_.emplace_back(96, 0);
    put(f, layout_.frame_code, static_cast<void*>(c.data()));
    put(f, layout_.frame_position, static_cast<void*>(c.data() + layout_.code_units + 2 * at));
    put(f, static_cast<uint32_t>(layout_.frame_owner), owner);
    void* inner = nullptr;
    std::memcpy(&inner, cframe_.data() + layout_.cframe_current_frame, sizeof inner);
    put(f, layout_.frame_previous, inner);
    put(cframe_, static_cast<uint32_t>(layout_.cframe_current_frame), static_cast<void*>(f.data()));
    return f;
  }
  uint32_t walk(FrameKey* keys, uint32_t depth, ReadError* error) {
    return FrameReader(layout_, symbols_).walk(keys, depth, error);
  }

  static inline uint8_t* g_tstate = nullptr;
  Layout layout_;
  CPythonSymbols symbols_;
  std::vector<uint8_t> tstate_, cframe_;
  std::deque<std::vector<uint8_t>> objects_;  // addresses stay put
};

TEST_F(FrameReaderTest, ReadsTheStackInnermostFirst) {
  auto& main_code = code("/src/run.py", "main", 10);
  auto& forward = code("/src/model.py", "Model.forward", 200);
  frame(main_code, 3);
  frame(forward, 5);
  FrameKey keys[8];
  ReadError error;
  ASSERT_EQ(walk(keys, 8, &error), 2u);
  EXPECT_EQ(error, ReadError::kNone);
  const FrameReader reader(layout_, symbols_);
  CodeContent c;
  ASSERT_TRUE(reader.content(keys[0], &c, &error));
  EXPECT_EQ(utf8_of(c.filename), "/src/model.py");
  EXPECT_EQ(utf8_of(c.name), "Model.forward");
  EXPECT_EQ(c.first_line, 200);
  EXPECT_EQ(reader.line(keys[0], c), 205);
  ASSERT_TRUE(reader.content(keys[1], &c, &error));
  EXPECT_EQ(utf8_of(c.name), "main");
  EXPECT_EQ(reader.line(keys[1], c), 13);
  EXPECT_EQ(walk(keys, 1, &error), 1u);  // the innermost `depth`
  EXPECT_EQ(keys[0].code, forward.data());
}

TEST_F(FrameReaderTest, EntryAndIncompleteFramesAreSkipped) {
  auto& main_code = code("/src/run.py", "main", 10);
  auto& shim = code("<shim>", "<shim>", 0);
  auto& starting = code("/src/model.py", "f", 50);
  frame(main_code, 3);
  frame(shim, 0, kOwnedByCStack);
  frame(starting, 0);  // before its first traceable unit
  FrameKey keys[8];
  ReadError error;
  ASSERT_EQ(walk(keys, 8, &error), 1u);
  EXPECT_EQ(keys[0].code, main_code.data());
}

TEST_F(FrameReaderTest, NoThreadStateIsNoStack) {
  g_tstate = nullptr;
  FrameKey keys[8];
  ReadError error;
  EXPECT_EQ(walk(keys, 8, &error), 0u);
  EXPECT_EQ(error, ReadError::kNone);
}

TEST_F(FrameReaderTest, AnotherThreadsStateIsNotWalked) {
  frame(code("/src/run.py", "main", 10), 3);
  put(tstate_, layout_.tstate_thread_id, static_cast<unsigned long>(pthread_self()) + 8);
  FrameKey keys[8];
  ReadError error;
  EXPECT_EQ(walk(keys, 8, &error), 0u);
  EXPECT_EQ(error, ReadError::kForeignThreadState);
}

TEST_F(FrameReaderTest, UnexpectedMemoryEndsTheWalkWithItsReason) {
  FrameKey keys[8];
  ReadError error;
  auto& c = code("/src/run.py", "main", 10);
  auto& f = frame(c, 3);
  put(c, layout_.ob_type, static_cast<const void*>(unicode_type));  // not a code object
  EXPECT_EQ(walk(keys, 8, &error), 0u);
  EXPECT_EQ(error, ReadError::kNotCode);
  put(c, layout_.ob_type, static_cast<const void*>(code_type));
  put(f, layout_.frame_position, static_cast<void*>(c.data() + layout_.code_units + 2 * 99));
  EXPECT_EQ(walk(keys, 8, &error), 0u);
  EXPECT_EQ(error, ReadError::kBadPosition);
  put(f, layout_.frame_position, static_cast<void*>(c.data() + layout_.code_units + 2 * 3));
  put(f, static_cast<uint32_t>(layout_.frame_owner), int8_t{9});
  EXPECT_EQ(walk(keys, 8, &error), 0u);
  EXPECT_EQ(error, ReadError::kBadFrame);
  put(f, static_cast<uint32_t>(layout_.frame_owner), int8_t{0});
  put(f, layout_.frame_previous, reinterpret_cast<void*>(uintptr_t{0x10003}));  // misaligned
  EXPECT_EQ(walk(keys, 8, &error), 0u);
  EXPECT_EQ(error, ReadError::kBadFrame);
}

TEST_F(FrameReaderTest, NamesAndTablesOfAnUnexpectedKindAreRefused) {
  auto& c = code("/src/run.py", "main", 10);
  frame(c, 3);
  FrameKey keys[8];
  ReadError error;
  ASSERT_EQ(walk(keys, 8, &error), 1u);
  const FrameReader reader(layout_, symbols_);
  CodeContent content;
  uint8_t* name = nullptr;
  std::memcpy(&name, c.data() + layout_.code_name, sizeof name);
  uint32_t state = 0;
  std::memcpy(&state, name + layout_.str_state, sizeof state);
  const uint32_t compact = state;
  state &= ~(1u << 5);  // a legacy (not compact) str
  std::memcpy(name + layout_.str_state, &state, sizeof state);
  EXPECT_FALSE(reader.content(keys[0], &content, &error));
  EXPECT_EQ(error, ReadError::kBadName);
  state = (compact & ~(7u << 2)) | 3u << 2;  // kind 3: none
  std::memcpy(name + layout_.str_state, &state, sizeof state);
  EXPECT_FALSE(reader.content(keys[0], &content, &error));
  std::memcpy(name + layout_.str_state, &compact, sizeof compact);
  EXPECT_TRUE(reader.content(keys[0], &content, &error));
  put(c, layout_.code_linetable, static_cast<void*>(name));  // a str where bytes belong
  EXPECT_FALSE(reader.content(keys[0], &content, &error));
  EXPECT_EQ(error, ReadError::kBadLineTable);
}

// A chain that loops back on itself: the walk keeps `depth` frames and
// stops; one of entry frames only stops at the bound on skipped frames.
TEST_F(FrameReaderTest, ALoopingChainIsBounded) {
  auto& c = code("/src/run.py", "main", 10);
  auto& f = frame(c, 3);
  put(f, layout_.frame_previous, static_cast<void*>(f.data()));
  constexpr uint32_t kDepth = 64;
  FrameKey keys[kDepth];
  ReadError error;
  EXPECT_EQ(walk(keys, kDepth, &error), kDepth);
  put(f, static_cast<uint32_t>(layout_.frame_owner), kOwnedByCStack);
  EXPECT_EQ(walk(keys, kDepth, &error), 0u);
  EXPECT_EQ(error, ReadError::kNone);
}

TEST(Utf8, EveryKindAsUtf8) {
  const uint8_t latin1[] = {'c', 'a', 'f', 0xE9};
  EXPECT_EQ(utf8_of({latin1, 4, 1}), "caf\xC3\xA9");
  const uint16_t ucs2[] = {0x6A21, 0x578B, 0xD800};  // 模型, a lone surrogate
  EXPECT_EQ(utf8_of({reinterpret_cast<const uint8_t*>(ucs2), 3, 2}),
            "\xE6\xA8\xA1\xE5\x9E\x8B\xEF\xBF\xBD");
  const uint32_t ucs4[] = {0x1F680};
  EXPECT_EQ(utf8_of({reinterpret_cast<const uint8_t*>(ucs4), 1, 4}), "\xF0\x9F\x9A\x80");
}

}  // namespace
}  // namespace brickprof::agent::python
