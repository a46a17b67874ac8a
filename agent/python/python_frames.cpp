// Reads the launching thread's Python stack (see python_frames.h).
#include "agent/python/python_frames.h"

#include <link.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

#include "agent/io/log.h"
#include "agent/lifecycle/critical_section.h"
#include "agent/python/cpython_symbols.h"
#include "agent/python/frame_reader.h"
#include "agent/python/interpreter_layout.h"
#include "agent/python/stack_table.h"
#include "agent/recorder/budget.h"

namespace brickprof::agent::python {
namespace {

struct State final : FrameSource {
  State(const Layout& layout, const CPythonSymbols& s, uint32_t d)
      : symbols(s), reader(layout, s), depth(d) {}
  bool content(const FrameKey& key, CodeContent* out, ReadError* error) const override {
    return reader.content(key, out, error);
  }
  int64_t line(const FrameKey& key, const CodeContent& code, size_t* read) const override {
    return reader.line(key, code, read);
  }
  void count(ReadError e) {
    errors[static_cast<size_t>(e)].fetch_add(1, std::memory_order_relaxed);
  }

  CPythonSymbols symbols;
  FrameReader reader;
  uint32_t depth;
  std::mutex mu;  // add() only: a stack found before takes no lock
  StackTable table{MemoryHooks{budget::charge, budget::release}};
  std::atomic<uint64_t> errors[static_cast<size_t>(ReadError::kCount)] = {};
};

std::atomic<State*> g_state{nullptr};  // set once the interpreter is known; never freed
std::atomic<uint32_t> g_depth{0};
std::atomic<bool> g_looked_again{false};
std::atomic<bool> g_settled{false};  // Python found but not read: no second look
// Why this Python's frames are not read: set once, never freed (the exit
// write may run after this file's static destructors).
std::atomic<const std::string*> g_why_not{nullptr};

void not_read(const std::string& why) {
  const auto* message = new std::string("Python frames not recorded: " + why);
  const std::string* none = nullptr;
  if (!g_why_not.compare_exchange_strong(none, message)) {
    delete message;
    return;
  }
  g_settled.store(true);
  log_warn(*message);
}

// One look at the process: the symbols, the version, its layout.
void look(uint32_t depth) {
  CPythonSymbols symbols;
  const char* missing = "";
  const Lookup found = find_cpython_symbols(&symbols, &missing);
  if (found == Lookup::kAbsent) return;
  if (found == Lookup::kIncomplete) {
    not_read(std::string("this Python lacks ") + missing);
    return;
  }
  const char* version = symbols.get_version();
  const int minor = python_minor(version);
  Layout layout;
  std::string why;
  if (!find_layout(minor, symbols, &layout, &why)) {
    if (minor < 0) why += std::string(" (\"") + std::string(version).substr(0, 20) + "\")";
    not_read(why);
    return;
  }
  find_attached_thread_state(minor, &symbols);
  g_settled.store(true);
  g_state.store(new State(layout, symbols, depth), std::memory_order_release);
}

int has_libpython(dl_phdr_info* info, size_t, void*) {
  return info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libpython") != nullptr;
}

}  // namespace

void start(uint32_t depth) {
  if (depth > StackTable::kMaxFrames) depth = StackTable::kMaxFrames;
  g_depth.store(depth);
  if (depth == 0 || g_state.load() != nullptr || g_settled.load()) return;
  look(depth);
}

void look_again_if_loaded() {
  const uint32_t depth = g_depth.load();
  if (depth == 0 || g_state.load() != nullptr || g_settled.load()) return;
  if (g_looked_again.load() || dl_iterate_phdr(has_libpython, nullptr) == 0) return;
  if (g_looked_again.exchange(true)) return;
  look(depth);
}

uint32_t current_stack() {
  State* s = g_state.load(std::memory_order_acquire);
  // Not before the interpreter is up, nor once it has begun to finalise
  // (it frees other threads' states then).
  if (s == nullptr || !s->symbols.is_initialized()) return 0;
  FrameKey keys[StackTable::kMaxFrames];
  ReadError error = ReadError::kNone;
  const uint32_t n = s->reader.walk(keys, s->depth, &error);
  if (error != ReadError::kNone) {
    s->count(error);
    return 0;
  }
  if (n == 0) return 0;
  if (const uint32_t id = s->table.find(keys, n, *s); id != 0) return id;
  AgentLock lock(s->mu);
  uint32_t id = s->table.find(keys, n, *s);  // another thread may have added it
  if (id == 0) {
    id = s->table.add(keys, n, *s, &error);
    if (error != ReadError::kNone) s->count(error);
  }
  return id;
}

void reset_after_fork_in_child() {
  if (State* s = g_state.load(std::memory_order_acquire)) new (&s->mu) std::mutex();
}

void contribute(Trace& header) {
  if (const std::string* why = g_why_not.load()) header.diagnostics.warnings.push_back(*why);
  State* s = g_state.load(std::memory_order_acquire);
  if (s == nullptr) return;
  AgentLock lock(s->mu);
  header.python_frames = s->table.frames();
  header.python_stacks = s->table.stacks();
  std::string unread;
  uint64_t total = 0;
  for (size_t e = 1; e < static_cast<size_t>(ReadError::kCount); ++e) {
    const uint64_t n = s->errors[e].load(std::memory_order_relaxed);
    if (n == 0) continue;
    total += n;
    unread += (unread.empty() ? "" : ", ") + std::to_string(n) + " found " +
              describe(static_cast<ReadError>(e));
  }
  if (total != 0)
    header.diagnostics.warnings.push_back("Python stacks not read for " + std::to_string(total) +
                                          " launches (the interpreter's memory was not as "
                                          "expected: " +
                                          unread + ")");
  if (const uint64_t n = s->table.refused(); n != 0)
    header.diagnostics.warnings.push_back(
        "Python stack table full (BRICKPROF_BUFFER_MB): " + std::to_string(n) +
        " launches recorded without their Python stack");
}

}  // namespace brickprof::agent::python
