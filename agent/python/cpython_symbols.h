// The few CPython symbols the frame reader needs, found at run time with
// dlsym(RTLD_DEFAULT) so libbrickprof.so neither links nor needs libpython:
// in a process without Python the first lookup fails and nothing else
// happens. None of the functions needs the GIL (each reads a flag or the
// calling thread's own thread-local storage), and none allocates.
#pragma once

#include <cstdint>

namespace brickprof::agent::python {

struct CPythonSymbols {
  int (*is_initialized)() = nullptr;  // Py_IsInitialized: a flag, cleared as finalising starts
  // PyGILState_GetThisThreadState: the thread state the calling thread
  // made first (its thread-specific key), GIL held or not; null for a
  // thread that never ran Python.
  void* (*this_thread_state)() = nullptr;
  // 3.12+: the thread state the calling thread has attached (a
  // thread-local; null while it has released the GIL):
  // _PyThreadState_UncheckedGet (3.12), PyThreadState_GetUnchecked (3.13).
  // Not looked up before 3.12, where the same names return whichever
  // thread's state holds the GIL.
  void* (*attached_thread_state)() = nullptr;
  const void* code_type = nullptr;         // &PyCode_Type
  const void* unicode_type = nullptr;      // &PyUnicode_Type
  const void* bytes_type = nullptr;        // &PyBytes_Type
  const void* frame_type = nullptr;        // &PyFrame_Type (3.9, 3.10: frames are objects)
  const char* (*get_version)() = nullptr;  // Py_GetVersion: "3.11.7 (main, ...)"
  const uint8_t* runtime = nullptr;        // &_PyRuntime (3.13: starts with _Py_DebugOffsets)
};

enum class Lookup {
  kAbsent,      // no Py_IsInitialized in the process: not a Python program
  kIncomplete,  // Python, but a symbol the reader needs is missing (named in *missing)
  kFound,
};

// Looks every symbol up in the process's global scope. Each dlsym counts
// in symbol_lookups() (a test checks that a program without Python pays one).
Lookup find_cpython_symbols(CPythonSymbols* symbols, const char** missing);
// The one lookup that depends on the version (3.12+).
void find_attached_thread_state(int minor, CPythonSymbols* symbols);
uint64_t symbol_lookups();

}  // namespace brickprof::agent::python
