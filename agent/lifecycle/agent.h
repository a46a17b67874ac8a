// The agent's life cycle: one idempotent start from whichever entry point
// comes first (LD_PRELOAD constructor, CUDA or NVTX injection), and one dump
// at exit (atexit, fatal signal, or explicit; or just before an exec or
// _exit, which atexit never follows), in a known order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "agent/capture/capture.h"
#include "agent/gpu_source.h"
#include "agent/io/config.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent {

// Reads the config, calibrates the clock, starts the GPU source. Safe to
// call many times and from several threads.
void ensure_started();
// Flushes GPU records, builds the trace, writes the outputs. Runs once.
void dump_at_exit();
// Valid after ensure_started().
const Config& config();

// For the exec and _exit hooks (exec_hooks.cpp): atexit never runs after
// them. Whether to write the trace now: the agent runs, this is not a vfork
// child (its getpid() is not the agent's; it shares the parent's memory and
// stack, so it may only exec or _exit), and something was recorded (a
// forked child that recorded nothing, as a shell's before its exec, leaves
// no file), or, at _exit, this is the process the user started (its trace
// is due even empty; after an exec the new image writes it).
// Async-signal-safe.
bool should_save_before_leaving(bool before_exec);
// Writes the trace as at exit, with `why` among its warnings; before an
// exec, under its own name (<prefix>.pre-exec: the new image keeps the pid).
// The caller arms the write's deadline (write_deadline.h) first, before
// anything it does allocates. False when it wrote nothing (another write
// is under way or done).
bool save_before_leaving(const std::string& why, bool before_exec);
// BRICKPROF_DUMP_ON=oom: an allocation failed for lack of device memory
// (`why` says which, and joins the warnings). Writes the trace now, as it
// stands, and records on; the next write replaces the files. The first
// failure writes, later ones at most every 10 s; nothing while another
// write is under way.
void save_at_out_of_memory(const std::string& why);
// The exec that trace was written for failed: recording goes on, and the
// next trace written (at exit, or before the next exec) replaces it.
void resume_after_failed_exec();

// What has been recorded so far, for a reader that runs while the program
// goes on (the MPI job summary at MPI_Finalize, mpi/job_summary.h): every
// thread's events up to now, the clock fitted now, the capture windows and
// the GPU records (flushed first; null without a GPU source). Recording
// is not stopped; exited threads keep their buffers until `read` returns.
struct RecordingSoFar {
  const std::vector<Recorder::ThreadEvents>& threads;
  const Clock& clock;
  uint64_t now_ticks;
  const std::vector<capture::Window>& windows;
  GpuDump* gpu;
};
// Calls `read` as the trace's writer (it waits for a write under way);
// false, and no call, when the trace was written already, the agent does
// not run, or this is not its process.
bool read_recording_so_far(const std::function<void(const RecordingSoFar&)>& read);

}  // namespace brickprof::agent
