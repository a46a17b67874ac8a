// The streaming reader beyond the small fixtures: traces of many batches
// (cut and indexed on a second thread), its progress callback, errors found
// late in a big file, node ids that are sparse or do not fit 32 bits, keys
// spelled with escapes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/trace_generator.h"
#include "trace/json/trace_json.h"
#include "trace/output/whole_trace.h"

namespace brickprof {
namespace {

std::string to_json(const Trace& t) {
  std::ostringstream out;
  write_format("json", t, out);
  return out.str();
}

// About 13 MB of JSON: many 1 MB batches of nodes and of edges.
const std::string& big_json() {
  static const std::string text = [] {
    GeneratorConfig config;
    config.target_events = 40'000;
    return to_json(generate_trace(config));
  }();
  return text;
}

std::string error_of(std::string_view json) {
  try {
    parse_trace_json(json);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(JsonRead, ManyBatchesRoundTrip) {
  Trace back = parse_trace_json(big_json());
  EXPECT_GE(back.nodes.size(), 40'000u);
  EXPECT_EQ(to_json(back), big_json());
}

// The progress callback of read_trace_file: once per batch (not per node),
// bytes growing up to the file's size, and the same trace as without it.
TEST(JsonRead, ProgressOncePerBatch) {
  const std::string path = testing::TempDir() + "/progress_trace.json";
  {
    std::ofstream out(path, std::ios::binary);
    out << big_json();
  }
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  Trace t = read_trace_file(
      path, [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); });
  std::remove(path.c_str());
  EXPECT_EQ(to_json(t), big_json());
  const uint64_t size = big_json().size();
  ASSERT_GE(calls.size(), 3u);  // several 1 MB batches of nodes, then of edges
  EXPECT_LE(calls.size(), size / (1 << 20) + 4) << "more calls than batches";
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].second, size);
    EXPECT_LE(calls[i].first, size);
    if (i) {
      EXPECT_GT(calls[i].first, calls[i - 1].first);
    }
  }
  EXPECT_GT(calls.back().first, size * 9 / 10);  // edges run to near the end
}

TEST(JsonRead, ErrorsLateInABigFile) {
  const std::string& text = big_json();
  size_t edges = text.find("\"edges\"");
  ASSERT_NE(edges, std::string::npos);
  // Truncated in the middle of nodes[], past the first batches.
  std::string cut = text.substr(0, edges / 2);
  EXPECT_NE(error_of(cut).find("nodes"), std::string::npos) << error_of(cut);
  // A bad value in the last node and in a late edge.
  std::string bad_node = text;
  size_t last = bad_node.rfind("\"start_ns\":", edges);
  bad_node.replace(last, 11, "\"start_ns\":\"x\",\"_\":");
  EXPECT_NE(error_of(bad_node).find("].start_ns: expected a number"), std::string::npos)
      << error_of(bad_node);
  std::string bad_edge = text;
  size_t late = bad_edge.find("\"type\":\"", edges + (text.size() - edges) * 3 / 4);
  bad_edge.replace(late, 8, "\"type\":\"no_such_");
  EXPECT_NE(error_of(bad_edge).find("edges["), std::string::npos) << error_of(bad_edge);
  EXPECT_NE(error_of(bad_edge).find("unknown value 'no_such_"), std::string::npos);
}

constexpr std::string_view kSparse = R"({"schema":"brickprof/1","nodes":[
  {"id":10,"kind":"layer","name":"L","parent":null,"start_ns":0,"end_ns":100},
  {"id":5000000000,"kind":"brick","name":"B","parent":10,"start_ns":1,"end_ns":50},
  {"id":7,"kind":"scope","name":"S","parent":5000000000,"start_ns":2,"end_ns":3}],
  "edges":[{"src":10,"dst":5000000000,"type":"contains"},
           {"src":5000000000,"dst":7,"type":"contains"}]})";

TEST(JsonRead, SparseAndWideIds) {
  Trace t = parse_trace_json(kSparse);
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.nodes[0].parent, kNoNode);
  EXPECT_EQ(t.nodes[1].parent, 0u);
  EXPECT_EQ(t.nodes[2].parent, 1u);
  ASSERT_EQ(t.edges.size(), 2u);
  EXPECT_EQ(t.edges[0].src, 0u);
  EXPECT_EQ(t.edges[0].dst, 1u);
  EXPECT_EQ(t.edges[1].src, 1u);
  EXPECT_EQ(t.edges[1].dst, 2u);
}

TEST(JsonRead, SparseIdErrorsNameTheFileIds) {
  std::string cycle(kSparse);
  cycle.replace(cycle.find("\"parent\":null"), 13, "\"parent\":7");
  EXPECT_NE(error_of(cycle).find("parent cycle through node id "), std::string::npos)
      << error_of(cycle);
  std::string unknown(kSparse);
  unknown.replace(unknown.find("\"dst\":7"), 7, "\"dst\":6000000000");
  EXPECT_NE(error_of(unknown).find("edges[1]: dst refers to unknown node id 6000000000"),
            std::string::npos)
      << error_of(unknown);
  std::string duplicate(kSparse);
  duplicate.replace(duplicate.find("\"id\":7"), 6, "\"id\":10");
  EXPECT_NE(error_of(duplicate).find("nodes[2]: duplicate node id 10"), std::string::npos);
}

TEST(JsonRead, EscapedKeysAndHashSpellings) {
  Trace t = parse_trace_json(R"({"schema":"brickprof/1","nodes":[
    {"\u0069d":0,"kind":"kernel","name":"k","parent":null,"start_ns":0,"end_ns":5,
     "ptx_hash":"0xABCDEF","unknown":{"nested":["]"]}},
    {"id":1,"kind":"kernel","name":"k","parent":null,"start_ns":0,"end_ns":5,"ptx_hash":"0777"},
    {"id":2,"kind":"kernel","name":"k","parent":null,"start_ns":0,"end_ns":5,"ptx_hash":12}]})");
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.detail(t.nodes[0])->ptx_hash, 0xABCDEFu);
  EXPECT_EQ(t.detail(t.nodes[1])->ptx_hash, 0777u);  // strtoull's spellings still work
  EXPECT_EQ(t.detail(t.nodes[2])->ptx_hash, 12u);
  EXPECT_NE(error_of(R"({"schema":"brickprof/1","nodes":[{"id":0,"kind":"kernel",
      "start_ns":0,"end_ns":5,"ptx_hash":"0xZZ"}]})")
                .find("nodes[0].ptx_hash: bad hash '0xZZ'"),
            std::string::npos);
}

TEST(JsonRead, CaptureWindowsMustBeOrderedRanges) {
  auto with_windows = [](std::string_view windows) {
    return R"({"schema":"brickprof/1","diagnostics":{"capture_windows":)" + std::string(windows) +
           "}}";
  };
  Trace t =
      parse_trace_json(with_windows(R"([{"start_ns":1,"end_ns":5},{"start_ns":5,"end_ns":9}])"));
  ASSERT_EQ(t.diagnostics.capture_windows.size(), 2u);
  EXPECT_EQ(t.diagnostics.capture_windows[1], (TimeRange{5, 9}));
  for (std::string_view bad : {R"([{"start_ns":5,"end_ns":1}])",
                               R"([{"start_ns":1,"end_ns":5},{"start_ns":4,"end_ns":9}])",
                               R"([{"end_ns":1}])", R"([[1,2]])", R"(3)"}) {
    std::string error = error_of(with_windows(bad));
    EXPECT_NE(error.find("diagnostics.capture_windows"), std::string::npos) << bad << ": " << error;
  }
  EXPECT_NE(error_of(with_windows(R"([{"start_ns":1,"end_ns":5},{"start_ns":-4,"end_ns":9}])"))
                .find("diagnostics.capture_windows[1].start_ns: negative time"),
            std::string::npos);
}

// diagnostics.activity_off: when CUPTI's records were off; written only
// when there were such spans, read back as written, checked like windows.
TEST(JsonRead, ActivityOffRoundTripsAndIsChecked) {
  Trace t;
  t.diagnostics.capture_windows = {{10, 20}};
  std::ostringstream none;
  write_format("json", t, none);
  EXPECT_EQ(none.str().find("activity_off"), std::string::npos);
  t.diagnostics.activity_off = {{0, 11}, {20, 40}};
  std::ostringstream out;
  write_format("json", t, out);
  EXPECT_EQ(parse_trace_json(out.str()).diagnostics.activity_off, t.diagnostics.activity_off);
  std::string error = error_of(
      R"({"schema":"brickprof/1","diagnostics":{"activity_off":[{"start_ns":5,"end_ns":1}]}})");
  EXPECT_NE(error.find("diagnostics.activity_off[0]"), std::string::npos) << error;
}

// Memory events and shapes name nodes by their file ids, as edges do; a
// bad one gets a line that says where.
TEST(JsonRead, MemoryAndShapesNameNodesByFileId) {
  std::string json(kSparse);
  json.insert(json.rfind('}'), R"(,"memory":[
    {"t":1,"thread":3,"scope":5000000000,"op":"alloc","source":"device","device":0,
     "address":"0x10","bytes":64,"api":"cuMemAlloc_v2"},
    {"t":2,"thread":3,"scope":null,"op":"free","source":"device","device":0,
     "address":"0x10","api":"cuMemFree_v2"}],
    "shapes":[{"node":7,"dtype":"f16","inputs":[[2,3]],"output":[3]}])");
  Trace t = parse_trace_json(json);
  ASSERT_EQ(t.memory.size(), 2u);
  EXPECT_EQ(t.memory[0].scope, 1u);
  EXPECT_EQ(t.memory[0].bytes, 64u);
  EXPECT_EQ(t.memory[1].scope, kNoNode);
  EXPECT_EQ(t.memory[1].op, MemoryOp::kFree);
  ASSERT_EQ(t.shapes.size(), 1u);
  EXPECT_EQ(t.shapes[0].node, 2u);
  EXPECT_EQ(t.shapes[0].output_elements(), 3u);

  auto with = [&](std::string_view from, std::string_view to) {
    std::string bad = json;
    bad.replace(bad.find(from), from.size(), to);
    return error_of(bad);
  };
  EXPECT_NE(with("\"scope\":5000000000", "\"scope\":6").find("memory[0]: scope refers to unknown node id 6"),
            std::string::npos);
  EXPECT_NE(with("\"op\":\"free\"", "\"op\":\"steal\"").find("memory[1].op: unknown value 'steal'"),
            std::string::npos);
  EXPECT_NE(with("\"t\":2", "\"t\":0").find("memory[1]: out of time order"), std::string::npos);
  EXPECT_NE(with("\"node\":7", "\"node\":8").find("shapes[0]: node refers to unknown node id 8"),
            std::string::npos);
  EXPECT_NE(with("\"api\":\"cuMemFree_v2\"", "\"api\":\"cuMemFree_v2\",\"python_stack\":0")
                .find("memory[1]: unknown python_stack 0"),
            std::string::npos);
}

// Counter samples name their scope by file id; a sample needs a name and a
// value, tokens a count, and a bad one gets a line that says where.
TEST(JsonRead, CountersNameScopesByFileIdAndSayWhatIsWrong) {
  std::string json(kSparse);
  json.insert(json.rfind('}'), R"(,"counters":[
    {"t":1,"thread":3,"scope":5000000000,"name":"l2_hit_rate","value":0.5},
    {"t":2,"thread":3,"scope":null,"tokens":4}])");
  Trace t = parse_trace_json(json);
  ASSERT_EQ(t.counters.size(), 2u);
  EXPECT_EQ(t.counters[0].scope, 1u);
  EXPECT_EQ(t.counters[0].kind, CounterKind::kValue);
  EXPECT_EQ(t.strings.view(t.counters[0].name), "l2_hit_rate");
  EXPECT_EQ(t.counters[0].value, 0.5);
  EXPECT_EQ(t.counters[1].scope, kNoNode);
  EXPECT_EQ(t.counters[1].kind, CounterKind::kTokens);
  EXPECT_EQ(t.strings.view(t.counters[1].name), kTokensName);
  EXPECT_EQ(t.counters[1].value, 4.0);

  auto with = [&](std::string_view from, std::string_view to) {
    std::string bad = json;
    bad.replace(bad.find(from), from.size(), to);
    return error_of(bad);
  };
  EXPECT_NE(with("\"scope\":5000000000", "\"scope\":6")
                .find("counters[0]: scope refers to unknown node id 6"),
            std::string::npos);
  EXPECT_NE(with(",\"value\":0.5", "").find("counters[0]: needs \"name\" and \"value\""),
            std::string::npos);
  EXPECT_NE(with("\"tokens\":4", "\"tokens\":-4").find("counters[1].tokens"),
            std::string::npos);
  EXPECT_NE(with("\"tokens\":4", "\"tokens\":4,\"name\":\"x\"").find("counters[1]"),
            std::string::npos);
  EXPECT_NE(with("\"t\":2", "\"t\":0").find("counters[1]: out of time order"), std::string::npos);
}

// Tiles name their node by file id; an entry needs a node and a known
// level, and a bad one gets a line that says where.
TEST(JsonRead, TilesNameNodesByFileIdAndSayWhatIsWrong) {
  std::string json(kSparse);
  json.insert(json.rfind('}'), R"(,"tiles":[
    {"node":5000000000,"thread":3,"level":"micro","count":512,"total_ns":900,"elements":32768,"bytes":131072}])");
  Trace t = parse_trace_json(json);
  ASSERT_EQ(t.tiles.size(), 1u);
  EXPECT_EQ(t.tiles[0].node, 1u);
  EXPECT_EQ(t.tiles[0].level, TileLevel::kMicro);
  EXPECT_EQ(t.tiles[0].count, 512u);
  EXPECT_EQ(t.tiles[0].total_ns, 900);
  EXPECT_EQ(t.tiles[0].bytes, 131072u);

  auto with = [&](std::string_view from, std::string_view to) {
    std::string bad = json;
    bad.replace(bad.find(from), from.size(), to);
    return error_of(bad);
  };
  EXPECT_NE(
      with("\"node\":5000000000", "\"node\":6").find("tiles[0]: node refers to unknown node id 6"),
      std::string::npos);
  EXPECT_NE(with("\"micro\"", "\"nano\"").find("tiles[0].level: not macro, midi or micro"),
            std::string::npos);
  EXPECT_NE(with("\"node\":5000000000,", "").find("tiles[0]: needs \"node\" and \"level\""),
            std::string::npos);
  EXPECT_NE(with("\"total_ns\":900", "\"total_ns\":-1").find("tiles[0].total_ns"),
            std::string::npos);
}

// CPU counters name nodes by file id; as many values as events, and a bad
// one gets a line that says where.
TEST(JsonRead, CpuCountersNameNodesByFileIdAndSayWhatIsWrong) {
  std::string json(kSparse);
  json.insert(json.rfind('}'), R"(,"cpu_counters":{"events":["task-clock","page-faults"],
    "nodes":[{"node":5000000000,"values":[10,2]}]})");
  Trace t = parse_trace_json(json);
  ASSERT_EQ(t.cpu_counters.events, (std::vector<std::string>{"task-clock", "page-faults"}));
  ASSERT_EQ(t.cpu_counters.nodes.size(), 1u);
  EXPECT_EQ(t.cpu_counters.nodes[0].node, 1u);
  EXPECT_EQ(t.cpu_counters.nodes[0].values[0], 10u);
  EXPECT_EQ(t.cpu_counters.nodes[0].values[1], 2u);

  auto with = [&](std::string_view from, std::string_view to) {
    std::string bad = json;
    bad.replace(bad.find(from), from.size(), to);
    return error_of(bad);
  };
  EXPECT_NE(with("\"node\":5000000000", "\"node\":6")
                .find("cpu_counters.nodes[0]: node refers to unknown node id 6"),
            std::string::npos);
  EXPECT_NE(with("[10,2]", "[10]").find("cpu_counters.nodes[0]: 1 values for 2 events"),
            std::string::npos);
  EXPECT_NE(with("[10,2]", "[10,-2]").find("cpu_counters.nodes[0].values"), std::string::npos);
}

// GPU metrics name nodes by file id; as many values as metrics, weights that
// name a metric, and a bad one gets a line that says where.
TEST(JsonRead, GpuMetricsNameNodesByFileIdAndSayWhatIsWrong) {
  std::string json(kSparse);
  json.insert(json.rfind('}'), R"(,"gpu_metrics":{"metrics":["a.pct","b.sum"],"weights":[1,-1],
    "passes":2,"every":10,"occurrences_sampled":1,"occurrences_skipped":9,
    "nodes":[{"node":5000000000,"values":[null,2]}]})");
  Trace t = parse_trace_json(json);
  ASSERT_EQ(t.gpu_metrics.metrics, (std::vector<std::string>{"a.pct", "b.sum"}));
  EXPECT_EQ(t.gpu_metrics.weights, (std::vector<int32_t>{1, kSummed}));
  ASSERT_EQ(t.gpu_metrics.nodes.size(), 1u);
  EXPECT_EQ(t.gpu_metrics.nodes[0].node, 1u);
  EXPECT_TRUE(std::isnan(t.gpu_metrics.nodes[0].values[0]));
  EXPECT_EQ(t.gpu_metrics.nodes[0].values[1], 2.0);
  EXPECT_EQ(t.gpu_metrics.occurrences_skipped, 9u);

  auto with = [&](std::string_view from, std::string_view to) {
    std::string bad = json;
    bad.replace(bad.find(from), from.size(), to);
    return error_of(bad);
  };
  EXPECT_NE(with("\"node\":5000000000", "\"node\":6")
                .find("gpu_metrics.nodes[0]: node refers to unknown node id 6"),
            std::string::npos);
  EXPECT_NE(with("[null,2]", "[2]").find("gpu_metrics.nodes[0]: 1 values for 2 metrics"),
            std::string::npos);
  EXPECT_NE(with("[1,-1]", "[5,-1]").find("weight 5 names no metric"), std::string::npos);
  EXPECT_NE(with("[1,-1]", "[1]").find("1 weights for 2 metrics"), std::string::npos);
}

}  // namespace
}  // namespace brickprof
