// Environment parsing: defaults, every variable, and bad values -> warning + default.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "agent/io/config.h"
#include "tests/support/fake_env.h"

namespace brickprof::agent {
namespace {

Config read(std::map<std::string, std::string> env) {
  test::fake_env() = std::move(env);
  return read_config(test::fake_getenv);
}

TEST(ConfigTest, Defaults) {
  Config c = read({});
  EXPECT_EQ(c.output, "brickprof-%n-%p");
  EXPECT_EQ(c.formats, (std::vector<std::string>{"json", "tree", "dot"}));
  EXPECT_EQ(c.buffer_bytes, 256ull << 20);
  EXPECT_TRUE(c.gpu);
  EXPECT_EQ(c.sync, SyncMode::kDeferred);
  EXPECT_EQ(c.ptx, PtxMode::kHash);
  EXPECT_EQ(c.signal_dump_seconds, 20u);
  EXPECT_EQ(c.capture, capture::Mode::kAll);
  EXPECT_EQ(c.graph_trace, GraphTrace::kNode);
  EXPECT_EQ(c.cmdline, CmdlineMode::kFull);
  EXPECT_EQ(c.run_pid, 0);
  EXPECT_EQ(c.run_manifest, "");
  EXPECT_TRUE(c.warnings.empty());
}

TEST(ConfigTest, ReadsEveryVariable) {
  Config c = read({{"BRICKPROF_OUTPUT", "/tmp/x-%p"},
                   {"BRICKPROF_FORMATS", "json,chrome,folded"},
                   {"BRICKPROF_LOG", "debug"},
                   {"BRICKPROF_BUFFER_MB", "16"},
                   {"BRICKPROF_GPU", "off"},
                   {"BRICKPROF_SYNC", "per-layer"},
                   {"BRICKPROF_PTX", "source"},
                   {"BRICKPROF_SIGNAL_DUMP_SECONDS", "90"},
                   {"BRICKPROF_CAPTURE", "scope:decode token"},
                   {"BRICKPROF_CUDA_GRAPH_TRACE", "graph"},
                   {"BRICKPROF_CMDLINE", "program"},
                   {"BRICKPROF_RUN_PID", "1234"},
                   {"BRICKPROF_RUN_MANIFEST", "/tmp/brickprof-run-x"}});
  EXPECT_EQ(c.output, "/tmp/x-%p");
  EXPECT_EQ(c.formats, (std::vector<std::string>{"json", "chrome", "folded"}));
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_EQ(c.buffer_bytes, 16ull << 20);
  EXPECT_FALSE(c.gpu);
  EXPECT_EQ(c.sync, SyncMode::kPerLayer);
  EXPECT_EQ(c.ptx, PtxMode::kSource);
  EXPECT_EQ(c.signal_dump_seconds, 90u);
  EXPECT_EQ(c.capture, capture::Mode::kScope);
  EXPECT_EQ(c.capture_scope, "decode token");
  EXPECT_EQ(c.graph_trace, GraphTrace::kGraph);
  EXPECT_EQ(c.cmdline, CmdlineMode::kProgram);
  EXPECT_EQ(c.run_pid, 1234);
  EXPECT_EQ(c.run_manifest, "/tmp/brickprof-run-x");
  EXPECT_TRUE(c.warnings.empty());
}

TEST(ConfigTest, BadValuesWarnOnceEachAndKeepDefaults) {
  Config c = read({{"BRICKPROF_FORMATS", "json,pdf"},
                   {"BRICKPROF_LOG", "loud"},
                   {"BRICKPROF_BUFFER_MB", "12abc"},
                   {"BRICKPROF_GPU", "maybe"},
                   {"BRICKPROF_SYNC", "sometimes"},
                   {"BRICKPROF_PTX", "all"},
                   {"BRICKPROF_SIGNAL_DUMP_SECONDS", "0"},
                   {"BRICKPROF_CAPTURE", "scope:"},
                   {"BRICKPROF_CUDA_GRAPH_TRACE", "nodes"},
                   {"BRICKPROF_CMDLINE", "secret"},
                   {"BRICKPROF_RUN_PID", "12x"}});
  EXPECT_EQ(c.warnings.size(), 11u);
  EXPECT_EQ(c.cmdline, CmdlineMode::kFull);
  EXPECT_EQ(c.run_pid, 0);
  EXPECT_EQ(c.graph_trace, GraphTrace::kNode);
  EXPECT_EQ(c.capture, capture::Mode::kAll);
  EXPECT_EQ(c.signal_dump_seconds, 20u);
  EXPECT_EQ(c.formats, (std::vector<std::string>{"json", "tree", "dot"}));
  EXPECT_EQ(c.log_level, "warn");
  EXPECT_EQ(c.buffer_bytes, 256ull << 20);
  EXPECT_TRUE(c.gpu);
  EXPECT_EQ(c.sync, SyncMode::kDeferred);
  EXPECT_EQ(c.ptx, PtxMode::kHash);
  EXPECT_NE(c.warnings[0].find("BRICKPROF_FORMATS"), std::string::npos);
}

TEST(ConfigTest, CaptureModes) {
  EXPECT_EQ(read({{"BRICKPROF_CAPTURE", "all"}}).capture, capture::Mode::kAll);
  EXPECT_EQ(read({{"BRICKPROF_CAPTURE", "cuda-profiler-api"}}).capture,
            capture::Mode::kCudaProfilerApi);
  EXPECT_EQ(read({{"BRICKPROF_CAPTURE", "cudaProfilerApi"}}).capture,  // as nsys spells it
            capture::Mode::kCudaProfilerApi);
  Config bad = read({{"BRICKPROF_CAPTURE", "nvtx"}});
  EXPECT_EQ(bad.capture, capture::Mode::kAll);
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_NE(bad.warnings[0].find("cuda-profiler-api, scope:NAME"), std::string::npos);
}

TEST(ConfigTest, CaptureSampling) {
  Config c = read({{"BRICKPROF_CAPTURE", "scope:step"},
                   {"BRICKPROF_CAPTURE_EVERY", "50"},
                   {"BRICKPROF_CAPTURE_MAX", "20"}});
  EXPECT_EQ(c.capture_every, 50u);
  EXPECT_EQ(c.capture_max, 20u);
  EXPECT_TRUE(c.warnings.empty());
  for (const char* bad : {"0", "-1", "5x", "2000000000"}) {
    Config b = read({{"BRICKPROF_CAPTURE", "scope:step"}, {"BRICKPROF_CAPTURE_EVERY", bad},
                     {"BRICKPROF_CAPTURE_MAX", bad}});
    EXPECT_EQ(b.capture_every, 1u) << bad;
    EXPECT_EQ(b.capture_max, 0u) << bad;
    EXPECT_EQ(b.warnings.size(), 2u) << bad;
  }
  // Sampling with nothing to sample: said, not silently ignored.
  Config all = read({{"BRICKPROF_CAPTURE_EVERY", "3"}});
  ASSERT_EQ(all.warnings.size(), 1u);
  EXPECT_NE(all.warnings[0].find("BRICKPROF_CAPTURE=all has none"), std::string::npos);
}

TEST(ConfigTest, ChecksumMode) {
  EXPECT_FALSE(read({}).checksums);
  EXPECT_TRUE(read({{"BRICKPROF_CHECKSUMS", "1"}}).checksums);
  EXPECT_FALSE(read({{"BRICKPROF_CHECKSUMS", "0"}}).checksums);
  EXPECT_FALSE(read({{"BRICKPROF_CHECKSUMS", "1"}}).checksums_host_copy);
  const Config host = read({{"BRICKPROF_CHECKSUMS", "host"}});
  EXPECT_TRUE(host.checksums);
  EXPECT_TRUE(host.checksums_host_copy);
  Config bad = read({{"BRICKPROF_CHECKSUMS", "yes"}});
  EXPECT_FALSE(bad.checksums);
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_EQ(bad.warnings[0], "BRICKPROF_CHECKSUMS='yes' is not valid; using 0 (valid: 0, 1, host)");
}

TEST(ConfigTest, CmdlineModes) {
  EXPECT_EQ(read({{"BRICKPROF_CMDLINE", "full"}}).cmdline, CmdlineMode::kFull);
  EXPECT_EQ(read({{"BRICKPROF_CMDLINE", "program"}}).cmdline, CmdlineMode::kProgram);
  EXPECT_EQ(read({{"BRICKPROF_CMDLINE", "none"}}).cmdline, CmdlineMode::kNone);
  Config bad = read({{"BRICKPROF_CMDLINE", "some"}});
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_NE(bad.warnings[0].find("full, program, none"), std::string::npos) << bad.warnings[0];
}

TEST(ConfigTest, PythonDepth) {
  EXPECT_EQ(read({}).python_depth, 32u);
  EXPECT_EQ(read({{"BRICKPROF_PYTHON_DEPTH", "0"}}).python_depth, 0u);
  EXPECT_EQ(read({{"BRICKPROF_PYTHON_DEPTH", "256"}}).python_depth, 256u);
  for (const char* bad : {"257", "-1", "10x", "deep"}) {
    Config c = read({{"BRICKPROF_PYTHON_DEPTH", bad}});
    EXPECT_EQ(c.python_depth, 32u) << bad;
    ASSERT_EQ(c.warnings.size(), 1u) << bad;
    EXPECT_NE(c.warnings[0].find("0 to 256"), std::string::npos) << c.warnings[0];
  }
}

// The roofline's roofs: a positive number replaces the device's; anything
// else (as `report --peak-*` refuses it: an infinite roof, a hex number) is
// one warning, and the device's figure stays.
TEST(ConfigTest, PeakOverrides) {
  Config none = read({});
  EXPECT_FALSE(none.peak_gflops);
  EXPECT_FALSE(none.peak_gbps);
  Config c = read({{"BRICKPROF_PEAK_GFLOPS", "1234.5"}, {"BRICKPROF_PEAK_GBPS", "3000"}});
  EXPECT_EQ(c.peak_gflops, 1234.5);
  EXPECT_EQ(c.peak_gbps, 3000.0);
  EXPECT_TRUE(c.warnings.empty());
  for (const char* bad : {"fast", "-3", "0", "inf", "0x10"}) {
    Config b = read({{"BRICKPROF_PEAK_GFLOPS", bad}, {"BRICKPROF_PEAK_GBPS", bad}});
    EXPECT_FALSE(b.peak_gflops) << bad;
    EXPECT_FALSE(b.peak_gbps) << bad;
    ASSERT_EQ(b.warnings.size(), 2u) << bad;
    EXPECT_NE(b.warnings[0].find("using the device's (valid: a positive number)"),
              std::string::npos)
        << b.warnings[0];
  }
}

// The test-only clock shift: a whole number of ns ahead, or a warning.
TEST(ConfigTest, TestClockShift) {
  EXPECT_EQ(read({}).test_clock_shift_ns, 0);
  EXPECT_EQ(read({{"BRICKPROF_TEST_CLOCK_SHIFT_NS", "7300000000"}}).test_clock_shift_ns,
            7300000000);
  for (const char* bad : {"-5", "+5", "soon"}) {
    Config c = read({{"BRICKPROF_TEST_CLOCK_SHIFT_NS", bad}});
    EXPECT_EQ(c.test_clock_shift_ns, 0) << bad;
    EXPECT_EQ(c.warnings.size(), 1u) << bad;
  }
}

// A relative prefix is made absolute against the folder the program
// started in (a % in that folder's name is not an expansion); an absolute
// one, or no known folder, stays as it is.
TEST(ConfigTest, AnchorsARelativeOutputPrefix) {
  EXPECT_EQ(anchor_output_pattern("brickprof-%n-%p", "/home/me"), "/home/me/brickprof-%n-%p");
  EXPECT_EQ(anchor_output_pattern("out/%p", "/"), "/out/%p");
  EXPECT_EQ(anchor_output_pattern("x", "/data/100%p/"), "/data/100%%p/x");
  EXPECT_EQ(anchor_output_pattern("/abs/%p", "/home/me"), "/abs/%p");
  EXPECT_EQ(anchor_output_pattern("rel", ""), "rel");
  // Leading ./ and ../ against the folder (which has no symbolic links).
  EXPECT_EQ(anchor_output_pattern("./x", "/a/b"), "/a/b/x");
  EXPECT_EQ(anchor_output_pattern("../../x/../y", "/a/b/c"), "/a/x/../y");
  EXPECT_EQ(anchor_output_pattern("../../../x", "/a"), "/x");
  EXPECT_EQ(expand_output_prefix(anchor_output_pattern("x-%p", "/a%b"), 7, 0, "h", "p"),
            "/a%b/x-7");
}

// `brickprof run --formats "json, chrome"` passes the list on as given; the
// agent reads it as run checked it (the table in trace/model/settings.h).
TEST(ConfigTest, FormatsReadAsRunChecksThem) {
  Config c = read({{"BRICKPROF_FORMATS", "json, chrome,"}});
  EXPECT_TRUE(c.warnings.empty()) << c.warnings[0];
  EXPECT_EQ(c.formats, (std::vector<std::string>{"json", "chrome"}));
  Config bad = read({{"BRICKPROF_SYNC", "sometimes"}});
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_EQ(bad.warnings[0],
            "BRICKPROF_SYNC='sometimes' is not valid; using deferred (valid: deferred, per-layer, "
            "immediate, none)");
}

TEST(ConfigTest, ZeroBufferIsRejected) {
  EXPECT_EQ(read({{"BRICKPROF_BUFFER_MB", "0"}}).warnings.size(), 1u);
}

TEST(ConfigTest, ExpandsOutputPrefix) {
  EXPECT_EQ(expand_output_prefix("out/%n-%p-r%r-%h%%", 42, 3, "node1", "app"),
            "out/app-42-r3-node1%");
  EXPECT_EQ(expand_output_prefix("x-%r", 1, -1, "h", "p"), "x-0");
  EXPECT_EQ(expand_output_prefix("trailing%", 1, 0, "h", "p"), "trailing%");
}

}  // namespace
}  // namespace brickprof::agent

namespace brickprof::agent {
namespace {

TEST(ConfigTest, KnowsTheCompressedAndPerfettoFormats) {
  Config c = read({{"BRICKPROF_FORMATS", "json.gz,perfetto,tree"}});
  EXPECT_EQ(c.formats, (std::vector<std::string>{"json.gz", "perfetto", "tree"}));
  EXPECT_TRUE(c.warnings.empty());
}

}  // namespace
}  // namespace brickprof::agent

namespace brickprof::agent {
namespace {

// Off by default; default expands to the five metrics; a list is kept in
// order, each name once; a value that is not names warns and keeps them off.
TEST(ConfigTest, GpuMetrics) {
  Config off = read({});
  EXPECT_TRUE(off.gpu_metrics.empty());
  EXPECT_EQ(off.gpu_metrics_every, 10u);
  EXPECT_EQ(read({{"BRICKPROF_GPU_METRICS", "default"}}).gpu_metrics, default_gpu_metrics());
  EXPECT_EQ(default_gpu_metrics().size(), 5u);
  Config listed = read({{"BRICKPROF_GPU_METRICS", "dram__bytes_read.sum,lts__t_sectors.sum,"
                                                  "dram__bytes_read.sum"},
                        {"BRICKPROF_GPU_METRICS_EVERY", "3"}});
  EXPECT_EQ(listed.gpu_metrics,
            (std::vector<std::string>{"dram__bytes_read.sum", "lts__t_sectors.sum"}));
  EXPECT_EQ(listed.gpu_metrics_every, 3u);
  EXPECT_TRUE(read({{"BRICKPROF_GPU_METRICS", "off"}}).gpu_metrics.empty());
  for (const char* bad : {"dram bytes", "a,,b", ",", "l2;hit"}) {
    Config c = read({{"BRICKPROF_GPU_METRICS", bad}, {"BRICKPROF_GPU_METRICS_EVERY", "0"}});
    EXPECT_TRUE(c.gpu_metrics.empty()) << bad;
    EXPECT_EQ(c.gpu_metrics_every, 10u);
    ASSERT_EQ(c.warnings.size(), 2u) << bad;
    EXPECT_EQ(c.warnings[0], std::string("BRICKPROF_GPU_METRICS='") + bad +
                                 "' is not valid; using off");
  }
}

}  // namespace
}  // namespace brickprof::agent
