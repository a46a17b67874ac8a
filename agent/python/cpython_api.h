// The few CPython C API functions the agent calls, found at run time with
// dlsym(RTLD_DEFAULT) so libbrickprof.so neither links nor needs libpython:
// in a process without Python the lookup fails once and nothing else
// happens. Only functions of the stable, documented API (3.9 and later:
// PyFrame_GetCode and PyFrame_GetBack appeared there).
#pragma once

#include <cstddef>
#include <cstdint>

namespace brickprof::agent::python {

// Opaque: the agent never reads an interpreter structure, it only passes
// these pointers back to the API.
struct PyObjectOpaque;
using PyObj = PyObjectOpaque*;

struct CPythonApi {
  int (*is_initialized)() = nullptr;         // Py_IsInitialized
  int (*gil_state_check)() = nullptr;        // PyGILState_Check
  PyObj (*eval_get_frame)() = nullptr;       // PyEval_GetFrame: borrowed
  PyObj (*frame_get_code)(PyObj) = nullptr;  // PyFrame_GetCode: new reference
  int (*frame_get_line_number)(PyObj) = nullptr;
  // PyFrame_GetLasti (3.11): the bytecode offset. Optional: where it exists
  // a stack is found by offsets, and lines (a walk of the code's line table
  // each: most of the cost of a stack) are computed only for a new one.
  int (*frame_get_lasti)(PyObj) = nullptr;
  PyObj (*frame_get_back)(PyObj) = nullptr;                     // PyFrame_GetBack: new reference
  void (*inc_ref)(PyObj) = nullptr;                             // Py_IncRef
  void (*dec_ref)(PyObj) = nullptr;                             // Py_DecRef
  PyObj (*get_attr_string)(PyObj, const char*) = nullptr;       // new reference
  const char* (*unicode_as_utf8)(PyObj, ptrdiff_t*) = nullptr;  // PyUnicode_AsUTF8AndSize
  PyObj (*err_occurred)() = nullptr;                            // PyErr_Occurred: borrowed
  void (*err_clear)() = nullptr;                                // PyErr_Clear
};

// How a lookup went.
enum class Lookup {
  kAbsent,      // no Py_IsInitialized in the process: not a Python program
  kIncomplete,  // Python, but older than 3.9 (or stripped): frames not read
  kFound,
};

// Looks every function up in the process's global scope. Each dlsym
// counts in lookups() (tests check that a program without Python pays one).
Lookup find_cpython_api(CPythonApi* api);
uint64_t symbol_lookups();

}  // namespace brickprof::agent::python
