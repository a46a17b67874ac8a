// An insert-only hash index from small keys to dense ids (0, 1, 2, ... in
// order of first insertion): open addressing with linear probing over one
// array. The HTML page folds millions of nodes through such lookups, where
// std::unordered_map's allocation per entry costs a cache miss each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace brickprof {

// Hash: size_t operator()(const Key&), mixing all of the key's bits.
template <typename Key, typename Hash>
class FlatIndex {
 public:
  // The id of `key`, and whether it is new (then it got the next id).
  std::pair<uint32_t, bool> insert(const Key& key) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = Hash{}(key)&mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.id == kEmpty) {
        s = {key, static_cast<uint32_t>(size_++)};
        return {s.id, true};
      }
      if (s.key == key) return {s.id, false};
    }
  }
  size_t size() const { return size_; }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    Key key{};
    uint32_t id = kEmpty;
  };

  void grow() {
    std::vector<Slot> old(slots_.empty() ? 16 : slots_.size() * 2);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.id == kEmpty) continue;
      size_t i = Hash{}(s.key) & mask;
      while (slots_[i].id != kEmpty) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace brickprof
