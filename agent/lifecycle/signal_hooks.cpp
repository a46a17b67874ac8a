// The agent's sigaction and the calls built on it, exported so LD_PRELOAD
// puts them before libc's (see signals.h for why). glibc's signal, sigset,
// ... call its internal sigaction, never the exported one, so each is
// wrapped; each does what glibc 2.36's does, on program_sigaction. Only in
// the shared library: unit tests that link the agent's core keep libc's.
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "agent/lifecycle/signals.h"

namespace brickprof::agent::signals {
namespace {

// siginterrupt's choice per signal (glibc's own set, _sigintr, is internal
// and our siginterrupt replaces the only public way to change it).
constinit std::atomic<uint64_t> g_interrupting{0};
uint64_t bit(int sig) { return uint64_t{1} << (sig - 1); }

bool valid(int sig, sighandler_t handler) {
  if (handler == SIG_ERR || sig < 1 || sig >= NSIG) {
    errno = EINVAL;
    return false;
  }
  return true;
}

sighandler_t set_handler(int sig, sighandler_t handler, const sigset_t& mask, int flags) {
  struct sigaction action, old;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  action.sa_mask = mask;
  action.sa_flags = flags;
  if (program_sigaction(sig, &action, &old) < 0) return SIG_ERR;
  return old.sa_handler;
}

// signal(), BSD semantics: the signal blocked in its handler, system calls
// restarted unless siginterrupt said otherwise.
sighandler_t bsd_set(int sig, sighandler_t handler) {
  if (!valid(sig, handler)) return SIG_ERR;
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, sig);
  return set_handler(sig, handler, mask, (g_interrupting.load() & bit(sig)) ? 0 : SA_RESTART);
}

// System V semantics: one-shot, not blocked in its handler, no restart.
sighandler_t sysv_set(int sig, sighandler_t handler) {
  if (!valid(sig, handler)) return SIG_ERR;
  sigset_t none;
  sigemptyset(&none);
  return set_handler(sig, handler, none, SA_RESETHAND | SA_NODEFER | SA_INTERRUPT);
}

}  // namespace
}  // namespace brickprof::agent::signals

using brickprof::agent::signals::bit;
using brickprof::agent::signals::bsd_set;
using brickprof::agent::signals::g_interrupting;
using brickprof::agent::signals::program_sigaction;
using brickprof::agent::signals::set_handler;
using brickprof::agent::signals::sysv_set;

#pragma GCC visibility push(default)
extern "C" {

int sigaction(int sig, const struct sigaction* act, struct sigaction* old) noexcept {
  return program_sigaction(sig, act, old);
}
int __sigaction(int sig, const struct sigaction* act, struct sigaction* old) noexcept {
  return program_sigaction(sig, act, old);
}

sighandler_t signal(int sig, sighandler_t handler) noexcept { return bsd_set(sig, handler); }
sighandler_t bsd_signal(int sig, sighandler_t handler) noexcept { return bsd_set(sig, handler); }
sighandler_t ssignal(int sig, sighandler_t handler) noexcept { return bsd_set(sig, handler); }
sighandler_t sysv_signal(int sig, sighandler_t handler) noexcept { return sysv_set(sig, handler); }
sighandler_t __sysv_signal(int sig, sighandler_t handler) noexcept {
  return sysv_set(sig, handler);
}

// SIG_HOLD blocks the signal; anything else sets it and unblocks it. The
// old disposition, or SIG_HOLD if it was blocked.
sighandler_t sigset(int sig, sighandler_t disposition) noexcept {
  sigset_t set, old_mask;
  sigemptyset(&set);
  if (sigaddset(&set, sig) < 0) return SIG_ERR;
  if (disposition == SIG_HOLD) {
    if (sigprocmask(SIG_BLOCK, &set, &old_mask) < 0) return SIG_ERR;
    if (sigismember(&old_mask, sig)) return SIG_HOLD;
    struct sigaction old;
    if (program_sigaction(sig, nullptr, &old) < 0) return SIG_ERR;
    return old.sa_handler;
  }
  sigset_t none;
  sigemptyset(&none);
  sighandler_t old = set_handler(sig, disposition, none, 0);
  if (old == SIG_ERR) return SIG_ERR;
  if (sigprocmask(SIG_UNBLOCK, &set, &old_mask) < 0) return SIG_ERR;
  return sigismember(&old_mask, sig) ? SIG_HOLD : old;
}

int sigignore(int sig) noexcept {
  struct sigaction ignore;
  std::memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  return program_sigaction(sig, &ignore, nullptr);
}

int siginterrupt(int sig, int interrupt) noexcept {
  struct sigaction action;
  if (program_sigaction(sig, nullptr, &action) < 0) return -1;
  if (interrupt) {
    g_interrupting.fetch_or(bit(sig));
    action.sa_flags &= ~SA_RESTART;
  } else {
    g_interrupting.fetch_and(~bit(sig));
    action.sa_flags |= SA_RESTART;
  }
  return program_sigaction(sig, &action, nullptr);
}

}  // extern "C"
#pragma GCC visibility pop
