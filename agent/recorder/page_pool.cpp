// Background preparation of event memory (see page_pool.h).
#include "agent/recorder/page_pool.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>

namespace brickprof::agent::page_pool {
namespace {

// Ready blocks kept ahead: at ~25 ns per event a thread fills a block in
// ~1.6 ms and preparing one takes ~0.8 ms, so a few cover bursts from several
// threads; they are the most memory the pool holds beyond BRICKPROF_BUFFER_MB.
constexpr int kDepth = 4;

// Never destroyed: at exit the thread still waits on the condition
// variable, and destroying one with a waiter blocks forever.
struct Pool {
  std::mutex mutex;
  std::condition_variable wanted;
  void* ready[kDepth];
  int ready_count = 0;          // guarded by mutex
  bool thread_started = false;  // guarded by mutex
  bool out_of_memory = false;   // guarded by mutex
};
// Published once by compare-and-swap, not a function-local static: a fork
// while another thread ran a static's initialiser left the child's guard
// taken for ever (the child's first block, or its fork handler, then hung).
std::atomic<Pool*> g_pool{nullptr};
Pool& pool() {
  Pool* p = g_pool.load(std::memory_order_acquire);
  if (p) return *p;
  Pool* fresh = new Pool();
  if (g_pool.compare_exchange_strong(p, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;  // another thread published first; this one never ran
  return *p;
}

// Maps kBlockBytes at a kBlockBytes boundary (so a huge page could back it)
// and asks the kernel to populate it in one call rather than fault by fault.
void* map_block() {
  size_t span = 2 * kBlockBytes;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  uintptr_t base = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (base + kBlockBytes - 1) & ~(uintptr_t{kBlockBytes} - 1);
  if (aligned > base) munmap(raw, aligned - base);
  size_t tail = base + span - (aligned + kBlockBytes);
  if (tail) munmap(reinterpret_cast<void*>(aligned + kBlockBytes), tail);
  void* block = reinterpret_cast<void*>(aligned);
#ifdef MADV_POPULATE_WRITE
  if (madvise(block, kBlockBytes, MADV_POPULATE_WRITE) == 0) return block;
#endif
  // Older kernels: touch every page ourselves.
  for (size_t off = 0; off < kBlockBytes; off += 4096) static_cast<volatile char*>(block)[off] = 0;
  return block;
}

void* prepare_loop(void*) {
  Pool& p = pool();
  std::unique_lock<std::mutex> lock(p.mutex);
  for (;;) {
    p.wanted.wait(lock, [&] { return p.ready_count < kDepth; });
    lock.unlock();
    void* block = map_block();
    lock.lock();
    if (!block) {
      p.out_of_memory = true;  // leave the memory to the program
      return nullptr;
    }
    p.ready[p.ready_count++] = block;
  }
}

// Called with the pool's mutex held. The thread blocks every signal, so
// signals meant for the program never run on it.
void start_thread_locked(Pool& p) {
  p.thread_started = true;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 << 10);
  if (pthread_create(&thread, &attr, prepare_loop, nullptr) == 0)
    pthread_setname_np(thread, "brickprof-pages");
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace

void* take_block() {
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (!p.thread_started) start_thread_locked(p);
    if (p.ready_count > 0) {
      void* block = p.ready[--p.ready_count];
      p.wanted.notify_one();
      return block;
    }
    if (p.out_of_memory) return nullptr;
    p.wanted.notify_one();
  }
  return map_block();
}

void release_block(void* block) { munmap(block, kBlockBytes); }

void reset_after_fork() {
  // Ready blocks were copied into the child and stay usable; only the thread
  // is gone (and another parent thread may have held the lock at fork).
  Pool& p = pool();
  new (&p.mutex) std::mutex();
  new (&p.wanted) std::condition_variable();
  p.thread_started = false;
}

}  // namespace brickprof::agent::page_pool
