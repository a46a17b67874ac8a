// Interned strings (see string_table.h).
#include "trace/model/string_table.h"

namespace brickprof {

StringTable& StringTable::operator=(const StringTable& other) {
  if (this == &other) return *this;
  storage_.clear();
  index_.clear();
  for (const std::string& s : other.storage_) intern(s);
  return *this;
}

StringId StringTable::intern(std::string_view text) {
  auto it = index_.find(text);
  if (it != index_.end()) return it->second;
  StringId id = static_cast<StringId>(storage_.size());
  storage_.emplace_back(text);
  index_.emplace(storage_.back(), id);
  return id;
}

}  // namespace brickprof
