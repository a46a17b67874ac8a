// GPU records kept for the dump: each CUPTI record translated into a node
// (no parent yet) with its device-side details, in blocks charged to the
// memory budget through a hook (the agent passes budget::charge), so they
// count against BRICKPROF_BUFFER_MB with the events. Blocks never move, so a
// record's address is stable; the dump fills in its attribution in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "trace/model/string_table.h"
#include "trace/model/trace.h"

namespace brickprof::agent {

struct StagedRecord {
  Node node;  // kind, name (in StagedRecords::strings), start_ns, end_ns
  GpuDetail detail;
  // Filled in by the dump: the node id it is written under, and the scope
  // that captured its CUDA graph node (kNoNode: none, or not known).
  uint32_t id = kNoNode;
  uint32_t captured_scope = kNoNode;
  uint32_t captured_scope_raw = kNoNode;
  uint8_t found = 0;  // kLaunchFound | kCapturedFound | kCapturedRawFound
  static constexpr uint8_t kLaunchFound = 1, kCapturedFound = 2, kCapturedRawFound = 4;
};

// Charging hooks; both null: nothing is charged (tests).
struct MemoryHooks {
  bool (*charge)(uint64_t bytes) = nullptr;
  void (*release)(uint64_t bytes) = nullptr;
  bool take(uint64_t bytes) const { return !charge || charge(bytes); }
  void give(uint64_t bytes) const {
    if (release) release(bytes);
  }
};

class StagedRecords {
 public:
  StagedRecords() = default;
  ~StagedRecords();
  StagedRecords(const StagedRecords&) = delete;
  StagedRecords& operator=(const StagedRecords&) = delete;

  // Bytes charged per record: the record itself plus the indexes the dump
  // sorts it into (by correlation, by graph node twice, by parent).
  static constexpr uint64_t kBytesPerRecord = sizeof(StagedRecord) + 40;

  void set_hooks(MemoryHooks hooks) { hooks_ = hooks; }
  // Appends; false (nothing kept) when the budget refuses.
  bool add(const Node& node, const GpuDetail& detail);
  // Interns a name; false when the budget refuses its bytes.
  bool intern(std::string_view text, StringId* id);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  StagedRecord& operator[](size_t i) { return block(i / kBlock)[i % kBlock]; }
  const StagedRecord& operator[](size_t i) const { return block(i / kBlock)[i % kBlock]; }
  std::string_view name(const StagedRecord& r) const { return strings_.view(r.node.name); }
  const StringTable& strings() const { return strings_; }
  // Everything charged so far (records, names).
  uint64_t bytes() const { return charged_; }

 private:
  static constexpr size_t kBlock = 512;
  // Raw storage: a record is constructed when it is added (a block of
  // 512 built at once wrote 120 KB on the delivery thread in one go).
  struct Free {
    void operator()(void* p) const { ::operator delete(p); }
  };
  StagedRecord* block(size_t b) const { return static_cast<StagedRecord*>(blocks_[b].get()); }
  std::vector<std::unique_ptr<void, Free>> blocks_;
  size_t size_ = 0;
  StringTable strings_;
  MemoryHooks hooks_;
  uint64_t charged_ = 0;
};

}  // namespace brickprof::agent
