// A rank's shard columns (see shard_columns.h).
#include "python/native/shard_columns.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/analyses/memory_ranks.h"
#include "analysis/analyses/rank_work.h"
#include "analysis/analyses/trace_merge.h"
#include "python/native/py_columns.h"
#include "python/native/trace_columns.h"
#include "trace/derive/memory_accounts.h"
#include "trace/derive/stats.h"

namespace brickprof::python {
namespace {

std::string_view work_name(WorkClass c) {
  switch (c) {
    case WorkClass::kCompute:
      return "compute";
    case WorkClass::kCommunication:
      return "communication";
    case WorkClass::kMemory:
      return "memory";
    case WorkClass::kNone:
      break;
  }
  return "none";
}

std::string_view pattern_name(WaitPattern p) {
  switch (p) {
    case WaitPattern::kAllToAll:
      return "all_to_all";
    case WaitPattern::kOneToAll:
      return "one_to_all";
    case WaitPattern::kAllToOne:
      return "all_to_one";
    case WaitPattern::kPrefix:
      return "prefix";
    case WaitPattern::kNone:
      break;
  }
  return "none";
}

constexpr int kCommOps = static_cast<int>(CommOp::kWaitany) + 1;

int64_t id_or_minus_one(uint32_t id) { return id == kNoNode ? int64_t{-1} : int64_t{id}; }

// Per node: its work class, nearest layer (id and index) and nearest
// brick's name, the keys the cross-rank views group by.
void add_node_columns(const Trace& t, const RankWork& work, PyObject* nodes) {
  const size_t n = t.nodes.size();
  const std::vector<uint32_t> layer_of = nearest_of_kind(t, NodeKind::kLayer);
  const std::vector<uint32_t> brick_of = nearest_brick(t);
  std::vector<uint32_t> work_class(n);
  std::vector<int64_t> layer(n);
  std::vector<int32_t> in_layer(n), brick_name(n);
  Interner names;
  std::vector<int32_t> name_code(t.strings.size(), -1);  // string id -> code
  for (size_t i = 0; i < n; ++i) {
    work_class[i] = code(work.of_node[i]);
    layer[i] = id_or_minus_one(layer_of[i]);
    in_layer[i] = layer_of[i] == kNoNode ? -1 : t.nodes[layer_of[i]].layer_index;
    brick_name[i] = -1;
    if (brick_of[i] == kNoNode) continue;
    const StringId name = t.nodes[brick_of[i]].name;
    int32_t& cached = name_code[name];
    if (cached < 0) cached = static_cast<int32_t>(names.add(std::string(t.strings.view(name))));
    brick_name[i] = cached;
  }
  std::vector<std::string> classes;
  for (WorkClass c :
       {WorkClass::kNone, WorkClass::kCompute, WorkClass::kCommunication, WorkClass::kMemory})
    classes.emplace_back(work_name(c));
  put(nodes, "work", categorical(work_class, classes));
  put(nodes, "layer", column(layer, "int64"));
  put(nodes, "in_layer", column(in_layer, "int32"));
  // Code -1 for a node under no brick: null, as pandas and Arrow read it.
  Ref codes(column(brick_name, "int32"));
  Ref values(string_list(names.values()));
  put(nodes, "brick_name",
      checked(Py_BuildValue("(OsO)", PyTuple_GET_ITEM(codes.get(), 0), "int32", values.get())));
}

void add_python_stack_column(const Trace& t, PyObject* gpu) {
  std::vector<int64_t> stack(t.gpu.size());
  for (size_t i = 0; i < t.gpu.size(); ++i)
    stack[i] = t.gpu[i].python_stack == kNoPythonStack ? -1 : int64_t{t.gpu[i].python_stack};
  put(gpu, "python_stack", column(stack, "int64"));
}

PyObject* comm_call_columns(const Trace& t) {
  const size_t n = t.comm_calls.size();
  std::vector<int64_t> node(n);
  std::vector<uint32_t> op(n), comm(n);
  std::vector<int32_t> peer(n), tag(n);
  std::vector<uint64_t> bytes(n), recv_bytes(n), seq(n);
  for (size_t i = 0; i < n; ++i) {
    const CommCall& c = t.comm_calls[i];
    node[i] = c.node;
    op[i] = code(c.op);
    comm[i] = c.comm;
    peer[i] = c.peer;
    tag[i] = c.tag;
    bytes[i] = c.bytes;
    recv_bytes[i] = c.recv_bytes;
    seq[i] = c.seq;
  }
  Ref d(PyDict_New());
  put(d.get(), "node", column(node, "int64"));
  put(d.get(), "op", categorical(op, enum_names<CommOp>(kCommOps)));
  put(d.get(), "comm", column(comm, "uint32"));
  put(d.get(), "peer", column(peer, "int32"));
  put(d.get(), "tag", column(tag, "int32"));
  put(d.get(), "bytes", column(bytes, "uint64"));
  put(d.get(), "recv_bytes", column(recv_bytes, "uint64"));
  put(d.get(), "seq", column(seq, "uint64"));
  return d.release();
}

PyObject* communicator_rows(const Trace& t) {
  Ref list(PyList_New(0));
  for (const Communicator& c : t.communicators) {
    Ref name(text(c.name));
    Ref row(Py_BuildValue("{sIsOsKsisi}", "id", c.id, "name", name.get(), "key",
                          static_cast<unsigned long long>(c.key), "size", c.size, "rank", c.rank));
    if (PyList_Append(list.get(), row.get()) != 0) throw PyError{};
  }
  return list.release();
}

// One row per frame of each stack, innermost (depth 0) first.
PyObject* python_frame_columns(const Trace& t) {
  std::vector<uint32_t> stack, depth, file, function;
  std::vector<int64_t> line;
  Interner files, functions;
  for (size_t s = 0; s < t.python_stacks.size(); ++s)
    for (size_t d = 0; d < t.python_stacks[s].size(); ++d) {
      const uint32_t f = t.python_stacks[s][d];
      if (f >= t.python_frames.size()) continue;
      const PythonFrame& frame = t.python_frames[f];
      stack.push_back(static_cast<uint32_t>(s));
      depth.push_back(static_cast<uint32_t>(d));
      file.push_back(files.add(frame.file));
      line.push_back(frame.line);
      function.push_back(functions.add(frame.function));
    }
  Ref d(PyDict_New());
  put(d.get(), "stack", column(stack, "uint32"));
  put(d.get(), "depth", column(depth, "uint32"));
  put(d.get(), "file", categorical(file, files.values()));
  put(d.get(), "line", column(line, "int64"));
  put(d.get(), "function", categorical(function, functions.values()));
  return d.release();
}

// One row per allocation, free, mapping or trim (trace/model/memory.h).
PyObject* memory_columns(const Trace& t) {
  const size_t n = t.memory.size();
  std::vector<int64_t> time(n), scope(n), python_stack(n);
  std::vector<uint32_t> thread(n), op(n), source(n), account(n), device(n), name(n);
  std::vector<int32_t> result(n);
  std::vector<uint64_t> address(n), bytes(n), stream(n), pool(n);
  Interner names;
  for (size_t i = 0; i < n; ++i) {
    const MemoryEvent& e = t.memory[i];
    time[i] = e.time_ns;
    thread[i] = e.thread;
    scope[i] = id_or_minus_one(e.scope);
    op[i] = code(e.op);
    source[i] = code(e.source);
    account[i] = code(account_of(e.source));
    result[i] = e.result;
    device[i] = e.device;
    address[i] = e.address;
    bytes[i] = e.bytes;
    stream[i] = e.stream;
    pool[i] = e.pool;
    name[i] = names.add(std::string(t.strings.view(e.name)));
    python_stack[i] = e.python_stack == kNoPythonStack ? -1 : int64_t{e.python_stack};
  }
  Ref d(PyDict_New());
  put(d.get(), "time_ns", column(time, "int64"));
  put(d.get(), "thread", column(thread, "uint32"));
  put(d.get(), "scope", column(scope, "int64"));
  put(d.get(), "op", categorical(op, enum_names<MemoryOp>(static_cast<int>(MemoryOp::kTrim) + 1)));
  put(d.get(), "source",
      categorical(source, enum_names<MemorySource>(static_cast<int>(MemorySource::kGraph) + 1)));
  put(d.get(), "account",
      categorical(account, enum_names<MemoryAccount>(static_cast<int>(MemoryAccount::kNone) + 1)));
  put(d.get(), "result", column(result, "int32"));
  put(d.get(), "device", column(device, "uint32"));
  put(d.get(), "address", column(address, "uint64"));
  put(d.get(), "bytes", column(bytes, "uint64"));
  put(d.get(), "stream", column(stream, "uint64"));
  put(d.get(), "pool", column(pool, "uint64"));
  put(d.get(), "name", categorical(name, names.values()));
  put(d.get(), "python_stack", column(python_stack, "int64"));
  return d.release();
}

// The rank's devices as `merge` numbers them (trace_merge.cpp:
// map_devices_and_threads, then device_of): those it lists, in order, then
// each id only its GPU work or its memory events name, at first sight. A
// merged trace's id of the rank's device is this index plus the devices of
// the ranks before it, which names its memory accounts ("GPU 5").
std::unordered_map<uint32_t, uint32_t> merge_device_index(const Trace& t, uint32_t* count) {
  std::unordered_map<uint32_t, uint32_t> index;
  uint32_t next = 0;
  for (const Device& d : t.devices) index[d.id] = next++;
  auto name = [&](uint32_t device) {
    if (index.emplace(device, next).second) ++next;
  };
  for (const Node& n : t.nodes)
    if (const GpuDetail* g = t.detail(n)) name(g->device);
  for (const MemoryEvent& e : t.memory)
    if (e.device != kHostDeviceId) name(e.device);
  *count = next;
  return index;
}

// The ranks view's memory rows for this rank (memory_ranks.h, the report's
// code): each account's peak, when first reached, and its GPU's memory;
// the device as merge_device_index has it (-1: the host's).
PyObject* memory_peak_rows(const Trace& t, const std::unordered_map<uint32_t, uint32_t>& index) {
  Ref list(PyList_New(0));
  for (const RankMemory& m : memory_per_rank(t, index_ranks(t))) {
    const auto at = index.find(m.key.device);
    const long long device = m.key.device == kHostDeviceId || at == index.end()
                                 ? -1
                                 : static_cast<long long>(at->second);
    Ref account(text(to_string(m.key.account)));
    Ref pool(text(t.strings.view(m.key.pool)));
    Ref row(Py_BuildValue("{sOsLsOsKsLsK}", "account", account.get(), "device", device, "pool",
                          pool.get(), "peak_bytes", static_cast<unsigned long long>(m.peak),
                          "peak_ns", static_cast<long long>(m.peak_ns), "memory_bytes",
                          static_cast<unsigned long long>(m.device_bytes)));
    if (PyList_Append(list.get(), row.get()) != 0) throw PyError{};
  }
  return list.release();
}

PyObject* alignment_dict(const Trace& t, bool applied) {
  const ClockSync& sync = t.process.clock_sync;
  Ref d(PyDict_New());
  put(d.get(), "applied", checked(PyBool_FromLong(applied)));
  put(d.get(), "reference_rank", checked(PyLong_FromLong(sync.reference_rank)));
  const int64_t at = sync.samples.empty() ? 0 : sync.samples.front().local_ns;
  put(d.get(), "at_ns", checked(PyLong_FromLongLong(at)));
  put(d.get(), "offset_ns", checked(PyFloat_FromDouble(applied ? sync.offset_at(at) : 0)));
  put(d.get(), "samples", checked(PyLong_FromSize_t(sync.samples.size())));
  return d.release();
}

}  // namespace

PyObject* shard_columns(Trace& trace) {
  const bool aligned = align_to_reference_clock(trace);
  PyObject* columns = trace_columns(trace);
  if (!columns) return nullptr;
  try {
    Ref d(columns);
    const RankWork work = classify_rank_work(trace);
    add_node_columns(trace, work, PyDict_GetItemString(d.get(), "nodes"));
    add_python_stack_column(trace, PyDict_GetItemString(d.get(), "gpu"));
    put(d.get(), "comm_calls", comm_call_columns(trace));
    put(d.get(), "communicators", communicator_rows(trace));
    put(d.get(), "python_frames", python_frame_columns(trace));
    put(d.get(), "memory", memory_columns(trace));
    uint32_t devices = 0;
    const auto device_index = merge_device_index(trace, &devices);
    put(d.get(), "memory_peaks", memory_peak_rows(trace, device_index));
    put(d.get(), "merge_devices", checked(PyLong_FromUnsignedLong(devices)));
    put(d.get(), "alignment", alignment_dict(trace, aligned));
    put(d.get(), "merged", checked(PyBool_FromLong(!trace.sources.empty())));
    put(d.get(), "gpu_timeline",
        checked(PyBool_FromLong(!work.gpu_timeline.empty() && work.gpu_timeline[0])));
    return d.release();
  } catch (const PyError&) {
    return nullptr;
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
}

PyObject* memory_label(PyObject* args) {
  const char* account = nullptr;
  unsigned long long device = 0;
  const char* pool = nullptr;
  const char* rank_label = nullptr;
  if (!PyArg_ParseTuple(args, "sKsz", &account, &device, &pool, &rank_label)) return nullptr;
  MemoryAccountKey key;
  bool known = false;
  for (int i = 0; i <= static_cast<int>(MemoryAccount::kNone); ++i)
    if (to_string(static_cast<MemoryAccount>(i)) == account) {
      key.account = static_cast<MemoryAccount>(i);
      known = true;
    }
  if (!known) return PyErr_Format(PyExc_ValueError, "memory_label: no account %s", account);
  try {
    Trace t;  // what the label reads of a merged trace: the rank's label, the pool's name
    key.device = static_cast<uint32_t>(device);
    key.pool = t.strings.intern(pool);
    if (rank_label) {
      t.sources.resize(2);
      t.sources[0].label = rank_label;
    }
    return text(account_label(t, key));
  } catch (const PyError&) {
    return nullptr;
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
}

PyObject* comm_op_rows() {
  try {
    Ref list(PyList_New(0));
    for (int i = 0; i < kCommOps; ++i) {
      const auto op = static_cast<CommOp>(i);
      Ref name(text(to_string(op)));
      Ref pattern(text(pattern_name(wait_pattern(op))));
      Ref row(Py_BuildValue("(OOO)", name.get(), is_collective(op) ? Py_True : Py_False,
                            pattern.get()));
      if (PyList_Append(list.get(), row.get()) != 0) throw PyError{};
    }
    return list.release();
  } catch (const PyError&) {
    return nullptr;
  }
}

}  // namespace brickprof::python
