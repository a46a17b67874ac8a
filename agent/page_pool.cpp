// Background preparation of event memory (see page_pool.h).
#include "agent/page_pool.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

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

std::mutex g_mutex;
std::condition_variable g_wanted;
void* g_ready[kDepth];
int g_ready_count = 0;       // guarded by g_mutex
bool g_thread_started = false;  // guarded by g_mutex
bool g_out_of_memory = false;   // guarded by g_mutex
size_t g_prepared_taken = 0;    // guarded by g_mutex

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
  std::unique_lock<std::mutex> lock(g_mutex);
  for (;;) {
    g_wanted.wait(lock, [] { return g_ready_count < kDepth; });
    lock.unlock();
    void* block = map_block();
    lock.lock();
    if (!block) {
      g_out_of_memory = true;  // leave the memory to the program
      return nullptr;
    }
    g_ready[g_ready_count++] = block;
  }
}

// Called with g_mutex held. The thread blocks every signal, so signals meant
// for the program never run on it.
void start_thread_locked() {
  g_thread_started = true;
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
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_thread_started) start_thread_locked();
    if (g_ready_count > 0) {
      ++g_prepared_taken;
      void* block = g_ready[--g_ready_count];
      g_wanted.notify_one();
      return block;
    }
    if (g_out_of_memory) return nullptr;
    g_wanted.notify_one();
  }
  return map_block();
}

size_t prepared_blocks_taken() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_prepared_taken;
}

void reset_after_fork() {
  // Ready blocks were copied into the child and stay usable; only the thread
  // is gone (and another parent thread may have held the lock at fork).
  new (&g_mutex) std::mutex();
  new (&g_wanted) std::condition_variable();
  g_thread_started = false;
}

}  // namespace brickprof::agent::page_pool
