// Tiles under the agent (BRICKPROF_TILE, brickprof_tile_begin/end): each
// level's count, elements and bytes land on the scope open when the tiles
// ended, exactly as the program's blocking made them, on every thread; a
// tile outside every scope or of no level is left out and said; and a run
// of tiles takes no room per tile.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/preload_fixture.h"
#include "trace/json/trace_json.h"

namespace {

using brickprof::TileLevel;
using brickprof::TileStats;
using brickprof::Trace;
using brickprof::test::Result;
using brickprof::test::run;

class TileTest : public brickprof::test::PreloadFixture {
 protected:
  Trace run_app(const std::vector<std::string>& args, std::map<std::string, std::string> env) {
    std::vector<std::string> argv = {BRICKPROF_TILE_APP};
    argv.insert(argv.end(), args.begin(), args.end());
    const Result r = run(argv, env);
    EXPECT_EQ(r.exit_code(), 0) << r.err;
    const auto files = outputs();
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? Trace() : brickprof::read_trace_file(files[0].string());
  }
  // The entry of the node named `node` at `level`, or nullptr.
  static const TileStats* find(const Trace& t, const std::string& node, TileLevel level) {
    for (const TileStats& s : t.tiles)
      if (t.name(t.nodes[s.node]) == node && s.level == level) return &s;
    return nullptr;
  }
  static bool warns(const Trace& t, const std::string& text) {
    for (const std::string& w : t.diagnostics.warnings)
      if (w.find(text) != std::string::npos) return true;
    return false;
  }
};

TEST_F(TileTest, EachLevelAddsUpOnItsScopeAsTheBlockingMadeIt) {
  const Trace t = run_app({}, agent_env());
  const TileStats* macro = find(t, "GateProjection", TileLevel::kMacro);
  const TileStats* midi = find(t, "GateProjection", TileLevel::kMidi);
  const TileStats* micro = find(t, "GateProjection", TileLevel::kMicro);
  ASSERT_NE(macro, nullptr);
  ASSERT_NE(midi, nullptr);
  ASSERT_NE(micro, nullptr);
  EXPECT_EQ(macro->count, 4u);
  EXPECT_EQ(macro->elements, 4u << 18);
  EXPECT_EQ(macro->bytes, 4u << 20);
  EXPECT_EQ(midi->count, 32u);
  EXPECT_EQ(midi->elements, 32u << 15);
  EXPECT_EQ(midi->bytes, 32u << 17);
  EXPECT_EQ(micro->count, 512u);  // the epilogue's 3 are its own
  EXPECT_EQ(micro->elements, 512u * 64);
  EXPECT_EQ(micro->bytes, 512u * 256);
  // Nested tiles: a macro tile's time holds its midi tiles', theirs the micro ones'.
  EXPECT_GT(micro->total_ns, 0);
  EXPECT_GE(midi->total_ns, micro->total_ns);
  EXPECT_GE(macro->total_ns, midi->total_ns);
  const int64_t brick_ns = t.nodes[macro->node].duration_ns();
  EXPECT_LE(macro->total_ns, brick_ns);
  EXPECT_EQ(macro->thread, t.nodes[macro->node].thread);

  const TileStats* epilogue = find(t, "epilogue", TileLevel::kMicro);
  ASSERT_NE(epilogue, nullptr);
  EXPECT_EQ(epilogue->count, 3u);
  EXPECT_EQ(t.name(t.nodes[t.nodes[epilogue->node].parent]), "GateProjection");
  EXPECT_EQ(find(t, "epilogue", TileLevel::kMidi), nullptr);

  const TileStats* worker = find(t, "worker", TileLevel::kMidi);
  ASSERT_NE(worker, nullptr);
  EXPECT_EQ(worker->count, 5u);
  EXPECT_EQ(worker->bytes, 2000u);
  EXPECT_NE(worker->thread, macro->thread);

  EXPECT_EQ(find(t, "bad level", TileLevel::kMacro), nullptr);
  EXPECT_EQ(t.tiles.size(), 5u);
  EXPECT_TRUE(warns(t, "1 tiles left out: they ended outside every scope"));
  // The one of no level is the program's mistake, not a full buffer's loss.
  EXPECT_EQ(t.diagnostics.ignored_api_calls, 1u);
  EXPECT_EQ(t.diagnostics.dropped_events, 0u);
  EXPECT_TRUE(warns(t, "1 scope API calls left out: their arguments cannot be kept"));
  EXPECT_FALSE(warns(t, "event buffer cap"));

  // The cache bandwidths make the host's "cpu" entry (no peaks were set).
  ASSERT_FALSE(t.devices.empty());
  const brickprof::Device& cpu = t.devices.back();
  EXPECT_EQ(cpu.name, "cpu");
  EXPECT_EQ(cpu.cache_gbps[0], 100);
  EXPECT_EQ(cpu.cache_gbps[1], 50);
  EXPECT_EQ(cpu.cache_gbps[2], 0);
  EXPECT_EQ(cpu.peak_gflops, 0);
}

// A million tiles in one brick fit a 1 MiB budget: they add up in place.
TEST_F(TileTest, ARunOfTilesTakesNoRoomPerTile) {
  auto env = agent_env();
  env["BRICKPROF_BUFFER_MB"] = "1";
  const Trace t = run_app({"many", "1000000"}, env);
  const TileStats* micro = find(t, "many", TileLevel::kMicro);
  ASSERT_NE(micro, nullptr);
  EXPECT_EQ(micro->count, 1000000u);
  EXPECT_EQ(micro->elements, 1000000u);
  EXPECT_EQ(micro->bytes, 4000000u);
  EXPECT_EQ(t.diagnostics.dropped_events, 0u);
}

}  // namespace
