// Output checksums: a digest of a buffer a kernel or a brick wrote, exact
// (FNV-1a 64 over a fixed tree of its bytes) and approximate (count, sum,
// norms, extremes, non-finite counts, and random projections that estimate
// how far two outputs are apart), so two runs can be compared output by
// output (analysis/analyses/output_diff.h) without keeping the outputs.
//
// The digest is a fixed tree (checksum_tree.h): 4096-byte chunks, each
// hashed and summed in order, then groups of 64 records folded in order
// until one is left, with no fused multiply-add anywhere. The host
// (digest_of) and checksum mode's reduction kernels on the GPU compute it
// bit for bit; a buffer of at most 4096 bytes keeps the plain FNV-1a of its
// bytes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "trace/model/checksum_tree.h"
#include "trace/model/ids.h"
#include "trace/model/string_table.h"

namespace brickprof {

std::string_view to_string(ElementType type);
bool parse(std::string_view text, ElementType* out);
size_t element_bytes(ElementType type);
// The spacing of the type's numbers at 1 (machine epsilon); 0 for integers and bytes.
double element_epsilon(ElementType type);

// Each element x adds sign_k(i) * x to projection k, with sign_k(i) = +-1 drawn
// from a hash of (k, i): E[(p_k(a) - p_k(b))^2] = ||a - b||^2, so the mean over
// the projections estimates the distance of two outputs of the same length.
inline constexpr size_t kProjections = digest_tree::kProjections;

struct Digest {
  uint64_t fnv1a = digest_tree::kFnvBasis;  // the tree's root hash (the empty buffer's)
  uint64_t count = 0;                      // elements (bytes for kBytes)
  double sum = 0;                          // finite elements only, as the norms
  double l1 = 0;
  double l2 = 0;  // sqrt of the sum of squares
  double min = 0;
  double max = 0;
  uint64_t nan = 0;
  uint64_t inf = 0;
  std::array<double, kProjections> projections{};

  bool finite() const { return nan == 0 && inf == 0; }
};

// Digests `count` elements at `data` (host memory).
Digest digest_of(const void* data, uint64_t count, ElementType type);
// The digest of a tree's root record (what the GPU's reduction returns).
Digest digest_of_root(const digest_tree::Record& root, uint64_t count);

// How a digest was taken.
enum class ChecksumSource : uint8_t {
  kProgram,   // brickprof_checksum: the program digested its own buffer
  kHostCopy,  // the agent copied a kernel's output to the host and digested it there
  kDevice,    // the agent's reduction kernel digested it on the GPU
};
std::string_view to_string(ChecksumSource source);
bool parse(std::string_view text, ChecksumSource* out);

// One output of one node: a brick's (brickprof_checksum) or a kernel's
// (the agent's checksum mode, one per buffer it may have written).
struct OutputChecksum {
  uint32_t node = kNoNode;  // the scope or kernel it belongs to
  StringId name = 0;        // the buffer: the program's name for it, or "arg2"
  ElementType type = ElementType::kBytes;
  ChecksumSource source = ChecksumSource::kProgram;
  uint64_t address = 0;
  Digest digest;
};

}  // namespace brickprof
