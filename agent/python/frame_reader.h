// Reads the calling thread's own Python stack in place, by the
// interpreter's layout (interpreter_layout.h), whether or not the thread
// holds the GIL: while it is inside a C call (a kernel launch) its frames
// cannot change. Nothing here calls the interpreter, takes a reference or
// allocates, so nothing here can run Python code (a finaliser, a garbage
// collection) or wait.
//
// The thread's state is its own by construction: the thread state it has
// attached (3.12+: a thread-local, set while it holds the GIL), else the
// one its thread-specific key names (PyGILState_GetThisThreadState: the
// state it made first; with the GIL released, the one it released it
// from, unless it entered a sub-interpreter since, when these are the
// frames of the call that entered it). Every step is checked: the state's
// thread id is the caller's, frames and objects are aligned, each code
// object's type is PyCode_Type, each position lies inside its code, each
// name is an exact str of a known kind, each line table an exact bytes;
// the walk is bounded. Anything else ends the walk with a ReadError.
#pragma once

#include <cstdint>
#include <string>

#include "agent/python/interpreter_layout.h"

namespace brickprof::agent::python {

// One frame as a launch sees it: its code object and where in it the frame
// is. What the code's answers (file, function, line) come from is read from
// the code object when needed (content()). No member initialisers: a
// launch's array of them is not cleared.
struct FrameKey {
  const void* code;
  int64_t position;  // f_lasti as its version counts, or code units from the start
  bool operator==(const FrameKey&) const = default;
};

// A str's characters in place, `kind` bytes each (1: Latin-1, 2: UCS-2, 4: UCS-4).
struct StrView {
  const uint8_t* data = nullptr;
  uint32_t length = 0;
  uint8_t kind = 1;
};

struct BytesView {
  const uint8_t* data = nullptr;
  uint32_t size = 0;
};

// What a code object's answers come from, read in place.
struct CodeContent {
  StrView filename;
  StrView name;
  BytesView linetable;
  int32_t first_line = 0;
};

enum class ReadError : uint8_t {
  kNone,
  kForeignThreadState,  // the thread state's thread id is not the caller's
  kBadFrame,            // a frame pointer or owner not as a frame's
  kNotCode,             // a frame whose code is not a code object
  kBadPosition,         // a position outside its code
  kBadName,             // a file or function name that is not a str of a known kind
  kBadLineTable,        // a line table that is not bytes
  kCount,
};
const char* describe(ReadError error);

// The longest names and line tables read (a longer one is a ReadError).
constexpr uint32_t kMaxNameChars = 8192;
constexpr uint32_t kMaxLineTableBytes = 1u << 20;

class FrameReader {
 public:
  FrameReader(const Layout& layout, const CPythonSymbols& symbols)
      : layout_(layout), symbols_(symbols) {}

  // The calling thread's frames, innermost first, at most `depth` (the
  // innermost ones of a deeper stack): how many; 0 with *error set when
  // something was not as expected, 0 with kNone when the thread has no
  // Python frames. Entry (C-stack) and incomplete frames are skipped.
  uint32_t walk(FrameKey* keys, uint32_t depth, ReadError* error) const;
  // The file name, function name, line table and first line of a frame's
  // code, checked.
  bool content(const FrameKey& key, CodeContent* out, ReadError* error) const;
  // The frame's line, from its code's line table (`*read`, if given: how
  // many of the table's first bytes it depends on).
  int64_t line(const FrameKey& key, const CodeContent& code, size_t* read = nullptr) const;

 private:
  bool read_str(const void* object, StrView* out) const;
  bool read_bytes(const void* object, BytesView* out) const;

  Layout layout_;
  CPythonSymbols symbols_;
};

// UTF-8 of a str's characters (lone surrogates become U+FFFD).
std::string utf8_of(const StrView& s);

}  // namespace brickprof::agent::python
