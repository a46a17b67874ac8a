// The agent's exit write and `brickprof report` write each format through
// the same sink (trace/output/trace_sink.h), so the files the agent leaves
// and what `report X.json --FORMAT -o Y` writes from its JSON are the same
// bytes, format by format, for every kind of run: CPU threads (with output
// checksums), GPU work on
// the fake driver (copies, capture windows, graph replays), and a CPU-only
// rank of an MPI job (its Chrome trace carries the "CPU work" track HTA
// reads). The JSON read back and written again is the same file, and the
// json.gz is the JSON compressed.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/read_file.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "trace/json/json_writer.h"
#include "trace/json/trace_json.h"
#include "trace/output/whole_trace.h"
#ifdef FAKE_GPU_APP
#include "tests/fakes/cuda_driver/fake_gpu_app.h"
#endif

namespace fs = std::filesystem;
using brickprof::test::read_file;
using brickprof::test::Result;
using brickprof::test::run;

namespace {

// Every format the agent writes beside its JSON, by the report flag that
// writes the same file from the JSON (the tree: the --tree view, which is
// that file), with its extension.
const std::map<std::string, std::string> kReportedFiles = {{"tree", ".tree.txt"},
                                                           {"dot", ".dot"},
                                                           {"chrome", ".trace.json"},
                                                           {"folded", ".folded"},
                                                           {"perfetto", ".pftrace"}};
constexpr char kEveryFormat[] = "json,json.gz,tree,dot,chrome,folded,perfetto";

class ExitMatchesReport : public brickprof::test::TempDirTest {
 protected:
  // Runs argv with the agent writing every format to dir_/out.* (a rank's
  // to out-rR.*), then checks each file against what report writes from
  // the JSON.
  // Returns the prefix of the files.
  std::string check(const std::vector<std::string>& argv, std::map<std::string, std::string> env) {
    env["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
    env["BRICKPROF_OUTPUT"] = (dir_ / "out").string();
    env["BRICKPROF_FORMATS"] = kEveryFormat;
    const Result r = run(argv, env);
    EXPECT_EQ(r.exit_code(), 0) << r.err;
    std::string prefix;
    for (const auto& e : fs::directory_iterator(dir_))
      if (const std::string p = e.path().string(); p.ends_with(".json.gz"))
        prefix = p.substr(0, p.size() - 8);
    EXPECT_FALSE(prefix.empty()) << "no .json.gz written: " << r.err;
    if (prefix.empty()) return prefix;
    const std::string json = prefix + ".json";
    for (const auto& [format, extension] : kReportedFiles) {
      const fs::path reported = dir_ / ("report." + format);
      const Result rep =
          run({BRICKPROF_BIN, "report", json, "--" + format, "-o", reported.string()}, {});
      EXPECT_EQ(rep.exit_code(), 0) << format << ": " << rep.err;
      const std::string written = read_file(prefix + extension);
      EXPECT_FALSE(written.empty()) << format;
      EXPECT_TRUE(written == read_file(reported.string()))
          << format << ": the agent's " << prefix << extension << " differs from report --"
          << format;
    }
    const std::string bytes = read_file(json);
    std::ostringstream again;
    brickprof::write_format("json", brickprof::read_trace_file(json), again);
    EXPECT_TRUE(again.str() == bytes) << "the JSON read and written again differs";
    const Result gunzip = run({"gzip", "-dc", prefix + ".json.gz"}, {});
    EXPECT_EQ(gunzip.exit_code(), 0) << gunzip.err;
    EXPECT_TRUE(gunzip.out == bytes) << "the .json.gz is not the .json compressed";
    if (HasFailure()) {
      keep_ = true;
      std::cerr << "the files are kept in " << dir_ << "\n";
    }
    return prefix;
  }

  void TearDown() override {
    if (!keep_) TempDirTest::TearDown();
  }

  bool keep_ = false;
};

TEST_F(ExitMatchesReport, CpuThreads) { check({BRICKPROF_ANNOTATED_APP, "threads"}, {}); }

// The program's output checksums (brickprof_checksum) on two threads, with
// the warnings for those left out: the JSON's checksums section read and
// written again the same.
TEST_F(ExitMatchesReport, ProgramChecksums) {
  const std::string prefix = check({BRICKPROF_CHECKSUM_APP}, {});
  EXPECT_NE(read_file(prefix + ".json").find("\"checksums\":["), std::string::npos);
}

// A program's counters and tokens go through every format as report
// writes them; its tokens per second is its count over the time of the
// scope it reported them in, exactly as README defines it.
TEST_F(ExitMatchesReport, CountersAndTokens) {
  const std::string prefix = check({BRICKPROF_ANNOTATED_APP, "tokens"}, {});
  ASSERT_FALSE(prefix.empty());
  const brickprof::Trace t = brickprof::read_trace_file(prefix + ".json");
  int64_t generate_ns = -1;
  for (const brickprof::Node& n : t.nodes)
    if (t.name(n) == "generate") generate_ns = n.duration_ns();
  ASSERT_GT(generate_ns, 0);
  uint64_t tokens = 0, steps = 0;
  for (const brickprof::CounterSample& c : t.counters) {
    if (c.kind == brickprof::CounterKind::kTokens) tokens += static_cast<uint64_t>(c.value);
    if (t.strings.view(c.name) == "step") {
      EXPECT_EQ(c.value, static_cast<double>(steps++));
    }
    EXPECT_NE(t.strings.view(c.name), "not a number");
  }
  EXPECT_EQ(tokens, 12u);
  EXPECT_EQ(steps, 4u);
  EXPECT_EQ(t.diagnostics.ignored_api_calls, 1u) << "the NaN sample is counted";
  const Result rep = run({BRICKPROF_BIN, "report", prefix + ".json", "--tokens", "--json"}, {});
  ASSERT_EQ(rep.exit_code(), 0) << rep.err;
  const std::string expected = "\"window_ns\":" + std::to_string(generate_ns) + ",";
  EXPECT_NE(rep.out.find(expected), std::string::npos) << rep.out;
  std::ostringstream rate;
  brickprof::JsonWriter w(rate);
  w.value(12 * 1e9 / static_cast<double>(generate_ns));
  w.flush();
  EXPECT_NE(rep.out.find("\"tokens_per_second\":" + rate.str() + ","), std::string::npos)
      << rep.out << " (expected " << rate.str() << ")";
  const std::string chrome = read_file(prefix + ".trace.json");
  EXPECT_NE(chrome.find("\"ph\":\"C\",\"name\":\"step\""), std::string::npos);
  EXPECT_NE(chrome.find("\"ph\":\"C\",\"name\":\"tokens\""), std::string::npos);
}

// One rank of an Open MPI job that computes on its CPU: its Chrome trace
// gives HTA a device timeline, the "CPU work (rank R)" track.
TEST_F(ExitMatchesReport, CpuOnlyMpiRank) {
  const std::string prefix =
      check({BRICKPROF_ANNOTATED_APP, "threads"}, {{"OMPI_COMM_WORLD_RANK", "1"},
                                                   {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                                   {"OMPI_COMM_WORLD_SIZE", "2"}});
  const std::string chrome = read_file(prefix + ".trace.json");
  EXPECT_NE(chrome.find("\"CPU work (rank 1)\""), std::string::npos);
  EXPECT_NE(chrome.find("\"cat\":\"kernel\",\"pid\":16777216"), std::string::npos);
}

#ifdef FAKE_GPU_APP
std::map<std::string, std::string> fake_cuda() { return {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}}; }

TEST_F(ExitMatchesReport, GpuLayersAndCopies) { check({FAKE_GPU_APP}, fake_cuda()); }

TEST_F(ExitMatchesReport, GpuGraphReplays) {
  check({FAKE_GPU_APP, fake_gpu_app::kGraph, "3"}, fake_cuda());
}

TEST_F(ExitMatchesReport, GpuCaptureWindow) {
  auto env = fake_cuda();
  env["BRICKPROF_CAPTURE"] = "cuda-profiler-api";
  check({FAKE_GPU_APP, fake_gpu_app::kProfileLastLayer}, env);
}

// A GPU rank: distributedInfo, no CPU work track.
TEST_F(ExitMatchesReport, GpuMpiRank) {
  auto env = fake_cuda();
  env["OMPI_COMM_WORLD_RANK"] = "0";
  env["OMPI_COMM_WORLD_LOCAL_RANK"] = "0";
  env["OMPI_COMM_WORLD_SIZE"] = "2";
  check({FAKE_GPU_APP}, env);
}
#endif

}  // namespace
