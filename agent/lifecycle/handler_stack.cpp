// The dump handler's own stack (see handler_stack.h): mmap'd when a signal
// needs it (a system call, safe in a handler) and entered with
// makecontext/swapcontext, which touch nothing but registers, the stack
// and the signal mask.
#include "agent/lifecycle/handler_stack.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstddef>

namespace brickprof::agent {
namespace {

constexpr size_t kStackBytes = size_t{8} << 20;

struct Call {
  void (*fn)(void*);
  void* arg;
};
// makecontext passes only ints: the call goes by a thread's own pointer.
constinit thread_local Call* t_call __attribute__((tls_model("initial-exec"))) = nullptr;

void on_new_stack() {
  Call* call = t_call;
  stack_t alternate, off;
  bool put_back = false;
  if (sigaltstack(nullptr, &alternate) == 0 && !(alternate.ss_flags & SS_DISABLE)) {
    off.ss_sp = nullptr;
    off.ss_size = 0;
    off.ss_flags = SS_DISABLE;
    put_back = sigaltstack(&off, nullptr) == 0;
  }
  call->fn(call->arg);
  if (put_back) {
    alternate.ss_flags &= ~SS_ONSTACK;
    sigaltstack(&alternate, nullptr);
  }
}

}  // namespace

void run_on_handler_stack(void (*fn)(void*), void* arg) {
  const size_t guard = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* memory = mmap(nullptr, guard + kStackBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (memory == MAP_FAILED) {
    fn(arg);
    return;
  }
  mprotect(memory, guard, PROT_NONE);  // an overflow faults instead of writing below
  Call call{fn, arg};
  Call* const outer = t_call;
  t_call = &call;
  ucontext_t here, there;
  bool ran = false;
  if (getcontext(&there) == 0) {
    there.uc_stack.ss_sp = static_cast<char*>(memory) + guard;
    there.uc_stack.ss_size = kStackBytes;
    there.uc_link = &here;
    makecontext(&there, on_new_stack, 0);
    ran = swapcontext(&here, &there) == 0;
  }
  t_call = outer;
  munmap(memory, guard + kStackBytes);
  if (!ran) fn(arg);
}

}  // namespace brickprof::agent
