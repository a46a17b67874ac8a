// Which part of the run is recorded (BRICKPROF_CAPTURE): all of it, the
// spans between cuProfilerStart and cuProfilerStop (as Nsight Systems'
// --capture-range=cudaProfilerApi), or the insides of every scope or NVTX
// range with a given name. Outside those windows the recorder is off, so a
// long run costs memory only for what it keeps. Window edges are kept (in
// ticks) so the exit write can tell scopes the window cut from unbalanced ones.
// Windows may be sampled (one in K, at most M), and the GPU source is told
// when CUPTI's records are wanted (agent/README.md has the lock design).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace brickprof::agent::capture {

enum class Mode { kAll, kCudaProfilerApi, kScope };

struct Window {
  uint64_t start_tsc = 0;
  uint64_t end_tsc = 0;  // 0 while open
};

// At start, before anything records (and again in tests: it starts
// afresh): in a limited mode recording is off until a window opens. In
// scope mode the recorder is told which sites open windows.
// `every` K: record the 1st, K+1th, ... would-be window; `max` M: at most
// M windows (0: no limit).
void configure(Mode mode, const std::string& scope_name, uint64_t every = 1, uint64_t max = 0);
Mode mode();
const std::string& scope_name();
bool window_open();          // lock-free

// Whether the GPU's work records are wanted now: in mode all, or while a
// window is open. Lock-free.
bool activity_wanted();
// Called, with no capture lock held, after activity_wanted() changed (the
// GPU source switches CUPTI's records; see agent/README.md). Null: none.
// The hook is dropped in a fork child: CUDA does not survive fork.
void set_activity_hook(void (*on_change)());

// cuProfilerStart / cuProfilerStop (kCudaProfilerApi only; idempotent).
void profiler_start();
void profiler_stop();

// kScope: a thread enters / leaves the outermost scope named scope_name().
// The window is open while any thread is inside one.
void enter_scope();
void leave_scope();

// While the trace is written the recorder is off and no window opens (a
// thread entering a trigger scope would turn it back on); a failed exec
// unfreezes.
void freeze(bool frozen);
// brickprof_set_enabled(): the program's own switch. Recording needs it on
// and, in a limited mode, an open window.
void set_user_enabled(bool on);

// The windows so far, in order, and how many could not be opened because
// the list was full (the recorder stayed off for them: counted, not lost
// silently).
std::vector<Window> windows();
uint64_t windows_refused();
// Would-be windows left out by BRICKPROF_CAPTURE_EVERY / _MAX.
uint64_t windows_sampled_out();
// "cuda-profiler-api: 2 windows, 35.1 ms" and the like, for diagnostics.
std::string describe(double ns_per_tick);

// A warning when a limited mode never opened a window, else "".
std::string why_nothing_was_recorded();

// In a fork child (from Recorder::reset_after_fork): the parent's windows
// are not ours; one the forking thread is inside goes on.
void reset_after_fork(bool this_thread_inside);

}  // namespace brickprof::agent::capture
