// Python stacks interned as they are seen. A launch finds its stack by the
// (code object, position) pairs of its frames, innermost first, where the
// position is the bytecode offset (or the line, on a Python without
// PyFrame_GetLasti): a loop that launches from the same place a million
// times finds one stack and stores nothing. Only a new one costs its line
// numbers, and is stored as frame ids ({file, line, function}, shared
// between stacks); positions that come to the same lines share one stack.
// The caller holds the lock and keeps each code object alive while it is in
// the table (its address then cannot be reused for another). Every entry is
// charged to the memory budget first; a stack that does not fit gets id 0.
// Pure C++: no Python here (tests feed it made-up code addresses).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agent/recorder/staged_records.h"
#include "analysis/model/trace.h"

namespace brickprof::agent::python {

struct FrameKey {
  const void* code;
  int64_t position;  // bytecode offset, or line
  bool operator==(const FrameKey&) const = default;
};

class StackTable {
 public:
  static constexpr uint32_t kMaxFrames = 256;  // deeper stacks keep their innermost frames

  // Called once for a code object the table has not seen: its file and
  // function name; false leaves the stack out (nothing is kept).
  using Describe = std::function<bool(const void* code, std::string* file, std::string* function)>;
  // Called when the table keeps a code object (the caller takes a reference).
  using Keep = std::function<void(const void* code)>;

  explicit StackTable(MemoryHooks hooks = {}) : hooks_(hooks) {}

  // The id (1 + index into stacks()) of the stack at `keys[0..n)`, 0 when
  // it was not seen yet.
  uint32_t find(const FrameKey* keys, uint32_t n) const;
  // Adds it, with each frame's line: its id, or 0 when the budget refused
  // it or a code object could not be described (counted in refused()).
  uint32_t add(const FrameKey* keys, const int64_t* lines, uint32_t n, const Describe& describe,
               const Keep& keep);

  // For the trace: frames by id, stacks as lists of frame ids, innermost first.
  std::vector<PythonFrame> frames() const;
  std::vector<std::vector<uint32_t>> stacks() const;
  uint64_t refused() const { return refused_; }

 private:
  struct Code {
    uint32_t file;  // into names_
    uint32_t function;
  };
  struct Frame {
    uint32_t file, function;
    int64_t line;
  };
  struct Span {
    uint32_t offset;  // into keys_ (a way to a stack) or frame_ids_ (a stack)
    uint32_t size;
    uint32_t stack;  // the stack's id, for a way to it
  };
  struct LineKey {
    const void* code;
    int64_t line;
    bool operator==(const LineKey&) const = default;
  };
  struct LineKeyHash {
    size_t operator()(const LineKey& k) const;
  };
  bool charge(uint64_t bytes);
  uint32_t name_id(std::string_view name, bool* ok);
  uint32_t frame_id(const LineKey& key, const Describe& describe, const Keep& keep);
  uint32_t stack_of(const uint32_t* ids, uint32_t n);

  MemoryHooks hooks_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_index_;
  std::unordered_map<const void*, Code> codes_;
  std::vector<Frame> frames_;
  std::unordered_map<LineKey, uint32_t, LineKeyHash> frame_index_;
  // Stacks by content: frame ids, innermost first.
  std::vector<uint32_t> frame_ids_;
  std::vector<Span> stacks_;
  std::unordered_map<uint64_t, uint32_t> stack_index_;  // hash of ids -> stack id
  // Ways to them: the positions a launch saw.
  std::vector<FrameKey> keys_;
  std::vector<Span> ways_;
  // Hash of keys -> 1 + index into ways_. A hash taken by another list of
  // keys moves on to hash + 1 (both indexes).
  std::unordered_map<uint64_t, uint32_t> way_index_;
  uint64_t refused_ = 0;
};

}  // namespace brickprof::agent::python
