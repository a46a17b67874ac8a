// Reads the launching thread's Python stack (see python_frames.h).
#include "agent/python/python_frames.h"

#include <link.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>

#include "agent/recorder/budget.h"
#include "agent/lifecycle/critical_section.h"
#include "agent/python/cpython_api.h"
#include "agent/python/stack_table.h"

namespace brickprof::agent::python {
namespace {

struct State {
  CPythonApi api;
  uint32_t depth = 0;
  std::mutex mu;
  StackTable table{MemoryHooks{budget::charge, budget::release}};
};

std::atomic<State*> g_state{nullptr};  // set once the API is found; never freed
std::atomic<uint32_t> g_depth{0};
std::atomic<bool> g_looked_again{false};
std::atomic<bool> g_incomplete{false};  // Python without the 3.9 frame API

// A launch made while this thread reads its stack (a finaliser run by an
// allocation, say) records no stack rather than walk the stack twice.
constinit thread_local bool t_reading __attribute__((tls_model("initial-exec"))) = false;

void found(const CPythonApi& api, uint32_t depth) {
  auto* s = new State;
  s->api = api;
  s->depth = depth;
  g_state.store(s, std::memory_order_release);
}

bool attr_text(const CPythonApi& a, const void* code, const char* name, std::string* out) {
  PyObj o = a.get_attr_string(static_cast<PyObj>(const_cast<void*>(code)), name);
  if (o == nullptr) {
    a.err_clear();
    return false;
  }
  ptrdiff_t size = 0;
  const char* text = a.unicode_as_utf8(o, &size);
  if (text == nullptr)
    a.err_clear();
  else
    out->assign(text, static_cast<size_t>(size));
  a.dec_ref(o);
  return text != nullptr;
}

int has_libpython(dl_phdr_info* info, size_t, void*) {
  return info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libpython") != nullptr;
}

// Walks the thread's frames, innermost first: at most `depth` of them, each
// as (code, position) into `keys` (new references to the code objects the
// caller drops) and, with `lines`, its line. Returns how many.
uint32_t walk(const CPythonApi& a, uint32_t depth, FrameKey* keys, int64_t* lines) {
  uint32_t n = 0;
  PyObj f = a.eval_get_frame();  // borrowed: take our own reference
  if (f != nullptr) a.inc_ref(f);
  while (f != nullptr && n < depth) {
    PyObj code = a.frame_get_code(f);
    if (code != nullptr) {
      const int64_t line = lines || !a.frame_get_lasti ? a.frame_get_line_number(f) : 0;
      keys[n] = {code, a.frame_get_lasti ? a.frame_get_lasti(f) : line};
      if (lines) lines[n] = line;
      ++n;
    }
    PyObj back = a.frame_get_back(f);
    a.dec_ref(f);
    f = back;
  }
  if (f != nullptr) a.dec_ref(f);
  return n;
}

void drop_codes(const CPythonApi& a, const FrameKey* keys, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) a.dec_ref(static_cast<PyObj>(const_cast<void*>(keys[i].code)));
}

}  // namespace

void start(uint32_t depth) {
  g_depth.store(depth);
  if (depth == 0 || g_state.load() != nullptr) return;
  CPythonApi api;
  const Lookup l = find_cpython_api(&api);
  if (l == Lookup::kFound) found(api, depth);
  g_incomplete.store(l == Lookup::kIncomplete);
}

void look_again_if_loaded() {
  const uint32_t depth = g_depth.load();
  if (depth == 0 || g_state.load() != nullptr || g_incomplete.load()) return;
  if (g_looked_again.load() || dl_iterate_phdr(has_libpython, nullptr) == 0) return;
  if (g_looked_again.exchange(true)) return;
  CPythonApi api;
  const Lookup l = find_cpython_api(&api);
  if (l == Lookup::kFound) found(api, depth);
  g_incomplete.store(l == Lookup::kIncomplete);
}

uint32_t current_stack() {
  State* s = g_state.load(std::memory_order_acquire);
  if (s == nullptr || t_reading) return 0;
  const CPythonApi& a = s->api;
  // PyGILState_Check says 1 before the interpreter is up; an error already
  // set must not be cleared by ours.
  if (!a.is_initialized() || !a.gil_state_check() || a.err_occurred() != nullptr) return 0;
  t_reading = true;
  FrameKey keys[StackTable::kMaxFrames];
  const uint32_t depth = s->depth < StackTable::kMaxFrames ? s->depth : StackTable::kMaxFrames;
  const uint32_t n = walk(a, depth, keys, nullptr);
  uint32_t id = 0;
  if (n > 0) {
    AgentLock lock(s->mu);
    id = s->table.find(keys, n);
    if (id == 0) {
      // New: walk again for the lines (the GIL is still ours: the same
      // frames), then describe what the table has not seen.
      FrameKey again[StackTable::kMaxFrames];
      int64_t lines[StackTable::kMaxFrames];
      const uint32_t m = walk(a, depth, again, lines);
      if (m == n)
        id = s->table.add(
            again, lines, m,
            [&a](const void* code, std::string* file, std::string* function) {
              // co_qualname (3.11) says Model.forward where co_name says forward.
              if (!attr_text(a, code, "co_filename", file)) return false;
              return attr_text(a, code, "co_qualname", function) ||
                     attr_text(a, code, "co_name", function);
            },
            [&a](const void* code) { a.inc_ref(static_cast<PyObj>(const_cast<void*>(code))); });
      drop_codes(a, again, m);
    }
  }
  drop_codes(a, keys, n);
  t_reading = false;
  return id;
}

void contribute(Trace& header) {
  if (g_incomplete.load())
    header.diagnostics.warnings.push_back(
        "Python frames not recorded: this Python lacks PyFrame_GetCode/PyFrame_GetBack "
        "(CPython 3.9 or later has them)");
  State* s = g_state.load(std::memory_order_acquire);
  if (s == nullptr) return;
  AgentLock lock(s->mu);
  header.python_frames = s->table.frames();
  header.python_stacks = s->table.stacks();
  if (const uint64_t n = s->table.refused(); n != 0)
    header.diagnostics.warnings.push_back(
        "Python stack table full (BRICKPROF_BUFFER_MB): " + std::to_string(n) +
        " launches recorded without their Python stack");
}

}  // namespace brickprof::agent::python
