// The per-thread cache in front of the site table (text_sites.h): direct
// mapped by the text's hash, checked against the interned name, so a
// collision costs an intern, never a wrong id.
#include "agent/recorder/text_sites.h"

#include "agent/recorder/site_table.h"

namespace brickprof::agent {
namespace {

constexpr uint32_t kCacheSlots = 64;  // a program's pools and a step's distinct shapes

struct CachedText {
  uint64_t hash = 0;
  uint32_t site = sites::kOther;  // kOther: an empty slot
};

thread_local CachedText t_cache[kCacheSlots];

uint64_t hash_text(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

}  // namespace

uint32_t text_site(std::string_view text) {
  const uint64_t h = hash_text(text);
  CachedText& slot = t_cache[h % kCacheSlots];
  if (slot.site != sites::kOther && slot.hash == h && sites::get(slot.site).name == text)
    return slot.site;
  const uint32_t site = sites::intern(NodeKind::kScope, -1, text);
  if (site != sites::kOther) slot = {h, site};
  return site;
}

}  // namespace brickprof::agent
