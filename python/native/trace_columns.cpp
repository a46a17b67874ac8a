// Building the column dict of a trace (see trace_columns.h).
#include "python/native/trace_columns.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "python/native/py_columns.h"
#include "trace/derive/stats.h"
#include "trace/model/queries.h"

namespace brickprof::python {
namespace {

// Each node's label (as every text output names it) and its scope path:
// the labels from its root down to itself, joined by '/'. Paths repeat
// (every layer has the same bricks), so each distinct one is built once.
struct Paths {
  std::vector<uint32_t> label, path;
  Interner labels, paths;

  explicit Paths(const Trace& t) : label(t.nodes.size()), path(t.nodes.size(), kNoNode) {
    // Most labels are the node's name: interned once per string id; only
    // the rest (unnamed layers, copies, ...) go through node_label.
    std::vector<uint32_t> of_string(t.strings.size(), kNoNode);
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      const Node& node = t.nodes[i];
      const bool own_name =
          node.name != 0 && node.kind != NodeKind::kTransfer && node.kind != NodeKind::kMemset;
      if (!own_name) {
        label[i] = labels.add(node_label(t, node));
        continue;
      }
      uint32_t& cached = of_string[node.name];
      if (cached == kNoNode) cached = labels.add(std::string(t.name(node)));
      label[i] = cached;
    }
    std::unordered_map<uint64_t, uint32_t> child;  // (parent path, label) -> path
    std::vector<uint32_t> chain;
    for (uint32_t i = 0; i < t.nodes.size(); ++i) {
      // Up to the first ancestor with a path, then down (each node once).
      chain.clear();
      for (uint32_t cur = i; cur != kNoNode && path[cur] == kNoNode; cur = t.nodes[cur].parent) {
        chain.push_back(cur);
        if (chain.size() > t.nodes.size()) break;  // a cycle: the reader rejects these
      }
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const uint32_t node = *it, parent = t.nodes[node].parent;
        const uint32_t above = parent == kNoNode ? kNoNode : path[parent];
        const uint64_t key = uint64_t{above} << 32 | label[node];
        auto [slot, added] = child.try_emplace(key, 0);
        if (added) {
          std::string joined = above == kNoNode ? std::string() : paths.value(above) + "/";
          slot->second = paths.add(joined + labels.value(label[node]));
        }
        path[node] = slot->second;
      }
    }
  }
};

PyObject* node_columns(const Trace& t) {
  const size_t n = t.nodes.size();
  Paths paths(t);
  std::vector<uint32_t> kind(n), category(n);
  std::vector<int64_t> parent(n), thread(n), start(n), end(n), detail(n), brick(n);
  std::vector<int32_t> layer(n), brick_id(n);
  std::vector<uint64_t> elements(n);
  std::vector<double> flops(n), bytes_moved(n);
  const std::vector<uint32_t> owner = nearest_brick(t);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = t.nodes[i];
    kind[i] = code(node.kind);
    category[i] = code(node.category);
    parent[i] = node.parent == kNoNode ? int64_t{-1} : int64_t{node.parent};
    thread[i] = node.thread;
    start[i] = node.start_ns;
    end[i] = node.end_ns;
    detail[i] = node.detail == kNoDetail ? int64_t{-1} : int64_t{node.detail};
    brick[i] = owner[i] == kNoNode ? int64_t{-1} : int64_t{owner[i]};
    layer[i] = node.layer_index;
    brick_id[i] = node.brick_id;
    elements[i] = node.elements;
    flops[i] = node.flops;
    bytes_moved[i] = node.bytes_moved;
  }
  Ref d(PyDict_New());
  put(d.get(), "kind", categorical(kind, enum_names<NodeKind>(7)));
  put(d.get(), "name", categorical(paths.label, paths.labels.values()));
  put(d.get(), "path", categorical(paths.path, paths.paths.values()));
  put(d.get(), "parent", column(parent, "int64"));
  put(d.get(), "thread", column(thread, "int64"));
  put(d.get(), "start_ns", column(start, "int64"));
  put(d.get(), "end_ns", column(end, "int64"));
  put(d.get(), "brick", column(brick, "int64"));
  put(d.get(), "layer_index", column(layer, "int32"));
  put(d.get(), "brick_id", column(brick_id, "int32"));
  // Every category, kNone (the last) included.
  put(d.get(), "category",
      categorical(category, enum_names<Category>(static_cast<int>(Category::kNone) + 1)));
  put(d.get(), "elements", column(elements, "uint64"));
  put(d.get(), "flops", column(flops, "float64"));
  put(d.get(), "bytes_moved", column(bytes_moved, "float64"));
  put(d.get(), "detail", column(detail, "int64"));
  return d.release();
}

// One row per GPU operation (Trace::gpu), with the node it belongs to.
PyObject* gpu_columns(const Trace& t) {
  const size_t n = t.gpu.size();
  std::vector<int64_t> node(n, -1), api_start(n), api_end(n);
  std::vector<uint32_t> device(n), context(n), stream(n), smem(n), registers(n), graph_id(n);
  std::vector<uint32_t> grid[3], block[3];
  for (int k = 0; k < 3; ++k) grid[k].resize(n), block[k].resize(n);
  std::vector<uint64_t> correlation(n), ptx_hash(n), graph_node(n), bytes(n), event(n);
  std::vector<uint32_t> direction(n), src_kind(n), dst_kind(n), sync(n);
  for (size_t i = 0; i < t.nodes.size(); ++i)
    if (t.nodes[i].detail != kNoDetail) node[t.nodes[i].detail] = static_cast<int64_t>(i);
  for (size_t i = 0; i < n; ++i) {
    const GpuDetail& g = t.gpu[i];
    device[i] = g.device;
    context[i] = g.context;
    stream[i] = g.stream;
    correlation[i] = g.correlation;
    api_start[i] = g.api_start_ns;
    api_end[i] = g.api_end_ns;
    for (int k = 0; k < 3; ++k) grid[k][i] = g.grid[k], block[k][i] = g.block[k];
    smem[i] = g.smem;
    registers[i] = g.registers;
    ptx_hash[i] = g.ptx_hash;
    graph_node[i] = g.graph_node;
    graph_id[i] = g.graph_id;
    bytes[i] = g.bytes;
    direction[i] = code(g.direction);
    src_kind[i] = code(g.src_kind);
    dst_kind[i] = code(g.dst_kind);
    sync[i] = code(g.sync);
    event[i] = g.event;
  }
  Ref d(PyDict_New());
  put(d.get(), "node", column(node, "int64"));
  put(d.get(), "device", column(device, "uint32"));
  put(d.get(), "context", column(context, "uint32"));
  put(d.get(), "stream", column(stream, "uint32"));
  put(d.get(), "correlation", column(correlation, "uint64"));
  put(d.get(), "api_start_ns", column(api_start, "int64"));
  put(d.get(), "api_end_ns", column(api_end, "int64"));
  const char* axis[3] = {"x", "y", "z"};
  for (int k = 0; k < 3; ++k)
    put(d.get(), ("grid_" + std::string(axis[k])).c_str(), column(grid[k], "uint32"));
  for (int k = 0; k < 3; ++k)
    put(d.get(), ("block_" + std::string(axis[k])).c_str(), column(block[k], "uint32"));
  put(d.get(), "smem", column(smem, "uint32"));
  put(d.get(), "registers", column(registers, "uint32"));
  put(d.get(), "ptx_hash", column(ptx_hash, "uint64"));
  put(d.get(), "graph_node", column(graph_node, "uint64"));
  put(d.get(), "graph_id", column(graph_id, "uint32"));
  put(d.get(), "bytes", column(bytes, "uint64"));
  put(d.get(), "direction", categorical(direction, enum_names<Direction>(6)));
  put(d.get(), "src_kind", categorical(src_kind, enum_names<MemoryKind>(6)));
  put(d.get(), "dst_kind", categorical(dst_kind, enum_names<MemoryKind>(6)));
  put(d.get(), "sync", categorical(sync, enum_names<SyncKind>(6)));
  put(d.get(), "event", column(event, "uint64"));
  return d.release();
}

PyObject* edge_columns(const Trace& t) {
  std::vector<int64_t> src, dst;
  std::vector<uint32_t> type;
  for (const Edge& e : t.edges) {
    src.push_back(e.src);
    dst.push_back(e.dst);
    type.push_back(code(e.type));
  }
  Ref d(PyDict_New());
  put(d.get(), "src", column(src, "int64"));
  put(d.get(), "dst", column(dst, "int64"));
  put(d.get(), "type", categorical(type, enum_names<EdgeType>(5)));
  return d.release();
}

// The same per-brick figures as `report --summary` (stats.h).
PyObject* brick_rows(const Trace& t) {
  const TraceStats stats = compute_stats(t);
  Ref list(PyList_New(0));
  for (const BrickStat& b : stats.bricks) {
    Ref name(text(b.name));
    Ref category(text(to_string(b.category)));
    Ref row(Py_BuildValue(
        "{sOsOsKsLsLsLsLsLsKsKsd}", "name", name.get(), "category", category.get(), "count",
        static_cast<unsigned long long>(b.count), "total_ns", static_cast<long long>(b.total_ns),
        "avg_ns", static_cast<long long>(b.avg_ns()), "min_ns", static_cast<long long>(b.min_ns),
        "max_ns", static_cast<long long>(b.max_ns), "gpu_ns", static_cast<long long>(b.gpu_ns),
        "kernels", static_cast<unsigned long long>(b.kernels), "elements",
        static_cast<unsigned long long>(b.elements), "elements_per_s", b.throughput()));
    if (PyList_Append(list.get(), row.get()) != 0) throw PyError{};
  }
  return list.release();
}

PyObject* device_rows(const Trace& t) {
  Ref list(PyList_New(0));
  for (const Device& dev : t.devices) {
    Ref name(text(dev.name));
    Ref source(text(dev.peaks_source));
    Ref row(Py_BuildValue("{sKsOsIsdsdsIsdsdsO}", "id", static_cast<unsigned long long>(dev.id),
                          "name", name.get(), "sm_count", dev.sm_count, "clock_mhz", dev.clock_mhz,
                          "memory_clock_mhz", dev.memory_clock_mhz, "memory_bus_bits",
                          dev.memory_bus_bits, "peak_gflops", dev.peak_gflops, "peak_gbps",
                          dev.peak_gbps, "peaks_source", source.get()));
    if (PyList_Append(list.get(), row.get()) != 0) throw PyError{};
  }
  return list.release();
}

PyObject* thread_rows(const Trace& t) {
  Ref list(PyList_New(0));
  for (const ThreadInfo& info : t.threads) {
    Ref name(text(info.name));
    Ref row(Py_BuildValue("{sKsO}", "tid", static_cast<unsigned long long>(info.tid), "name",
                          name.get()));
    if (PyList_Append(list.get(), row.get()) != 0) throw PyError{};
  }
  return list.release();
}

PyObject* process_dict(const ProcessInfo& p) {
  Ref d(PyDict_New());
  put(d.get(), "pid", checked(PyLong_FromLongLong(p.pid)));
  put(d.get(), "ppid", checked(PyLong_FromLongLong(p.ppid)));
  put(d.get(), "program", text(p.program));
  put(d.get(), "cmdline", text(p.cmdline));
  put(d.get(), "host", text(p.host));
  put(d.get(), "rank", checked(PyLong_FromLongLong(p.rank)));
  put(d.get(), "start_ns", checked(PyLong_FromLongLong(p.start_ns)));
  put(d.get(), "end_ns", checked(PyLong_FromLongLong(p.end_ns)));
  put(d.get(), "clock", text(p.clock));
  put(d.get(), "launcher", text(p.launcher));
  put(d.get(), "job", text(p.job));
  put(d.get(), "local_rank", checked(PyLong_FromLongLong(p.local_rank)));
  put(d.get(), "world_size", checked(PyLong_FromLongLong(p.world_size)));
  return d.release();
}

PyObject* diagnostics_dict(const Diagnostics& g) {
  Ref d(PyDict_New());
  auto count = [](uint64_t v) { return checked(PyLong_FromUnsignedLongLong(v)); };
  put(d.get(), "cupti", text(g.cupti));
  put(d.get(), "nvtx", text(g.nvtx));
  put(d.get(), "dropped_events", count(g.dropped_events));
  put(d.get(), "dropped_activity_records", count(g.dropped_activity_records));
  put(d.get(), "zero_timestamp_records", count(g.zero_timestamp_records));
  put(d.get(), "unbalanced_pops", count(g.unbalanced_pops));
  put(d.get(), "open_scopes_at_exit", count(g.open_scopes_at_exit));
  put(d.get(), "capture", text(g.capture));
  put(d.get(), "scopes_cut_by_capture", count(g.scopes_cut_by_capture));
  put(d.get(), "records_outside_capture", count(g.records_outside_capture));
  put(d.get(), "warnings", string_list(g.warnings));
  return d.release();
}

}  // namespace

PyObject* trace_columns(const Trace& trace) {
  try {
    Ref d(PyDict_New());
    put(d.get(), "nodes", node_columns(trace));
    put(d.get(), "gpu", gpu_columns(trace));
    put(d.get(), "edges", edge_columns(trace));
    put(d.get(), "bricks", brick_rows(trace));
    put(d.get(), "devices", device_rows(trace));
    put(d.get(), "threads", thread_rows(trace));
    put(d.get(), "process", process_dict(trace.process));
    put(d.get(), "diagnostics", diagnostics_dict(trace.diagnostics));
    return d.release();
  } catch (const PyError&) {
    return nullptr;
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
}

}  // namespace brickprof::python
