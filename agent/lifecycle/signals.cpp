// The program's view of the signals the agent writes its trace on (see
// signals.h). A change goes to the kernel first and into the view only
// once the kernel took it. What the kernel holds can also change without
// us (a one-shot SA_RESETHAND handler ran, the program made the system call
// itself): every look at a view first reconciles it with the kernel.
#include "agent/lifecycle/signals.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace brickprof::agent::signals {
namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);

struct View {
  std::atomic<bool> managed{false};
  std::atomic<bool> locked{false};
  struct sigaction program {};  // as sigaction() would report it without the agent
  // The program's last SIG_DFL, for when libc puts the agent's handler back
  // behind sigaction's back (system() restores what it saved).
  struct sigaction last_default {};
};

// constinit: the agent starts from a constructor that may run before this
// file's dynamic initialisers, which would then wipe what it set.
constinit View g_views[NSIG];
constinit Handler g_handler = nullptr;
constinit sigset_t g_handler_mask{};
// libc gives every action a restorer (x86-64 needs one) and reports it, flag
// and address, when the action is read back: the view reports it too.
using Restorer = void (*)();
constinit Restorer g_restorer = nullptr;
// The process the views describe. A vfork child differs: it has its own
// dispositions but writes into its parent's memory.
constinit std::atomic<pid_t> g_owner{0};
// The process is dying of a signal: SIG_DFL stays SIG_DFL.
constinit std::atomic<bool> g_dying{false};

// The flag libc adds with its restorer (x86-64's SA_RESTORER, which user
// headers do not define), and the flags a kernel keeps (it drops the rest
// since Linux 5.11).
constexpr int kRestorerFlag = 0x04000000;
constexpr int kKernelFlags = SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_ONSTACK | SA_RESTART |
                             SA_NODEFER | SA_RESETHAND | kRestorerFlag;

SigactionFn libc_sigaction() {
  static std::atomic<SigactionFn> found{nullptr};
  SigactionFn fn = found.load(std::memory_order_relaxed);
  if (!fn) {
    fn = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
    found.store(fn, std::memory_order_relaxed);
  }
  return fn;
}

// Looked up before any handler can need it (dlsym is not async-signal-safe).
__attribute__((constructor)) void look_up_libc_at_load() { libc_sigaction(); }

int kernel_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  SigactionFn libc = libc_sigaction();
  if (!libc) {
    errno = ENOSYS;
    return -1;
  }
  return libc(sig, act, old);
}

// A view is changed only under its lock, taken with every signal blocked:
// a handler on the holding thread cannot run (and wait for it), and one on
// another thread waits for a holder that cannot be interrupted.
class Hold {
 public:
  explicit Hold(View& view) : view_(view) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved_);
    while (view_.locked.exchange(true, std::memory_order_acquire)) sched_yield();
  }
  ~Hold() {
    view_.locked.store(false, std::memory_order_release);
    int error = errno;
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
    errno = error;
  }
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;

 private:
  View& view_;
  sigset_t saved_;
};

// A lock held by a thread that does not exist in a forked child.
void after_fork_in_child() {
  for (View& view : g_views) view.locked.store(false, std::memory_order_relaxed);
  g_owner.store(getpid());
  g_dying.store(false);
}

bool is_ours(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO) && action.sa_sigaction == g_handler;
}

int put_ours_in_kernel(int sig) {
  struct sigaction ours;
  std::memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = g_handler;
  // SA_ONSTACK: a runtime that gives its threads small stacks and an
  // alternate one for signals (Go) adds it to every handler it finds, but
  // the view shows it SIG_DFL, not ours; without it ours would run on a
  // goroutine's few KiB.
  ours.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  ours.sa_mask = g_handler_mask;
  if (kernel_sigaction(sig, &ours, nullptr) != 0) return -1;
  if (!g_restorer) {
    struct sigaction back;
    if (kernel_sigaction(sig, nullptr, &back) == 0) g_restorer = back.sa_restorer;
  }
  return 0;
}

// What the kernel would report for `action` had it been given it.
struct sigaction as_the_kernel_reports(const struct sigaction& action) {
  struct sigaction reported = action;
  reported.sa_flags = (action.sa_flags & kKernelFlags) | kRestorerFlag;
  reported.sa_restorer = g_restorer;
  sigdelset(&reported.sa_mask, SIGKILL);
  sigdelset(&reported.sa_mask, SIGSTOP);
  return reported;
}

// Under the view's lock. libc's system() sets SIGINT and SIGQUIT to
// SIG_IGN and back with its internal sigaction; a one-shot handler ran; the
// program made the system call itself.
void reconcile(int sig, View& view) {
  struct sigaction now;
  if (kernel_sigaction(sig, nullptr, &now) != 0) return;
  if (is_ours(now)) {  // only ever there for SIG_DFL: back to it as it was
    if (!is_default(view.program)) view.program = view.last_default;
    return;
  }
  if (!is_default(view.program) && now.sa_handler == view.program.sa_handler) return;
  if (is_default(now) && g_dying.load()) return;
  if (is_default(view.program)) view.last_default = view.program;
  view.program = now;
  if (is_default(now)) put_ours_in_kernel(sig);
}

// Under the view's lock. The program's handler or SIG_IGN goes to the kernel
// as it is; for SIG_DFL, the agent's handler.
int install(int sig, View& view, const struct sigaction& action) {
  if (is_default(action) && !g_dying.load()) {
    if (put_ours_in_kernel(sig) != 0) return -1;
    view.program = view.last_default = as_the_kernel_reports(action);
    return 0;
  }
  if (kernel_sigaction(sig, &action, nullptr) != 0) return -1;
  kernel_sigaction(sig, nullptr, &view.program);
  return 0;
}

}  // namespace

bool is_default(const struct sigaction& action) { return action.sa_handler == SIG_DFL; }

bool interposed() {
  Dl_info ours, theirs;
  if (!dladdr(reinterpret_cast<void*>(&program_sigaction), &ours)) return false;
  for (const char* name : {"sigaction", "signal"}) {
    void* found = dlsym(RTLD_DEFAULT, name);
    if (!found || !dladdr(found, &theirs) || theirs.dli_fbase != ours.dli_fbase) return false;
  }
  return true;
}

void manage(const int* sigs, int count, Handler handler, const sigset_t& handler_mask) {
  g_handler = handler;
  g_handler_mask = handler_mask;
  g_owner.store(getpid());
  static bool registered = (pthread_atfork(nullptr, nullptr, after_fork_in_child), true);
  (void)registered;
  for (int i = 0; i < count; ++i) {
    const int sig = sigs[i];
    View& view = g_views[sig];
    Hold hold(view);
    if (kernel_sigaction(sig, nullptr, &view.program) != 0) continue;
    view.last_default = view.program;
    if (is_default(view.program) && put_ours_in_kernel(sig) != 0) continue;
    view.managed.store(true, std::memory_order_release);
  }
}

int program_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (sig <= 0 || sig >= NSIG || !g_views[sig].managed.load(std::memory_order_acquire))
    return kernel_sigaction(sig, act, old);
  View& view = g_views[sig];
  if (getpid() != g_owner.load(std::memory_order_relaxed)) {
    // A vfork child: the kernel takes what it asks; its parent's view stays.
    struct sigaction now;
    if (kernel_sigaction(sig, nullptr, &now) != 0) return -1;
    const struct sigaction seen = is_ours(now) ? view.program : now;
    if (act && kernel_sigaction(sig, act, nullptr) != 0) return -1;
    if (old) *old = seen;
    return 0;
  }
  Hold hold(view);
  reconcile(sig, view);
  const struct sigaction before = view.program;
  if (act && install(sig, view, *act) != 0) return -1;
  if (old) *old = before;
  return 0;
}

struct sigaction program_action(int sig) {
  View& view = g_views[sig];
  Hold hold(view);
  reconcile(sig, view);
  return view.program;
}

void die_by_default(int sig) {
  if (getpid() == g_owner.load(std::memory_order_relaxed)) g_dying.store(true);
  struct sigaction fallback;
  std::memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  kernel_sigaction(sig, &fallback, nullptr);
}

}  // namespace brickprof::agent::signals
