// A stack of the agent's own for the trace write a dying signal's handler
// makes. The handler runs on whatever stack the signalled thread was on: a
// thread made with the smallest stack pthreads allows, a Go runtime's
// goroutine (a few KiB, nothing below it), or an alternate signal stack
// (Go gives each thread 32 KiB). The write needs far more.
#pragma once

namespace brickprof::agent {

// Runs fn(arg) on a fresh stack (8 MiB reserved, touched as used, a guard
// page below) and returns once it has. Meanwhile the thread's alternate
// signal stack is off: the kernel, seeing the thread away from it, would
// put the next SA_ONSTACK handler at its top, over the frames of the
// handler we came from. Without memory for the stack, fn runs here.
// Async-signal-safe but for fn.
void run_on_handler_stack(void (*fn)(void*), void* arg);

}  // namespace brickprof::agent
