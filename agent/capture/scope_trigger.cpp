// Capture by scope (see scope_trigger.h). Inside a trigger scope every push
// counts and asks for its pop, recorded or not: the C++ scope guard pops
// what push() accepted while the C macros and NVTX pop anyway, and the two
// must agree on the depth.
#include "agent/capture/scope_trigger.h"

#include "agent/capture/capture.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent::capture {
namespace {

// Scopes this thread has open inside its outermost trigger scope (that one
// included); 0 outside. Only counted while capturing by scope.
thread_local uint32_t tls_depth __attribute__((tls_model("initial-exec"))) = 0;
// One bit per level inside the trigger: set when that level's push was not
// recorded (the cap, or the program's switch off), so its pop is not either.
// Levels deeper than this are not recorded (counted as dropped).
constexpr uint32_t kLevels = 256;
thread_local uint64_t tls_unrecorded[kLevels / 64] __attribute__((tls_model("initial-exec")));

void note_unrecorded(uint32_t level, bool unrecorded) {
  uint64_t bit = 1ull << (level % 64);
  uint64_t& word = tls_unrecorded[level / 64];
  word = unrecorded ? word | bit : word & ~bit;
}

bool was_recorded(uint32_t level) {
  return level < kLevels && !(tls_unrecorded[level / 64] >> (level % 64) & 1);
}

}  // namespace

bool push_in_trigger(uint32_t site, uint64_t arg) {
  uint32_t depth = tls_depth;
  if (depth == 0) {
    if (!Recorder::site(site).opens_capture) return Recorder::record_push(site, arg);
    enter_scope();
    if (Recorder::record_push(site, arg)) {
      tls_depth = 1;
      return true;
    }
    leave_scope();  // not recorded: no window for it
    return false;
  }
  if (depth < kLevels)
    note_unrecorded(depth, !Recorder::record_push(site, arg));
  else
    Recorder::count_dropped();  // too deep to track: counted
  tls_depth = depth + 1;
  return true;
}

bool pop_in_trigger() {
  uint32_t depth = tls_depth;
  if (depth == 0) return Recorder::record_pop(/*closes_recorded=*/false);
  tls_depth = --depth;
  bool recorded = was_recorded(depth) && Recorder::record_pop(/*closes_recorded=*/true);
  if (depth == 0) leave_scope();
  return recorded;
}

bool inside_trigger() { return tls_depth > 0; }

}  // namespace brickprof::agent::capture
