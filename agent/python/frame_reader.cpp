// The in-place stack reader (see frame_reader.h).
#include "agent/python/frame_reader.h"

#include <pthread.h>

#include <cstring>

namespace brickprof::agent::python {
namespace {

template <typename T>
T load(const void* base, uint32_t offset) {
  T value;
  std::memcpy(&value, static_cast<const uint8_t*>(base) + offset, sizeof value);
  return value;
}

// Every structure the reader follows is at least pointer-aligned, and none
// lies in the first page.
bool plausible(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  return a >= 4096 && a % alignof(void*) == 0;
}

// Frames the walk may pass over (entry and incomplete ones) beyond the
// depth it keeps: a bound on the walk whatever the chain holds.
constexpr uint32_t kMaxSkipped = 1024;

}  // namespace

const char* describe(ReadError error) {
  switch (error) {
    case ReadError::kForeignThreadState:
      return "a thread state naming another thread (a sub-interpreter's, lent)";
    case ReadError::kBadFrame:
      return "a frame not laid out as expected";
    case ReadError::kNotCode:
      return "a frame without a code object";
    case ReadError::kBadPosition:
      return "a frame position outside its code";
    case ReadError::kBadName:
      return "a file or function name not a str as expected";
    case ReadError::kBadLineTable:
      return "a line table not bytes as expected";
    case ReadError::kNone:
    case ReadError::kCount:
      break;
  }
  return "no error";
}

uint32_t FrameReader::walk(FrameKey* keys, uint32_t depth, ReadError* error) const {
  const Layout& l = layout_;
  *error = ReadError::kNone;
  const void* tstate =
      symbols_.attached_thread_state != nullptr ? symbols_.attached_thread_state() : nullptr;
  if (tstate == nullptr) tstate = symbols_.this_thread_state();
  if (tstate == nullptr) return 0;  // a thread that never ran Python
  auto fail = [error](ReadError e) {
    *error = e;
    return 0u;
  };
  if (!plausible(tstate)) return fail(ReadError::kForeignThreadState);
  if (load<unsigned long>(tstate, l.tstate_thread_id) != static_cast<unsigned long>(pthread_self()))
    return fail(ReadError::kForeignThreadState);
  const void* frame = load<const void*>(tstate, l.tstate_frame);
  if (frame != nullptr && l.cframe_current_frame >= 0) {
    if (!plausible(frame)) return fail(ReadError::kBadFrame);
    frame = load<const void*>(frame, static_cast<uint32_t>(l.cframe_current_frame));
  }
  uint32_t n = 0;
  uint32_t skipped = 0;
  while (frame != nullptr && n < depth) {
    if (!plausible(frame)) return fail(ReadError::kBadFrame);
    int8_t owner = 0;
    if (l.frame_owner >= 0) {
      owner = load<int8_t>(frame, static_cast<uint32_t>(l.frame_owner));
      if (owner < 0 || owner > kOwnedByCStack) return fail(ReadError::kBadFrame);
    } else if (load<const void*>(frame, l.ob_type) != symbols_.frame_type) {
      return fail(ReadError::kBadFrame);  // 3.9, 3.10: frames are PyFrameObjects
    }
    const void* previous = load<const void*>(frame, l.frame_previous);
    bool skip = owner == kOwnedByCStack;
    const void* code = nullptr;
    int64_t position = 0;
    if (!skip) {
      code = load<const void*>(frame, l.frame_code);
      if (!plausible(code) || load<const void*>(code, l.ob_type) != symbols_.code_type)
        return fail(ReadError::kNotCode);
      if (l.position == Layout::Position::kInstructionPointer) {
        const auto* at = load<const uint8_t*>(frame, l.frame_position);
        const auto* start = static_cast<const uint8_t*>(code) + l.code_units;
        position = (at - start) / 2;
        const auto units = load<int64_t>(code, l.code_size);
        const auto first_traceable =
            load<int32_t>(code, static_cast<uint32_t>(l.code_first_traceable));
        // Incomplete (being set up, before its RESUME): CPython leaves it
        // out of tracebacks and frame objects too.
        if (position < 0 || (owner != kOwnedByGenerator && position < first_traceable))
          skip = true;
        else if (position >= units)
          return fail(ReadError::kBadPosition);
      } else {
        position = load<int32_t>(frame, l.frame_position);  // -1: not started
      }
    }
    if (skip) {
      if (++skipped > kMaxSkipped) break;
    } else {
      keys[n++] = {code, position};
    }
    frame = previous;
  }
  return n;
}

bool FrameReader::read_str(const void* object, StrView* out) const {
  const Layout& l = layout_;
  if (!plausible(object) || load<const void*>(object, l.ob_type) != symbols_.unicode_type)
    return false;
  const auto state = load<uint32_t>(object, l.str_state);
  const auto kind = static_cast<uint8_t>((state >> 2) & 7);
  const bool compact = (state >> 5) & 1;
  const bool ascii = (state >> 6) & 1;
  const bool ready = !l.str_has_ready_bit || ((state >> 7) & 1);
  if (!compact || !ready || (kind != 1 && kind != 2 && kind != 4)) return false;
  const auto length = load<int64_t>(object, l.str_length);
  if (length < 0 || length > kMaxNameChars) return false;
  out->data = static_cast<const uint8_t*>(object) + (ascii ? l.str_ascii_data : l.str_compact_data);
  out->length = static_cast<uint32_t>(length);
  out->kind = kind;
  return true;
}

bool FrameReader::read_bytes(const void* object, BytesView* out) const {
  const Layout& l = layout_;
  if (!plausible(object) || load<const void*>(object, l.ob_type) != symbols_.bytes_type)
    return false;
  const auto size = load<int64_t>(object, l.bytes_size);
  if (size < 0 || size > kMaxLineTableBytes) return false;
  out->data = static_cast<const uint8_t*>(object) + l.bytes_data;
  out->size = static_cast<uint32_t>(size);
  return true;
}

bool FrameReader::content(const FrameKey& key, CodeContent* out, ReadError* error) const {
  const Layout& l = layout_;
  if (!read_str(load<const void*>(key.code, l.code_filename), &out->filename) ||
      !read_str(load<const void*>(key.code, l.code_name), &out->name)) {
    *error = ReadError::kBadName;
    return false;
  }
  if (!read_bytes(load<const void*>(key.code, l.code_linetable), &out->linetable)) {
    *error = ReadError::kBadLineTable;
    return false;
  }
  out->first_line = load<int32_t>(key.code, l.code_first_line);
  return true;
}

int64_t FrameReader::line(const FrameKey& key, const CodeContent& code, size_t* read) const {
  const int64_t byte_offset =
      layout_.position == Layout::Position::kLastiBytes ? key.position : key.position * 2;
  return line_of(layout_.lines, code.linetable.data, code.linetable.size, code.first_line,
                 byte_offset, read);
}

std::string utf8_of(const StrView& s) {
  std::string out;
  out.reserve(s.length);
  for (uint32_t i = 0; i < s.length; ++i) {
    uint32_t c = s.kind == 1 ? s.data[i]
                 : s.kind == 2
                     ? static_cast<uint32_t>(s.data[2 * i]) | s.data[2 * i + 1] << 8
                     : static_cast<uint32_t>(s.data[4 * i]) | s.data[4 * i + 1] << 8 |
                           s.data[4 * i + 2] << 16 | static_cast<uint32_t>(s.data[4 * i + 3]) << 24;
    if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) c = 0xFFFD;
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | c >> 6);
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | c >> 12);
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | c >> 18);
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

}  // namespace brickprof::agent::python
