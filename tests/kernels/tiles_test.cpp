// bricklayer under the agent, on every CPU backend this machine has: each
// MulMat's tiles are what its blocking implies, computed here from the
// shapes the trace carries (one thread: each MulMat is one call, a macro
// tile, its rows run in midi tiles of 64 and micro tiles of 16,
// kernels/gemv_tiles.h), and `report --tiles` has every level of every
// projection brick with its time, elements and bytes. With a pool, the
// caller marks the chunks it runs (at most what the blocking implies) and
// the workers none: no tile is left out for want of a scope.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"

namespace {

using brickprof::test::Result;
using brickprof::test::run;
using nlohmann::json;

const std::vector<std::string> kSmallModel = {
    "--layers", "2",   "--hidden", "256", "--heads",  "4", "--kv-heads",      "2", "--ffn", "512",
    "--vocab",  "512", "--prompt", "4",   "--tokens", "3", "--probe-seconds", "0"};

struct Counts {
  uint64_t tiles[3] = {0, 0, 0};  // macro, midi, micro
  uint64_t elements = 0;          // per level alike: the rows × k × tokens
};

// The blocking of one MulMat of `n` rows of `k` over `m` tokens on one
// thread: the pool runs it as one chunk, one macro tile (cpu_backend.cpp),
// its rows in midi tiles of 64 and those in micro tiles of 16 (gemv_tiles.h).
void add_mulmat(int64_t n, int64_t k, int64_t m, Counts& c) {
  ++c.tiles[0];
  for (int64_t a = 0; a < n; a += 64) {
    const int64_t midi = std::min<int64_t>(64, n - a);
    ++c.tiles[1];
    c.tiles[2] += static_cast<uint64_t>((midi + 15) / 16);
  }
  c.elements += static_cast<uint64_t>(n * k * m);
}

class TilesTest : public brickprof::test::TempDirTest {
 protected:
  // The trace of bricklayer on `backend`, or null when this CPU lacks it.
  json run_backend(const std::string& backend, int threads) {
    std::vector<std::string> argv = {BRICKLAYER, "--backend", backend, "--threads",
                                     std::to_string(threads)};
    argv.insert(argv.end(), kSmallModel.begin(), kSmallModel.end());
    const std::string out = (dir_ / backend).string();
    Result r = run(argv, {{"LD_PRELOAD", BRICKPROF_AGENT_PATH},
                          {"BRICKPROF_OUTPUT", out},
                          {"BRICKPROF_FORMATS", "json"}});
    if (r.exit_code() == 2 && r.err.find(backend) != std::string::npos) return nullptr;
    EXPECT_EQ(r.exit_code(), 0) << r.err;
    std::ifstream in(out + ".json");
    return json::parse(in, nullptr, false);
  }

  // What the blocking implies per brick name, from every MulMat brick's shapes.
  static std::map<std::string, Counts> expected(const json& t) {
    std::map<uint64_t, const json*> shape_of;
    for (const json& s : t["shapes"]) shape_of[s["node"].get<uint64_t>()] = &s;
    std::map<std::string, Counts> by_brick;
    for (const json& n : t["nodes"]) {
      if (n["kind"] != "brick") continue;
      const std::string name = n["name"];
      if (name.find("Projection") == std::string::npos && name != "LmHead") continue;
      auto it = shape_of.find(n["id"].get<uint64_t>());
      if (it == shape_of.end()) continue;
      const json& w = (*it->second)["inputs"][0];
      const json& x = (*it->second)["inputs"][1];
      add_mulmat(w[0].get<int64_t>(), w[1].get<int64_t>(), x[0].get<int64_t>(), by_brick[name]);
    }
    return by_brick;
  }

  json report_tiles(const std::string& backend) {
    Result r = run(
        {BRICKPROF_BIN, "report", "--tiles", "--json", (dir_ / backend).string() + ".json"}, {});
    EXPECT_EQ(r.exit_code(), 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }
};

TEST_F(TilesTest, TileCountsAreWhatTheBlockingImpliesOnEveryBackend) {
  int ran = 0;
  for (const std::string backend : {"scalar", "avx2", "avx512"}) {
    SCOPED_TRACE(backend);
    const json t = run_backend(backend, 1);
    if (t.is_null()) continue;  // not this CPU
    ASSERT_FALSE(t.is_discarded());
    ++ran;
    const std::map<std::string, Counts> want = expected(t);
    ASSERT_FALSE(want.empty());
    const json report = report_tiles(backend);
    ASSERT_TRUE(report.contains("tiles")) << report.dump().substr(0, 500);
    std::map<std::string, Counts> got;
    for (const json& row : report["tiles"]["bricks"]) {
      const std::string level = row["level"];
      const int i = level == "macro" ? 0 : level == "midi" ? 1 : 2;
      Counts& c = got[row["name"].get<std::string>()];
      c.tiles[i] = row["count"].get<uint64_t>();
      if (i == 2) c.elements = row["elements"].get<uint64_t>();
      EXPECT_GT(row["total_ns"].get<int64_t>(), 0) << row;
      EXPECT_GT(row["bytes"].get<uint64_t>(), 0u) << row;
      EXPECT_GT(row["bytes_per_second"].get<double>(), 0) << row;
    }
    for (const auto& [brick, w] : want) {
      SCOPED_TRACE(brick);
      const Counts& g = got[brick];
      EXPECT_EQ(g.tiles[0], w.tiles[0]) << "macro";
      EXPECT_EQ(g.tiles[1], w.tiles[1]) << "midi";
      EXPECT_EQ(g.tiles[2], w.tiles[2]) << "micro";
      EXPECT_EQ(g.elements, w.elements);
    }
    EXPECT_EQ(got.size(), want.size());  // no tiles anywhere else
  }
  EXPECT_GE(ran, 1);  // scalar runs everywhere
}

TEST_F(TilesTest, WithAPoolTheCallerMarksItsChunksAndNoTileIsLeftOut) {
  const json t = run_backend("scalar", 2);
  ASSERT_FALSE(t.is_null() || t.is_discarded());
  for (const json& w : t["diagnostics"]["warnings"])
    EXPECT_EQ(w.get<std::string>().find("tiles left out"), std::string::npos) << w;
  EXPECT_EQ(t["diagnostics"]["dropped_events"], 0);
  const std::map<std::string, Counts> bricks = expected(t);
  const json report = report_tiles("scalar");
  uint64_t macro = 0;
  for (const json& row : report["tiles"]["bricks"]) {
    EXPECT_TRUE(bricks.count(row["name"].get<std::string>())) << row;  // only MulMat bricks
    if (row["level"] == "macro") macro += row["count"].get<uint64_t>();
  }
  EXPECT_GT(macro, 0u);  // the caller's chunks
}

}  // namespace
