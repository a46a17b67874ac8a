// The time limit on a trace write the process's leaving waits for (see
// write_deadline.h). Every deadline has a slot in a fixed table and a
// kernel timer (raw system calls: glibc's timer_create may allocate) whose
// signal carries the slot and its generation, so the handler tells its own
// expiry from the host's SIGALRM and from a timer already ended. Nothing
// here allocates; everything the handler calls is async-signal-safe.
#include "agent/lifecycle/write_deadline.h"

#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "trace/output/atomic_file.h"

namespace brickprof::agent {
namespace {

constexpr int kSlots = 16;  // writes are one at a time; deadlines wait for their turn
// The timer's value: kTag, the generation, the slot.
constexpr uintptr_t kTag = uintptr_t{0x62707764} << 32;  // "bpwd"
constexpr uintptr_t kTagMask = uintptr_t{0xffffffff} << 32;

struct Slot {
  std::atomic<bool> armed{false};
  pid_t tid = 0;
  int timer = -1;
  uint32_t generation = 0;
  GiveUp give_up = nullptr;
  const void* arg = nullptr;
  sigset_t saved_mask{};  // the writing thread's mask before SIGALRM was unblocked
};

// constinit: a hook may arm a deadline before this file's initialisers run.
constinit Slot g_slots[kSlots];
constinit std::atomic<bool> g_locked{false};
// Under the lock: deadlines armed, the host's action while ours is in the
// kernel, and whether an exec took ours out early.
constinit int g_armed = 0;
constinit struct sigaction g_host_action {};
constinit bool g_handed_back = false;
constinit volatile sig_atomic_t g_host_alarm_pending = 0;

// The table's lock, taken with every signal blocked: no handler can run on
// the holding thread (and wait for it), and a holder on another thread
// cannot be interrupted.
class Hold {
 public:
  Hold() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved_);
    while (g_locked.exchange(true, std::memory_order_acquire)) sched_yield();
  }
  ~Hold() {
    g_locked.store(false, std::memory_order_release);
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;

 private:
  sigset_t saved_;
};

pid_t this_thread() { return static_cast<pid_t>(syscall(SYS_gettid)); }

int arm_timer(pid_t tid, uintptr_t value, unsigned seconds) {
  sigevent event;
  std::memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = SIGALRM;
  event.sigev_value.sival_ptr = reinterpret_cast<void*>(value);
  event._sigev_un._tid = tid;
  int timer = -1;
  if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &event, &timer) != 0) return -1;
  itimerspec when;
  std::memset(&when, 0, sizeof when);
  when.it_value.tv_sec = seconds;
  if (syscall(SYS_timer_settime, timer, 0, &when, nullptr) != 0) {
    syscall(SYS_timer_delete, timer);
    return -1;
  }
  return timer;
}

void on_alarm(int, siginfo_t* info, void*);

void install_ours() {
  struct sigaction ours;
  std::memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = on_alarm;
  sigemptyset(&ours.sa_mask);
  // Not blocked while it runs: an exec from the handler would hand the new
  // image a signal mask with SIGALRM blocked.
  ours.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
  sigaction(SIGALRM, &ours, nullptr);
}

// Under the lock.
void put_host_action_back() { sigaction(SIGALRM, &g_host_action, nullptr); }

void on_alarm(int, siginfo_t* info, void*) {
  const uintptr_t value = reinterpret_cast<uintptr_t>(info->si_value.sival_ptr);
  if (info->si_code != SI_TIMER || (value & kTagMask) != kTag) {
    g_host_alarm_pending = 1;  // the host's alarm(), kill(), or a timer of its own: after the write
    return;
  }
  Slot& slot = g_slots[value % kSlots];
  const uint32_t generation = static_cast<uint32_t>(value >> 8) & 0xffffff;
  if (!slot.armed.load(std::memory_order_acquire) || (slot.generation & 0xffffff) != generation ||
      slot.tid != this_thread())
    return;  // a deadline that has ended
  {
    Hold hold;
    put_host_action_back();
    g_handed_back = true;
  }
  remove_unfinished_files();  // the write is given up: no temporary file stays
  pthread_sigmask(SIG_SETMASK, &slot.saved_mask, nullptr);  // as the host had it, for an exec
  slot.give_up(slot.arg);
}

// The writing thread's SIGALRMs after its deadline ended, SIGALRM blocked
// again: one of its own timer's is dropped, one of the host's is kept for
// after the write (sigtimedwait dequeues this thread's before the process's).
void drain_alarms() {
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  const timespec now{0, 0};
  siginfo_t info;
  while (sigtimedwait(&alarm, &info, &now) == SIGALRM) {
    const uintptr_t value = reinterpret_cast<uintptr_t>(info.si_value.sival_ptr);
    if (info.si_code != SI_TIMER || (value & kTagMask) != kTag) g_host_alarm_pending = 1;
  }
}

}  // namespace

WriteDeadline::WriteDeadline(unsigned seconds, AfterWrite after, GiveUp give_up, const void* arg)
    : after_(after) {
  const pid_t tid = this_thread();
  uintptr_t value = 0;
  {
    Hold hold;
    for (int i = 0; i < kSlots && slot_ < 0; ++i)
      if (!g_slots[i].armed.load(std::memory_order_relaxed)) slot_ = i;
    if (slot_ < 0) return;
    Slot& slot = g_slots[slot_];
    slot.tid = tid;
    slot.give_up = give_up;
    slot.arg = arg;
    ++slot.generation;
    value = kTag | uintptr_t{slot.generation & 0xffffff} << 8 | static_cast<uintptr_t>(slot_);
    if (g_armed++ == 0) {
      g_host_alarm_pending = 0;
      sigaction(SIGALRM, nullptr, &g_host_action);
      g_handed_back = false;
      install_ours();
    }
    slot.armed.store(true, std::memory_order_release);
  }
  Slot& slot = g_slots[slot_];
  slot.timer = arm_timer(tid, value, seconds);
  if (slot.timer < 0) {  // no timer: no deadline, the host as it was
    slot.armed.store(false, std::memory_order_release);
    Hold hold;
    if (--g_armed == 0 && !g_handed_back) put_host_action_back();
    slot_ = -1;
    return;
  }
  // Even inside the host's own SIGALRM handler, or where the program
  // blocks it: the deadline must be able to fire on this thread.
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  pthread_sigmask(SIG_UNBLOCK, &alarm, &slot.saved_mask);
  saved_mask_ = slot.saved_mask;
}

WriteDeadline::~WriteDeadline() {
  if (slot_ < 0) return;
  Slot& slot = g_slots[slot_];
  const int timer = slot.timer;  // the slot may be taken again once released
  slot.armed.store(false, std::memory_order_release);  // an expiry from here on is ignored
  syscall(SYS_timer_delete, timer);
  pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);
  if (sigismember(&saved_mask_, SIGALRM) == 1) drain_alarms();
  bool raise_host_alarm = false;
  {
    Hold hold;
    if (--g_armed == 0) {
      if (!g_handed_back) put_host_action_back();
      g_handed_back = false;
      raise_host_alarm = g_host_alarm_pending && after_ == AfterWrite::kHostGoesOn;
      g_host_alarm_pending = 0;
    }
  }
  // As alarm() sends it: to the process.
  if (raise_host_alarm) kill(getpid(), SIGALRM);
}

void WriteDeadline::before_exec() {
  Hold hold;
  if (g_armed > 0 && !g_handed_back) {
    put_host_action_back();
    g_handed_back = true;
  }
}

void WriteDeadline::exec_failed() {
  Hold hold;
  if (g_armed > 0 && g_handed_back) {
    install_ours();
    g_handed_back = false;
  }
}

}  // namespace brickprof::agent
