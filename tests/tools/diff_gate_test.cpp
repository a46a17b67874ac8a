// `brickprof diff` as a CI gate on real runs: bricklayer profiled by the real
// agent, run after run on whatever else this machine is doing. Two runs of
// the same configuration pass in 20 of 20 pairs, and a run whose
// DownProjection does its work twice (bricklayer --repeat-brick, a measured
// slow-down, not a stand-in) fails in 20 of 20 with that brick named. The
// margins each side kept are printed, so a run of the test shows how close
// the gate came.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "spawn.h"

namespace brickprof::test {
namespace {

using nlohmann::json;

constexpr int kPairs = 20;
constexpr const char* kSlowBrick = "DownProjection";

// Small enough for ~0.2 s a run, large enough that the GEMVs dominate; one
// thread, so the pool's spinning does not meet the rest of the suite.
const std::vector<std::string> kConfig = {
    "--layers", "2",    "--hidden", "1024", "--ffn",    "2048", "--heads", "8",  "--kv-heads",
    "4",        "--vocab", "1024",  "--prompt", "4",    "--tokens", "32",  "--threads", "1",
    "--probe-seconds", "0"};

std::string record(const std::string& dir, const std::string& name,
                   const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"run", "--formats", "json", "--output", dir + "/" + name, "--",
                                   BRICKLAYER};
  args.insert(args.end(), kConfig.begin(), kConfig.end());
  args.insert(args.end(), extra.begin(), extra.end());
  CliResult r = run_brickprof(args, {{"BRICKPROF_AGENT", BRICKPROF_AGENT_PATH}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir + "/" + name + ".json";
}

struct Verdict {
  int exit_code = -1;
  json diff;
};

Verdict judge(const std::string& base, const std::string& next) {
  CliResult r = run_brickprof({"diff", "--json", base, next});
  Verdict v;
  v.exit_code = r.exit_code;
  if (r.exit_code == 0 || r.exit_code == 1) v.diff = json::parse(r.out);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  return v;
}

// How close an entry came to each limit of a regression: its interval's
// low end beyond the others' move, against the limit (the threshold widened
// by that move), in percentage points; and the time it adds, in floors.
struct Margin {
  double over_limit = -1e9;   // low end - limit: > 0 means beyond it
  double floors = -1e9;       // added time / floor: > 1 means above it
  double estimate_pct = -1e9;
};

Margin margin_of(const json& d, const json& e) {
  return {e["relative_low_pct"].get<double>() - e["limit_pct"].get<double>(),
          e["added_ns"].get<double>() / d["bricks"]["floor_ns"].get<double>(),
          e["relative_pct"].get<double>()};
}

TEST(DiffGate, SameRunsPassAndADoubledBrickFails) {
  const std::string dir = fresh_dir("diff_gate");
  std::vector<std::string> same, slow;
  // Interleaved, so both kinds of run meet the same spells of load.
  same.push_back(record(dir, "same-0"));
  for (int i = 1; i <= kPairs; ++i) {
    same.push_back(record(dir, "same-" + std::to_string(i)));
    slow.push_back(record(dir, "slow-" + std::to_string(i),
                          {"--repeat-brick", std::string(kSlowBrick) + "=2"}));
  }
  int passed = 0, failed = 0;
  Margin same_worst;  // the closest any entry of a same-run pair came, per limit
  // The entry that came closest to both at once: the smaller of its two
  // margins (points past the limit, floors past one floor, x100), largest.
  double closest = -1e9;
  std::string closest_what;
  Margin slow_least{1e9, 1e9, 1e9};  // the least the doubled brick showed
  for (int i = 0; i < kPairs; ++i) {
    const Verdict v = judge(same[i], same[i + 1]);
    passed += v.exit_code == 0;
    EXPECT_EQ(v.exit_code, 0) << same[i] << " vs " << same[i + 1] << ": " << v.diff.dump(1);
    if (!v.diff.is_null()) {
      for (const json& e : v.diff["entries"]) {
        if (e["base_count"] == 0 || e["new_count"] == 0) continue;
        const Margin m = margin_of(v.diff, e);
        same_worst.over_limit = std::max(same_worst.over_limit, m.over_limit);
        same_worst.floors = std::max(same_worst.floors, m.floors);
        same_worst.estimate_pct = std::max(same_worst.estimate_pct, m.estimate_pct);
        const double both = std::min(m.over_limit, 100 * (m.floors - 1));
        if (both > closest) {
          closest = both;
          char what[160];
          std::snprintf(what, sizeof what, "%s, interval low %+.1f points past its limit, %.2f floors",
                        e["name"].get<std::string>().c_str(), m.over_limit, m.floors);
          closest_what = what;
        }
      }
    }

    const Verdict w = judge(same[i + 1], slow[i]);
    failed += w.exit_code == 1;
    EXPECT_EQ(w.exit_code, 1) << same[i + 1] << " vs " << slow[i] << ": " << w.diff.dump(1);
    if (w.diff.is_null()) continue;
    EXPECT_EQ(w.diff["regressions"], 1) << w.diff.dump(1);
    for (const json& e : w.diff["entries"]) {
      if (e["name"] == kSlowBrick) {
        const Margin m = margin_of(w.diff, e);
        slow_least.over_limit = std::min(slow_least.over_limit, m.over_limit);
        slow_least.floors = std::min(slow_least.floors, m.floors);
        slow_least.estimate_pct = std::min(slow_least.estimate_pct, m.estimate_pct);
      } else if (e["regression"] == true) {
        ADD_FAILURE() << "not the doubled brick: " << e;
      }
    }
  }
  std::printf(
      "same runs: %d of %d passed; the most any brick reached on each limit (a regression "
      "needs both): interval low %+.1f points past its limit, %.2f floors added; largest "
      "estimate %+.1f%% beyond the others; closest to both: %s\n"
      "%s x2: %d of %d failed; the least it showed: interval low %+.1f points beyond its "
      "limit, %.2f floors added, estimate %+.1f%% beyond the others\n",
      passed, kPairs, same_worst.over_limit, same_worst.floors, same_worst.estimate_pct,
      closest_what.c_str(), kSlowBrick, failed, kPairs, slow_least.over_limit, slow_least.floors,
      slow_least.estimate_pct);
}

}  // namespace
}  // namespace brickprof::test
