// Word histories and the race rule (see race_shadow.h).
#include "race_shadow.h"

#include <algorithm>
#include <iterator>

namespace cuda_emulator {
namespace {

constexpr size_t kWord = 4;

bool ordered(const Accessor& before, const Accessor& now) {
  return before.block == now.block && (before.thread == now.thread || before.epoch < now.epoch);
}

// Checks one access against the word's history, then records it.
Race check_and_record(WordHistory& h, bool write, const Accessor& who) {
  Race race;
  if (h.written && !ordered(h.writer, who)) {
    race.kind = write ? RaceKind::kWriteAfterWrite : RaceKind::kReadAfterWrite;
    race.other = h.writer;
    return race;
  }
  if (write) {
    // Some earlier read not ordered before this write: from another block,
    // or from another thread since the last barrier.
    const bool unordered_read =
        h.read && (h.readers_in_blocks || h.reader.block != who.block ||
                   (h.reader.epoch == who.epoch && (h.readers_in_epoch || h.reader.thread != who.thread)));
    if (unordered_read) {
      race.kind = RaceKind::kWriteAfterRead;
      race.other = h.reader;
      return race;
    }
    h.written = true;
    h.writer = who;
    h.read = h.readers_in_epoch = h.readers_in_blocks = false;  // all ordered before this write
    return race;
  }
  if (!h.read) {
    h.read = true;
    h.reader = who;
  } else if (h.reader.block != who.block) {
    h.readers_in_blocks = true;
    h.reader = who;
    h.readers_in_epoch = false;
  } else if (h.reader.epoch == who.epoch) {
    h.readers_in_epoch = h.readers_in_epoch || h.reader.thread != who.thread;
  } else {
    // A later epoch of the same block: earlier reads are behind a barrier.
    h.reader = who;
    h.readers_in_epoch = false;
  }
  return race;
}

}  // namespace

PagedHistories::Page* PagedHistories::page(uintptr_t number) {
  CacheEntry& cached = cache_[number % std::size(cache_)];
  if (cached.page != nullptr && cached.number == number) return cached.page;
  std::unique_ptr<Page>& p = pages_[number];
  if (p == nullptr) p = std::make_unique<Page>();
  cached = CacheEntry{number, p.get()};
  return cached.page;
}

WordHistory& PagedHistories::word(uintptr_t index) {
  Page* p = page(index / kWordsPerPage);
  if (p->generation != generation_) {
    std::fill(std::begin(p->words), std::end(p->words), WordHistory{});
    p->generation = generation_;
  }
  return p->words[index % kWordsPerPage];
}

WordHistory& FlatHistories::word(uintptr_t index) {
  if (index >= words_.size()) {
    generations_.resize(index + 1, 0);
    words_.resize(index + 1);
  }
  if (generations_[index] != generation_) {
    generations_[index] = generation_;
    words_[index] = WordHistory{};
  }
  return words_[index];
}

template <typename Histories>
Race RaceShadow::access(Histories& histories, uintptr_t byte, size_t size, bool write,
                        const Accessor& who) {
  for (uintptr_t w = byte / kWord; w <= (byte + size - 1) / kWord; ++w) {
    const Race race = check_and_record(histories.word(w), write, who);
    if (race.kind != RaceKind::kNone) return race;
  }
  return Race{};
}

Race RaceShadow::access_global(uintptr_t addr, size_t size, bool write, const Accessor& who) {
  return access(global_, addr, size, write, who);
}

Race RaceShadow::access_shared(size_t offset, size_t size, bool write, const Accessor& who) {
  return access(shared_, offset, size, write, who);
}

}  // namespace cuda_emulator
