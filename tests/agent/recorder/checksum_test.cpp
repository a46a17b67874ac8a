// brickprof_checksum under the agent: each digest lands on the scope open
// when the program took it, with the values the program's buffer held
// (recomputed here from the same data), on every thread; what it cannot
// read, or takes outside every scope, is left out and said; and past
// BRICKPROF_BUFFER_MB digests are dropped and counted, not kept.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/support/preload_fixture.h"
#include "trace/json/trace_json.h"

namespace {

using brickprof::Digest;
using brickprof::ElementType;
using brickprof::OutputChecksum;
using brickprof::Trace;
using brickprof::test::Result;
using brickprof::test::run;

class ChecksumTest : public brickprof::test::PreloadFixture {
 protected:
  Trace run_app(const std::vector<std::string>& args, std::map<std::string, std::string> env) {
    std::vector<std::string> argv = {BRICKPROF_CHECKSUM_APP};
    argv.insert(argv.end(), args.begin(), args.end());
    const Result r = run(argv, env);
    EXPECT_EQ(r.exit_code(), 0) << r.err;
    const auto files = outputs();
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? Trace() : brickprof::read_trace_file(files[0].string());
  }
  static const OutputChecksum* named(const Trace& t, const std::string& name) {
    for (const OutputChecksum& c : t.checksums)
      if (t.strings.view(c.name) == name) return &c;
    return nullptr;
  }
  static void expect_same(const Digest& got, const Digest& want, const std::string& what) {
    EXPECT_EQ(got.fnv1a, want.fnv1a) << what;
    EXPECT_EQ(got.count, want.count) << what;
    EXPECT_EQ(got.nan, want.nan) << what;
    EXPECT_EQ(got.inf, want.inf) << what;
    EXPECT_DOUBLE_EQ(got.sum, want.sum) << what;
    EXPECT_DOUBLE_EQ(got.l2, want.l2) << what;
    EXPECT_DOUBLE_EQ(got.min, want.min) << what;
    EXPECT_DOUBLE_EQ(got.max, want.max) << what;
    for (size_t k = 0; k < brickprof::kProjections; ++k)
      EXPECT_DOUBLE_EQ(got.projections[k], want.projections[k]) << what << " projection " << k;
  }
};

// Checksum mode in a process with no GPU source: the trace says nothing
// was digested (it once said "off"), and the program's own digests stay.
TEST_F(ChecksumTest, ChecksumModeWithoutAGpuSaysNothingWasDigested) {
  auto env = agent_env();
  env["BRICKPROF_CHECKSUMS"] = "1";
  const Trace t = run_app({}, env);
  EXPECT_EQ(t.diagnostics.checksum_mode.rfind("none (no GPU source", 0), 0u)
      << t.diagnostics.checksum_mode;
  EXPECT_EQ(t.checksums.size(), 5u);
}

TEST_F(ChecksumTest, DigestsLandOnTheirScopesAsTheProgramComputedThem) {
  const Trace t = run_app({}, agent_env());
  ASSERT_EQ(t.checksums.size(), 5u);

  std::vector<float> out(4096);
  for (int i = 0; i < 4096; ++i) out[i] = static_cast<float>(i) / 1024.0f - 2.0f;
  const OutputChecksum* c = named(t, "out");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(t.name(t.nodes[c->node]), "RmsNorm");
  EXPECT_EQ(t.name(t.nodes[t.nodes[c->node].parent]), "Layer 0");
  EXPECT_EQ(c->type, ElementType::kF32);
  EXPECT_EQ(c->source, brickprof::ChecksumSource::kProgram);
  EXPECT_NE(c->address, 0u);
  expect_same(c->digest, brickprof::digest_of(out.data(), 4096, ElementType::kF32), "out");

  std::vector<float> with_nan = {0, 1, 2, NAN, 4, 5, 6, 7};
  c = named(t, "with nan");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->digest.nan, 1u);
  expect_same(c->digest, brickprof::digest_of(with_nan.data(), 8, ElementType::kF32), "nan");

  const int32_t ids[5] = {0, 1, 2, 3, 4};
  c = named(t, "ids");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->type, ElementType::kI32);
  expect_same(c->digest, brickprof::digest_of(ids, 5, ElementType::kI32), "ids");

  const unsigned char raw[3] = {1, 2, 3};
  c = named(t, "raw");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->type, ElementType::kBytes);
  expect_same(c->digest, brickprof::digest_of(raw, 3, ElementType::kBytes), "raw");

  // The RmsNorm's four in the order taken, then the worker thread's.
  EXPECT_EQ(t.strings.view(t.checksums[0].name), "out");
  EXPECT_EQ(t.strings.view(t.checksums[1].name), "with nan");
  EXPECT_EQ(t.strings.view(t.checksums[2].name), "ids");
  EXPECT_EQ(t.strings.view(t.checksums[3].name), "raw");
  const OutputChecksum& w = t.checksums[4];
  EXPECT_EQ(t.name(t.nodes[w.node]), "worker");
  EXPECT_NE(t.nodes[w.node].thread, t.nodes[t.checksums[0].node].thread);
  std::vector<float> worker(16);
  for (int i = 0; i < 16; ++i) worker[i] = static_cast<float>(i);
  expect_same(w.digest, brickprof::digest_of(worker.data(), 16, ElementType::kF32), "worker");

  EXPECT_EQ(named(t, "unreadable"), nullptr);
  EXPECT_EQ(named(t, "outside"), nullptr);
  std::string warnings;
  for (const std::string& s : t.diagnostics.warnings) warnings += s + "\n";
  EXPECT_NE(warnings.find("1 output checksums left out: they did not fit"), std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("1 output checksums left out: taken outside every scope"),
            std::string::npos)
      << warnings;
}

// Without the agent every call is a no-op and the program runs the same.
TEST_F(ChecksumTest, WithoutTheAgentNothingChanges) {
  const Result r = expect_unchanged({BRICKPROF_CHECKSUM_APP});
  EXPECT_EQ(r.exit_code(), 0);
}

// 20000 digests (~5 MB kept unbounded) under a 1 MB budget: those that do
// not fit are dropped and counted; those kept are whole.
TEST_F(ChecksumTest, DigestsPastTheBudgetAreDroppedAndCounted) {
  auto env = agent_env();
  env["BRICKPROF_BUFFER_MB"] = "1";
  const Trace t = run_app({"many", "20000"}, env);
  ASSERT_FALSE(t.checksums.empty());
  EXPECT_LT(t.checksums.size(), 20000u);
  std::string warnings;
  for (const std::string& s : t.diagnostics.warnings) warnings += s + "\n";
  const std::string left_out = std::to_string(20000 - t.checksums.size()) + " output checksums";
  EXPECT_NE(warnings.find(left_out), std::string::npos) << warnings;
  std::vector<float> out(64);
  for (int i = 0; i < 64; ++i) out[i] = static_cast<float>(i) / 1024.0f - 2.0f;
  expect_same(t.checksums.back().digest, brickprof::digest_of(out.data(), 64, ElementType::kF32),
              "the last kept");
}

}  // namespace
