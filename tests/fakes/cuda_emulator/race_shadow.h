// Data-race detection for the emulator: the history of every 4-byte word a
// kernel touched, and the rule that says when two accesses race.
//
// Two accesses to a word, at least one a write, are ordered only if the
// same thread made both, or the same block made them on different sides of
// a __syncthreads. Anything else (two threads between the same pair of
// barriers; two blocks of one launch, which CUDA never orders) is a race,
// whatever order the emulator happened to run them in. Warp shuffles do not
// order memory (only __syncwarp or __syncthreads do). Atomics are not seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace cuda_emulator {

// Who made an access: the block (linear index), how many __syncthreads that
// block had passed, and the thread (linear index within the block).
struct Accessor {
  uint32_t block = 0, epoch = 0, thread = 0;
};

enum class RaceKind { kNone, kReadAfterWrite, kWriteAfterRead, kWriteAfterWrite };

struct Race {
  RaceKind kind = RaceKind::kNone;
  Accessor other;  // the earlier access it races with
};

// What happened to one word since its history began.
struct WordHistory {
  Accessor writer, reader;
  bool written = false, read = false;
  bool readers_in_epoch = false;   // another thread of reader's block and epoch read it
  bool readers_in_blocks = false;  // a block other than reader's read it
};

// Histories of words by index, kept per 4 KiB page of memory and forgotten
// together: a page of an older generation reads as untouched. Kernels
// stream through a few pages at a time, so recent pages are cached.
class PagedHistories {
 public:
  static constexpr size_t kWordsPerPage = 1024;

  WordHistory& word(uintptr_t index);
  void forget() { ++generation_; }

 private:
  struct Page {
    uint64_t generation = 0;
    WordHistory words[kWordsPerPage];
  };
  Page* page(uintptr_t number);

  uint64_t generation_ = 1;
  std::unordered_map<uintptr_t, std::unique_ptr<Page>> pages_;
  // Direct-mapped on the page number.
  struct CacheEntry {
    uintptr_t number = 0;
    Page* page = nullptr;
  };
  CacheEntry cache_[64];
};

// Histories of a small range of words (a block's shared memory), each
// stamped with its generation: a flat array, the hottest path of all.
class FlatHistories {
 public:
  WordHistory& word(uintptr_t index);
  void forget() { ++generation_; }

 private:
  uint64_t generation_ = 1;
  std::vector<uint64_t> generations_;
  std::vector<WordHistory> words_;
};

// The histories of global memory (per launch) and of shared memory (per
// block), and the check of each access against them.
class RaceShadow {
 public:
  void begin_launch() { global_.forget(); }
  void begin_block() { shared_.forget(); }

  // Checks and records one access of `size` bytes by `who`: at an address
  // of global memory, or at an offset into the block's shared memory.
  Race access_global(uintptr_t addr, size_t size, bool write, const Accessor& who);
  Race access_shared(size_t offset, size_t size, bool write, const Accessor& who);

 private:
  template <typename Histories>
  static Race access(Histories& histories, uintptr_t byte, size_t size, bool write,
                     const Accessor& who);

  PagedHistories global_;
  FlatHistories shared_;
};

}  // namespace cuda_emulator
