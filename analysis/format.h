// Human-readable numbers for text outputs: durations, byte sizes, launch
// dimensions and rates, in the fixed forms the tree and tables promise.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace brickprof {

// "850ns" under 1 µs, "12.3µs" under 1 ms, "1.23ms" under 1 s, else "4.56s".
// The unit is chosen after rounding, so 999.96µs prints as "1.00ms".
void append_duration(std::string& out, int64_t ns);
std::string format_duration(int64_t ns);

// The inverse for options: "200ns", "5us" (or "5µs"), "0.5ms", "2s"; a plain
// number is microseconds. Rounds to the nearest nanosecond. False on an
// empty, malformed, negative, non-finite or out-of-range value.
bool parse_duration(std::string_view text, int64_t* ns);

// Binary units: "512B", "4.0KB", "4.0MB", "1.5GB" (1 KB = 1024 B).
void append_bytes(std::string& out, uint64_t bytes);
std::string format_bytes(uint64_t bytes);

// Launch dimensions: "16" when y = z = 1, else "16×4×1".
void append_dims(std::string& out, const uint32_t (&dims)[3]);

// SI rate without unit: "950", "12.50K", "3.20M", "1.05G".
std::string format_rate(double per_second);

}  // namespace brickprof
