// Reader for NVIDIA's fatbin container (what nvcc embeds in host binaries and
// what cuModuleLoadFatBinary / cuLibraryLoadData receive): the optional
// __fatBinC_Wrapper_t, the fatbin header, and its PTX / cubin entries,
// decompressed (LZ4 block or zstd) on request. No CUDA headers needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace brickprof::agent {

inline constexpr uint32_t kFatbinWrapperMagic = 0x466243b1;
inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;

enum class FatbinEntryKind : uint16_t { kPtx = 1, kCubin = 2 };

// Entry flags seen in nvcc 12/13 output.
inline constexpr uint64_t kFatbinFlag64Bit = 0x1;
inline constexpr uint64_t kFatbinFlagDebug = 0x2;
inline constexpr uint64_t kFatbinFlagLinux = 0x10;
inline constexpr uint64_t kFatbinFlagLz4 = 0x2000;   // --compress-mode=speed
inline constexpr uint64_t kFatbinFlagZstd = 0x8000;  // nvcc 13 default

struct FatbinEntry {
  uint16_t kind = 0;  // FatbinEntryKind, or something newer we do not know
  uint32_t sm_arch = 0;  // e.g. 90
  uint64_t flags = 0;
  const uint8_t* payload = nullptr;  // points into the parsed image
  uint64_t payload_size = 0;         // bytes stored (compressed if flagged)
  uint64_t uncompressed_size = 0;    // 0 when not compressed
  bool compressed() const { return (flags & (kFatbinFlagLz4 | kFatbinFlagZstd)) != 0; }
};

// If `image` starts with a __fatBinC_Wrapper_t, returns the fatbin it points
// to; otherwise `image` itself.
const void* unwrap_fatbin(const void* image);

// Total size of a fatbin (header + entries) starting at `image`, 0 if it
// does not start with the fatbin magic.
size_t fatbin_size(const void* image);

// Parses the entries of the fatbin at `image` (size from its header, capped
// by `max_size` when non-zero). Returns false with a reason on a malformed
// container; entries parsed before the fault are kept.
bool parse_fatbin(const void* image, size_t max_size, std::vector<FatbinEntry>* entries,
                  std::string* error);

// The entry's bytes, decompressed if needed. Returns false with a reason
// (e.g. zstd support unavailable) and leaves `out` empty.
bool entry_contents(const FatbinEntry& entry, std::string* out, std::string* error);

// LZ4 block format as used by fatbin "speed" compression. Returns bytes
// written, or -1 on malformed input or overflow of `capacity`.
long lz4_block_decompress(const uint8_t* in, size_t in_size, uint8_t* out, size_t capacity);

// zstd frame through a dlopen'ed libzstd.so.1 (present on any desktop or
// server Linux; the agent must not link it). Returns bytes written or -1.
long zstd_decompress(const uint8_t* in, size_t in_size, uint8_t* out, size_t capacity,
                     std::string* error);

}  // namespace brickprof::agent
