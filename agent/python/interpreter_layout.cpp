// CPython layouts (see interpreter_layout.h). The 3.9-3.12 figures are
// offsetof/sizeof of each version's structures on x86-64 and aarch64 Linux
// (LP64, no Py_TRACE_REFS) as its Include/ headers declare them:
// cpython/pystate.h (PyThreadState), cpython/frameobject.h (PyFrameObject,
// 3.9/3.10), internal/pycore_frame.h (_PyInterpreterFrame, 3.11+),
// cpython/code.h (PyCodeObject), cpython/unicodeobject.h (PyASCIIObject,
// PyCompactUnicodeObject), cpython/bytesobject.h.
#include "agent/python/interpreter_layout.h"

#include <cstring>

namespace brickprof::agent::python {
namespace {

// PyTypeObject.tp_basicsize: after the PyVarObject head and tp_name.
constexpr uint32_t kTypeBasicsize = 32;

Layout layout_39_310(int minor) {
  Layout l;
  l.minor = minor;
  l.lines = minor == 9 ? LineTableFormat::kLnotab39 : LineTableFormat::kLinetable310;
  l.position = minor == 9 ? Layout::Position::kLastiBytes : Layout::Position::kLastiUnits;
  l.tstate_thread_id = 176;
  l.tstate_frame = 24;
  l.frame_previous = 24;
  l.frame_code = 32;
  l.frame_position = minor == 9 ? 104 : 96;
  l.code_filename = 104;
  l.code_name = 112;
  l.code_linetable = 120;
  l.code_first_line = 40;
  l.str_ascii_data = 48;
  l.str_compact_data = 72;
  l.str_has_ready_bit = true;
  l.code_basicsize = 176;
  l.unicode_basicsize = 80;
  l.frame_basicsize = minor == 9 ? 368 : 360;
  return l;
}

Layout layout_311() {
  Layout l;
  l.minor = 11;
  l.tstate_thread_id = 152;
  l.tstate_frame = 56;  // cframe
  l.cframe_current_frame = 8;
  l.frame_previous = 48;
  l.frame_code = 32;
  l.frame_position = 56;  // prev_instr
  l.frame_owner = 69;
  l.code_filename = 112;
  l.code_name = 128;  // co_qualname
  l.code_linetable = 136;
  l.code_first_line = 72;
  l.code_first_traceable = 168;
  l.code_units = 184;
  l.str_ascii_data = 48;
  l.str_compact_data = 72;
  l.str_has_ready_bit = true;
  l.code_basicsize = 184;  // the code follows: its type's basic size ends there
  l.unicode_basicsize = 80;
  return l;
}

Layout layout_312() {
  Layout l;
  l.minor = 12;
  l.tstate_thread_id = 136;
  l.tstate_frame = 56;  // cframe
  l.cframe_current_frame = 0;
  l.frame_previous = 8;
  l.frame_code = 0;
  l.frame_position = 56;  // prev_instr
  l.frame_owner = 70;
  l.code_filename = 112;
  l.code_name = 128;  // co_qualname
  l.code_linetable = 136;
  l.code_first_line = 68;
  l.code_first_traceable = 176;
  l.code_units = 192;
  l.str_ascii_data = 40;
  l.str_compact_data = 56;
  l.code_basicsize = 192;
  l.unicode_basicsize = 64;
  return l;
}

// The start of 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h),
// up to the sections the reader uses: every field a uint64_t.
struct DebugOffsets313 {
  char cookie[8];
  uint64_t version;  // PY_VERSION_HEX
  uint64_t free_threaded;
  struct {
    uint64_t size, finalizing, interpreters_head;
  } runtime_state;
  struct {
    uint64_t size, id, next, threads_head, gc, imports_modules, sysdict, builtins, ceval_gil,
        gil_runtime_state, gil_runtime_state_enabled, gil_runtime_state_locked,
        gil_runtime_state_holder;
  } interpreter_state;
  struct {
    uint64_t size, prev, next, interp, current_frame, thread_id, native_thread_id, datastack_chunk,
        status;
  } thread_state;
  struct {
    uint64_t size, previous, executable, instr_ptr, localsplus, owner;
  } interpreter_frame;
  struct {
    uint64_t size, filename, name, qualname, linetable, firstlineno, argcount, localsplusnames,
        localspluskinds, co_code_adaptive;
  } code_object;
  struct {
    uint64_t size, ob_type;
  } pyobject;
  struct {
    uint64_t size, tp_name, tp_repr, tp_flags;
  } type_object;
  struct {
    uint64_t size, ob_item, ob_size;
  } tuple_object;
  struct {
    uint64_t size, ob_item, ob_size;
  } list_object;
  struct {
    uint64_t size, ma_keys, ma_values;
  } dict_object;
  struct {
    uint64_t size, ob_fval;
  } float_object;
  struct {
    uint64_t size, lv_tag, ob_digit;
  } long_object;
  struct {
    uint64_t size, ob_size, ob_sval;
  } bytes_object;
  struct {
    uint64_t size, state, length, asciiobject_size;
  } unicode_object;
};

// What _Py_DebugOffsets does not carry, per minor version it describes:
// _co_firsttraceable (an incomplete frame is one before it).
int32_t first_traceable_offset(int minor) { return minor == 13 ? 184 : -1; }

bool fits(uint64_t offset) { return offset < (1u << 16); }

uint32_t type_basicsize(const void* type) {
  int64_t size = 0;
  std::memcpy(&size, static_cast<const uint8_t*>(type) + kTypeBasicsize, sizeof size);
  return size < 0 || size > (1 << 20) ? 0 : static_cast<uint32_t>(size);
}

std::string version_name(int minor) { return "CPython 3." + std::to_string(minor); }

}  // namespace

int python_minor(const char* version) {
  if (version == nullptr || version[0] != '3' || version[1] != '.') return -1;
  int minor = 0;
  const char* p = version + 2;
  if (*p < '0' || *p > '9') return -1;
  for (; *p >= '0' && *p <= '9' && minor < 1000; ++p) minor = minor * 10 + (*p - '0');
  return minor;
}

bool table_layout(int minor, Layout* layout) {
  switch (minor) {
    case 9:
    case 10:
      *layout = layout_39_310(minor);
      return true;
    case 11:
      *layout = layout_311();
      return true;
    case 12:
      *layout = layout_312();
      return true;
    default:
      return false;
  }
}

bool layout_from_debug_offsets(const uint8_t* offsets, int minor, Layout* layout,
                               std::string* why) {
  DebugOffsets313 d;
  std::memcpy(&d, offsets, sizeof d);
  if (std::memcmp(d.cookie, "xdebugpy", 8) != 0) {
    *why = version_name(minor) + ": _PyRuntime does not start with _Py_DebugOffsets";
    return false;
  }
  const auto major_minor = static_cast<int>((d.version >> 16) & 0xff);
  if ((d.version >> 24) != 3 || major_minor != minor) {
    *why = version_name(minor) + ": _Py_DebugOffsets names another version";
    return false;
  }
  if (d.free_threaded != 0) {
    *why = version_name(minor) + " built free-threaded (no GIL) is not known to this agent";
    return false;
  }
  Layout l;
  l.minor = minor;
  l.ob_type = static_cast<uint32_t>(d.pyobject.ob_type);
  l.tstate_thread_id = static_cast<uint32_t>(d.thread_state.thread_id);
  l.tstate_frame = static_cast<uint32_t>(d.thread_state.current_frame);
  l.frame_previous = static_cast<uint32_t>(d.interpreter_frame.previous);
  l.frame_code = static_cast<uint32_t>(d.interpreter_frame.executable);
  l.frame_position = static_cast<uint32_t>(d.interpreter_frame.instr_ptr);
  l.frame_owner = static_cast<int32_t>(d.interpreter_frame.owner);
  l.code_filename = static_cast<uint32_t>(d.code_object.filename);
  l.code_name = static_cast<uint32_t>(d.code_object.qualname);
  l.code_linetable = static_cast<uint32_t>(d.code_object.linetable);
  l.code_first_line = static_cast<uint32_t>(d.code_object.firstlineno);
  l.code_first_traceable = first_traceable_offset(minor);
  l.code_units = static_cast<int32_t>(d.code_object.co_code_adaptive);
  l.code_size = static_cast<uint32_t>(d.tuple_object.ob_size);  // PyVarObject.ob_size
  l.str_length = static_cast<uint32_t>(d.unicode_object.length);
  l.str_state = static_cast<uint32_t>(d.unicode_object.state);
  l.str_ascii_data = static_cast<uint32_t>(d.unicode_object.asciiobject_size);
  // PyCompactUnicodeObject: the ASCII header, then utf8_length and utf8.
  l.str_compact_data = l.str_ascii_data + 16;
  l.bytes_size = static_cast<uint32_t>(d.bytes_object.ob_size);
  l.bytes_data = static_cast<uint32_t>(d.bytes_object.ob_sval);
  l.code_basicsize = static_cast<uint32_t>(d.code_object.co_code_adaptive);
  l.unicode_basicsize = static_cast<uint32_t>(d.unicode_object.size);
  const uint64_t used[] = {d.pyobject.ob_type,
                           d.thread_state.thread_id,
                           d.thread_state.current_frame,
                           d.interpreter_frame.previous,
                           d.interpreter_frame.executable,
                           d.interpreter_frame.instr_ptr,
                           d.interpreter_frame.owner,
                           d.code_object.filename,
                           d.code_object.qualname,
                           d.code_object.linetable,
                           d.code_object.firstlineno,
                           d.code_object.co_code_adaptive,
                           d.unicode_object.length,
                           d.unicode_object.state,
                           d.unicode_object.asciiobject_size,
                           d.bytes_object.ob_size,
                           d.bytes_object.ob_sval};
  for (uint64_t u : used) {
    if (!fits(u)) {
      *why = version_name(minor) + ": _Py_DebugOffsets holds an offset out of range";
      return false;
    }
  }
  *layout = l;
  return true;
}

bool find_layout(int minor, const CPythonSymbols& symbols, Layout* layout, std::string* why) {
  Layout l;
  if (minor == 13) {
    if (!layout_from_debug_offsets(symbols.runtime, minor, &l, why)) return false;
  } else if (!table_layout(minor, &l)) {
    *why = (minor < 0 ? std::string("this Python's version") : version_name(minor)) +
           " is not known to this agent (it reads CPython 3.9 to 3.13)";
    return false;
  }
  const uint32_t code = type_basicsize(symbols.code_type);
  const uint32_t unicode = type_basicsize(symbols.unicode_type);
  const uint32_t frame = type_basicsize(symbols.frame_type);
  const uint32_t bytes = type_basicsize(symbols.bytes_type);  // the header and the final NUL
  if (code != l.code_basicsize || unicode != l.unicode_basicsize || bytes != l.bytes_data + 1 ||
      (l.frame_basicsize != 0 && frame != l.frame_basicsize)) {
    *why = version_name(minor) +
           ": its code, str, bytes or frame objects are not the size this agent knows (a debug or "
           "modified build?)";
    return false;
  }
  *layout = l;
  return true;
}

}  // namespace brickprof::agent::python
