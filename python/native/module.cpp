// brickprof._native: the compiled half of the Python package. read_trace()
// reads a trace with the C++ reader every command uses (plain or .json.gz)
// and returns its columns; site()/push()/pop() are the scope API of
// <brickprof/brickprof.h>, so Python scopes take the header's inline path
// into the agent's buffers, and cost one load and a branch without an agent.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <brickprof/brickprof.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "python/native/trace_columns.h"
#include "trace/json/trace_json.h"
#include "trace/model/bricks.h"

namespace {

PyObject* g_trace_error = nullptr;  // brickprof.TraceError

// read_trace(path) -> dict of columns (trace_columns.h). The GIL is released
// while the file is read.
PyObject* read_trace(PyObject*, PyObject* arg) {
  PyObject* encoded = nullptr;
  if (!PyUnicode_FSConverter(arg, &encoded)) return nullptr;
  std::string path(PyBytes_AS_STRING(encoded), static_cast<size_t>(PyBytes_GET_SIZE(encoded)));
  Py_DECREF(encoded);
  brickprof::Trace trace;
  std::string error;
  bool out_of_memory = false;
  Py_BEGIN_ALLOW_THREADS try {
    trace = brickprof::read_trace_file(path);
  } catch (const brickprof::TraceError& e) {
    error = e.what();
  } catch (const std::bad_alloc&) {
    out_of_memory = true;
  }
  Py_END_ALLOW_THREADS if (out_of_memory) return PyErr_NoMemory();
  if (!error.empty()) {
    PyErr_SetString(g_trace_error, error.c_str());
    return nullptr;
  }
  return brickprof::python::trace_columns(trace);
}

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
