// Typed access to simdjson on-demand values for the trace reader, with
// errors that say where ("nodes[12].start_ns: expected a number"), and the
// readers of the trace's small sections. Internal to the reader.
#pragma once

#include <simdjson.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "trace/json/trace_json.h"
#include "trace/model/trace.h"

namespace brickprof::json_read {

namespace od = simdjson::ondemand;

[[noreturn]] inline void fail(const std::string& what) { throw TraceError(what); }

// Where the reader is, for error messages ("nodes[12].start_ns").
struct Cursor {
  const char* section = "top level";
  int64_t index = -1;
  std::string_view key;
  std::string describe() const {
    std::string s = section;
    if (index >= 0) s += "[" + std::to_string(index) + "]";
    if (!key.empty()) s += "." + std::string(key);
    return s;
  }
};

// V: an od::value (by reference, so the hot loop copies no iterator) or a
// simdjson_result of one.
template <typename V>
int64_t get_int(V&& v, const Cursor& c) {
  int64_t i;
  if (v.get_int64().get(i) == simdjson::SUCCESS) return i;
  double d;
  if (v.get_double().get(d) != simdjson::SUCCESS) fail(c.describe() + ": expected a number");
  // 2^63: converting a double outside int64's range is undefined behaviour.
  constexpr double kLimit = 9223372036854775808.0;
  if (!(d >= -kLimit && d < kLimit)) fail(c.describe() + ": number out of range");
  return static_cast<int64_t>(d);
}

// A timestamp: non-negative, as every clock the agent reads.
template <typename V>
int64_t get_time(V&& v, const Cursor& c) {
  int64_t ns = get_int(v, c);
  if (ns < 0) fail(c.describe() + ": negative time");
  return ns;
}

template <typename V>
uint64_t get_uint(V&& v, const Cursor& c) {
  uint64_t u;
  if (v.get_uint64().get(u) == simdjson::SUCCESS) return u;
  int64_t i = get_int(v, c);
  if (i < 0) fail(c.describe() + ": expected a non-negative number");
  return static_cast<uint64_t>(i);
}

template <typename V>
double get_double(V&& v, const Cursor& c) {
  double d;
  if (v.get_double().get(d) == simdjson::SUCCESS) return d;
  fail(c.describe() + ": expected a number");
}

template <typename V>
std::string_view get_string(V&& v, const Cursor& c) {
  std::string_view s;
  if (v.get_string().get(s) == simdjson::SUCCESS) return s;
  fail(c.describe() + ": expected a string");
}

// Hashes are written as "0x..." strings (parsed without a copy); other
// spellings strtoull accepts, and plain numbers, are read too.
template <typename V>
uint64_t get_hash(V&& v, const Cursor& c) {
  std::string_view s;
  if (v.get_string().get(s) == simdjson::SUCCESS) {
    uint64_t h = 0;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), h, 16);
      if (ec == std::errc() && end == s.data() + s.size()) return h;
    }
    std::string text(s);
    char* end = nullptr;
    h = std::strtoull(text.c_str(), &end, 0);
    if (text.empty() || *end != '\0') fail(c.describe() + ": bad hash '" + text + "'");
    return h;
  }
  return get_uint(v, c);
}

template <typename E, typename V>
E get_enum(V&& v, const Cursor& c) {
  std::string_view s = get_string(v, c);
  E e;
  if (!parse(s, &e)) fail(c.describe() + ": unknown value '" + std::string(s) + "'");
  return e;
}

template <typename V>
void get_dims(V&& v, uint32_t (&dims)[3], const Cursor& c) {
  size_t i = 0;
  for (auto element : v.get_array()) {
    if (i < 3) dims[i] = static_cast<uint32_t>(get_uint(element.value(), c));
    ++i;
  }
}

// The small sections (trace_json_sections.cpp); each sets c.section.
void read_process(od::object obj, ProcessInfo& p, Cursor& c);
void read_sources(od::array arr, std::vector<SourceInfo>& out, Cursor& c);
void read_diagnostics(od::object obj, Diagnostics& d, Cursor& c);
void read_devices(od::array arr, std::vector<Device>& out, Cursor& c);
void read_threads(od::array arr, std::vector<ThreadInfo>& out, Cursor& c);
void read_ptx(od::array arr, std::vector<PtxModule>& out, Cursor& c);
void read_communicators(od::array arr, std::vector<Communicator>& out, Cursor& c);
// A node's "mpi" object.
void read_comm_call(od::value v, CommCall& call, const Cursor& c);
void read_python_frames(od::array arr, std::vector<PythonFrame>& out, Cursor& c);
void read_python_stacks(od::array arr, std::vector<std::vector<uint32_t>>& out, Cursor& c);
// "memory" (names interned in t.strings) and "shapes" (trace_json_memory.cpp),
// and their Python stacks checked once all is read. The node each names
// is its file id (kNoFileId: none), resolved once the nodes are read.
inline constexpr uint64_t kNoFileId = UINT64_MAX;
void read_memory(od::array arr, Trace& t, std::vector<uint64_t>& scopes, Cursor& c);
void read_shapes(od::array arr, std::vector<NodeShape>& out, std::vector<uint64_t>& nodes,
                 Cursor& c);
void check_memory(const Trace& t);
// "counters" (trace_json_counters.cpp): names interned in t.strings, each
// sample's scope a file id in `scopes`.
void read_counters(od::array arr, Trace& t, std::vector<uint64_t>& scopes, Cursor& c);
// "tiles" (trace_json_tiles.cpp), nodes by file id as above.
void read_tiles(od::array arr, Trace& t, std::vector<uint64_t>& nodes, Cursor& c);
// "cpu_counters" (trace_json_cpu_counters.cpp), nodes by file id as below.
void read_cpu_counters(od::object obj, Trace& t, std::vector<uint64_t>& nodes, Cursor& c);
// "gpu_metrics" (trace_json_gpu_metrics.cpp), nodes by file id as below.
void read_gpu_metrics(od::object obj, Trace& t, std::vector<uint64_t>& nodes, Cursor& c);
// "checksums" (trace_json_checksums.cpp), nodes by file id as above.
void read_checksums(od::array arr, Trace& t, std::vector<uint64_t>& nodes, Cursor& c);

}  // namespace brickprof::json_read
