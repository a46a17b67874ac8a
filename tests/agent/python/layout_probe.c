/* Prints, from an interpreter's own headers, the offsets and sizes the
   agent's frame reader relies on (agent/python/interpreter_layout.h), one
   "name value" per line: python_layout_test builds it against each
   CPython's Include/ and compares with the agent's layout of that version.
   Py_BUILD_CORE: the frame and code structures of 3.11+ are internal. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX >= 0x030B0000
#include "internal/pycore_code.h"
#include "internal/pycore_frame.h"
#else
#include <frameobject.h>
#endif

#define PRINT(name, value) printf("%s %ld\n", name, (long)(value))

int main(void) {
  PRINT("ob_type", offsetof(PyObject, ob_type));
  PRINT("str_length", offsetof(PyASCIIObject, length));
  PRINT("str_state", offsetof(PyASCIIObject, state));
  PRINT("str_ascii_data", sizeof(PyASCIIObject));
  PRINT("str_compact_data", sizeof(PyCompactUnicodeObject));
  PRINT("bytes_size", offsetof(PyVarObject, ob_size));
  PRINT("bytes_data", offsetof(PyBytesObject, ob_sval));
  PRINT("code_filename", offsetof(PyCodeObject, co_filename));
  PRINT("code_first_line", offsetof(PyCodeObject, co_firstlineno));
#if PY_VERSION_HEX >= 0x030B0000
  PRINT("code_name", offsetof(PyCodeObject, co_qualname));
  PRINT("code_linetable", offsetof(PyCodeObject, co_linetable));
  PRINT("code_first_traceable", offsetof(PyCodeObject, _co_firsttraceable));
  PRINT("code_units", offsetof(PyCodeObject, co_code_adaptive));
  PRINT("code_size", offsetof(PyVarObject, ob_size));
  PRINT("code_basicsize", offsetof(PyCodeObject, co_code_adaptive));
#else
  PRINT("code_name", offsetof(PyCodeObject, co_name));
#if PY_VERSION_HEX >= 0x030A0000
  PRINT("code_linetable", offsetof(PyCodeObject, co_linetable));
#else
  PRINT("code_linetable", offsetof(PyCodeObject, co_lnotab));
#endif
  PRINT("code_basicsize", sizeof(PyCodeObject));
#endif
  PRINT("unicode_basicsize", sizeof(PyUnicodeObject));
  PRINT("tstate_thread_id", offsetof(PyThreadState, thread_id));
#if PY_VERSION_HEX >= 0x030D0000
  PRINT("tstate_frame", offsetof(PyThreadState, current_frame));
#elif PY_VERSION_HEX >= 0x030B0000
  PRINT("tstate_frame", offsetof(PyThreadState, cframe));
  PRINT("cframe_current_frame", offsetof(_PyCFrame, current_frame));
#else
  PRINT("tstate_frame", offsetof(PyThreadState, frame));
#endif
#if PY_VERSION_HEX >= 0x030B0000
  PRINT("frame_previous", offsetof(_PyInterpreterFrame, previous));
#if PY_VERSION_HEX >= 0x030D0000
  PRINT("frame_code", offsetof(_PyInterpreterFrame, f_executable));
  PRINT("frame_position", offsetof(_PyInterpreterFrame, instr_ptr));
#else
  PRINT("frame_code", offsetof(_PyInterpreterFrame, f_code));
  PRINT("frame_position", offsetof(_PyInterpreterFrame, prev_instr));
#endif
  PRINT("frame_owner", offsetof(_PyInterpreterFrame, owner));
  PRINT("owned_by_generator", FRAME_OWNED_BY_GENERATOR);
#if PY_VERSION_HEX >= 0x030C0000
  PRINT("owned_by_cstack", FRAME_OWNED_BY_CSTACK);
#endif
#else
  PRINT("frame_previous", offsetof(PyFrameObject, f_back));
  PRINT("frame_code", offsetof(PyFrameObject, f_code));
  PRINT("frame_position", offsetof(PyFrameObject, f_lasti));
  PRINT("frame_basicsize", sizeof(PyFrameObject));
#endif
  return 0;
}
