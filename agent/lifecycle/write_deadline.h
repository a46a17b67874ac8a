// The one time limit on a trace write that the process's leaving waits for:
// the write in a fatal signal's handler, and the write an exec or _exit
// hook makes. Either may have interrupted code that holds a lock the write
// needs (malloc's, stdio's), so the write could block forever: past
// BRICKPROF_SIGNAL_DUMP_SECONDS, SIGALRM removes the files the write left
// unfinished and runs the writer's give_up, which leaves without the trace
// (dies of the signal, execs, or _exits).
#pragma once

namespace brickprof::agent {

// Must not return: it execs, _exits or dies of a signal. Runs in a signal handler.
using GiveUp = void (*)(const void* arg);

// What follows the write, for the host's own alarm.
enum class AfterWrite {
  // The host goes on (an exec keeps its alarm): its SIGALRM action and the
  // time left on its alarm are put back, and a SIGALRM sent during the write
  // reaches it after.
  kHostGoesOn,
  // The process dies of a signal: no alarm of the host's is put back or
  // raised (without the agent it would already have died).
  kProcessDies,
};

// Armed for its lifetime; one at a time. The host's SIGALRM action is put
// back when it ends, and before give_up runs.
class WriteDeadline {
 public:
  WriteDeadline(unsigned seconds, AfterWrite after, GiveUp give_up, const void* arg);
  ~WriteDeadline();
  WriteDeadline(const WriteDeadline&) = delete;
  WriteDeadline& operator=(const WriteDeadline&) = delete;

 private:
  AfterWrite after_;
};

}  // namespace brickprof::agent
