// The dump handler's own stack (see handler_stack.h): mmap'd when a signal
// needs it (a system call, safe in a handler) and entered with
// makecontext/swapcontext, which touch nothing but registers, the stack
// and the signal mask. The handler's frame on the small stack stays a few
// words: everything else is in the new mapping.
#include "agent/lifecycle/handler_stack.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstddef>

namespace brickprof::agent {
namespace {

constexpr size_t kStackBytes = size_t{8} << 20;

// What the switch needs, kept in the new stack's mapping (below the stack
// proper), not on the small one: two contexts are 2 KiB.
struct Switch {
  void (*fn)(void*);
  void* arg;
  ucontext_t here;
  ucontext_t there;
};
// makecontext passes only ints: the switch goes by a thread's own pointer.
constinit thread_local Switch* t_switch __attribute__((tls_model("initial-exec"))) = nullptr;

void on_new_stack() {
  Switch* s = t_switch;
  stack_t alternate, off;
  bool put_back = false;
  if (sigaltstack(nullptr, &alternate) == 0 && !(alternate.ss_flags & SS_DISABLE)) {
    off.ss_sp = nullptr;
    off.ss_size = 0;
    off.ss_flags = SS_DISABLE;
    put_back = sigaltstack(&off, nullptr) == 0;
  }
  s->fn(s->arg);
  if (put_back) {
    alternate.ss_flags &= ~SS_ONSTACK;
    sigaltstack(&alternate, nullptr);
  }
}

}  // namespace

void run_on_handler_stack(void (*fn)(void*), void* arg) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t below = (sizeof(Switch) + page - 1) / page * page;  // the guard, then the Switch
  const size_t bytes = page + below + kStackBytes;
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (memory == MAP_FAILED) {
    fn(arg);
    return;
  }
  // An overflow of the stack above runs into the Switch, then faults here.
  mprotect(memory, page, PROT_NONE);
  auto* s = reinterpret_cast<Switch*>(static_cast<char*>(memory) + page);
  s->fn = fn;
  s->arg = arg;
  Switch* const outer = t_switch;
  t_switch = s;
  bool ran = false;
  if (getcontext(&s->there) == 0) {
    s->there.uc_stack.ss_sp = static_cast<char*>(memory) + page + below;
    s->there.uc_stack.ss_size = kStackBytes;
    s->there.uc_link = &s->here;
    makecontext(&s->there, on_new_stack, 0);
    ran = swapcontext(&s->here, &s->there) == 0;
  }
  t_switch = outer;
  munmap(memory, bytes);
  if (!ran) fn(arg);
}

}  // namespace brickprof::agent
