// Interned Python stacks (see stack_table.h).
#include "agent/python/stack_table.h"

namespace brickprof::agent::python {
namespace {

// What a hash-map entry costs beyond its payload (node, bucket, rounding).
constexpr uint64_t kEntryBytes = 64;

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

uint64_t hash_of(const FrameKey* keys, uint32_t n) {
  uint64_t h = n;
  for (uint32_t i = 0; i < n; ++i)
    h = mix(mix(h, reinterpret_cast<uintptr_t>(keys[i].code)),
            static_cast<uint64_t>(keys[i].position));
  return h;
}

uint64_t hash_of(const uint32_t* ids, uint32_t n) {
  uint64_t h = n;
  for (uint32_t i = 0; i < n; ++i) h = mix(h, ids[i]);
  return h;
}

template <typename T>
bool same(const std::vector<T>& arena, uint32_t offset, uint32_t size, const T* items, uint32_t n) {
  if (size != n) return false;
  for (uint32_t i = 0; i < n; ++i)
    if (!(arena[offset + i] == items[i])) return false;
  return true;
}

}  // namespace

size_t StackTable::LineKeyHash::operator()(const LineKey& k) const {
  return mix(reinterpret_cast<uintptr_t>(k.code), static_cast<uint64_t>(k.line));
}

bool StackTable::charge(uint64_t bytes) { return hooks_.take(bytes); }

uint32_t StackTable::find(const FrameKey* keys, uint32_t n) const {
  if (n > kMaxFrames) n = kMaxFrames;
  for (uint64_t h = hash_of(keys, n);; ++h) {
    auto it = way_index_.find(h);
    if (it == way_index_.end()) return 0;
    const Span& way = ways_[it->second - 1];
    if (same(keys_, way.offset, way.size, keys, n)) return way.stack;
  }
}

uint32_t StackTable::name_id(std::string_view name, bool* ok) {
  auto it = name_index_.find(std::string(name));
  if (it != name_index_.end()) return it->second;
  if (!charge(2 * name.size() + 2 * kEntryBytes)) {
    *ok = false;
    return 0;
  }
  const auto id = static_cast<uint32_t>(names_.size());
  names_.emplace_back(name);
  name_index_.emplace(std::string(name), id);
  return id;
}

// kNoNode when the frame could not be added.
uint32_t StackTable::frame_id(const LineKey& key, const Describe& describe, const Keep& keep) {
  if (auto it = frame_index_.find(key); it != frame_index_.end()) return it->second;
  auto code = codes_.find(key.code);
  if (code == codes_.end()) {
    std::string file, function;
    if (!describe(key.code, &file, &function)) return kNoNode;
    bool ok = true;
    Code c{name_id(file, &ok), name_id(function, &ok)};
    if (!ok || !charge(kEntryBytes)) return kNoNode;
    code = codes_.emplace(key.code, c).first;
    keep(key.code);
  }
  if (!charge(sizeof(Frame) + kEntryBytes)) return kNoNode;
  const auto id = static_cast<uint32_t>(frames_.size());
  frames_.push_back({code->second.file, code->second.function, key.line});
  frame_index_.emplace(key, id);
  return id;
}

// The stack of these frame ids, added if new; 0 when refused.
uint32_t StackTable::stack_of(const uint32_t* ids, uint32_t n) {
  uint64_t h = hash_of(ids, n);
  for (;; ++h) {
    auto it = stack_index_.find(h);
    if (it == stack_index_.end()) break;
    const Span& s = stacks_[it->second - 1];
    if (same(frame_ids_, s.offset, s.size, ids, n)) return it->second;
  }
  if (!charge(n * sizeof(uint32_t) + sizeof(Span) + kEntryBytes)) return 0;
  stacks_.push_back({static_cast<uint32_t>(frame_ids_.size()), n, 0});
  frame_ids_.insert(frame_ids_.end(), ids, ids + n);
  const auto id = static_cast<uint32_t>(stacks_.size());
  stack_index_.emplace(h, id);
  return id;
}

uint32_t StackTable::add(const FrameKey* keys, const int64_t* lines, uint32_t n,
                         const Describe& describe, const Keep& keep) {
  if (n > kMaxFrames) n = kMaxFrames;
  uint32_t ids[kMaxFrames];
  for (uint32_t i = 0; i < n; ++i) {
    ids[i] = frame_id({keys[i].code, lines[i]}, describe, keep);
    if (ids[i] == kNoNode) {
      ++refused_;
      return 0;
    }
  }
  const uint32_t stack = stack_of(ids, n);
  if (stack == 0 || !charge(n * sizeof(FrameKey) + sizeof(Span) + kEntryBytes)) {
    ++refused_;
    return 0;
  }
  uint64_t h = hash_of(keys, n);
  while (way_index_.count(h) != 0) ++h;
  ways_.push_back({static_cast<uint32_t>(keys_.size()), n, stack});
  keys_.insert(keys_.end(), keys, keys + n);
  way_index_.emplace(h, static_cast<uint32_t>(ways_.size()));
  return stack;
}

std::vector<PythonFrame> StackTable::frames() const {
  std::vector<PythonFrame> out;
  out.reserve(frames_.size());
  for (const Frame& f : frames_) out.push_back({names_[f.file], f.line, names_[f.function]});
  return out;
}

std::vector<std::vector<uint32_t>> StackTable::stacks() const {
  std::vector<std::vector<uint32_t>> out;
  out.reserve(stacks_.size());
  for (const Span& s : stacks_)
    out.emplace_back(frame_ids_.begin() + s.offset, frame_ids_.begin() + s.offset + s.size);
  return out;
}

}  // namespace brickprof::agent::python
