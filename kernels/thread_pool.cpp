// Persistent thread pool: workers spin briefly, then sleep, between jobs.
#include "kernels/thread_pool.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace bricklayer {

namespace {
inline void cpu_relax() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}
// A decode step issues a few dozen short jobs back to back; spinning a few
// microseconds avoids a futex wake-up per job. Spinning longer hurts when the
// cores are shared: a spinning thread takes the time slice the thread it
// waits for needs, so after this we block.
constexpr int kSpins = 200;
thread_local bool t_on_worker = false;
}  // namespace

bool ThreadPool::on_worker() { return t_on_worker; }

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::run_chunks() {
  for (;;) {
    const int64_t begin = next_.fetch_add(grain_, std::memory_order_relaxed);
    if (begin >= n_) break;
    (*fn_)(begin, begin + grain_ < n_ ? begin + grain_ : n_);
  }
}

void ThreadPool::worker_loop() {
  t_on_worker = true;
  uint64_t seen = 0;
  for (;;) {
    int spins = 0;
    while (generation_.load(std::memory_order_acquire) == seen && spins < kSpins) {
      cpu_relax();
      ++spins;
    }
    if (generation_.load(std::memory_order_acquire) == seen) {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    run_chunks();
    if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // Taking the lock orders this against the caller's predicate check.
      { std::lock_guard<std::mutex> lock(mu_); }
      done_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain,
                              const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  if (workers_.empty() || n <= grain) {
    fn(0, n);
    return;
  }
  fn_ = &fn;
  n_ = n;
  grain_ = grain;
  next_.store(0, std::memory_order_relaxed);
  busy_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mu_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  run_chunks();
  for (int i = 0; i < kSpins && busy_.load(std::memory_order_acquire) != 0; ++i) cpu_relax();
  if (busy_.load(std::memory_order_acquire) != 0) {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return busy_.load(std::memory_order_acquire) == 0; });
  }
}

}  // namespace bricklayer
