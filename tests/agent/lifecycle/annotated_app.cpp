// A small annotated program the integration tests run under the agent:
// layers and bricks on several threads with busy-waits of known length.
//   annotated_app threads        3 threads x 2 layers x {RmsNorm 2 ms, GateProjection 4 ms}
//   annotated_app fork           a child records its own scope and exits 5
//   annotated_app fork-quiet     a child records nothing and exits 5
//   annotated_app wait           prints "ready", then waits in a scope (for SIGTERM)
//   annotated_app abort|segv     dies of SIGABRT / SIGSEGV inside layer 3, brick RmsNorm
//   annotated_app host-peaks     threads race to set host peaks, then main's call wins
//   annotated_app tokens         a "generate" scope of 4 steps, each reporting 3 tokens and
//                                its step number as the counter "step"; prints its count
#include <brickprof/brickprof.h>
#include <pthread.h>
#include <sys/wait.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

std::mutex g_spins_mutex;
std::vector<std::pair<long long, long long>> g_spins;

// Busy-waits `d` and logs the wait's own start and end (steady_clock is
// CLOCK_MONOTONIC, the agent's timeline) to $ANNOTATED_SPIN_LOG, so a test can
// tell the agent's error from time the machine took away from us.
void spin_for(std::chrono::microseconds d) {
  auto start = std::chrono::steady_clock::now();
  auto until = start + d;
  auto now = start;
  while (now < until) now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(g_spins_mutex);  // kept in memory: no I/O inside scopes
  g_spins.emplace_back(start.time_since_epoch().count(), now.time_since_epoch().count());
}

void write_spin_log() {
  const char* log = std::getenv("ANNOTATED_SPIN_LOG");
  FILE* f = log ? std::fopen(log, "w") : nullptr;
  if (!f) return;
  for (const auto& s : g_spins) std::fprintf(f, "%lld %lld\n", s.first, s.second);
  std::fclose(f);
}

// Threads take turns, so a busy-wait is not stretched by waiting for a core.
std::mutex g_turn;

void layers(int first) {
  // Named, and gone by the time the agent dumps: the trace keeps the name.
  std::string name = "worker-" + std::to_string(first / 10);
  pthread_setname_np(pthread_self(), name.c_str());
  for (int layer = first; layer < first + 2; ++layer) {
    std::lock_guard<std::mutex> turn(g_turn);
    BRICKPROF_LAYER(layer);
    {
      BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, 4096);
      BRICKPROF_WORK(3 * 4096, 8 * 4096);
      spin_for(std::chrono::microseconds(2000));
    }
    {
      BRICKPROF_BRICK(BRICKPROF_BRICK_GATE_PROJECTION, 11008);
      spin_for(std::chrono::microseconds(4000));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "threads";
  if (std::strcmp(mode, "threads") == 0) {
    BRICKPROF_SCOPE("main");
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) threads.emplace_back(layers, t * 10);
    for (auto& th : threads) th.join();
    write_spin_log();
    std::printf("done threads\n");
    return 0;
  }
  if (std::strcmp(mode, "fork") == 0 || std::strcmp(mode, "fork-quiet") == 0) {
    const bool quiet = mode[4] != '\0';
    BRICKPROF_SCOPE("parent");
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      if (!quiet) { BRICKPROF_SCOPE("child"); spin_for(std::chrono::microseconds(1000)); }
      std::printf("child\n");
      std::exit(5);
    }
    int status = 0;
    waitpid(child, &status, 0);
    std::printf("parent saw %d\n", WEXITSTATUS(status));
    return 0;
  }
  if (std::strcmp(mode, "host-peaks") == 0) {
    // Every call replaces the last, whatever thread makes it.
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([t] {
        for (int i = 0; i < 1000; ++i) brickprof_set_host_peaks(1000 + t, i, "racing thread");
      });
    for (auto& th : threads) th.join();
    std::string how = "test probe \xe2\x9c\x93 (4 threads)";  // the agent copies it
    BRICKPROF_SET_HOST_PEAKS(123.5, 45.25, how.c_str());
    how.assign(how.size(), 'x');
    std::printf("done host-peaks\n");
    return 0;
  }
  if (std::strcmp(mode, "tokens") == 0) {
    uint64_t tokens = 0;
    brickprof_counter("l2_hit_rate", 0.875);  // outside every scope
    {
      BRICKPROF_SCOPE("generate");
      for (int step = 0; step < 4; ++step) {
        BRICKPROF_LAYER(step);
        {
          BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, 64);
          spin_for(std::chrono::microseconds(500));
        }
        BRICKPROF_COUNTER("step", step);
        BRICKPROF_TOKENS(3);
        tokens += 3;
      }
    }
    brickprof_counter("not a number", std::nan(""));  // dropped and counted
    std::printf("tokens %llu\n", static_cast<unsigned long long>(tokens));
    return 0;
  }
  if (std::strcmp(mode, "wait") == 0) {
    BRICKPROF_SCOPE("waiting");
    std::printf("ready\n");
    std::fflush(stdout);
    for (;;) pause();
  }
  if (std::strcmp(mode, "stuck-stderr") == 0) {
    // Another thread holds stderr's stdio lock for good (as a thread
    // stopped mid-fprintf would) while SIGTERM arrives: anything the dump
    // writes through stdio blocks forever.
    BRICKPROF_SCOPE("stuck");
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    std::thread holder([&] {
      pthread_sigmask(SIG_BLOCK, &term, nullptr);  // the signal goes to main
      flockfile(stderr);
      for (;;) pause();
    });
    holder.detach();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    kill(getpid(), SIGTERM);
    for (;;) pause();
  }
  if (std::strcmp(mode, "toggling") == 0) {
    // Threads switch the recorder on, again and again (the agent takes a
    // lock each time), when SIGTERM arrives: it lands on one of them, often
    // inside that lock, which the trace write takes too.
    BRICKPROF_SCOPE("toggling");
    for (int t = 0; t < 2; ++t)
      std::thread([] {
        for (;;) brickprof_set_enabled(1);
      }).detach();
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, nullptr);  // not on main: a toggling thread takes it
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    kill(getpid(), SIGTERM);
    for (;;) pause();
  }
  if (std::strcmp(mode, "abort") == 0 || std::strcmp(mode, "segv") == 0) {
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // no core files left behind by the tests
    std::printf("crashing\n");
    std::fflush(stdout);
    BRICKPROF_LAYER(3);
    BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, 4096);
    if (mode[0] == 'a') std::abort();
    volatile int* nowhere = nullptr;
    *nowhere = 1;
  }
  std::fprintf(stderr, "unknown mode %s\n", mode);
  return 2;
}
