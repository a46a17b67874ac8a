// Reads the JSON trace with simdjson (on-demand, fed in batches so large
// traces stream through in bounded memory) and validates what the analyses rely on:
// known node ids, non-negative times, an acyclic parent tree.
#include <simdjson.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <unordered_map>

#include "analysis/json_scan.h"
#include "analysis/trace_json.h"

namespace brickprof {
namespace {

namespace od = simdjson::ondemand;

[[noreturn]] void fail(const std::string& what) { throw TraceError(what); }

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

int64_t get_int(od::value v, const Cursor& c) {
  int64_t i;
  if (v.get_int64().get(i) == simdjson::SUCCESS) return i;
  double d;
  if (v.get_double().get(d) == simdjson::SUCCESS) return static_cast<int64_t>(d);
  fail(c.describe() + ": expected a number");
}

uint64_t get_uint(od::value v, const Cursor& c) {
  uint64_t u;
  if (v.get_uint64().get(u) == simdjson::SUCCESS) return u;
  int64_t i = get_int(v, c);
  if (i < 0) fail(c.describe() + ": expected a non-negative number");
  return static_cast<uint64_t>(i);
}

double get_double(od::value v, const Cursor& c) {
  double d;
  if (v.get_double().get(d) == simdjson::SUCCESS) return d;
  fail(c.describe() + ": expected a number");
}

std::string_view get_string(od::value v, const Cursor& c) {
  std::string_view s;
  if (v.get_string().get(s) == simdjson::SUCCESS) return s;
  fail(c.describe() + ": expected a string");
}

// Hashes are written as "0x..." strings; plain numbers are accepted too.
uint64_t get_hash(od::value v, const Cursor& c) {
  std::string_view s;
  if (v.get_string().get(s) == simdjson::SUCCESS) {
    std::string text(s);
    char* end = nullptr;
    uint64_t h = std::strtoull(text.c_str(), &end, 0);
    if (text.empty() || *end != '\0') fail(c.describe() + ": bad hash '" + text + "'");
    return h;
  }
  return get_uint(v, c);
}

// A field's key without copying: trace keys have no escapes; a key that
// does is unescaped the slow way.
std::string_view key_of(simdjson::simdjson_result<od::field>& f) {
  od::raw_json_string rk;
  if (f.key().get(rk) != simdjson::SUCCESS) throw TraceError("bad key");
  const char* raw = rk.raw();
  const char* p = raw;
  while (*p != '"' && *p != '\\') ++p;
  if (*p == '"') return std::string_view(raw, static_cast<size_t>(p - raw));
  std::string_view k;
  if (f.unescaped_key().get(k) != simdjson::SUCCESS) throw TraceError("bad key");
  return k;
}

template <typename E>
E get_enum(od::value v, const Cursor& c) {
  std::string_view s = get_string(v, c);
  E e;
  if (!parse(s, &e)) fail(c.describe() + ": unknown value '" + std::string(s) + "'");
  return e;
}

void get_dims(od::value v, uint32_t (&dims)[3], Cursor& c) {
  size_t i = 0;
  for (auto element : v.get_array()) {
    if (i < 3) dims[i] = static_cast<uint32_t>(get_uint(element.value(), c));
    ++i;
  }
}

class Reader {
 public:
  Trace read(std::string_view json, const std::function<void(size_t)>& consumed);

 private:
  void read_process(od::object obj);
  void read_diagnostics(od::object obj);
  void read_devices(od::array arr);
  void read_threads(od::array arr);
  void read_nodes(od::array arr);
  void read_node(od::object obj);
  void read_edges(od::array arr);
  void read_edge(od::object obj);
  od::document& batch(std::string_view text, size_t b, size_t e, bool wrap);
  void reserve_nodes(size_t total_bytes, size_t batch_bytes, size_t count);
  void read_ptx(od::array arr);
  uint32_t resolve(uint64_t raw_id, const char* what);
  void link();

  struct RawEdge {
    uint64_t src = UINT64_MAX;
    uint64_t dst = UINT64_MAX;
    EdgeType type = EdgeType::kContains;
  };

  Trace t_;
  Cursor c_;
  std::vector<uint64_t> raw_ids_;
  std::vector<uint64_t> raw_parents_;  // UINT64_MAX = none
  std::vector<RawEdge> raw_edges_;
  std::unordered_map<uint64_t, uint32_t> id_map_;
  bool dense_ids_ = true;  // ids are 0..n-1 in order: no map needed
  static constexpr size_t kBatchBytes = 4 << 20;
  od::parser parser_;
  od::document doc_;
  std::unique_ptr<char[]> buffer_;
  size_t buffer_size_ = 0;
  bool reserved_ = false;
};

// The top level is walked by json_scan (no full-document index); each small
// section, and each few-megabyte batch of nodes[]/edges[] elements, is parsed
// by simdjson from one reused padded buffer. Memory stays proportional to the
// trace model, not to the file, and `consumed` lets a file reader drop pages
// it has finished with.
Trace Reader::read(std::string_view json, const std::function<void(size_t)>& consumed) {
  bool saw_schema = false;
  size_t i = skip_json_space(json, 0);
  if (i >= json.size() || json[i] != '{') fail("not a JSON object at the top level");
  i = skip_json_space(json, i + 1);
  bool first = true;
  try {
    while (true) {
      if (i >= json.size()) fail("truncated JSON (the top-level object is not closed)");
      if (json[i] == '}') break;
      if (!first) {
        if (json[i] != ',') fail(c_.describe() + ": malformed JSON (expected ',' or '}')");
        i = skip_json_space(json, i + 1);
      }
      first = false;
      if (i >= json.size() || json[i] != '"') fail("malformed JSON (expected a key at offset " +
                                                    std::to_string(i) + ")");
      size_t key_end = json_string_end(json, i);
      if (key_end == kScanFailed) fail("truncated JSON (in a key)");
      std::string_view key = json.substr(i + 1, key_end - i - 2);
      c_ = Cursor{};
      c_.key = key;
      i = skip_json_space(json, key_end);
      if (i >= json.size() || json[i] != ':') fail(c_.describe() + ": malformed JSON (expected ':')");
      i = skip_json_space(json, i + 1);
      if ((key == "nodes" || key == "edges") && i < json.size() && json[i] == '[') {
        bool nodes = key == "nodes";
        c_ = Cursor{};
        c_.section = nodes ? "nodes" : "edges";
        c_.index = 0;
        size_t end = scan_json_array(json, i, kBatchBytes, [&](size_t b, size_t e, size_t count) {
          od::array arr = batch(json, b, e, true).get_array();
          if (nodes) {
            reserve_nodes(json.size(), e - b, count);
            for (auto element : arr) {
              read_node(element.get_object());
              ++c_.index;
            }
          } else {
            for (auto element : arr) {
              read_edge(element.get_object());
              ++c_.index;
            }
          }
          if (consumed) consumed(e);
        });
        if (end == kScanFailed)
          fail(std::string(c_.section) + ": truncated or malformed JSON near element " +
               std::to_string(c_.index));
        c_.index = -1;
        i = skip_json_space(json, end);
        continue;
      }
      size_t end = json_value_end(json, i);
      if (end == kScanFailed) fail(c_.describe() + ": truncated or malformed JSON");
      if (key == "schema") {
        std::string_view schema;
        if (batch(json, i, end, false).get_string().get(schema) != simdjson::SUCCESS)
          fail("schema: expected a string");
        if (schema != kSchema)
          fail("schema is '" + std::string(schema) + "', expected '" + std::string(kSchema) + "'");
        saw_schema = true;
      } else if (key == "process") {
        read_process(batch(json, i, end, false).get_object());
      } else if (key == "diagnostics") {
        read_diagnostics(batch(json, i, end, false).get_object());
      } else if (key == "devices") {
        read_devices(batch(json, i, end, false).get_array());
      } else if (key == "threads") {
        read_threads(batch(json, i, end, false).get_array());
      } else if (key == "nodes") {
        read_nodes(batch(json, i, end, false).get_array());
      } else if (key == "edges") {
        read_edges(batch(json, i, end, false).get_array());
      } else if (key == "ptx") {
        read_ptx(batch(json, i, end, false).get_array());
      }  // bricks[] and categories[] are derived; anything else is ignored
      i = skip_json_space(json, end);
    }
    if (skip_json_space(json, i + 1) != json.size()) fail("trailing content after the trace object");
  } catch (const simdjson::simdjson_error& e) {
    fail(c_.describe() + ": " + (e.error() == simdjson::INCOMPLETE_ARRAY_OR_OBJECT ||
                                         e.error() == simdjson::TAPE_ERROR
                                     ? std::string("truncated or malformed JSON")
                                     : std::string(e.what())));
  }
  if (!saw_schema) fail("no \"schema\" key: not a brickprof trace");
  link();
  return std::move(t_);
}

// Parses text[b, e) (wrapped in [] when it is a run of array elements) as
// the current document. The previous document's values must be done with.
od::document& Reader::batch(std::string_view text, size_t b, size_t e, bool wrap) {
  size_t len = e - b + (wrap ? 2 : 0);
  if (len + simdjson::SIMDJSON_PADDING > buffer_size_) {
    buffer_size_ = std::max(len + simdjson::SIMDJSON_PADDING, 2 * buffer_size_);
    buffer_ = std::make_unique<char[]>(buffer_size_);
  }
  char* out = buffer_.get();
  if (wrap) *out++ = '[';
  std::memcpy(out, text.data() + b, e - b);
  if (wrap) out[e - b] = ']';
  std::memset(buffer_.get() + len, 0, simdjson::SIMDJSON_PADDING);
  if (auto err = parser_.iterate(buffer_.get(), len, buffer_size_).get(doc_))
    fail(c_.describe() + ": " + simdjson::error_message(err));
  return doc_;
}

// Sizes the node vectors from the first batch, so they do not regrow (and
// briefly double) on the way to millions of nodes; unused capacity is never
// touched, so it costs address space, not memory.
void Reader::reserve_nodes(size_t total_bytes, size_t batch_bytes, size_t count) {
  if (reserved_ || count == 0) return;
  reserved_ = true;
  size_t gpu = t_.gpu.size() + 1;
  size_t estimate = total_bytes / std::max<size_t>(1, batch_bytes / count) + count;
  t_.nodes.reserve(estimate);
  raw_parents_.reserve(estimate);
  t_.gpu.reserve(estimate * gpu / std::max<size_t>(1, t_.nodes.size() + 1) + count);
}

void Reader::read_process(od::object obj) {
  c_.section = "process";
  ProcessInfo& p = t_.process;
  for (auto f : obj) {
    std::string_view k = f.unescaped_key();
    c_.key = k;
    od::value v = f.value();
    if (k == "pid") p.pid = get_int(v, c_);
    else if (k == "ppid") p.ppid = get_int(v, c_);
    else if (k == "program") p.program = get_string(v, c_);
    else if (k == "cmdline") p.cmdline = get_string(v, c_);
    else if (k == "host") p.host = get_string(v, c_);
    else if (k == "rank") p.rank = get_int(v, c_);
    else if (k == "start_ns") p.start_ns = get_int(v, c_);
    else if (k == "end_ns") p.end_ns = get_int(v, c_);
    else if (k == "clock") p.clock = get_string(v, c_);
  }
}

void Reader::read_diagnostics(od::object obj) {
  c_.section = "diagnostics";
  Diagnostics& d = t_.diagnostics;
  for (auto f : obj) {
    std::string_view k = f.unescaped_key();
    c_.key = k;
    od::value v = f.value();
    if (k == "cupti") d.cupti = get_string(v, c_);
    else if (k == "nvtx") d.nvtx = get_string(v, c_);
    else if (k == "dropped_events") d.dropped_events = get_uint(v, c_);
    else if (k == "dropped_activity_records") d.dropped_activity_records = get_uint(v, c_);
    else if (k == "zero_timestamp_records") d.zero_timestamp_records = get_uint(v, c_);
    else if (k == "unbalanced_pops") d.unbalanced_pops = get_uint(v, c_);
    else if (k == "open_scopes_at_exit") d.open_scopes_at_exit = get_uint(v, c_);
    else if (k == "warnings")
      for (auto w : v.get_array()) d.warnings.emplace_back(get_string(w.value(), c_));
  }
}

void Reader::read_devices(od::array arr) {
  c_.section = "devices";
  c_.index = 0;
  for (auto element : arr) {
    Device dev;
    for (auto f : element.get_object()) {
      std::string_view k = f.unescaped_key();
      c_.key = k;
      od::value v = f.value();
      if (k == "id") dev.id = static_cast<uint32_t>(get_uint(v, c_));
      else if (k == "name") dev.name = get_string(v, c_);
      else if (k == "sm_count") dev.sm_count = static_cast<uint32_t>(get_uint(v, c_));
      else if (k == "clock_mhz") dev.clock_mhz = get_double(v, c_);
      else if (k == "memory_clock_mhz") dev.memory_clock_mhz = get_double(v, c_);
      else if (k == "memory_bus_bits") dev.memory_bus_bits = static_cast<uint32_t>(get_uint(v, c_));
      else if (k == "peak_gflops") dev.peak_gflops = get_double(v, c_);
      else if (k == "peak_gbps") dev.peak_gbps = get_double(v, c_);
      else if (k == "peaks_source") dev.peaks_source = get_string(v, c_);
    }
    t_.devices.push_back(std::move(dev));
    ++c_.index;
  }
  c_.index = -1;
}

void Reader::read_threads(od::array arr) {
  c_.section = "threads";
  for (auto element : arr) {
    ThreadInfo th;
    for (auto f : element.get_object()) {
      std::string_view k = f.unescaped_key();
      c_.key = k;
      if (k == "tid") th.tid = static_cast<uint32_t>(get_uint(f.value(), c_));
      else if (k == "name") th.name = get_string(f.value(), c_);
    }
    t_.threads.push_back(std::move(th));
  }
}

void Reader::read_nodes(od::array arr) {
  c_.section = "nodes";
  c_.index = 0;
  for (auto element : arr) {
    read_node(element.get_object());
    ++c_.index;
  }
  c_.index = -1;
}

void Reader::read_node(od::object obj) {
  Node n;
  GpuDetail g;
  bool has_gpu = false, has_id = false, has_kind = false, has_start = false, has_end = false;
  uint64_t raw_id = 0, raw_parent = UINT64_MAX;
  for (auto f : obj) {
    std::string_view k = key_of(f);
    c_.key = k;
    od::value v = f.value();
    switch (k.empty() ? '\0' : k[0]) {
      case 'a':
        if (k == "api_start_ns") g.api_start_ns = get_int(v, c_);
        else if (k == "api_end_ns") g.api_end_ns = get_int(v, c_);
        break;
      case 'b':
        if (k == "brick_id") n.brick_id = static_cast<int16_t>(get_int(v, c_));
        else if (k == "block") { get_dims(v, g.block, c_); has_gpu = true; }
        else if (k == "bytes") { g.bytes = get_uint(v, c_); has_gpu = true; }
        else if (k == "bytes_moved") n.bytes_moved = get_double(v, c_);
        break;
      case 'c':
        if (k == "category") n.category = get_enum<Category>(v, c_);
        else if (k == "correlation") { g.correlation = get_uint(v, c_); has_gpu = true; }
        else if (k == "context") { g.context = static_cast<uint32_t>(get_uint(v, c_)); has_gpu = true; }
        break;
      case 'd':
        if (k == "device") { g.device = static_cast<uint32_t>(get_uint(v, c_)); has_gpu = true; }
        else if (k == "direction") { g.direction = get_enum<Direction>(v, c_); has_gpu = true; }
        else if (k == "dst_kind") g.dst_kind = get_enum<MemoryKind>(v, c_);
        else if (k == "dst_addr") g.dst_addr = get_uint(v, c_);
        break;
      case 'e':
        if (k == "end_ns") { n.end_ns = get_int(v, c_); has_end = true; }
        else if (k == "elements") n.elements = get_uint(v, c_);
        else if (k == "event") g.event = get_uint(v, c_);
        break;
      case 'f':
        if (k == "flops") n.flops = get_double(v, c_);
        break;
      case 'g':
        if (k == "grid") { get_dims(v, g.grid, c_); has_gpu = true; }
        else if (k == "graph_node") g.graph_node = get_uint(v, c_);
        break;
      case 'i':
        if (k == "id") { raw_id = get_uint(v, c_); has_id = true; }
        else if (k == "index") n.layer_index = static_cast<int32_t>(get_int(v, c_));
        break;
      case 'k':
        if (k == "kind") { n.kind = get_enum<NodeKind>(v, c_); has_kind = true; }
        break;
      case 'n':
        if (k == "name") n.name = t_.strings.intern(get_string(v, c_));
        break;
      case 'p':
        if (k == "parent") {
          bool is_null = false;
          if (v.is_null().get(is_null) == simdjson::SUCCESS && is_null) raw_parent = UINT64_MAX;
          else raw_parent = get_uint(v, c_);
        } else if (k == "ptx_hash") g.ptx_hash = get_hash(v, c_);
        break;
      case 'r':
        if (k == "registers") g.registers = static_cast<uint32_t>(get_uint(v, c_));
        break;
      case 's':
        if (k == "start_ns") { n.start_ns = get_int(v, c_); has_start = true; }
        else if (k == "stream") { g.stream = static_cast<uint32_t>(get_uint(v, c_)); has_gpu = true; }
        else if (k == "smem") g.smem = static_cast<uint32_t>(get_uint(v, c_));
        else if (k == "src_kind") g.src_kind = get_enum<MemoryKind>(v, c_);
        else if (k == "src_addr") g.src_addr = get_uint(v, c_);
        else if (k == "sync") g.sync = get_enum<SyncKind>(v, c_);
        break;
      case 't':
        if (k == "thread") n.thread = static_cast<uint32_t>(get_uint(v, c_));
        break;
      default:
        break;
    }
  }
  c_.key = {};
  if (!has_id) fail(c_.describe() + ": missing \"id\"");
  if (!has_kind) fail(c_.describe() + ": missing \"kind\"");
  if (!has_start || !has_end) fail(c_.describe() + ": missing \"start_ns\" or \"end_ns\"");
  if (n.start_ns < 0 || n.end_ns < 0) fail(c_.describe() + ": negative time");
  if (n.end_ns < n.start_ns) fail(c_.describe() + ": end_ns is before start_ns");
  uint32_t index = static_cast<uint32_t>(t_.nodes.size());
  if (dense_ids_ && raw_id != index) {
    dense_ids_ = false;
    for (uint32_t i = 0; i < index; ++i) id_map_.emplace(raw_ids_[i], i);
  }
  if (!dense_ids_ && !id_map_.emplace(raw_id, index).second)
    fail(c_.describe() + ": duplicate node id " + std::to_string(raw_id));
  raw_ids_.push_back(raw_id);
  raw_parents_.push_back(raw_parent);
  if (has_gpu || is_gpu_kind(n.kind)) t_.add_gpu_node(n, g); else t_.add_node(n);
}

uint32_t Reader::resolve(uint64_t raw_id, const char* what) {
  if (dense_ids_) {
    if (raw_id < t_.nodes.size()) return static_cast<uint32_t>(raw_id);
  } else if (auto it = id_map_.find(raw_id); it != id_map_.end()) {
    return it->second;
  }
  fail(c_.describe() + ": " + what + " refers to unknown node id " + std::to_string(raw_id));
}

void Reader::read_edges(od::array arr) {
  c_.section = "edges";
  c_.index = 0;
  for (auto element : arr) {
    read_edge(element.get_object());
    ++c_.index;
  }
  c_.index = -1;
}

// Edges may precede nodes in a hand-made file: keep raw ids, resolve later.
void Reader::read_edge(od::object obj) {
  RawEdge e;
  for (auto f : obj) {
    std::string_view k = key_of(f);
    c_.key = k;
    if (k == "src") e.src = get_uint(f.value(), c_);
    else if (k == "dst") e.dst = get_uint(f.value(), c_);
    else if (k == "type") e.type = get_enum<EdgeType>(f.value(), c_);
  }
  c_.key = {};
  if (e.src == UINT64_MAX || e.dst == UINT64_MAX) fail(c_.describe() + ": missing src or dst");
  raw_edges_.push_back(e);
}

void Reader::read_ptx(od::array arr) {
  c_.section = "ptx";
  c_.index = 0;
  for (auto element : arr) {
    PtxModule m;
    for (auto f : element.get_object()) {
      std::string_view k = f.unescaped_key();
      c_.key = k;
      od::value v = f.value();
      if (k == "hash") m.hash = get_hash(v, c_);
      else if (k == "kind") m.kind = get_string(v, c_);
      else if (k == "bytes") m.bytes = get_uint(v, c_);
      else if (k == "source") m.source = get_string(v, c_);
      else if (k == "kernels")
        for (auto name : v.get_array()) m.kernels.emplace_back(get_string(name.value(), c_));
    }
    t_.ptx.push_back(std::move(m));
    ++c_.index;
  }
  c_.index = -1;
}

void Reader::link() {
  c_ = Cursor{};
  c_.section = "nodes";
  for (size_t i = 0; i < t_.nodes.size(); ++i) {
    if (raw_parents_[i] == UINT64_MAX) continue;
    c_.index = static_cast<int64_t>(i);
    t_.nodes[i].parent = resolve(raw_parents_[i], "parent");
  }
  // A parent chain must end: colour walk, each node visited once.
  std::vector<uint8_t> state(t_.nodes.size(), 0);  // 0 new, 1 on path, 2 done
  std::vector<uint32_t> path;
  for (uint32_t i = 0; i < t_.nodes.size(); ++i) {
    path.clear();
    uint32_t cur = i;
    while (cur != kNoNode && state[cur] == 0) {
      state[cur] = 1;
      path.push_back(cur);
      cur = t_.nodes[cur].parent;
    }
    if (cur != kNoNode && state[cur] == 1)
      fail("nodes: parent cycle through node id " + std::to_string(raw_ids_[cur]));
    for (uint32_t p : path) state[p] = 2;
  }
  c_ = Cursor{};
  c_.section = "edges";
  t_.edges.reserve(raw_edges_.size());
  for (size_t i = 0; i < raw_edges_.size(); ++i) {
    c_.index = static_cast<int64_t>(i);
    t_.edges.push_back(Edge{resolve(raw_edges_[i].src, "src"), resolve(raw_edges_[i].dst, "dst"),
                            raw_edges_[i].type});
  }
}

// A read-only private mapping of a whole file; pages the reader has finished
// with are handed back, so a 3 GB trace never has 3 GB resident.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw TraceError(path + ": cannot open: " + std::strerror(errno));
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw TraceError(path + ": not a regular file");
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        throw TraceError(path + ": cannot map: " + std::strerror(errno));
      }
      data_ = static_cast<const char*>(p);
      ::madvise(p, size_, MADV_SEQUENTIAL);
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view text() const { return {data_, size_}; }
  // Drops the resident pages below `offset` (whole 64 MiB steps).
  void release(size_t offset) {
    constexpr size_t kStep = 64u << 20;
    size_t upto = offset / kStep * kStep;
    if (upto <= released_) return;
    ::madvise(const_cast<char*>(data_) + released_, upto - released_, MADV_DONTNEED);
    released_ = upto;
  }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;
};

}  // namespace

Trace parse_trace_json(std::string_view json) { return Reader().read(json, nullptr); }

Trace read_trace_file(const std::string& path) {
  MappedFile file(path);
  if (file.text().empty()) throw TraceError(path + ": empty file");
  try {
    return Reader().read(file.text(), [&](size_t offset) { file.release(offset); });
  } catch (const TraceError& e) {
    throw TraceError(path + ": " + e.what());
  }
}

}  // namespace brickprof
