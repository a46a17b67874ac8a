// A CPU-bound program for the CPU counters' tests: bricks that do arithmetic
// (no sleeps), nested, on two threads, and in a forked child.
//   cpu_counters_app nested   brick "outer" holding three "inner" on main and on a
//                             worker thread; prints the arithmetic's result
//   cpu_counters_app fork     main's "parent" brick; a child's "child" brick, then the
//                             child exits 5; prints what the parent saw
#include <brickprof/brickprof.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <thread>

namespace {

// Work the compiler cannot drop: a data-dependent recurrence.
unsigned long long work(unsigned long long rounds) {
  unsigned long long x = 88172645463325252ull;
  for (unsigned long long i = 0; i < rounds; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

unsigned long long nested() {
  BRICKPROF_BRICK_NAMED("outer", 0);
  unsigned long long sum = work(200000);
  for (int i = 0; i < 3; ++i) {
    BRICKPROF_BRICK_NAMED("inner", 0);
    sum += work(2000000);
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "nested") == 0) {
    unsigned long long other = 0;
    std::thread worker([&] { other = nested(); });
    const unsigned long long mine = nested();
    worker.join();
    std::printf("%llu\n", mine ^ other);
    return 0;
  }
  if (std::strcmp(mode, "fork") == 0) {
    unsigned long long before;
    {
      BRICKPROF_BRICK_NAMED("parent", 0);
      before = work(1000000);
    }
    const pid_t pid = fork();
    if (pid == 0) {
      unsigned long long mine;
      {
        BRICKPROF_BRICK_NAMED("child", 0);
        mine = work(1000000);
      }
      std::printf("child %llu\n", mine & 1);
      std::exit(5);  // exit: the agent writes the child's trace
    }
    int status = 0;
    waitpid(pid, &status, 0);
    std::printf("parent saw %d %llu\n", WEXITSTATUS(status), before & 1);
    return 0;
  }
  std::fprintf(stderr, "usage: cpu_counters_app nested|fork\n");
  return 2;
}
