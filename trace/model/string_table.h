// Interned strings: each distinct name is stored once and named by a small id.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace brickprof {

using StringId = uint32_t;

class StringTable {
 public:
  StringTable() { intern(""); }  // id 0 is the empty string
  StringTable(const StringTable& other) { *this = other; }
  StringTable& operator=(const StringTable& other);
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  StringId intern(std::string_view text);
  std::string_view view(StringId id) const { return storage_[id]; }
  size_t size() const { return storage_.size(); }

 private:
  // A deque keeps element addresses stable, so the map's keys stay valid.
  std::deque<std::string> storage_;
  std::unordered_map<std::string_view, StringId> index_;
};

}  // namespace brickprof
