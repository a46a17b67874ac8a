// Python stacks interned as they are seen. A launch finds its stack by the
// frames it read in place (frame_reader.h): each frame's code object and
// position. A loop that launches from the same place a million times finds
// one stack and stores nothing.
//
// Without the GIL no reference can be taken, so a code object the table
// has seen may be freed and its address given to another. A found stack is
// therefore checked against the live code objects before it is answered:
// each one's file name, function name and first line must be those the
// table copied when it first read them, and its line table's bytes up to
// the entry its frames' lines were read from (all a line depends on) too;
// each code object once per stack. Only then are the file, function and
// line the table stored the ones reading the frames now would give;
// otherwise the stack is read afresh (a new way to it).
//
// find() takes no lock and may run on any number of threads at once: what
// it reads (the ways, the code copies) is published once, complete, and
// never changed or freed. add() runs under the caller's lock, computes the
// lines (a walk of each line table) only for a way not seen before, and
// stores frames by their text ({file, line, function}, shared between
// stacks); ways on the same lines share one stack. Every entry is charged
// to the memory budget first; a stack that does not fit gets id 0.
// Pure C++: no Python here (tests feed it a made-up FrameSource).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/python/frame_reader.h"
#include "agent/recorder/staged_records.h"
#include "trace/model/trace.h"

namespace brickprof::agent::python {

// Where the table reads the frames' contents: the reader, in the agent.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  virtual bool content(const FrameKey& key, CodeContent* out, ReadError* error) const = 0;
  // The frame's line, and how many of the table's first bytes it depends on.
  virtual int64_t line(const FrameKey& key, const CodeContent& code, size_t* read) const = 0;
};

class StackTable {
 public:
  static constexpr uint32_t kMaxFrames = 256;  // deeper stacks keep their innermost frames

  explicit StackTable(MemoryHooks hooks = {});
  ~StackTable();
  StackTable(const StackTable&) = delete;
  StackTable& operator=(const StackTable&) = delete;

  // The id (1 + index into stacks()) of the stack at `keys[0..n)`, checked
  // against `source`; 0 when not seen (or seen with other contents).
  uint32_t find(const FrameKey* keys, uint32_t n, const FrameSource& source) const;
  // Adds it (the caller holds its lock): its id, or 0 when the budget
  // refused it (counted in refused()) or a frame could not be read
  // (*error says why).
  uint32_t add(const FrameKey* keys, uint32_t n, const FrameSource& source, ReadError* error);

  // For the trace (under the caller's lock): frames by id, stacks as lists
  // of frame ids, innermost first.
  std::vector<PythonFrame> frames() const;
  std::vector<std::vector<uint32_t>> stacks() const;
  uint64_t refused() const { return refused_; }

 private:
  struct Code;
  struct Check;
  struct Way;
  struct Arena;
  struct FrameText {
    uint32_t file, function;  // into names_
    int64_t line;
    bool operator==(const FrameText&) const = default;
  };
  struct FrameTextHash {
    size_t operator()(const FrameText& f) const;
  };
  struct Span {
    uint32_t offset;  // into frame_ids_
    uint32_t size;
  };
  static constexpr uint32_t kBuckets = 1u << 14;

  bool verified(const Way& way, const FrameKey* keys, const FrameSource& source) const;
  const Code* code_of(const FrameKey& key, const CodeContent& content);
  uint32_t name_id(const StrView& text, bool* ok);
  uint32_t frame_id(const FrameText& frame, bool* ok);
  uint32_t stack_of(const uint32_t* ids, uint32_t n);
  void* allocate(size_t bytes, bool* ok);

  MemoryHooks hooks_;
  std::unique_ptr<Arena> arena_;
  // kBuckets heads, made at the first add.
  std::atomic<std::atomic<const Way*>*> buckets_{nullptr};
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_index_;
  std::unordered_multimap<const void*, const Code*> codes_;  // by code object address
  std::vector<FrameText> frames_;
  std::unordered_map<FrameText, uint32_t, FrameTextHash> frame_index_;
  std::vector<uint32_t> frame_ids_;  // stacks by content: frame ids, innermost first
  std::vector<Span> stacks_;
  std::unordered_map<uint64_t, uint32_t> stack_index_;  // hash of ids -> stack id (then + 1...)
  uint64_t refused_ = 0;
};

}  // namespace brickprof::agent::python
