// A rank's shard columns (see shard_columns.h).
#include "python/native/shard_columns.h"

#include <string>
#include <vector>

#include "analysis/analyses/rank_work.h"
#include "analysis/analyses/trace_merge.h"
#include "python/native/py_columns.h"
#include "python/native/trace_columns.h"
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
