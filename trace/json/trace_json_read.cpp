// Reads the JSON trace with simdjson (on-demand, fed in batches so large
// traces stream through in bounded memory) and validates what the analyses rely on:
// known node ids, non-negative times, an acyclic parent tree.
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <memory>
#include <unordered_map>

#include "trace/json/json_batches.h"
#include "trace/json/json_scan.h"
#include "trace/json/trace_json.h"
#include "trace/json/trace_json_keys.h"
#include "trace/json/trace_json_values.h"
#include "trace/json/trace_text.h"

namespace brickprof {
namespace {

using namespace json_read;

// The field an object iteration produced (simdjson reports malformed input
// here), used in place: copying its value iterator costs a store-forwarding
// stall on every field.
od::field& field_of(simdjson::simdjson_result<od::field>& result) {
  if (result.error()) throw simdjson::simdjson_error(result.error());
  return result.value_unsafe();
}

// A node or edge field's key. Known keys are matched on the raw text; one
// spelled with escapes is unescaped first.
TraceKey key_of(od::field& f, const Cursor& c) {
  const char* raw = f.key().raw();
  TraceKey key = key_from_raw(raw);
  if (key != TraceKey::kUnknown) return key;
  for (const char* p = raw; *p != '"'; ++p) {
    if (*p == '\\') {
      std::string_view k;
      if (f.unescaped_key().get(k) != simdjson::SUCCESS) {
        Cursor at = c;
        at.key = {};
        fail(at.describe() + ": bad key");
      }
      return key_from_text(k);
    }
  }
  return TraceKey::kUnknown;
}

// Names repeat (a kernel's on every launch, a brick's in every layer): a
// direct-mapped cache in front of the string table answers most lookups
// without hashing into the (large, cache-missing) table.
class NameCache {
 public:
  StringId intern(StringTable& table, std::string_view s) {
    Entry& e = entries_[slot(s)];
    if (e.text == s) return e.id;  // the empty entries hold "" = id 0, which is right
    StringId id = table.intern(s);
    e = {table.view(id), id};  // the table's strings do not move
    return id;
  }

 private:
  struct Entry {
    std::string_view text;
    StringId id = 0;
  };
  static size_t slot(std::string_view s) {
    if (s.empty()) return 0;
    uint64_t head = 0, tail = 0;
    size_t n = std::min<size_t>(8, s.size());
    std::memcpy(&head, s.data(), n);
    std::memcpy(&tail, s.data() + s.size() - n, n);  // "Layer 12" vs "Layer 13"
    uint64_t h = (head * 0x9E3779B97F4A7C15ull) ^ (tail * 0xC2B2AE3D27D4EB4Full) ^ s.size();
    return static_cast<size_t>((h * 0x9E3779B97F4A7C15ull) >> 56);
  }
  std::array<Entry, 256> entries_{};
};

// One node object's fields as read, before they are checked and stored.
struct NodeFields {
  Node n;
  GpuDetail g;
  CommCall call;
  uint64_t raw_id = 0, raw_parent = UINT64_MAX;  // UINT64_MAX: no parent
  bool has_id = false, has_kind = false, has_start = false, has_end = false;
  bool has_gpu = false;  // a GPU field: the node keeps a GpuDetail
  bool has_call = false;
};

// read_node sends a key to read_cpu_field or read_gpu_field by one compare.
static_assert(static_cast<int>(TraceKey::kBytesMoved) + 1 == static_cast<int>(TraceKey::kDevice),
              "the node's CPU keys come before its GPU keys in TraceKey");

class Reader {
 public:
  explicit Reader(const ReadProgress* progress = nullptr) : progress_(progress) {}
  Trace read(TraceText& source);

 private:
  // The text so far, and more of it from a source that grows (gzip).
  bool read_more();
  size_t skip_space(size_t i);
  size_t value_end(size_t i);
  [[noreturn]] void fail_short(const std::string& what);
  void read_array(size_t& open, bool nodes);
  void read_node(od::object obj);
  void read_cpu_field(TraceKey key, od::value& v, NodeFields& f);
  void read_gpu_field(TraceKey key, od::value& v, NodeFields& f);
  void check_node_fields(const NodeFields& f) const;
  uint32_t index_for(uint64_t raw_id);
  void link_parent(Node& n, uint64_t raw_parent, uint32_t index);
  void store_node(NodeFields& f, uint32_t index);
  void read_edge(od::object obj);
  od::document& parse(std::string_view text, size_t b, size_t e);
  void reserve(bool nodes, size_t rest_bytes, size_t batch_bytes, size_t count);
  uint64_t raw_id_of(uint32_t index) const {
    return dense_ids_ || index < dense_count_ ? index : raw_ids_[index - dense_count_];
  }
  uint32_t resolve(uint64_t raw_id, const char* what);
  void link();
  void link_communicators();
  void check_python_stacks();
  // Memory events' scopes, shapes' and checksums' nodes name nodes by their file ids.
  void resolve_memory_ids();
  std::vector<uint64_t> memory_scopes_, shape_nodes_, checksum_nodes_;  // file ids, by element
  std::vector<uint64_t> counter_scopes_, tile_nodes_, cpu_counter_nodes_, gpu_metric_nodes_;

  // Ids that do not fit the model's 32-bit fields wait here for link().
  struct LongParent {
    uint32_t node;
    uint64_t raw;
  };
  struct LongEdge {
    size_t edge;
    uint64_t src, dst;
  };

  TraceText* source_ = nullptr;
  const ReadProgress* progress_;  // told once a batch, if set
  std::string_view json_;
  Trace t_;
  Cursor c_;
  NameCache names_;
  // While ids are 0..n-1 in order (as written) nothing maps them; from the
  // first node that breaks this on, raw ids are kept and mapped.
  bool dense_ids_ = true;
  uint32_t dense_count_ = 0;
  std::vector<uint64_t> raw_ids_;
  std::unordered_map<uint64_t, uint32_t> id_map_;
  // Until link(), Node::parent and Edge::src/dst hold raw ids.
  std::vector<LongParent> long_parents_;
  std::vector<LongEdge> long_edges_;
  bool reserved_nodes_ = false, reserved_edges_ = false;
  // 1 MB runs: the run and its index stay in cache while they are walked
  // (10% less CPU than 4 MB runs at 10^6 events), and files of a few MB
  // already overlap cutting with reading.
  static constexpr size_t kBatchBytes = 1 << 20;
  od::parser parser_;
  od::document doc_;
  std::unique_ptr<char[]> buffer_;
  size_t buffer_size_ = 0;
};

bool Reader::read_more() {
  if (!source_->more()) return false;
  json_ = source_->text();
  return true;
}

// Past the spaces at `i`, reading on while they run to the end of the text.
size_t Reader::skip_space(size_t i) {
  while ((i = skip_json_space(json_, i)) >= json_.size() && read_more()) {
  }
  return i;
}

// Just past the value at `i` (kScanFailed if malformed or truncated),
// reading on while it may run past the end of the text.
size_t Reader::value_end(size_t i) {
  while (true) {
    bool ran_out = false;
    size_t end = json_value_end(json_, i, &ran_out);
    if (!ran_out || (end != kScanFailed && end < json_.size()) || !read_more()) return end;
  }
}

// A compressed file that ended early or is corrupt says so first.
void Reader::fail_short(const std::string& what) {
  std::string why = source_->error();
  fail(why.empty() ? what : why);
}

// The top level is walked by json_scan (no full-document index); each small
// section is parsed by simdjson from one reused padded buffer, and
// nodes[]/edges[] go through JsonArrayBatches a megabyte at a time.
// Memory stays proportional to the trace model, not to the file: the
// source takes back the text the reader has finished with, and inflates a
// compressed file only as far as the reader has come.
Trace Reader::read(TraceText& source) {
  source_ = &source;
  json_ = source.text();
  bool saw_schema = false;
  size_t i = skip_space(0);
  if (i >= json_.size()) fail_short("not a JSON object at the top level");
  if (json_[i] != '{') fail("not a JSON object at the top level");
  i = skip_space(i + 1);
  bool first = true;
  try {
    while (true) {
      if (i >= json_.size()) fail_short("truncated JSON (the top-level object is not closed)");
      if (json_[i] == '}') break;
      if (!first) {
        if (json_[i] != ',') fail(c_.describe() + ": malformed JSON (expected ',' or '}')");
        i = skip_space(i + 1);
      }
      first = false;
      if (i >= json_.size()) fail_short("truncated JSON (expected a key)");
      if (json_[i] != '"')
        fail("malformed JSON (expected a key at offset " + std::to_string(i) + ")");
      size_t key_end = value_end(i);
      if (key_end == kScanFailed) fail_short("truncated JSON (in a key)");
      std::string_view key = json_.substr(i + 1, key_end - i - 2);
      c_ = Cursor{};
      c_.key = key;
      i = skip_space(key_end);
      if (i >= json_.size()) fail_short(c_.describe() + ": truncated JSON");
      if (json_[i] != ':') fail(c_.describe() + ": malformed JSON (expected ':')");
      i = skip_space(i + 1);
      if (key == "nodes" || key == "edges") {
        if (i >= json_.size()) fail_short(std::string(key) + ": truncated JSON");
        if (json_[i] != '[') fail(std::string(key) + ": expected an array");
        c_ = Cursor{};
        c_.section = key == "nodes" ? "nodes" : "edges";
        read_array(i, key == "nodes");
        i = skip_space(i);
        continue;
      }
      size_t end = value_end(i);
      if (end == kScanFailed) fail_short(c_.describe() + ": truncated or malformed JSON");
      if (key == "schema") {
        std::string_view schema;
        if (parse(json_, i, end).get_string().get(schema) != simdjson::SUCCESS)
          fail("schema: expected a string");
        if (schema != kSchema)
          fail("schema is '" + std::string(schema) + "', expected '" + std::string(kSchema) + "'");
        saw_schema = true;
      } else if (key == "process") {
        read_process(parse(json_, i, end).get_object(), t_.process, c_);
      } else if (key == "sources") {
        read_sources(parse(json_, i, end).get_array(), t_.sources, c_);
      } else if (key == "diagnostics") {
        read_diagnostics(parse(json_, i, end).get_object(), t_.diagnostics, c_);
      } else if (key == "devices") {
        read_devices(parse(json_, i, end).get_array(), t_.devices, c_);
      } else if (key == "threads") {
        read_threads(parse(json_, i, end).get_array(), t_.threads, c_);
      } else if (key == "ptx") {
        read_ptx(parse(json_, i, end).get_array(), t_.ptx, c_);
      } else if (key == "communicators") {
        read_communicators(parse(json_, i, end).get_array(), t_.communicators, c_);
      } else if (key == "python_frames") {
        read_python_frames(parse(json_, i, end).get_array(), t_.python_frames, c_);
      } else if (key == "python_stacks") {
        read_python_stacks(parse(json_, i, end).get_array(), t_.python_stacks, c_);
      } else if (key == "memory") {
        read_memory(parse(json_, i, end).get_array(), t_, memory_scopes_, c_);
      } else if (key == "shapes") {
        read_shapes(parse(json_, i, end).get_array(), t_.shapes, shape_nodes_, c_);
      } else if (key == "checksums") {
        read_checksums(parse(json_, i, end).get_array(), t_, checksum_nodes_, c_);
      } else if (key == "counters") {
        read_counters(parse(json_, i, end).get_array(), t_, counter_scopes_, c_);
      } else if (key == "tiles") {
        read_tiles(parse(json_, i, end).get_array(), t_, tile_nodes_, c_);
      } else if (key == "cpu_counters") {
        read_cpu_counters(parse(json_, i, end).get_object(), t_, cpu_counter_nodes_, c_);
      } else if (key == "gpu_metrics") {
        read_gpu_metrics(parse(json_, i, end).get_object(), t_, gpu_metric_nodes_, c_);
      }  // bricks[] and categories[] are derived; anything else is ignored
      i = skip_space(end);
    }
    if (skip_space(i + 1) != json_.size()) fail("trailing content after the trace object");
    if (!source_->error().empty()) fail_short("");
  } catch (const simdjson::simdjson_error& e) {
    fail(c_.describe() + ": " +
         (e.error() == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || e.error() == simdjson::TAPE_ERROR
              ? std::string("truncated or malformed JSON")
              : std::string(e.what())));
  }
  if (!saw_schema) fail("no \"schema\" key: not a brickprof trace");
  link();
  check_python_stacks();
  resolve_memory_ids();
  check_memory(t_);
  return std::move(t_);
}

// nodes[] or edges[] from `open` (its '['); leaves `open` just past its ']'.
// More text is asked for on the batches' thread; this one only releases.
void Reader::read_array(size_t& open, bool nodes) {
  c_.index = 0;
  TraceText& source = *source_;
  JsonArrayBatches batches(
      json_, open, kBatchBytes,
      [&source]() {
        source.more();
        return source.text();
      },
      source.expected_size());
  while (JsonBatch* b = batches.next()) {
    if (b->scan_failed)
      fail_short(std::string(c_.section) + ": truncated or malformed JSON near element " +
                 std::to_string(c_.index));
    if (b->error) fail(c_.describe() + ": " + simdjson::error_message(b->error));
    int64_t first = c_.index;
    for (auto element : b->doc.get_array()) {
      if (nodes)
        read_node(element.get_object());
      else
        read_edge(element.get_object());
      ++c_.index;
    }
    const size_t size = source.expected_size();
    reserve(nodes, size > b->begin ? size - b->begin : 0, b->end - b->begin,
            static_cast<size_t>(c_.index - first));
    source.release(b->end);
    if (progress_ && *progress_) (*progress_)(b->end, std::max(b->end, size));
  }
  c_.index = -1;
  json_ = source.text();
  open = batches.end();
}

// Parses text[b, e) as the current document; the previous document's values
// must be done with.
od::document& Reader::parse(std::string_view text, size_t b, size_t e) {
  size_t len = e - b;
  if (len + simdjson::SIMDJSON_PADDING > buffer_size_) {
    buffer_size_ = std::max(len + simdjson::SIMDJSON_PADDING, 2 * buffer_size_);
    buffer_ = std::make_unique<char[]>(buffer_size_);
  }
  std::memcpy(buffer_.get(), text.data() + b, len);
  std::memset(buffer_.get() + len, 0, simdjson::SIMDJSON_PADDING);
  if (auto err = parser_.iterate(buffer_.get(), len, buffer_size_).get(doc_))
    fail(c_.describe() + ": " + simdjson::error_message(err));
  return doc_;
}

// Sizes the vectors from the first batch (`count` elements in `batch_bytes`,
// `rest_bytes` of file from its start), so they do not regrow (and briefly
// double) on the way to millions of elements; unused capacity is never
// touched, so it costs address space, not memory.
void Reader::reserve(bool nodes, size_t rest_bytes, size_t batch_bytes, size_t count) {
  bool& done = nodes ? reserved_nodes_ : reserved_edges_;
  if (done || count == 0) return;
  done = true;
  size_t more = rest_bytes / std::max<size_t>(1, batch_bytes / count);
  if (!nodes) {
    t_.edges.reserve(t_.edges.size() + more);
    return;
  }
  double gpu_share = static_cast<double>(t_.gpu.size()) / static_cast<double>(t_.nodes.size());
  t_.nodes.reserve(t_.nodes.size() + more);
  t_.gpu.reserve(t_.gpu.size() + static_cast<size_t>(static_cast<double>(more) * gpu_share) + 1);
}

void Reader::read_node(od::object obj) {
  NodeFields f;
  for (auto result : obj) {
    od::field& field = field_of(result);
    const TraceKey key = key_of(field, c_);
    c_.key = key_name(key);
    od::value& v = field.value();
    if (key < TraceKey::kDevice)
      read_cpu_field(key, v, f);
    else
      read_gpu_field(key, v, f);
  }
  c_.key = {};
  check_node_fields(f);
  const uint32_t index = index_for(f.raw_id);
  link_parent(f.n, f.raw_parent, index);
  store_node(f, index);
}

// The fields every node has: its id, kind, name, place and times, and a
// scope's annotations.
inline void Reader::read_cpu_field(TraceKey key, od::value& v, NodeFields& f) {
  Node& n = f.n;
  switch (key) {
    case TraceKey::kId:
      f.raw_id = get_uint(v, c_);
      f.has_id = true;
      break;
    case TraceKey::kKind:
      n.kind = get_enum<NodeKind>(v, c_);
      f.has_kind = true;
      break;
    case TraceKey::kName:
      n.name = names_.intern(t_.strings, get_string(v, c_));
      break;
    case TraceKey::kParent: {
      bool is_null = false;
      if (v.is_null().get(is_null) == simdjson::SUCCESS && is_null)
        f.raw_parent = UINT64_MAX;
      else
        f.raw_parent = get_uint(v, c_);
      break;
    }
    case TraceKey::kThread:
      n.thread = static_cast<uint32_t>(get_uint(v, c_));
      break;
    case TraceKey::kStartNs:
      n.start_ns = get_int(v, c_);
      f.has_start = true;
      break;
    case TraceKey::kEndNs:
      n.end_ns = get_int(v, c_);
      f.has_end = true;
      break;
    case TraceKey::kIndex:
      n.layer_index = static_cast<int32_t>(get_int(v, c_));
      break;
    case TraceKey::kBrickId:
      n.brick_id = static_cast<int16_t>(get_int(v, c_));
      break;
    case TraceKey::kCategory:
      n.category = get_enum<Category>(v, c_);
      break;
    case TraceKey::kElements:
      n.elements = get_uint(v, c_);
      break;
    case TraceKey::kFlops:
      n.flops = get_double(v, c_);
      break;
    case TraceKey::kBytesMoved:
      n.bytes_moved = get_double(v, c_);
      break;
    default:
      break;  // unknown key: skipped
  }
}

// The GPU work's fields (a launch, copy, memset or sync) and an MPI call's.
// The ones only GPU work has (device, stream, sizes) mark the node as GPU
// work whatever its kind.
inline void Reader::read_gpu_field(TraceKey key, od::value& v, NodeFields& f) {
  GpuDetail& g = f.g;
  auto u32 = [&] { return static_cast<uint32_t>(get_uint(v, c_)); };
  switch (key) {
    case TraceKey::kDevice:
      g.device = u32();
      f.has_gpu = true;
      break;
    case TraceKey::kContext:
      g.context = u32();
      f.has_gpu = true;
      break;
    case TraceKey::kStream:
      g.stream = u32();
      f.has_gpu = true;
      break;
    case TraceKey::kCorrelation:
      g.correlation = get_uint(v, c_);
      f.has_gpu = true;
      break;
    case TraceKey::kApiStartNs:
      g.api_start_ns = get_int(v, c_);
      break;
    case TraceKey::kApiEndNs:
      g.api_end_ns = get_int(v, c_);
      break;
    case TraceKey::kGrid:
      get_dims(v, g.grid, c_);
      f.has_gpu = true;
      break;
    case TraceKey::kBlock:
      get_dims(v, g.block, c_);
      f.has_gpu = true;
      break;
    case TraceKey::kSmem:
      g.smem = u32();
      break;
    case TraceKey::kRegisters:
      g.registers = u32();
      break;
    case TraceKey::kPtxHash:
      g.ptx_hash = get_hash(v, c_);
      break;
    case TraceKey::kGraphNode:
      g.graph_node = get_uint(v, c_);
      break;
    case TraceKey::kGraphId:
      g.graph_id = u32();
      break;
    case TraceKey::kBytes:
      g.bytes = get_uint(v, c_);
      f.has_gpu = true;
      break;
    case TraceKey::kDirection:
      g.direction = get_enum<Direction>(v, c_);
      f.has_gpu = true;
      break;
    case TraceKey::kSrcKind:
      g.src_kind = get_enum<MemoryKind>(v, c_);
      break;
    case TraceKey::kDstKind:
      g.dst_kind = get_enum<MemoryKind>(v, c_);
      break;
    case TraceKey::kSrcAddr:
      g.src_addr = get_uint(v, c_);
      break;
    case TraceKey::kDstAddr:
      g.dst_addr = get_uint(v, c_);
      break;
    case TraceKey::kSync:
      g.sync = get_enum<SyncKind>(v, c_);
      break;
    case TraceKey::kEvent:
      g.event = get_uint(v, c_);
      break;
    case TraceKey::kPythonStack:
      g.python_stack = u32();
      break;
    case TraceKey::kMpi:
      read_comm_call(v, f.call, c_);
      f.has_call = true;
      break;
    default:
      break;  // an edge's key: skipped
  }
}

// What the analyses rely on: an id, a kind, and times that run forward.
inline void Reader::check_node_fields(const NodeFields& f) const {
  if (!f.has_id) fail(c_.describe() + ": missing \"id\"");
  if (!f.has_kind) fail(c_.describe() + ": missing \"kind\"");
  if (!f.has_start || !f.has_end) fail(c_.describe() + ": missing \"start_ns\" or \"end_ns\"");
  if (f.n.start_ns < 0 || f.n.end_ns < 0) fail(c_.describe() + ": negative time");
  if (f.n.end_ns < f.n.start_ns) fail(c_.describe() + ": end_ns is before start_ns");
}

// The next node's index; maps its raw id once the ids stop being dense
// (dense_ids_), and refuses one seen before.
inline uint32_t Reader::index_for(uint64_t raw_id) {
  const auto index = static_cast<uint32_t>(t_.nodes.size());
  if (dense_ids_ && raw_id != index) {
    dense_ids_ = false;
    dense_count_ = index;
    for (uint32_t i = 0; i < index; ++i) id_map_.emplace(i, i);
  }
  if (!dense_ids_) {
    if (!id_map_.emplace(raw_id, index).second)
      fail(c_.describe() + ": duplicate node id " + std::to_string(raw_id));
    raw_ids_.push_back(raw_id);
  }
  return index;
}

// The raw parent id, resolved by link(); one too big for the model's
// 32-bit field waits in long_parents_.
inline void Reader::link_parent(Node& n, uint64_t raw_parent, uint32_t index) {
  if (raw_parent == UINT64_MAX) {
    n.parent = kNoNode;
  } else if (raw_parent < kNoNode) {
    n.parent = static_cast<uint32_t>(raw_parent);
  } else {
    n.parent = kNoNode;
    long_parents_.push_back({index, raw_parent});
  }
}

inline void Reader::store_node(NodeFields& f, uint32_t index) {
  if (f.has_call) {
    f.call.node = index;
    t_.comm_calls.push_back(f.call);
  }
  if (f.has_gpu || is_gpu_kind(f.n.kind))
    t_.add_gpu_node(f.n, f.g);
  else
    t_.add_node(f.n);
}

uint32_t Reader::resolve(uint64_t raw_id, const char* what) {
  if (dense_ids_) {
    if (raw_id < t_.nodes.size()) return static_cast<uint32_t>(raw_id);
  } else if (auto it = id_map_.find(raw_id); it != id_map_.end()) {
    return it->second;
  }
  fail(c_.describe() + ": " + what + " refers to unknown node id " + std::to_string(raw_id));
}

// Edges may precede nodes in a hand-made file: keep raw ids, resolve later.
void Reader::read_edge(od::object obj) {
  uint64_t src = UINT64_MAX, dst = UINT64_MAX;
  EdgeType type = EdgeType::kContains;
  for (auto result : obj) {
    od::field& f = field_of(result);
    TraceKey key = key_of(f, c_);
    c_.key = key_name(key);
    if (key == TraceKey::kSrc)
      src = get_uint(f.value(), c_);
    else if (key == TraceKey::kDst)
      dst = get_uint(f.value(), c_);
    else if (key == TraceKey::kType)
      type = get_enum<EdgeType>(f.value(), c_);
  }
  c_.key = {};
  if (src == UINT64_MAX || dst == UINT64_MAX) fail(c_.describe() + ": missing src or dst");
  if (src >= kNoNode || dst >= kNoNode) {
    long_edges_.push_back({t_.edges.size(), src, dst});
    src = dst = 0;
  }
  t_.add_edge(static_cast<uint32_t>(src), static_cast<uint32_t>(dst), type);
}

void Reader::link() {
  c_ = Cursor{};
  c_.section = "nodes";
  bool parents_first = true;  // every parent precedes its child: no cycle possible
  for (uint32_t i = 0; i < t_.nodes.size(); ++i) {
    uint32_t& parent = t_.nodes[i].parent;
    if (parent == kNoNode) continue;
    c_.index = i;
    parent = resolve(parent, "parent");
    parents_first &= parent < i;
  }
  for (const LongParent& p : long_parents_) {
    c_.index = p.node;
    t_.nodes[p.node].parent = resolve(p.raw, "parent");
    parents_first = false;
  }
  if (!parents_first) {
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
        fail("nodes: parent cycle through node id " + std::to_string(raw_id_of(cur)));
      for (uint32_t p : path) state[p] = 2;
    }
  }
  link_communicators();
  c_ = Cursor{};
  c_.section = "edges";
  auto long_edge = long_edges_.begin();
  for (size_t i = 0; i < t_.edges.size(); ++i) {
    c_.index = static_cast<int64_t>(i);
    Edge& e = t_.edges[i];
    if (long_edge != long_edges_.end() && long_edge->edge == i) {
      e.src = resolve(long_edge->src, "src");
      e.dst = resolve(long_edge->dst, "dst");
      ++long_edge;
    } else {
      e.src = resolve(e.src, "src");
      e.dst = resolve(e.dst, "dst");
    }
  }
}

// Communicators are numbered by position from here on: calls naming an id
// are mapped to its entry, and an id no entry has is bad input.
void Reader::link_communicators() {
  std::unordered_map<uint32_t, uint32_t> position;
  for (uint32_t i = 0; i < t_.communicators.size(); ++i) {
    if (!position.emplace(t_.communicators[i].id, i).second)
      fail("communicators: duplicate id " + std::to_string(t_.communicators[i].id));
    t_.communicators[i].id = i;
  }
  for (CommCall& call : t_.comm_calls) {
    auto it = position.find(call.comm);
    if (it == position.end())
      fail("nodes[" + std::to_string(call.node) + "].mpi.comm refers to unknown communicator " +
           std::to_string(call.comm));
    call.comm = it->second;
  }
}

void Reader::resolve_memory_ids() {
  c_ = Cursor{};
  c_.section = "memory";
  c_.index = 0;
  for (size_t i = 0; i < t_.memory.size(); ++i, ++c_.index)
    if (memory_scopes_[i] != kNoFileId) t_.memory[i].scope = resolve(memory_scopes_[i], "scope");
  c_ = Cursor{};
  c_.section = "shapes";
  c_.index = 0;
  for (size_t i = 0; i < t_.shapes.size(); ++i, ++c_.index)
    t_.shapes[i].node = resolve(shape_nodes_[i], "node");
  c_ = Cursor{};
  c_.section = "checksums";
  c_.index = 0;
  for (size_t i = 0; i < t_.checksums.size(); ++i, ++c_.index)
    t_.checksums[i].node = resolve(checksum_nodes_[i], "node");
  c_ = Cursor{};
  c_.section = "counters";
  c_.index = 0;
  for (size_t i = 0; i < t_.counters.size(); ++i, ++c_.index)
    if (counter_scopes_[i] != kNoFileId) t_.counters[i].scope = resolve(counter_scopes_[i], "scope");
  c_ = Cursor{};
  c_.section = "tiles";
  c_.index = 0;
  for (size_t i = 0; i < t_.tiles.size(); ++i, ++c_.index)
    t_.tiles[i].node = resolve(tile_nodes_[i], "node");
  c_ = Cursor{};
  c_.section = "cpu_counters.nodes";
  c_.index = 0;
  for (size_t i = 0; i < t_.cpu_counters.nodes.size(); ++i, ++c_.index)
    t_.cpu_counters.nodes[i].node = resolve(cpu_counter_nodes_[i], "node");
  c_ = Cursor{};
  c_.section = "gpu_metrics.nodes";
  c_.index = 0;
  for (size_t i = 0; i < t_.gpu_metrics.nodes.size(); ++i, ++c_.index)
    t_.gpu_metrics.nodes[i].node = resolve(gpu_metric_nodes_[i], "node");
}

// Every stack names known frames, every GPU node a known stack.
void Reader::check_python_stacks() {
  c_ = Cursor{};
  c_.section = "python_stacks";
  for (size_t i = 0; i < t_.python_stacks.size(); ++i) {
    c_.index = static_cast<int64_t>(i);
    for (uint32_t f : t_.python_stacks[i])
      if (f >= t_.python_frames.size())
        fail(c_.describe() + ": unknown python frame " + std::to_string(f));
  }
  c_.section = "nodes";
  for (uint32_t i = 0; i < t_.nodes.size(); ++i) {
    const GpuDetail* d = t_.detail(t_.nodes[i]);
    if (d == nullptr || d->python_stack == kNoPythonStack) continue;
    if (d->python_stack >= t_.python_stacks.size()) {
      c_.index = static_cast<int64_t>(i);
      fail(c_.describe() + ": unknown python_stack " + std::to_string(d->python_stack));
    }
  }
}

}  // namespace

Trace parse_trace_json(std::string_view json) { return Reader().read(*text_in_memory(json)); }

Trace read_trace_file(const std::string& path) { return read_trace_file(path, nullptr); }

Trace read_trace_file(const std::string& path, const ReadProgress& progress) {
  std::unique_ptr<TraceText> text = open_trace_text(path);
  try {
    if (text->text().empty() && !text->more())
      throw TraceError(text->error().empty() ? "empty file" : text->error());
    return Reader(&progress).read(*text);
  } catch (const TraceError& e) {
    throw TraceError(path + ": " + e.what());
  }
}

}  // namespace brickprof
