// What the agent's memory tests run (memory_test.cpp): workloads that grow
// the agent's state without bound unless it is capped and freed.
//   memory_app names N      N distinct run-time scope names, each pushed once
//   memory_app threads N    N short-lived threads, one after another, each one scope
//   memory_app fill MB      about MB megabytes of push/pop records on one thread
//   memory_app deep N       N scopes, each inside the one before
// Prints "<VmRSS before> <VmRSS after>" in kB (after: just before main returns).
#include <brickprof/brickprof.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace {

long resident_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.compare(0, 6, "VmRSS:") == 0) return std::atol(line.c_str() + 6);
  return -1;
}

void names(long n) {
  char name[64];
  for (long i = 0; i < n; ++i) {
    std::snprintf(name, sizeof name, "request %ld of a long-running server", i);
    if (brickprof_push_name(BRICKPROF_KIND_SCOPE, name, 0)) brickprof_pop();
  }
}

void threads(long n) {
  for (long i = 0; i < n; ++i) {
    std::thread t([] { BRICKPROF_SCOPE("short-lived worker"); });
    t.join();
  }
}

void fill(long megabytes) {
  // A push and a pop are 40 bytes of records.
  const long pairs = megabytes * (1 << 20) / 40;
  for (long i = 0; i < pairs; ++i) {
    BRICKPROF_SCOPE("step");
    if (i % 64 == 0) {
      BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, 4096);
    }
  }
}

void deep(long n) {
  for (long i = 0; i < n; ++i) brickprof_push_name(BRICKPROF_KIND_SCOPE, i % 2 ? "odd" : "even", 0);
  BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, 1);
  for (long i = 0; i < n; ++i) brickprof_pop();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: memory_app names|threads|fill|deep N\n");
    return 2;
  }
  const long n = std::atol(argv[2]);
  BRICKPROF_SCOPE("main");  // binds the agent before the first reading
  const long before = resident_kb();
  if (std::strcmp(argv[1], "names") == 0)
    names(n);
  else if (std::strcmp(argv[1], "threads") == 0)
    threads(n);
  else if (std::strcmp(argv[1], "fill") == 0)
    fill(n);
  else if (std::strcmp(argv[1], "deep") == 0)
    deep(n);
  else
    return 2;
  std::printf("%ld %ld\n", before, resident_kb());
  return 0;
}
