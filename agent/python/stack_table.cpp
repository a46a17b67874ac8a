// Interned Python stacks (see stack_table.h).
#include "agent/python/stack_table.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace brickprof::agent::python {
namespace {

// What a hash-map entry costs beyond its payload (node, bucket, rounding).
constexpr uint64_t kEntryBytes = 64;
constexpr size_t kChunkBytes = 64 * 1024;

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

// One multiply per frame (a launch hashes its whole stack each time).
uint64_t hash_of(const FrameKey* keys, uint32_t n) {
  uint64_t h = n;
  for (uint32_t i = 0; i < n; ++i)
    h = (h ^ reinterpret_cast<uintptr_t>(keys[i].code) ^
         static_cast<uint64_t>(keys[i].position) << 40) *
        0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

uint64_t hash_of(const uint32_t* ids, uint32_t n) {
  uint64_t h = n;
  for (uint32_t i = 0; i < n; ++i) h = mix(h, ids[i]);
  return h;
}

// Names are short: compared inline a word at a time, not through memcmp's
// call and dispatch, which pays off from a line table's hundreds of bytes.
bool equal_bytes(const uint8_t* a, const uint8_t* b, size_t n) {
  if (n > 128) return std::memcmp(a, b, n) == 0;
  uint64_t diff = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    diff |= x ^ y;
  }
  for (; i < n; ++i) diff |= a[i] ^ b[i];
  return diff == 0;
}

bool same(const StrView& a, const StrView& b) {
  return a.kind == b.kind && a.length == b.length &&
         equal_bytes(a.data, b.data, static_cast<size_t>(a.length) * a.kind);
}

bool same(const BytesView& a, const BytesView& b) {
  return a.size == b.size && equal_bytes(a.data, b.data, a.size);
}

}  // namespace

// A code object as the table first read it: copies of what its answers
// came from. Immutable once published.
struct StackTable::Code {
  StrView filename, name;
  BytesView linetable;
  int32_t first_line;
  uint32_t file, function;  // into names_
};

// What a found way checks of one code object it holds: its names, first
// line, and the first `table_bytes` of its line table (the most any of its
// frames' lines depends on), read through its frame `frame`.
struct StackTable::Check {
  const Code* code;
  uint32_t frame;
  uint32_t table_bytes;
};

// One way to a stack: the frames a launch read, and a check per code
// object. Immutable once published at the head of its bucket.
struct StackTable::Way {
  const Way* next;
  uint64_t hash;
  uint32_t n;
  uint32_t stack;
  const FrameKey* keys;
  const Check* checks;
  uint32_t n_checks;
};

// Memory that lives as long as the table, never moved (find() reads it
// without the lock), charged to the budget a chunk at a time.
struct StackTable::Arena {
  std::vector<void*> chunks;
  uint64_t charged = 0;
  uint8_t* next = nullptr;
  size_t left = 0;
};

size_t StackTable::FrameTextHash::operator()(const FrameText& f) const {
  return mix(mix(f.file, f.function), static_cast<uint64_t>(f.line));
}

StackTable::StackTable(MemoryHooks hooks) : hooks_(hooks), arena_(std::make_unique<Arena>()) {}

StackTable::~StackTable() {
  for (void* chunk : arena_->chunks) std::free(chunk);
  hooks_.give(arena_->charged);
}

void* StackTable::allocate(size_t bytes, bool* ok) {
  bytes = (bytes + 15) & ~size_t{15};
  if (bytes > arena_->left) {
    const size_t size = bytes > kChunkBytes ? bytes : kChunkBytes;
    if (!hooks_.take(size)) {
      *ok = false;
      return nullptr;
    }
    void* chunk = std::malloc(size);
    if (chunk == nullptr) {
      hooks_.give(size);
      *ok = false;
      return nullptr;
    }
    arena_->chunks.push_back(chunk);
    arena_->charged += size;
    arena_->next = static_cast<uint8_t*>(chunk);
    arena_->left = size;
  }
  void* p = arena_->next;
  arena_->next += bytes;
  arena_->left -= bytes;
  return p;
}

bool StackTable::verified(const Way& way, const FrameKey* keys, const FrameSource& source) const {
  static_assert(sizeof(FrameKey) == 16, "compared as bytes: no padding");
  if (std::memcmp(way.keys, keys, way.n * sizeof(FrameKey)) != 0) return false;
  for (uint32_t i = 0; i < way.n_checks; ++i) {
    const Check& check = way.checks[i];
    CodeContent now;
    ReadError error;
    if (!source.content(keys[check.frame], &now, &error)) return false;
    const Code& then = *check.code;
    if (now.first_line != then.first_line || !same(now.filename, then.filename) ||
        !same(now.name, then.name) || now.linetable.size < check.table_bytes ||
        !equal_bytes(now.linetable.data, then.linetable.data, check.table_bytes))
      return false;
  }
  return true;
}

uint32_t StackTable::find(const FrameKey* keys, uint32_t n, const FrameSource& source) const {
  if (n > kMaxFrames) n = kMaxFrames;
  const std::atomic<const Way*>* buckets = buckets_.load(std::memory_order_acquire);
  if (buckets == nullptr) return 0;
  const uint64_t h = hash_of(keys, n);
  for (const Way* w = buckets[h % kBuckets].load(std::memory_order_acquire); w != nullptr;
       w = w->next) {
    if (w->hash == h && w->n == n && verified(*w, keys, source)) return w->stack;
  }
  return 0;
}

uint32_t StackTable::name_id(const StrView& text, bool* ok) {
  std::string name = utf8_of(text);
  auto it = name_index_.find(name);
  if (it != name_index_.end()) return it->second;
  if (!hooks_.take(2 * name.size() + 2 * kEntryBytes)) {
    *ok = false;
    return 0;
  }
  const auto id = static_cast<uint32_t>(names_.size());
  names_.push_back(name);
  name_index_.emplace(std::move(name), id);
  return id;
}

const StackTable::Code* StackTable::code_of(const FrameKey& key, const CodeContent& content) {
  auto [first, last] = codes_.equal_range(key.code);
  for (auto it = first; it != last; ++it) {
    const Code& c = *it->second;
    if (c.first_line == content.first_line && same(c.filename, content.filename) &&
        same(c.name, content.name) && same(c.linetable, content.linetable))
      return &c;
  }
  bool ok = true;
  const size_t file_bytes = static_cast<size_t>(content.filename.length) * content.filename.kind;
  const size_t name_bytes = static_cast<size_t>(content.name.length) * content.name.kind;
  auto* c = static_cast<Code*>(allocate(sizeof(Code), &ok));
  auto* copies =
      static_cast<uint8_t*>(allocate(file_bytes + name_bytes + content.linetable.size + 1, &ok));
  const uint32_t file = name_id(content.filename, &ok);
  const uint32_t function = name_id(content.name, &ok);
  if (!ok || !hooks_.take(kEntryBytes)) return nullptr;
  std::memcpy(copies, content.filename.data, file_bytes);
  std::memcpy(copies + file_bytes, content.name.data, name_bytes);
  std::memcpy(copies + file_bytes + name_bytes, content.linetable.data, content.linetable.size);
  c->first_line = content.first_line;
  c->filename = {copies, content.filename.length, content.filename.kind};
  c->name = {copies + file_bytes, content.name.length, content.name.kind};
  c->linetable = {copies + file_bytes + name_bytes, content.linetable.size};
  c->file = file;
  c->function = function;
  codes_.emplace(key.code, c);
  return c;
}

uint32_t StackTable::frame_id(const FrameText& frame, bool* ok) {
  if (auto it = frame_index_.find(frame); it != frame_index_.end()) return it->second;
  if (!hooks_.take(sizeof(FrameText) + kEntryBytes)) {
    *ok = false;
    return 0;
  }
  const auto id = static_cast<uint32_t>(frames_.size());
  frames_.push_back(frame);
  frame_index_.emplace(frame, id);
  return id;
}

// The stack of these frame ids, added if new; 0 when refused.
uint32_t StackTable::stack_of(const uint32_t* ids, uint32_t n) {
  uint64_t h = hash_of(ids, n);
  for (;; ++h) {
    auto it = stack_index_.find(h);
    if (it == stack_index_.end()) break;
    const Span& s = stacks_[it->second - 1];
    if (s.size == n && std::equal(ids, ids + n, frame_ids_.begin() + s.offset)) return it->second;
  }
  if (!hooks_.take(n * sizeof(uint32_t) + sizeof(Span) + kEntryBytes)) return 0;
  stacks_.push_back({static_cast<uint32_t>(frame_ids_.size()), n});
  frame_ids_.insert(frame_ids_.end(), ids, ids + n);
  const auto id = static_cast<uint32_t>(stacks_.size());
  stack_index_.emplace(h, id);
  return id;
}

uint32_t StackTable::add(const FrameKey* keys, uint32_t n, const FrameSource& source,
                         ReadError* error) {
  *error = ReadError::kNone;
  if (n > kMaxFrames) n = kMaxFrames;
  bool ok = true;
  std::atomic<const Way*>* buckets = buckets_.load(std::memory_order_relaxed);
  if (buckets == nullptr) {
    void* heads = allocate(kBuckets * sizeof(std::atomic<const Way*>), &ok);
    if (!ok) {
      ++refused_;
      return 0;
    }
    buckets = static_cast<std::atomic<const Way*>*>(heads);
    for (uint32_t i = 0; i < kBuckets; ++i) new (&buckets[i]) std::atomic<const Way*>(nullptr);
    buckets_.store(buckets, std::memory_order_release);
  }
  uint32_t ids[kMaxFrames];
  Check checks[kMaxFrames];
  uint32_t n_checks = 0;
  for (uint32_t i = 0; i < n; ++i) {
    CodeContent content;
    if (!source.content(keys[i], &content, error)) return 0;
    const Code* code = code_of(keys[i], content);
    if (code == nullptr) {
      ++refused_;
      return 0;
    }
    size_t read = 0;
    const int64_t line = source.line(keys[i], content, &read);
    ids[i] = frame_id({code->file, code->function, line}, &ok);
    if (!ok) {
      ++refused_;
      return 0;
    }
    Check* check =
        std::find_if(checks, checks + n_checks, [code](const Check& c) { return c.code == code; });
    if (check == checks + n_checks) checks[n_checks++] = {code, i, 0};
    check->table_bytes = std::max(check->table_bytes, static_cast<uint32_t>(read));
  }
  const uint32_t stack = stack_of(ids, n);
  auto* way = static_cast<Way*>(allocate(sizeof(Way), &ok));
  auto* way_keys = static_cast<FrameKey*>(allocate(n * sizeof(FrameKey), &ok));
  auto* way_checks = static_cast<Check*>(allocate(n_checks * sizeof(Check), &ok));
  if (stack == 0 || !ok) {
    ++refused_;
    return 0;
  }
  std::copy(keys, keys + n, way_keys);
  std::copy(checks, checks + n_checks, way_checks);
  const uint64_t h = hash_of(keys, n);
  std::atomic<const Way*>& head = buckets[h % kBuckets];
  *way = Way{head.load(std::memory_order_relaxed), h, n, stack, way_keys, way_checks, n_checks};
  head.store(way, std::memory_order_release);
  return stack;
}

std::vector<PythonFrame> StackTable::frames() const {
  std::vector<PythonFrame> out;
  out.reserve(frames_.size());
  for (const FrameText& f : frames_) out.push_back({names_[f.file], f.line, names_[f.function]});
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
