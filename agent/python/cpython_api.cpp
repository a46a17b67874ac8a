// Finds the CPython API at run time (see cpython_api.h).
#include "agent/python/cpython_api.h"

#include <dlfcn.h>

#include <atomic>

namespace brickprof::agent::python {
namespace {

std::atomic<uint64_t> g_lookups{0};

template <typename Fn>
bool find(const char* name, Fn* out) {
  g_lookups.fetch_add(1, std::memory_order_relaxed);
  *out = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
  return *out != nullptr;
}

}  // namespace

Lookup find_cpython_api(CPythonApi* api) {
  CPythonApi a;
  // The one lookup a program without Python pays.
  if (!find("Py_IsInitialized", &a.is_initialized)) return Lookup::kAbsent;
  bool all = true;
  all &= find("PyGILState_Check", &a.gil_state_check);
  all &= find("PyEval_GetFrame", &a.eval_get_frame);
  all &= find("PyFrame_GetCode", &a.frame_get_code);
  all &= find("PyFrame_GetLineNumber", &a.frame_get_line_number);
  all &= find("PyFrame_GetBack", &a.frame_get_back);
  all &= find("Py_IncRef", &a.inc_ref);
  all &= find("Py_DecRef", &a.dec_ref);
  all &= find("PyObject_GetAttrString", &a.get_attr_string);
  all &= find("PyUnicode_AsUTF8AndSize", &a.unicode_as_utf8);
  all &= find("PyErr_Occurred", &a.err_occurred);
  all &= find("PyErr_Clear", &a.err_clear);
  if (!all) return Lookup::kIncomplete;
  find("PyFrame_GetLasti", &a.frame_get_lasti);  // optional
  *api = a;
  return Lookup::kFound;
}

uint64_t symbol_lookups() { return g_lookups.load(std::memory_order_relaxed); }

}  // namespace brickprof::agent::python
