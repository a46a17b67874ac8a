// `brickprof ptx FILE HASH`: prints one module of a trace's PTX registry
// (kind, size, kernels, the kernels launched from it, and its PTX text when
// the trace was recorded with BRICKPROF_PTX=source).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

#include "trace/model/trace.h"

namespace brickprof {

// Parses "0x1234abcd" or "1234abcd" (hex, as the JSON writes hashes).
std::optional<uint64_t> parse_ptx_hash(std::string_view text);

// The module with that hash, or nullptr.
const PtxModule* find_ptx(const Trace& trace, uint64_t hash);

// Returns false (printing nothing) if no module has that hash.
bool print_ptx(const Trace& trace, uint64_t hash, std::ostream& out);

}  // namespace brickprof
