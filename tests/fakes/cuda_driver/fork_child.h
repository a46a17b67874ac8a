// The fakes' locks made afresh in a fork child. A real driver never blocks
// a fork child on a lock one of the parent's threads held: CUDA is not
// usable in a child forked after it was initialised, and the child's calls
// return errors (CUDA C++ Programming Guide, "fork() and CUDA"). The fakes
// go on working in a child so tests can check the agent there
// (tests/agent/python/python_fork.py), so their own locks must not be what
// stops one: a child that hangs is the agent's doing.
#pragma once

#include <pthread.h>

#include <atomic>
#include <mutex>
#include <new>

namespace fake_cuda {

namespace fork_child_detail {
struct Locks {
  static constexpr int kMax = 16;
  std::atomic<std::mutex*> at[kMax] = {};
  std::atomic<int> count{0};
};
inline Locks& locks() {
  static Locks* l = [] {
    auto* made = new Locks();  // never freed: forks come at any time
    pthread_atfork(nullptr, nullptr, [] {
      Locks& all = locks();
      for (int i = 0; i < all.count.load() && i < Locks::kMax; ++i)
        if (std::mutex* m = all.at[i].load()) new (m) std::mutex();
    });
    return made;
  }();
  return *l;
}
}  // namespace fork_child_detail

// `lock`, which lives as long as the process, is unlocked afresh in each fork child.
inline void renew_in_fork_child(std::mutex* lock) {
  fork_child_detail::Locks& all = fork_child_detail::locks();
  const int i = all.count.fetch_add(1);
  if (i < fork_child_detail::Locks::kMax) all.at[i].store(lock);
}

}  // namespace fake_cuda
