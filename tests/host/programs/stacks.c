/* Host cases for small stacks: a signal that ends the program arrives on a
 * thread whose stack is a few KiB, as a thread made with the smallest
 * stack pthreads allows, or a Go runtime's goroutine (c-shared and
 * c-archive Go libraries run on such stacks and give each thread an
 * alternate signal stack, adding SA_ONSTACK to any handler they find). */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "common.h"

static atomic_int g_ready;
/* Called through a pointer the loader filled in at start: a first call
 * through the PLT would resolve the symbol on the small stack (the lazy
 * binding trampoline saves every vector register there). */
static int (*const g_pause)(void) = pause;

/* Waits deep in the thread's own calls, most of its small stack in use,
 * as a real thread would be when the signal comes. */
static void wait_deep(int frames) {
  volatile char frame[1024];
  frame[0] = (char)frames;
  if (frames > 0) {
    wait_deep(frames - 1);
  } else {
    atomic_store(&g_ready, 1);
    while (frame[0] == 0) g_pause();
  }
  frame[1] = frame[0];
}

static void* wait_on_small_stack(void* arg) {
  (void)arg;
  wait_deep(3);
  return NULL;
}

/* The signal the program's default action ends it with goes to a thread
 * with the smallest stack pthread_attr_setstacksize accepts. */
static int small_thread(int argc, char** argv) {
  const int sig = (int)arg_or(argc, argv, 0, SIGTERM);
  pthread_attr_t attr;
  pthread_t thread;
  record_scopes("main", 200);
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
  if (pthread_create(&thread, &attr, wait_on_small_stack, NULL) != 0) {
    say("no thread");
    return 1;
  }
  while (!atomic_load(&g_ready)) sched_yield();
  say("signalling the small thread");
  pthread_kill(thread, sig);
  for (;;) pause();
  return 0;
}

/* What a Go runtime does at start for each signal it leaves to others
 * (runtime/signal_unix.go, initsig and setsigstack): a handler that is
 * there without SA_ONSTACK gets it, so it never runs on a goroutine's
 * stack. */
static void add_onstack_as_go_does(int sig) {
  struct sigaction action;
  if (sigaction(sig, NULL, &action) != 0) return;
  if (action.sa_handler == SIG_DFL || action.sa_handler == SIG_IGN) return;
  if (action.sa_flags & SA_ONSTACK) return;
  action.sa_flags |= SA_ONSTACK;
  sigaction(sig, &action, NULL);
}

enum { kGoroutineStack = 8192, kSignalStack = 32768, kPage = 4096 };
static ucontext_t g_thread_context, g_goroutine_context;

static void goroutine(void) {
  atomic_store(&g_ready, 1);
  for (;;) g_pause();
}

/* A Go-made thread: an alternate signal stack of 32 KiB (Go's), then the
 * goroutine's 8 KiB stack, with an unmapped page below it so an overflow
 * faults instead of writing over the heap. */
static void* go_thread(void* arg) {
  stack_t alternate;
  char* stack;
  (void)arg;
  alternate.ss_sp = malloc(kSignalStack);
  alternate.ss_size = kSignalStack;
  alternate.ss_flags = 0;
  sigaltstack(&alternate, NULL);
  stack = mmap(NULL, kPage + kGoroutineStack, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED) return NULL;
  mprotect(stack, kPage, PROT_NONE);
  getcontext(&g_goroutine_context);
  g_goroutine_context.uc_stack.ss_sp = stack + kPage;
  g_goroutine_context.uc_stack.ss_size = kGoroutineStack;
  g_goroutine_context.uc_link = NULL;
  makecontext(&g_goroutine_context, goroutine, 0);
  swapcontext(&g_thread_context, &g_goroutine_context);
  return NULL;
}

/* SIGTERM (default action) to a thread running on a goroutine's stack. */
static int go_like(int argc, char** argv) {
  static const int kLeftToOthers[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
  pthread_t thread;
  size_t i;
  (void)argc, (void)argv;
  for (i = 0; i < sizeof kLeftToOthers / sizeof kLeftToOthers[0]; ++i)
    add_onstack_as_go_does(kLeftToOthers[i]);
  record_scopes("main", 200);
  pthread_create(&thread, NULL, go_thread, NULL);
  while (!atomic_load(&g_ready)) sched_yield();
  say("signalling the goroutine");
  pthread_kill(thread, SIGTERM);
  for (;;) pause();
  return 0;
}

int main(int argc, char** argv) {
  static const struct mode modes[] = {
      {"small-thread", small_thread},
      {"go-like", go_like},
  };
  return MODES(modes);
}
