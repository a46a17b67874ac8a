// Human-readable numbers for text outputs (see format.h).
#include "trace/model/format.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace brickprof {
namespace {

// A UTF-8 byte that continues a character (10xxxxxx).
bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

size_t display_columns(std::string_view text) {
  size_t columns = 0;
  for (char c : text) columns += !is_continuation(c);
  return columns;
}

void append_int(std::string& out, uint64_t v) {
  char tmp[24];
  auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  out.append(tmp, r.ptr);
}

// Appends `scaled / 10^decimals` with exactly `decimals` digits after the point.
void append_fixed(std::string& out, uint64_t scaled, int decimals) {
  uint64_t div = 1;
  for (int i = 0; i < decimals; ++i) div *= 10;
  append_int(out, scaled / div);
  if (decimals == 0) return;
  out.push_back('.');
  uint64_t frac = scaled % div;
  char digits[20];
  for (int i = decimals - 1; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  out.append(digits, static_cast<size_t>(decimals));
}

// Rounds v / unit to `decimals` places, half away from zero, in integers.
uint64_t round_scaled(uint64_t v, uint64_t unit, int decimals) {
  uint64_t step = unit;
  for (int i = 0; i < decimals; ++i) step /= 10;
  return (v + step / 2) / step;
}

}  // namespace

void append_duration(std::string& out, int64_t ns) {
  uint64_t v = static_cast<uint64_t>(ns);
  if (ns < 0) {
    out.push_back('-');
    v = 0 - v;  // in unsigned arithmetic: -INT64_MIN is no int64_t
  }
  if (v < 1000) {
    append_int(out, v);
    out += "ns";
    return;
  }
  uint64_t us10 = round_scaled(v, 1000, 1);
  if (us10 < 10000) {
    append_fixed(out, us10, 1);
    out += "µs";
    return;
  }
  uint64_t ms100 = round_scaled(v, 1000000, 2);
  if (ms100 < 100000) {
    append_fixed(out, ms100, 2);
    out += "ms";
    return;
  }
  append_fixed(out, round_scaled(v, 1000000000, 2), 2);
  out += "s";
}

std::string format_duration(int64_t ns) {
  std::string s;
  append_duration(s, ns);
  return s;
}

bool parse_duration(std::string_view text, int64_t* ns) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value) || value < 0) return false;
  std::string_view unit(end, static_cast<size_t>(text.data() + text.size() - end));
  double scale;
  if (unit == "ns")
    scale = 1;
  else if (unit.empty() || unit == "us" || unit == "µs")
    scale = 1e3;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "s")
    scale = 1e9;
  else
    return false;
  double scaled = std::round(value * scale);
  if (!(scaled < 9.2e18)) return false;  // beyond int64 nanoseconds (~292 years)
  *ns = static_cast<int64_t>(scaled);
  return true;
}

void append_bytes(std::string& out, uint64_t bytes) {
  if (bytes < 1024) {
    append_int(out, bytes);
    out += "B";
    return;
  }
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  // Tenths of the unit, rounded; move up a unit when rounding reaches 1024.0.
  long double value = static_cast<long double>(bytes) / 1024.0L;
  size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && std::llround(value * 10.0L) >= 10240) {
    value /= 1024.0L;
    ++unit;
  }
  append_fixed(out, static_cast<uint64_t>(std::llround(value * 10.0L)), 1);
  out += kUnits[unit];
}

std::string format_bytes(uint64_t bytes) {
  std::string s;
  append_bytes(s, bytes);
  return s;
}

void append_dims(std::string& out, const uint32_t (&dims)[3]) {
  append_int(out, dims[0]);
  if (dims[1] == 1 && dims[2] == 1) return;
  out += "×";
  append_int(out, dims[1]);
  out += "×";
  append_int(out, dims[2]);
}

std::string format_rate(double per_second, std::string_view unit) {
  if (!std::isfinite(per_second) || per_second <= 0) per_second = 0;
  static constexpr const char* kUnits[] = {"", "K", "M", "G", "T", "P"};
  size_t prefix = 0;
  // Move up while the rounded figure would reach 1000 ("1000" or "1000.00K").
  while (prefix + 1 < std::size(kUnits) && per_second >= (prefix == 0 ? 999.5 : 999.995)) {
    per_second /= 1000.0;
    ++prefix;
  }
  std::string out = format_fixed(per_second, prefix == 0 ? 0 : 2) + kUnits[prefix];
  if (!unit.empty()) out.append(unit).append("/s");
  return out;
}

std::string format_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string format_share(double part, double whole) {
  return whole > 0 ? format_fixed(100.0 * part / whole, 1) + "%" : "-";
}

std::string clip(std::string_view text, size_t width) {
  if (text.size() <= width) return std::string(text);
  size_t cut = width > 3 ? width - 3 : 0;
  while (cut > 0 && is_continuation(text[cut])) --cut;  // whole characters only
  return std::string(text.substr(0, cut)) + "...";
}

std::string pad_left(std::string_view text, size_t width) {
  const size_t columns = display_columns(text);
  std::string out(columns >= width ? 0 : width - columns, ' ');
  return out.append(text);
}

std::string pad_right(std::string_view text, size_t width) {
  const size_t columns = display_columns(text);
  std::string out(text);
  return out.append(columns >= width ? 0 : width - columns, ' ');
}

}  // namespace brickprof
