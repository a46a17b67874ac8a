// The PTX registry's module hash: 64-bit FNV-1a over the image bytes. Stable
// across runs, machines and builds of the agent, so traces can be compared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace brickprof::agent {

inline uint64_t fnv1a64(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

inline uint64_t fnv1a64(std::string_view text) { return fnv1a64(text.data(), text.size()); }

}  // namespace brickprof::agent
