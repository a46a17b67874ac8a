// How long the terminal browser takes to answer each key on a big trace:
// loads FILE as `brickprof view` does (the tree built before the first
// key), then sends key sequences to the browser and times each one with the
// redraw that follows, in process, without a terminal.
// Usage: bench_view_keys FILE
#include <chrono>
#include <cstdio>
#include <string>

#include "tools/view/browser.h"
#include "tools/view/keys.h"
#include "tools/view/session.h"
#include "trace/json/trace_json.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Step {
  const char* keys;  // '\n' is Enter
  const char* what;
};

// A session a person might have: move, open everything, sort, search,
// the detail pane, the other views, a scope and back.
constexpr Step kSteps[] = {
    {"j", "down"},
    {"l", "expand"},
    {"G", "last row"},
    {"g", "first row"},
    {"x", "expand everything below"},
    {"G", "last row"},
    {"X", "collapse everything below"},
    {"s", "sort by total"},
    {"s", "sort by average"},
    {"/Layer 99\n", "search (typed, incremental)"},
    {"n", "next match"},
    {"d", "detail pane (first time: its models)"},
    {"j", "down, detail"},
    {"S", "slowest kernel"},
    {"c", "next on the critical path"},
    {"2", "summary view"},
    {"3", "critical path view"},
    {"4", "roofline view"},
    {"5", "GPU idle view"},
    {"6", "launches view"},
    {"7", "transfers view"},
    {"8", "analyzer view"},
    {"1", "tree again"},
    {"uLayer 5\n", "under \"Layer 5\""},
    {"U", "the whole trace again"},
};

}  // namespace

int main(int argc, char** argv) {
  using namespace brickprof::view;
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_view_keys FILE\n");
    return 2;
  }
  auto t = Clock::now();
  Session session(brickprof::read_trace_file(argv[1]), argv[1]);
  std::printf("%-40s %8.3f s\n", "read", seconds_since(t));
  t = Clock::now();
  Browser browser(session, 120, 40);
  std::printf("%-40s %8.3f s\n", "tree", seconds_since(t));
  auto frame = [&] {
    Canvas canvas(120, 40, false);
    browser.draw(canvas);
  };
  t = Clock::now();
  frame();
  std::printf("%-40s %8.3f s\n", "first frame", seconds_since(t));
  for (const Step& step : kSteps) {
    t = Clock::now();
    for (const char* k = step.keys; *k; ++k)
      browser.key(*k == '\n' ? key::kEnter : static_cast<unsigned char>(*k));
    frame();
    std::printf("%-40s %8.3f s\n", step.what, seconds_since(t));
  }
  return 0;
}
