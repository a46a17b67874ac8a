// Finds the CPython symbols at run time (see cpython_symbols.h).
#include "agent/python/cpython_symbols.h"

#include <dlfcn.h>

#include <atomic>

namespace brickprof::agent::python {
namespace {

std::atomic<uint64_t> g_lookups{0};

template <typename T>
bool find(const char* name, T* out) {
  g_lookups.fetch_add(1, std::memory_order_relaxed);
  *out = reinterpret_cast<T>(dlsym(RTLD_DEFAULT, name));
  return *out != nullptr;
}

}  // namespace

Lookup find_cpython_symbols(CPythonSymbols* symbols, const char** missing) {
  CPythonSymbols s;
  // The one lookup a program without Python pays.
  if (!find("Py_IsInitialized", &s.is_initialized)) return Lookup::kAbsent;
  struct Wanted {
    const char* name;
    bool found;
  };
  const Wanted wanted[] = {
      {"PyGILState_GetThisThreadState",
       find("PyGILState_GetThisThreadState", &s.this_thread_state)},
      {"PyCode_Type", find("PyCode_Type", &s.code_type)},
      {"PyUnicode_Type", find("PyUnicode_Type", &s.unicode_type)},
      {"PyBytes_Type", find("PyBytes_Type", &s.bytes_type)},
      {"PyFrame_Type", find("PyFrame_Type", &s.frame_type)},
      {"Py_GetVersion", find("Py_GetVersion", &s.get_version)},
      {"_PyRuntime", find("_PyRuntime", &s.runtime)},
  };
  for (const Wanted& w : wanted) {
    if (!w.found) {
      *missing = w.name;
      return Lookup::kIncomplete;
    }
  }
  *symbols = s;
  return Lookup::kFound;
}

void find_attached_thread_state(int minor, CPythonSymbols* symbols) {
  if (minor >= 13)
    find("PyThreadState_GetUnchecked", &symbols->attached_thread_state);
  else if (minor == 12)
    find("_PyThreadState_UncheckedGet", &symbols->attached_thread_state);
}

uint64_t symbol_lookups() { return g_lookups.load(std::memory_order_relaxed); }

}  // namespace brickprof::agent::python
