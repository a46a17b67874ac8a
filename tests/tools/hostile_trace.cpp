// Writes traces built to break exports that are not linear in nodes and
// depth (BENCHMARKS.md times `brickprof report` on them under a memory
// limit; the test of every view and export is hostile_views.py):
//   hostile_trace deep N OUT      a chain of N nested scopes, a kernel at the bottom
//   hostile_trace names N OUT     N scopes of distinct names, each with a child
//   hostile_trace huge N OUT      names of N bytes: a scope, its child, a kernel
//   hostile_trace threads N OUT   N roots, each on a thread of its own
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct Writer {
  std::FILE* f;
  long nodes = 0;
  void node(long id, const char* kind, const std::string& name, long parent, long thread,
            long start, long end, bool gpu = false) {
    std::fprintf(f, "%s\n{\"id\":%ld,\"kind\":\"%s\",\"name\":\"", nodes++ ? "," : "", id, kind);
    std::fwrite(name.data(), 1, name.size(), f);
    std::fprintf(f, "\",\"parent\":");
    if (parent < 0)
      std::fprintf(f, "null");
    else
      std::fprintf(f, "%ld", parent);
    std::fprintf(f, ",\"thread\":%ld,\"start_ns\":%ld,\"end_ns\":%ld", thread, start, end);
    if (gpu)
      std::fprintf(f,
                   ",\"device\":0,\"stream\":7,\"correlation\":%ld,\"grid\":[1,1,1],"
                   "\"block\":[32,1,1],\"smem\":0",
                   id + 1);
    std::fprintf(f, "}");
  }
};

void head(std::FILE* f, long threads) {
  std::fprintf(f,
               "{\"schema\":\"brickprof/1\",\"process\":{\"pid\":1,\"program\":\"hostile\","
               "\"start_ns\":0,\"end_ns\":1000000000},\"diagnostics\":{},\"devices\":[],"
               "\"threads\":[");
  for (long t = 0; t < threads; ++t)
    std::fprintf(f, "%s{\"tid\":%ld,\"name\":\"worker %ld\"}", t ? "," : "", t + 1, t);
  std::fprintf(f, "],\"nodes\":[");
}

void tail(std::FILE* f) { std::fprintf(f, "],\"edges\":[]}\n"); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: hostile_trace deep|names|huge|threads N OUT\n");
    return 2;
  }
  const std::string kind = argv[1];
  const long n = std::atol(argv[2]);
  std::FILE* f = std::fopen(argv[3], "w");
  if (!f || n <= 0) return 2;
  Writer w{f};
  if (kind == "deep") {
    head(f, 1);
    for (long i = 0; i < n; ++i)
      w.node(i, "scope", "level " + std::to_string(i % 10), i - 1, 1, i, 2 * n - i);
    w.node(n, "kernel", "bottom_kernel", n - 1, 1, n, n + 1, true);
  } else if (kind == "names") {
    head(f, 1);
    w.node(0, "scope", "main", -1, 1, 0, 4 * n);
    for (long i = 0; i < n; ++i) {
      w.node(1 + 2 * i, "scope", "request " + std::to_string(i), 0, 1, 4 * i, 4 * i + 3);
      w.node(2 + 2 * i, "scope", "inner", 1 + 2 * i, 1, 4 * i + 1, 4 * i + 2);
    }
  } else if (kind == "huge") {
    head(f, 1);
    w.node(0, "scope", std::string(static_cast<size_t>(n), 'a'), -1, 1, 0, 100);
    w.node(1, "scope", std::string(static_cast<size_t>(n), 'b'), 0, 1, 10, 90);
    w.node(2, "kernel", std::string(static_cast<size_t>(n), 'k'), 1, 1, 20, 30, true);
  } else if (kind == "threads") {
    head(f, n);
    for (long i = 0; i < n; ++i) w.node(i, "scope", "work", -1, i + 1, i, i + 1);
  } else {
    return 2;
  }
  tail(f);
  return std::fclose(f) == 0 ? 0 : 1;
}
