// Human-readable numbers for every text output (tree, report views, diff):
// one style each for durations, byte sizes and rates, so a quantity reads
// the same everywhere; plus launch dimensions and the duration parser.
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

// IEC binary units, one decimal: "512B", "4.0KiB", "4.0MiB", "1.5GiB".
void append_bytes(std::string& out, uint64_t bytes);
std::string format_bytes(uint64_t bytes);

// Launch dimensions: "16" when y = z = 1, else "16×4×1".
void append_dims(std::string& out, const uint32_t (&dims)[3]);

// SI (decimal) rate, two decimals once prefixed: without a unit "950",
// "12.50K", "3.20M" (for columns that name the unit); with one "950B/s",
// "12.50GB/s", "1.23TFLOP/s". Rates are SI even for bytes, as link and
// memory bandwidths are quoted.
std::string format_rate(double per_second, std::string_view unit = {});

// Table cells: `text` right- or left-aligned in `width` display columns (a
// UTF-8 character such as µ or × counts as one); longer text is kept whole.
std::string pad_left(std::string_view text, size_t width);
std::string pad_right(std::string_view text, size_t width);

// `text` cut to at most `width` bytes, whole UTF-8 characters, the last
// three "..." when cut (for names in a fixed-width column).
std::string clip(std::string_view text, size_t width);

// `part` as a percentage of `whole` with one decimal ("12.5%"), or "-"
// when whole is not positive.
std::string format_share(double part, double whole);

// `v` with exactly `decimals` decimals ("12.3"), for percentages and ratios.
std::string format_fixed(double v, int decimals);

}  // namespace brickprof
