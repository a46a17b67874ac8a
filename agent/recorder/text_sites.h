// Texts the program names on every call (a memory pool's name, a shape
// signature) interned as sites once per distinct text: each thread keeps
// the ids of the texts it used last, so a repeated text costs a hash and
// a compare, not the site table's lock.
#pragma once

#include <cstdint>
#include <string_view>

namespace brickprof::agent {

// The site of `text` (interned as a plain scope name, never read as a
// layer or brick), or sites::kOther when the table is full (counted there).
uint32_t text_site(std::string_view text);

}  // namespace brickprof::agent
