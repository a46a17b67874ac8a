// Where the frame reader finds things in a CPython process's memory: the
// offsets of the few fields of the thread state, frames, code objects and
// str/bytes objects that lead from a thread to its stack's files, names
// and lines. CPython 3.13 and later export them as `_Py_DebugOffsets` at
// the start of `_PyRuntime` (for out-of-process debuggers and profilers);
// for 3.9 to 3.12 the agent carries them per minor version, as py-spy and
// Austin do. tests/agent/python/layout_probe.c prints each one from the
// interpreter's own headers, and python_layout_test compares them with
// these for every CPython the machine has.
#pragma once

#include <cstdint>
#include <string>

#include "agent/python/cpython_symbols.h"
#include "agent/python/line_table.h"

namespace brickprof::agent::python {

struct Layout {
  int minor = 0;  // 3.minor
  LineTableFormat lines = LineTableFormat::kLocations311;
  // How a frame says where it is: f_lasti, an int counted in bytes (3.9)
  // or code units (3.10); or a pointer to the current code unit (3.11+).
  enum class Position : uint8_t { kLastiBytes, kLastiUnits, kInstructionPointer };
  Position position = Position::kInstructionPointer;

  uint32_t ob_type = 8;  // PyObject.ob_type

  // PyThreadState: thread_id (pthread_self of its thread) and the frame:
  // tstate->frame (3.9, 3.10), tstate->cframe->current_frame (3.11, 3.12),
  // tstate->current_frame (3.13).
  uint32_t tstate_thread_id = 0;
  uint32_t tstate_frame = 0;
  int32_t cframe_current_frame = -1;  // -1: tstate_frame is the frame itself

  // The frame: PyFrameObject (3.9, 3.10) or _PyInterpreterFrame (3.11+).
  uint32_t frame_previous = 0;  // f_back / previous
  uint32_t frame_code = 0;      // f_code / f_executable
  uint32_t frame_position = 0;  // f_lasti / prev_instr / instr_ptr
  int32_t frame_owner = -1;     // 3.11+: who owns the frame (a char)

  // PyCodeObject.
  uint32_t code_filename = 0;
  uint32_t code_name = 0;       // co_qualname where it exists (3.11+), else co_name
  uint32_t code_linetable = 0;  // co_lnotab (3.9), co_linetable
  uint32_t code_first_line = 0;
  int32_t code_first_traceable = -1;  // 3.11+: _co_firsttraceable (an int)
  int32_t code_units = -1;            // 3.11+: co_code_adaptive, the code inline
  uint32_t code_size = 16;            // 3.11+: ob_size, the code's length in units

  // str: length, the state bit field (kind, compact, ascii, ready), and
  // where a compact string's characters start (ASCII-only or not).
  uint32_t str_length = 16;
  uint32_t str_state = 32;
  uint32_t str_ascii_data = 0;
  uint32_t str_compact_data = 0;
  bool str_has_ready_bit = false;  // 3.9-3.11: bit 7 of the state says "ready"
  // bytes: ob_size and the characters.
  uint32_t bytes_size = 16;
  uint32_t bytes_data = 32;

  // Checked against the type objects at start (tp_basicsize): a build
  // whose structures differ (a debug build with Py_TRACE_REFS, a patched
  // interpreter) is refused rather than misread.
  uint32_t code_basicsize = 0;
  uint32_t unicode_basicsize = 0;
  uint32_t frame_basicsize = 0;  // 3.9, 3.10 (PyFrame_Type); 0 where frames are not objects
};

// _PyInterpreterFrame.owner values (3.11+).
constexpr int8_t kOwnedByGenerator = 1;
constexpr int8_t kOwnedByCStack = 3;  // 3.12+: an entry (shim) frame, not Python code

// The minor version from Py_GetVersion's text ("3.11.7 (main, ...)"), or
// -1 when it is not "3.N".
int python_minor(const char* version);

// The layout of CPython 3.`minor`: the table for 3.9 to 3.12, the
// exported `_Py_DebugOffsets` (checked: cookie, version, not free-threaded)
// for 3.13, then checked against the type objects. False with the reason
// (naming the version) for any other version or a check that fails.
bool find_layout(int minor, const CPythonSymbols& symbols, Layout* layout, std::string* why);

// For the layout test: the table entry of 3.`minor`, without the checks.
bool table_layout(int minor, Layout* layout);
// For the layout test: 3.13's layout read from a `_Py_DebugOffsets` image.
bool layout_from_debug_offsets(const uint8_t* offsets, int minor, Layout* layout, std::string* why);

}  // namespace brickprof::agent::python
