// A time limit on the trace write an exec or _exit hook makes. The hook may
// run in a signal handler that interrupted code holding a lock the write
// needs (malloc's, stdio's), so the write could block forever: at the
// deadline, SIGALRM runs the hook's give_up, which leaves as the host asked
// (the exec, or _exit) without the trace.
#pragma once

namespace brickprof::agent {

// Must not return: it execs or _exits. Runs in a signal handler.
using GiveUp = void (*)(const void* arg);

// Arms the deadline for its lifetime; one at a time. The host's SIGALRM
// action and pending alarm (which survives exec) are put back when it ends,
// and before give_up runs; a SIGALRM sent meanwhile reaches the host after.
class LeaveDeadline {
 public:
  LeaveDeadline(unsigned seconds, GiveUp give_up, const void* arg);
  ~LeaveDeadline();
  LeaveDeadline(const LeaveDeadline&) = delete;
  LeaveDeadline& operator=(const LeaveDeadline&) = delete;
};

}  // namespace brickprof::agent
