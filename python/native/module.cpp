// brickprof._native: the compiled half of the Python package. read_trace()
// reads a trace with the C++ reader every command uses (plain or .json.gz)
// and returns its columns; read_shard() the same on the job's timeline with
// what a rank's Parquet shard adds, comm_ops() the MPI operations and
// rank_path() the report's path across ranks, for a job's dataset;
// site()/push()/pop() (and checksum()) are the scope API of
// <brickprof/brickprof.h>, so Python scopes take the header's inline path
// into the agent's buffers, and cost one load and a branch without an agent;
// mem_alloc()/mem_free()/set_shapes() are the header's memory and shape calls.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <brickprof/brickprof.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "python/native/rank_path_binding.h"
#include "python/native/shard_columns.h"
#include "python/native/trace_columns.h"
#include "trace/json/trace_json.h"
#include "trace/model/bricks.h"
#include "trace/model/checksum.h"

namespace {

PyObject* g_trace_error = nullptr;  // brickprof.TraceError

// The trace at the path `arg` names, read with the GIL released; false with
// a Python exception set when it cannot be read.
bool read_file(PyObject* arg, brickprof::Trace* trace) {
  PyObject* encoded = nullptr;
  if (!PyUnicode_FSConverter(arg, &encoded)) return false;
  std::string path(PyBytes_AS_STRING(encoded), static_cast<size_t>(PyBytes_GET_SIZE(encoded)));
  Py_DECREF(encoded);
  std::string error;
  bool out_of_memory = false;
  Py_BEGIN_ALLOW_THREADS try {
    *trace = brickprof::read_trace_file(path);
  } catch (const brickprof::TraceError& e) {
    error = e.what();
  } catch (const std::bad_alloc&) {
    out_of_memory = true;
  }
  Py_END_ALLOW_THREADS if (out_of_memory) {
    PyErr_NoMemory();
    return false;
  }
  if (!error.empty()) {
    PyErr_SetString(g_trace_error, error.c_str());
    return false;
  }
  return true;
}

// read_trace(path) -> dict of columns (trace_columns.h).
PyObject* read_trace(PyObject*, PyObject* arg) {
  brickprof::Trace trace;
  if (!read_file(arg, &trace)) return nullptr;
  return brickprof::python::trace_columns(trace);
}

// read_shard(path) -> the columns of a rank's Parquet shard (shard_columns.h).
PyObject* read_shard(PyObject*, PyObject* arg) {
  brickprof::Trace trace;
  if (!read_file(arg, &trace)) return nullptr;
  return brickprof::python::shard_columns(trace);
}

PyObject* comm_ops(PyObject*, PyObject*) { return brickprof::python::comm_op_rows(); }

PyObject* memory_label(PyObject*, PyObject* args) { return brickprof::python::memory_label(args); }

PyObject* rank_path(PyObject*, PyObject* arg) { return brickprof::python::rank_path(arg); }

// site(kind, brick, name or None) -> handle: a call site's static metadata,
// as the header's macros make one per site. Never freed: the agent keeps
// the name it points to, and the Python side makes one per distinct scope.
PyObject* site(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "site() takes 3 arguments");
  const int kind = PyLong_AsLong(args[0]);
  const int brick = PyLong_AsLong(args[1]);
  if (PyErr_Occurred()) return nullptr;
  const char* name = nullptr;
  if (args[2] != Py_None) {
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(args[2], &size);
    if (!utf8) return nullptr;
    char* copy = static_cast<char*>(std::malloc(static_cast<size_t>(size) + 1));
    if (!copy) return PyErr_NoMemory();
    std::memcpy(copy, utf8, static_cast<size_t>(size) + 1);
    name = copy;
  }
  auto* s = static_cast<brickprof__site*>(std::calloc(1, sizeof(brickprof__site)));
  if (!s) return PyErr_NoMemory();
  s->name = name;
  s->kind = kind;
  s->brick = brick;
  return PyLong_FromVoidPtr(s);
}

// push(site, arg) -> how: 0 not recorded; else what pop() must be given.
PyObject* push(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "push() takes 2 arguments");
  auto* s = static_cast<brickprof__site*>(PyLong_AsVoidPtr(args[0]));
  const unsigned long long arg = PyLong_AsUnsignedLongLongMask(args[1]);
  if (PyErr_Occurred()) return nullptr;
  const brickprof__api_table* api = brickprof__api();
  return PyLong_FromLong(api ? brickprof__push_fast(api, s, arg) : 0);
}

// pop(how): closes the scope push() opened, the way it was opened (as the
// header's scope guard does, so a scope recorded is always closed).
PyObject* pop(PyObject*, PyObject* arg) {
  const long how = PyLong_AsLong(arg);
  if (how == -1 && PyErr_Occurred()) return nullptr;
  const brickprof__api_table* api = brickprof__api();
  if (api && how == BRICKPROF__INLINE)
    brickprof__pop_inline(api);
  else if (api && how)
    api->pop();
  Py_RETURN_NONE;
}

PyObject* agent_loaded(PyObject*, PyObject*) { return PyBool_FromLong(brickprof__api() != 0); }

PyObject* is_enabled(PyObject*, PyObject*) { return PyBool_FromLong(brickprof_is_enabled()); }

PyObject* set_enabled(PyObject*, PyObject* arg) {
  const int on = PyObject_IsTrue(arg);
  if (on < 0) return nullptr;
  brickprof_set_enabled(on);
  Py_RETURN_NONE;
}

PyObject* add_work(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "add_work() takes 2 arguments");
  const double flops = PyFloat_AsDouble(args[0]);
  const double bytes = PyFloat_AsDouble(args[1]);
  if (PyErr_Occurred()) return nullptr;
  brickprof_add_work(flops, bytes);
  Py_RETURN_NONE;
}

// An optional text argument: its UTF-8 (valid while `arg` lives), or
// nullptr for None; false with a TypeError for anything else.
bool optional_text(PyObject* arg, const char** text) {
  *text = nullptr;
  if (arg == Py_None) return true;
  *text = PyUnicode_AsUTF8(arg);
  return *text != nullptr;
}

// mem_alloc(ptr, bytes, pool or None): the program's allocator handed out
// `bytes` at address `ptr` (an int) from `pool` (brickprof_mem_alloc).
PyObject* mem_alloc(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "mem_alloc() takes 3 arguments");
  const unsigned long long ptr = PyLong_AsUnsignedLongLong(args[0]);
  if (PyErr_Occurred()) return nullptr;
  const unsigned long long bytes = PyLong_AsUnsignedLongLong(args[1]);
  if (PyErr_Occurred()) return nullptr;
  const char* pool = nullptr;
  if (!optional_text(args[2], &pool)) return nullptr;
  brickprof_mem_alloc(reinterpret_cast<const void*>(static_cast<uintptr_t>(ptr)), bytes, pool);
  Py_RETURN_NONE;
}

// mem_free(ptr, pool or None) (brickprof_mem_free).
PyObject* mem_free(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "mem_free() takes 2 arguments");
  const unsigned long long ptr = PyLong_AsUnsignedLongLong(args[0]);
  if (PyErr_Occurred()) return nullptr;
  const char* pool = nullptr;
  if (!optional_text(args[1], &pool)) return nullptr;
  brickprof_mem_free(reinterpret_cast<const void*>(static_cast<uintptr_t>(ptr)), pool);
  Py_RETURN_NONE;
}

// Appends the ints of a sequence to `dims`; its length, or -1 with an error.
Py_ssize_t append_dims(PyObject* seq, std::vector<int64_t>* dims) {
  PyObject* fast = PySequence_Fast(seq, "a shape is a sequence of ints");
  if (!fast) return -1;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  for (Py_ssize_t i = 0; i < n; ++i) {
    const long long d = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
    if (d == -1 && PyErr_Occurred()) {
      Py_DECREF(fast);
      return -1;
    }
    dims->push_back(d);
  }
  Py_DECREF(fast);
  return n;
}

// set_shapes(dtype, [input shape, ...], output shape): each shape a
// sequence of ints (brickprof_set_shapes), for the innermost open scope.
PyObject* set_shapes(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "set_shapes() takes 3 arguments");
  const char* dtype = PyUnicode_AsUTF8(args[0]);
  if (!dtype) return nullptr;
  PyObject* inputs = PySequence_Fast(args[1], "inputs is a sequence of shapes");
  if (!inputs) return nullptr;
  std::vector<int64_t> dims, out;
  std::vector<uint32_t> ranks;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(inputs);
  for (Py_ssize_t i = 0; i < n; ++i) {
    const Py_ssize_t rank = append_dims(PySequence_Fast_GET_ITEM(inputs, i), &dims);
    if (rank < 0) {
      Py_DECREF(inputs);
      return nullptr;
    }
    ranks.push_back(static_cast<uint32_t>(rank));
  }
  Py_DECREF(inputs);
  if (append_dims(args[2], &out) < 0) return nullptr;
  brickprof_set_shapes(dtype, dims.data(), ranks.data(), static_cast<uint32_t>(ranks.size()),
                       out.data(), static_cast<uint32_t>(out.size()));
  Py_RETURN_NONE;
}

// The element type of a buffer's struct format ("f", "<d", "e", ...), or
// nullptr for one a digest reads only as bytes.
const char* dtype_of_format(const char* format, Py_ssize_t itemsize) {
  if (!format) return "u8";  // plain bytes
  // Native or little-endian: x86-64's and ARM's order.
  if (*format == '@' || *format == '=' || *format == '<') ++format;
  if (std::strlen(format) != 1) return nullptr;
  switch (*format) {
    case 'f':
      return "f32";
    case 'd':
      return "f64";
    case 'e':
      return "f16";
    case 'b':
      return "i8";
    case 'B':
    case '?':
    case 'c':
      return "u8";
    case 'i':
    case 'l':
    case 'q':
    case 'n':
      return itemsize == 4 ? "i32" : itemsize == 8 ? "i64" : nullptr;
    default:
      return nullptr;
  }
}

// The dtype the caller named (None: `*dtype` stays null), checked; false
// with the Python error set when it names none.
bool asked_dtype(PyObject* arg, const char** dtype, brickprof::ElementType* type) {
  *dtype = nullptr;
  if (arg == Py_None) return true;
  *dtype = PyUnicode_AsUTF8(arg);
  if (!*dtype) return false;
  if (brickprof::parse(*dtype, type)) return true;
  PyErr_Format(PyExc_ValueError,
               "unknown dtype %R: f32, f64, f16, bf16, i32, i64, i8, u8 or bytes", arg);
  return false;
}

// checksum(name, buffer, dtype or None): a digest of a C-contiguous host
// buffer (bytes, array.array, a numpy array, a memoryview) for the innermost
// open scope. Its element type is the buffer's format unless `dtype` names
// one ("bf16" for a uint16 array holding bfloat16); formats a digest cannot
// read as numbers are digested as bytes. The GIL is released meanwhile.
PyObject* checksum(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "checksum() takes 3 arguments");
  const char* name = PyUnicode_AsUTF8(args[0]);
  if (!name) return nullptr;
  const char* asked = nullptr;
  brickprof::ElementType type = brickprof::ElementType::kBytes;
  if (!asked_dtype(args[2], &asked, &type)) return nullptr;
  Py_buffer view;
  if (PyObject_GetBuffer(args[1], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) return nullptr;
  const char* dtype = asked ? asked : dtype_of_format(view.format, view.itemsize);
  if (!dtype || !brickprof::parse(dtype, &type)) {
    dtype = "bytes";
    type = brickprof::ElementType::kBytes;
  }
  const uint64_t count = static_cast<uint64_t>(view.len) / brickprof::element_bytes(type);
  // clang-format off
  Py_BEGIN_ALLOW_THREADS
  brickprof_checksum(name, view.buf, count, dtype);
  Py_END_ALLOW_THREADS
      // clang-format on
      PyBuffer_Release(&view);
  Py_RETURN_NONE;
}

// checksum_address(name, address, nbytes, dtype or None): a digest of
// `nbytes` at `address`, memory this module cannot read itself (a CUDA
// array's, from __cuda_array_interface__): brickprof_checksum copies device
// memory to the host after the context's work is done. `dtype` as checksum's.
PyObject* checksum_address(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4) return PyErr_Format(PyExc_TypeError, "checksum_address() takes 4 arguments");
  const char* name = PyUnicode_AsUTF8(args[0]);
  if (!name) return nullptr;
  const unsigned long long address = PyLong_AsUnsignedLongLong(args[1]);
  const unsigned long long nbytes = PyLong_AsUnsignedLongLong(args[2]);
  if (PyErr_Occurred()) return nullptr;
  const char* dtype = nullptr;
  brickprof::ElementType type = brickprof::ElementType::kBytes;
  if (!asked_dtype(args[3], &dtype, &type)) return nullptr;
  if (!dtype) dtype = "bytes";
  const uint64_t count = nbytes / brickprof::element_bytes(type);
  // clang-format off
  Py_BEGIN_ALLOW_THREADS
  brickprof_checksum(name, reinterpret_cast<const void*>(static_cast<uintptr_t>(address)), count,
                     dtype);
  Py_END_ALLOW_THREADS
  // clang-format on
  Py_RETURN_NONE;
}

// counter(name, value): a sample of the program's counter (brickprof_counter).
PyObject* counter(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "counter() takes 2 arguments");
  const char* name = PyUnicode_AsUTF8(args[0]);
  const double value = PyFloat_AsDouble(args[1]);
  if (!name || PyErr_Occurred()) return nullptr;
  brickprof_counter(name, value);
  Py_RETURN_NONE;
}

// tokens(n): n tokens produced now (brickprof_tokens).
PyObject* tokens(PyObject*, PyObject* arg) {
  const unsigned long long n = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return nullptr;
  brickprof_tokens(n);
  Py_RETURN_NONE;
}

// brick_names() -> [name of well-known brick 0, 1, ...] (trace/model/bricks.h).
PyObject* brick_names(PyObject*, PyObject*) {
  PyObject* list = PyList_New(brickprof::kBrickCount);
  if (!list) return nullptr;
  for (int i = 0; i < brickprof::kBrickCount; ++i) {
    std::string_view name = brickprof::brick_name(i);
    PyObject* item = PyUnicode_FromStringAndSize(name.data(), static_cast<Py_ssize_t>(name.size()));
    if (!item) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}

PyMethodDef kMethods[] = {
    {"read_trace", read_trace, METH_O, "Read a trace file into columns."},
    {"read_shard", read_shard, METH_O, "Read a rank's trace into its shard's columns."},
    {"comm_ops", comm_ops, METH_NOARGS, "The MPI operations: (name, collective, pattern)."},
    {"rank_path", rank_path, METH_O, "The critical path across ranks from a job's arrays."},
    {"memory_label", memory_label, METH_VARARGS, "A memory account as the outputs name it."},
    {"site", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(site)), METH_FASTCALL,
     "Make a scope call site."},
    {"push", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(push)), METH_FASTCALL,
     "Open a scope."},
    {"pop", pop, METH_O, "Close a scope."},
    {"brick_names", brick_names, METH_NOARGS, "The well-known bricks, by id."},
    {"agent_loaded", agent_loaded, METH_NOARGS, "Whether the agent is in this process."},
    {"is_enabled", is_enabled, METH_NOARGS, "Whether the agent records."},
    {"set_enabled", set_enabled, METH_O, "Switch recording on or off."},
    {"counter", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(counter)),
     METH_FASTCALL, "A sample of the program's counter."},
    {"tokens", tokens, METH_O, "Tokens produced now."},
    {"add_work", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(add_work)),
     METH_FASTCALL, "Add FLOPs and bytes to the innermost scope."},
    {"mem_alloc", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(mem_alloc)),
     METH_FASTCALL, "Report bytes the program's allocator handed out."},
    {"mem_free", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(mem_free)),
     METH_FASTCALL, "Report bytes the program's allocator took back."},
    {"set_shapes", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(set_shapes)),
     METH_FASTCALL, "Attach the dtype and shapes to the innermost scope."},
    {"checksum", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(checksum)),
     METH_FASTCALL, "Digest a host buffer for the innermost scope."},
    {"checksum_address",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(checksum_address)), METH_FASTCALL,
     "Digest memory at an address (a device array's) for the innermost scope."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT,
    "_native",
    "brickprof's compiled half.",
    -1,
    kMethods,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

}  // namespace

PyMODINIT_FUNC PyInit__native() {
  PyObject* module = PyModule_Create(&kModule);
  if (!module) return nullptr;
  g_trace_error = PyErr_NewExceptionWithDoc(
      "brickprof.TraceError", "A trace file that cannot be read: the message names it and why.",
      PyExc_ValueError, nullptr);
  if (!g_trace_error || PyModule_AddObject(module, "TraceError", g_trace_error) != 0) {
    Py_XDECREF(g_trace_error);
    Py_DECREF(module);
    return nullptr;
  }
  Py_INCREF(g_trace_error);  // one reference for the module, one for us
  if (PyModule_AddIntConstant(module, "KIND_LAYER", BRICKPROF_KIND_LAYER) != 0 ||
      PyModule_AddIntConstant(module, "KIND_BRICK", BRICKPROF_KIND_BRICK) != 0 ||
      PyModule_AddIntConstant(module, "KIND_SCOPE", BRICKPROF_KIND_SCOPE) != 0 ||
      PyModule_AddIntConstant(module, "BRICK_CUSTOM", BRICKPROF_BRICK_CUSTOM) != 0) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
