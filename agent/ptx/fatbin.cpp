// Fatbin container parsing (see fatbin.h). The layout was read off nvcc 13
// output; every read is bounds-checked because images come from the host.
#include "agent/ptx/fatbin.h"

#include <cstring>

namespace brickprof::agent {
namespace {

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// __fatBinC_Wrapper_t: int magic; int version; const void* data; void* filename_or_fatbins.
struct Wrapper {
  uint32_t magic;
  uint32_t version;
  const void* data;
  const void* extra;
};

constexpr size_t kHeaderSize = 16;       // magic, version, header size, fat size
constexpr size_t kEntryHeaderMin = 64;   // what every entry kind has

}  // namespace

const void* unwrap_fatbin(const void* image) {
  if (image == nullptr) return nullptr;
  // Read the magic alone first: a short PTX string must not be over-read.
  if (load<uint32_t>(static_cast<const uint8_t*>(image)) != kFatbinWrapperMagic) return image;
  Wrapper w;
  std::memcpy(&w, image, sizeof w);
  return w.data != nullptr ? w.data : image;
}

size_t fatbin_size(const void* image) {
  if (image == nullptr) return 0;
  const auto* p = static_cast<const uint8_t*>(image);
  if (load<uint32_t>(p) != kFatbinMagic) return 0;
  uint16_t header_size = load<uint16_t>(p + 6);
  uint64_t fat_size = load<uint64_t>(p + 8);
  if (header_size < kHeaderSize || fat_size > (1ull << 40)) return 0;
  return header_size + fat_size;
}

bool parse_fatbin(const void* image, size_t max_size, std::vector<FatbinEntry>* entries,
                  std::string* error) {
  size_t total = fatbin_size(image);
  if (total == 0) {
    *error = "not a fatbin (bad magic or header)";
    return false;
  }
  if (max_size != 0 && total > max_size) {
    *error = "fatbin header claims " + std::to_string(total) + " bytes, image has " +
             std::to_string(max_size);
    return false;
  }
  const auto* base = static_cast<const uint8_t*>(image);
  size_t off = load<uint16_t>(base + 6);
  while (off < total) {
    if (total - off < kEntryHeaderMin) {
      *error = "truncated entry header at offset " + std::to_string(off);
      return false;
    }
    const uint8_t* e = base + off;
    uint32_t header_size = load<uint32_t>(e + 4);
    uint64_t padded_size = load<uint64_t>(e + 8);
    if (header_size < kEntryHeaderMin || header_size > total - off ||
        padded_size > total - off - header_size) {
      *error = "entry at offset " + std::to_string(off) + " overruns the fatbin";
      return false;
    }
    FatbinEntry entry;
    entry.kind = load<uint16_t>(e);
    entry.sm_arch = load<uint32_t>(e + 28);
    entry.flags = load<uint64_t>(e + 40);
    entry.payload = e + header_size;
    entry.payload_size = padded_size;
    if (entry.compressed()) {
      // Exact compressed length; the payload is padded to 8 bytes after it.
      uint32_t exact = load<uint32_t>(e + 16);
      if (exact != 0 && exact <= padded_size) entry.payload_size = exact;
      entry.uncompressed_size = load<uint64_t>(e + 56);
    }
    entries->push_back(entry);
    off += header_size + padded_size;
  }
  return true;
}

bool entry_contents(const FatbinEntry& entry, std::string* out, std::string* error) {
  out->clear();
  if (!entry.compressed()) {
    out->assign(reinterpret_cast<const char*>(entry.payload), entry.payload_size);
    return true;
  }
  // Cap what a corrupt header can make us allocate.
  if (entry.uncompressed_size == 0 || entry.uncompressed_size > (1ull << 32)) {
    *error = "implausible uncompressed size " + std::to_string(entry.uncompressed_size);
    return false;
  }
  out->resize(entry.uncompressed_size);
  auto* dst = reinterpret_cast<uint8_t*>(out->data());
  long n = -1;
  if (entry.flags & kFatbinFlagZstd) {
    n = zstd_decompress(entry.payload, entry.payload_size, dst, out->size(), error);
  } else {
    n = lz4_block_decompress(entry.payload, entry.payload_size, dst, out->size());
    if (n < 0) *error = "malformed LZ4 block";
  }
  if (n < 0) {
    out->clear();
    return false;
  }
  out->resize(static_cast<size_t>(n));
  return true;
}

}  // namespace brickprof::agent
