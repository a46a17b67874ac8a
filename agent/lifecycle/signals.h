// The program's own view of the signals the agent writes its trace on.
// The agent keeps a handler of its own in the kernel for SIGTERM, SIGINT,
// ... while the program leaves them at SIG_DFL, so a program they kill still
// leaves a trace; but the program must never see it: CPython takes anything
// but SIG_DFL at start-up as a handler someone else set, and skips its
// KeyboardInterrupt. So the agent's sigaction, signal, ... (signal_hooks.cpp,
// exported ahead of libc's) answer from this view and pass what the program
// installs to the kernel as is; SIG_DFL puts the agent's handler back.
#pragma once

#include <signal.h>

namespace brickprof::agent::signals {

using Handler = void (*)(int, siginfo_t*, void*);

// Whether the program's sigaction and signal are this library's (it was
// preloaded). Loaded by dlopen (CUDA or NVTX injection) they are libc's and
// any handler the agent installed would show to the program.
bool interposed();

// From now on keeps the program's view of each of `sigs` (what the kernel
// holds now) and has `handler`, blocking `handler_mask` while it runs, in
// the kernel whenever that view is SIG_DFL.
void manage(const int* sigs, int count, Handler handler, const sigset_t& handler_mask);

// sigaction as the program sees it. For a managed signal, `old` is the
// program's view and `act` becomes it; anything else goes to libc as is.
// Threads may call it at once and from signal handlers (it holds a
// per-signal spin lock with every signal blocked, so no handler can wait on
// its own thread).
int program_sigaction(int sig, const struct sigaction* act, struct sigaction* old);

// The program's disposition of a managed signal now (for the agent's
// handler: the program may have set its own since the signal arrived).
struct sigaction program_action(int sig);

// The kernel's action for `sig` becomes SIG_DFL, the view left as it is:
// the process is about to die of it. The agent's handler is not put back.
void die_by_default(int sig);

bool is_default(const struct sigaction& action);

}  // namespace brickprof::agent::signals
