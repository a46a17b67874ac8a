// The one time limit on a trace write that the process's leaving waits for:
// the write in a fatal signal's handler, and the write an exec or _exit
// hook makes. Either may have interrupted code that holds a lock the write
// needs (malloc's, stdio's), so the write could block forever: past
// BRICKPROF_SIGNAL_DUMP_SECONDS, SIGALRM removes the files the write left
// unfinished and runs the writer's give_up, which leaves without the trace
// (dies of the signal, execs, or _exits).
//
// Each deadline is a POSIX timer of its own aimed at the writing thread
// (SIGEV_THREAD_ID), with SIGALRM unblocked on that thread while it
// writes: it fires even inside the program's own SIGALRM handler (an
// alarm() watchdog that calls _exit) and when every other thread blocks
// signals. The host's alarm() (ITIMER_REAL) is never touched, deadlines on
// several threads never meet, and an exec inherits none of them (POSIX
// timers end at exec).
#pragma once

#include <signal.h>

namespace brickprof::agent {

// Must not return: it execs, _exits or dies of a signal. Runs in a signal handler.
using GiveUp = void (*)(const void* arg);

// What follows the write, for a SIGALRM of the host's that arrives during it.
enum class AfterWrite {
  // The host goes on (an exec keeps its alarm): its SIGALRM reaches it
  // once the last write ends.
  kHostGoesOn,
  // The process ends (dies of a signal, or _exits): the host's SIGALRM is
  // not raised (without the agent it would already have ended).
  kProcessEnds,
};

// Armed for its lifetime, on the constructing thread; nothing in it
// allocates, so it can be armed before anything else a hook does. While
// any deadline is armed the agent's SIGALRM action is in the kernel; the
// host's is put back when the last one ends, and before give_up runs.
class WriteDeadline {
 public:
  WriteDeadline(unsigned seconds, AfterWrite after, GiveUp give_up, const void* arg);
  ~WriteDeadline();
  WriteDeadline(const WriteDeadline&) = delete;
  WriteDeadline& operator=(const WriteDeadline&) = delete;

  // Just before an exec this thread makes: the host's SIGALRM action goes
  // back to the kernel (the new image inherits it, not ours) even if
  // another thread's deadline is still armed; exec_failed() undoes it.
  static void before_exec();
  static void exec_failed();

 private:
  int slot_ = -1;  // -1: no slot was free, or no timer: nothing armed
  AfterWrite after_;
  sigset_t saved_mask_;
};

}  // namespace brickprof::agent
