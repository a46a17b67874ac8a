// Checks a value against its row of the BRICKPROF_* settings table (settings.h).
#include "trace/model/settings.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "trace/output/formats.h"

namespace brickprof::settings {
namespace {

// "a, b or c" from "a,b,c", as a sentence lists them.
std::string listed(std::string_view values, std::string_view last_separator) {
  std::string out;
  for (size_t i = 0;; ++i) {
    std::string_view item = choice(values, i);
    if (item.empty()) break;
    if (i > 0) out += choice(values, i + 1).empty() ? last_separator : ", ";
    out += item;
  }
  return out;
}

std::string quoted(std::string_view value) { return "'" + std::string(value) + "'"; }

}  // namespace

int choice_index(const Setting& s, std::string_view value) {
  for (size_t i = 0;; ++i) {
    std::string_view item = choice(s.values, i);
    if (item.empty()) return -1;
    if (item == value) return static_cast<int>(i);
  }
}

std::optional<uint64_t> count_value(const Setting& s, std::string_view value) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < s.min || n > s.max)
    return std::nullopt;
  return n;
}

std::optional<double> peak_value(std::string_view value) {
  const char* end = value.data() + value.size();
  double v = 0;
  auto [stop, ec] = std::from_chars(value.data(), end, v);
  if (ec != std::errc() || stop != end || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

std::vector<std::string> metric_names(std::string_view value) {
  std::vector<std::string> names;
  for (size_t at = 0; at <= value.size();) {
    size_t comma = value.find(',', at);
    if (comma == std::string_view::npos) comma = value.size();
    std::string_view name = value.substr(at, comma - at);
    auto allowed = [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '.';
    };
    if (name.empty() || !std::all_of(name.begin(), name.end(), allowed)) return {};
    if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
    at = comma + 1;
  }
  return names;
}

std::string problem(const Setting& s, std::string_view value) {
  switch (s.kind) {
    case Kind::kText:
      return "";
    case Kind::kChoice:
      return choice_index(s, value) >= 0 ? ""
                                         : quoted(value) + " is not " + listed(s.values, " or ");
    case Kind::kCount:
      if (count_value(s, value)) return "";
      return quoted(value) + " is not a whole number from " + std::to_string(s.min) + " to " +
             std::to_string(s.max);
    case Kind::kPeak:
      return peak_value(value) ? "" : quoted(value) + " is not a positive number";
    case Kind::kCapture: {
      constexpr std::string_view kScope = "scope:";
      bool ok = value == "all" || value == "cuda-profiler-api" || value == "cudaProfilerApi" ||
                (value.substr(0, kScope.size()) == kScope && value.size() > kScope.size());
      return ok ? "" : quoted(value) + " is not " + listed(s.values, " or ");
    }
    case Kind::kMetrics: {
      if (value == "off" || value == "default") return "";
      if (metric_names(value).empty())
        return quoted(value) + " is not off, default or a list of metric names";
      return "";
    }
    case Kind::kFormats: {
      std::vector<std::string> names = parse_formats(value);
      if (names.empty()) return "empty list";
      std::string all;
      for (const Format& f : formats()) all += (all.empty() ? "" : ",") + std::string(f.name);
      for (const std::string& name : names)
        if (!find_format(name)) return "unknown format " + quoted(name) + " (" + all + ")";
      return "";
    }
  }
  return "";
}

std::string valid_values(const Setting& s) {
  if (s.kind == Kind::kCount && s.max != UINT64_MAX && s.max <= 1000000000)
    return std::to_string(s.min) + " to " + std::to_string(s.max);
  if (s.kind == Kind::kPeak) return "a positive number";
  return s.kind == Kind::kChoice || s.kind == Kind::kCapture ? listed(s.values, ", ") : "";
}

}  // namespace brickprof::settings
