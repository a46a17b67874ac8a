// The folded export against the plain definition it replaces (every
// entry's whole stack string, summed in a map sorted by stack): the same
// bytes on random trees whose names are prefixes of each other, hold ';',
// spaces, tabs and UTF-8, across threads; and at depth, 127 frames and one
// for the rest.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <sstream>
#include <string>

#include "tests/support/trace_builder.h"
#include "trace/derive/aggregate_tree.h"
#include "trace/formats/folded.h"
#include "trace/model/printable.h"
#include "trace/model/queries.h"
#include "trace/output/whole_trace.h"

namespace brickprof {
namespace {

// The definition: one line per distinct stack text, weights summed.
std::string reference_folded(const Trace& trace) {
  AggregateTree tree = build_aggregate_tree(trace);
  // A name as every text output shows it (a newline as "\n"), ';' as ':'.
  auto frame = [](std::string_view name) {
    std::string s = printable(name);
    for (char& c : s) c = c == ';' ? ':' : c;
    return s;
  };
  std::vector<std::string> stacks(tree.nodes.size());
  std::map<std::string, int64_t> weights;
  for (uint32_t agg = 1; agg < tree.nodes.size(); ++agg) {
    const AggregateNode& a = tree.nodes[agg];
    std::string& s = stacks[agg];
    if (a.first == kNoNode) {
      if (tree.multi_thread()) s = frame(thread_label(trace, a.thread));
      continue;
    }
    s = stacks[a.parent];
    if (!s.empty()) s.push_back(';');
    s += frame(node_label(trace, trace.nodes[a.first]));
    if (a.self_ns > 0) weights[s] += a.self_ns;
  }
  std::string out;
  for (const auto& [stack, ns] : weights) out += stack + " " + std::to_string(ns) + "\n";
  return out;
}

std::string folded(const Trace& trace) {
  std::ostringstream out;
  write_format("folded", trace, out);
  return out.str();
}

Trace random_trace(unsigned seed, int threads) {
  static const char* kNames[] = {"A", "A B", "A;B",  "AB", "A:B", "B",     "\xc3\xa9", "\xc3\xa9x",
                                 "a", "A!",  "A\tX", "Z",  "A;",  "A B;C", "",         "A\nB"};
  std::mt19937 rng(seed);
  auto pick = [&] { return kNames[rng() % (sizeof kNames / sizeof kNames[0])]; };
  Trace t;
  int64_t time = 0;
  for (int th = 1; th <= threads; ++th) {
    t.threads.push_back({static_cast<uint32_t>(th), th == 2 ? "y;z" : "x"});
    for (int r = 0; r < 40; ++r) {
      std::vector<uint32_t> open;
      for (int step = 0; step < 12; ++step) {
        const NodeKind kind = rng() % 5 == 0 ? NodeKind::kBrick : NodeKind::kScope;
        uint32_t id =
            test::add_node(t, {.kind = kind,
                               .name = pick(),
                               .parent = open.empty() ? kNoNode : open.back(),
                               .thread = static_cast<uint32_t>(th),
                               .start_ns = time,
                               .end_ns = time + 1000 - 50 * static_cast<int64_t>(open.size())});
        time += 1 + rng() % 7;
        if (rng() % 3 != 0 && open.size() < 6) open.push_back(id);
        if (rng() % 4 == 0 && !open.empty()) open.pop_back();
      }
      time += 1000;
    }
  }
  return t;
}

TEST(Folded, SameBytesAsTheWholeStackDefinition) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    for (int threads : {1, 2}) {
      Trace t = random_trace(seed, threads);
      EXPECT_EQ(folded(t), reference_folded(t)) << "seed " << seed << ", threads " << threads;
    }
  }
}

TEST(Folded, DeepStacksKeep127FramesAndOneForTheRest) {
  Trace t;
  const int depth = 1000;
  for (int i = 0; i < depth; ++i)
    test::add_node(t, {.name = "level " + std::to_string(i),
                       .parent = i == 0 ? kNoNode : static_cast<uint32_t>(i - 1),
                       .start_ns = i,
                       .end_ns = 2 * depth - i});  // self time 2 ns each
  std::istringstream lines(folded(t));
  std::string line, last;
  size_t count = 0;
  while (std::getline(lines, line)) {
    ++count;
    last = line;
  }
  EXPECT_EQ(count, kMaxFoldedFrames + 1u);
  EXPECT_EQ(std::count(last.begin(), last.end(), ';'), static_cast<long>(kMaxFoldedFrames));
  // The last frame holds the self time of every level past the 127th.
  const std::string tail = ";[deeper frames] " + std::to_string(2 * (depth - kMaxFoldedFrames));
  EXPECT_EQ(last.substr(last.size() - tail.size()), tail) << last.substr(last.size() - 80);
}

}  // namespace
}  // namespace brickprof
