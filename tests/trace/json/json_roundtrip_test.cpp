// The JSON exporter round trip: write, parse back, compare every field of
// every node, edge, device, thread, PTX module and diagnostic.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/support/test_traces.h"
#include "trace/json/json_writer.h"
#include "trace/json/trace_json.h"
#include "trace/output/sink.h"
#include "trace/output/whole_trace.h"

namespace brickprof {
namespace {

void expect_same_detail(const GpuDetail& a, const GpuDetail& b, uint32_t id) {
  SCOPED_TRACE("node " + std::to_string(id));
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.context, b.context);
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.correlation, b.correlation);
  EXPECT_EQ(a.api_start_ns, b.api_start_ns);
  EXPECT_EQ(a.api_end_ns, b.api_end_ns);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(a.grid[i], b.grid[i]);
    EXPECT_EQ(a.block[i], b.block[i]);
  }
  EXPECT_EQ(a.smem, b.smem);
  EXPECT_EQ(a.registers, b.registers);
  EXPECT_EQ(a.ptx_hash, b.ptx_hash);
  EXPECT_EQ(a.graph_node, b.graph_node);
  EXPECT_EQ(a.graph_id, b.graph_id);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.direction, b.direction);
  EXPECT_EQ(a.src_kind, b.src_kind);
  EXPECT_EQ(a.dst_kind, b.dst_kind);
  EXPECT_EQ(a.src_addr, b.src_addr);
  EXPECT_EQ(a.dst_addr, b.dst_addr);
  EXPECT_EQ(a.sync, b.sync);
  EXPECT_EQ(a.event, b.event);
  EXPECT_EQ(a.python_stack, b.python_stack);
}

void expect_same(const Trace& a, const Trace& b) {
  EXPECT_EQ(a.process.pid, b.process.pid);
  EXPECT_EQ(a.process.ppid, b.process.ppid);
  EXPECT_EQ(a.process.program, b.process.program);
  EXPECT_EQ(a.process.cmdline, b.process.cmdline);
  EXPECT_EQ(a.process.host, b.process.host);
  EXPECT_EQ(a.process.rank, b.process.rank);
  EXPECT_EQ(a.process.start_ns, b.process.start_ns);
  EXPECT_EQ(a.process.end_ns, b.process.end_ns);
  EXPECT_EQ(a.process.clock, b.process.clock);
  EXPECT_EQ(a.process.launcher, b.process.launcher);
  EXPECT_EQ(a.process.job, b.process.job);
  EXPECT_EQ(a.process.local_rank, b.process.local_rank);
  EXPECT_EQ(a.process.world_size, b.process.world_size);
  EXPECT_EQ(a.process.clock_sync, b.process.clock_sync);

  const Diagnostics &da = a.diagnostics, &db = b.diagnostics;
  EXPECT_EQ(da.cupti, db.cupti);
  EXPECT_EQ(da.nvtx, db.nvtx);
  EXPECT_EQ(da.dropped_events, db.dropped_events);
  EXPECT_EQ(da.dropped_names, db.dropped_names);
  EXPECT_EQ(da.ignored_api_calls, db.ignored_api_calls);
  EXPECT_EQ(da.dropped_activity_records, db.dropped_activity_records);
  EXPECT_EQ(da.zero_timestamp_records, db.zero_timestamp_records);
  EXPECT_EQ(da.unbalanced_pops, db.unbalanced_pops);
  EXPECT_EQ(da.open_scopes_at_exit, db.open_scopes_at_exit);
  EXPECT_EQ(da.capture, db.capture);
  EXPECT_EQ(da.capture_windows, db.capture_windows);
  EXPECT_EQ(da.scopes_cut_by_capture, db.scopes_cut_by_capture);
  EXPECT_EQ(da.records_outside_capture, db.records_outside_capture);
  EXPECT_EQ(da.checksum_mode, db.checksum_mode);
  EXPECT_EQ(da.warnings, db.warnings);

  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (size_t i = 0; i < a.devices.size(); ++i) {
    const Device &x = a.devices[i], &y = b.devices[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.sm_count, y.sm_count);
    EXPECT_EQ(x.clock_mhz, y.clock_mhz);
    EXPECT_EQ(x.memory_clock_mhz, y.memory_clock_mhz);
    EXPECT_EQ(x.memory_bus_bits, y.memory_bus_bits);
    EXPECT_EQ(x.peak_gflops, y.peak_gflops);
    EXPECT_EQ(x.peak_gbps, y.peak_gbps);
    EXPECT_EQ(x.peaks_source, y.peaks_source);
  }
  ASSERT_EQ(a.threads.size(), b.threads.size());
  for (size_t i = 0; i < a.threads.size(); ++i) {
    EXPECT_EQ(a.threads[i].tid, b.threads[i].tid);
    EXPECT_EQ(a.threads[i].name, b.threads[i].name);
  }

  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (uint32_t i = 0; i < a.nodes.size(); ++i) {
    SCOPED_TRACE("node " + std::to_string(i));
    const Node &x = a.nodes[i], &y = b.nodes[i];
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.category, y.category);
    EXPECT_EQ(x.brick_id, y.brick_id);
    EXPECT_EQ(x.layer_index, y.layer_index);
    EXPECT_EQ(a.name(x), b.name(y));
    EXPECT_EQ(x.parent, y.parent);
    EXPECT_EQ(x.thread, y.thread);
    EXPECT_EQ(x.start_ns, y.start_ns);
    EXPECT_EQ(x.end_ns, y.end_ns);
    EXPECT_EQ(x.elements, y.elements);
    EXPECT_EQ(x.flops, y.flops);
    EXPECT_EQ(x.bytes_moved, y.bytes_moved);
    ASSERT_EQ(a.detail(x) != nullptr, b.detail(y) != nullptr);
    if (a.detail(x)) expect_same_detail(*a.detail(x), *b.detail(y), i);
  }
  ASSERT_EQ(a.edges.size(), b.edges.size());
  for (size_t i = 0; i < a.edges.size(); ++i) {
    EXPECT_EQ(a.edges[i].src, b.edges[i].src);
    EXPECT_EQ(a.edges[i].dst, b.edges[i].dst);
    EXPECT_EQ(a.edges[i].type, b.edges[i].type);
  }
  ASSERT_EQ(a.ptx.size(), b.ptx.size());
  for (size_t i = 0; i < a.ptx.size(); ++i) {
    EXPECT_EQ(a.ptx[i].hash, b.ptx[i].hash);
    EXPECT_EQ(a.ptx[i].kind, b.ptx[i].kind);
    EXPECT_EQ(a.ptx[i].bytes, b.ptx[i].bytes);
    EXPECT_EQ(a.ptx[i].kernels, b.ptx[i].kernels);
    EXPECT_EQ(a.ptx[i].source, b.ptx[i].source);
  }
  ASSERT_EQ(a.python_frames.size(), b.python_frames.size());
  for (size_t i = 0; i < a.python_frames.size(); ++i) {
    EXPECT_EQ(a.python_frames[i].file, b.python_frames[i].file);
    EXPECT_EQ(a.python_frames[i].line, b.python_frames[i].line);
    EXPECT_EQ(a.python_frames[i].function, b.python_frames[i].function);
  }
  EXPECT_EQ(a.python_stacks, b.python_stacks);
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (size_t i = 0; i < a.devices.size(); ++i)
    EXPECT_EQ(a.devices[i].memory_bytes, b.devices[i].memory_bytes);
  ASSERT_EQ(a.memory.size(), b.memory.size());
  for (size_t i = 0; i < a.memory.size(); ++i) {
    SCOPED_TRACE("memory " + std::to_string(i));
    const MemoryEvent &x = a.memory[i], &y = b.memory[i];
    EXPECT_EQ(x.time_ns, y.time_ns);
    EXPECT_EQ(x.thread, y.thread);
    EXPECT_EQ(x.scope, y.scope);
    EXPECT_EQ(x.op, y.op);
    EXPECT_EQ(x.source, y.source);
    EXPECT_EQ(x.result, y.result);
    EXPECT_EQ(x.device, y.device);
    EXPECT_EQ(x.address, y.address);
    EXPECT_EQ(x.bytes, y.bytes);
    EXPECT_EQ(x.stream, y.stream);
    EXPECT_EQ(x.pool, y.pool);
    EXPECT_EQ(a.strings.view(x.name), b.strings.view(y.name));
    EXPECT_EQ(x.python_stack, y.python_stack);
  }
  ASSERT_EQ(a.checksums.size(), b.checksums.size());
  for (size_t i = 0; i < a.checksums.size(); ++i) {
    const OutputChecksum &x = a.checksums[i], &y = b.checksums[i];
    EXPECT_EQ(x.node, y.node);
    EXPECT_EQ(a.strings.view(x.name), b.strings.view(y.name));
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.source, y.source);
    EXPECT_EQ(x.address, y.address);
    const Digest &p = x.digest, &q = y.digest;
    EXPECT_EQ(p.fnv1a, q.fnv1a);
    EXPECT_EQ(p.count, q.count);
    EXPECT_EQ(p.sum, q.sum);  // exactly: doubles are written in their shortest round-trip form
    EXPECT_EQ(p.l1, q.l1);
    EXPECT_EQ(p.l2, q.l2);
    EXPECT_EQ(p.min, q.min);
    EXPECT_EQ(p.max, q.max);
    EXPECT_EQ(p.nan, q.nan);
    EXPECT_EQ(p.inf, q.inf);
    EXPECT_EQ(p.projections, q.projections);
  }
  ASSERT_EQ(a.counters.size(), b.counters.size());
  for (size_t i = 0; i < a.counters.size(); ++i) {
    SCOPED_TRACE("counter " + std::to_string(i));
    const CounterSample &x = a.counters[i], &y = b.counters[i];
    EXPECT_EQ(x.time_ns, y.time_ns);
    EXPECT_EQ(x.thread, y.thread);
    EXPECT_EQ(x.scope, y.scope);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(a.strings.view(x.name), b.strings.view(y.name));
    EXPECT_EQ(x.value, y.value);  // exactly: doubles are written in their shortest round-trip form
  }
  ASSERT_EQ(a.tiles.size(), b.tiles.size());
  for (size_t i = 0; i < a.tiles.size(); ++i) {
    SCOPED_TRACE("tiles " + std::to_string(i));
    const TileStats &x = a.tiles[i], &y = b.tiles[i];
    EXPECT_EQ(x.node, y.node);
    EXPECT_EQ(x.thread, y.thread);
    EXPECT_EQ(x.level, y.level);
    EXPECT_EQ(x.count, y.count);
    EXPECT_EQ(x.total_ns, y.total_ns);
    EXPECT_EQ(x.elements, y.elements);
    EXPECT_EQ(x.bytes, y.bytes);
  }
  EXPECT_EQ(a.diagnostics.cpu_counters, b.diagnostics.cpu_counters);
  EXPECT_EQ(a.cpu_counters.events, b.cpu_counters.events);
  ASSERT_EQ(a.cpu_counters.nodes.size(), b.cpu_counters.nodes.size());
  for (size_t i = 0; i < a.cpu_counters.nodes.size(); ++i) {
    EXPECT_EQ(a.cpu_counters.nodes[i].node, b.cpu_counters.nodes[i].node);
    EXPECT_EQ(a.cpu_counters.nodes[i].values, b.cpu_counters.nodes[i].values);
  }
  EXPECT_EQ(a.diagnostics.gpu_metrics, b.diagnostics.gpu_metrics);
  EXPECT_EQ(a.gpu_metrics.metrics, b.gpu_metrics.metrics);
  EXPECT_EQ(a.gpu_metrics.weights, b.gpu_metrics.weights);
  EXPECT_EQ(a.gpu_metrics.passes, b.gpu_metrics.passes);
  EXPECT_EQ(a.gpu_metrics.every, b.gpu_metrics.every);
  EXPECT_EQ(a.gpu_metrics.occurrences_sampled, b.gpu_metrics.occurrences_sampled);
  EXPECT_EQ(a.gpu_metrics.occurrences_skipped, b.gpu_metrics.occurrences_skipped);
  ASSERT_EQ(a.gpu_metrics.nodes.size(), b.gpu_metrics.nodes.size());
  for (size_t i = 0; i < a.gpu_metrics.nodes.size(); ++i) {
    EXPECT_EQ(a.gpu_metrics.nodes[i].node, b.gpu_metrics.nodes[i].node);
    const std::vector<double>& x = a.gpu_metrics.nodes[i].values;
    const std::vector<double>& y = b.gpu_metrics.nodes[i].values;
    ASSERT_EQ(x.size(), y.size());
    for (size_t k = 0; k < x.size(); ++k) {
      if (std::isnan(x[k])) EXPECT_TRUE(std::isnan(y[k]));  // written null
      else EXPECT_EQ(x[k], y[k]);  // exactly: the shortest round-trip form
    }
  }
  ASSERT_EQ(a.shapes.size(), b.shapes.size());
  for (size_t i = 0; i < a.shapes.size(); ++i) {
    EXPECT_EQ(a.shapes[i].node, b.shapes[i].node);
    EXPECT_EQ(a.shapes[i].dtype, b.shapes[i].dtype);
    EXPECT_EQ(a.shapes[i].inputs, b.shapes[i].inputs);
    EXPECT_EQ(a.shapes[i].output, b.shapes[i].output);
  }
}

// Every kind of memory event, each key away from its default once.
void add_memory(Trace& t) {
  t.devices.at(0).memory_bytes = 80ull << 30;
  auto event = [&t](int64_t time, MemoryOp op, MemorySource source, uint64_t address,
                    uint64_t bytes, std::string_view api) {
    MemoryEvent e;
    e.time_ns = time;
    e.thread = t.nodes.at(0).thread;
    e.scope = 0;
    e.op = op;
    e.source = source;
    e.address = address;
    e.bytes = bytes;
    e.name = t.strings.intern(api);
    t.memory.push_back(e);
    return &t.memory.back();
  };
  event(10, MemoryOp::kAlloc, MemorySource::kDevice, 0x7f0000000000, 4096, "cuMemAlloc_v2");
  MemoryEvent* async =
      event(11, MemoryOp::kAlloc, MemorySource::kAsync, 0x7f0000100000, 512, "cuMemAllocAsync");
  async->stream = 7;
  async->pool = 0xabc;
  async->scope = kNoNode;
  event(12, MemoryOp::kFree, MemorySource::kDevice, 0x7f0000000000, 0, "cuMemFree_v2");
  event(13, MemoryOp::kAlloc, MemorySource::kPhysical, 0x55, 2 << 20, "cuMemCreate");
  event(14, MemoryOp::kMap, MemorySource::kMapping, 0x7e0000000000, 2 << 20, "cuMemMap");
  event(15, MemoryOp::kTrim, MemorySource::kAsync, 0, 0, "cuMemPoolTrimTo")->pool = 0xabc;
  MemoryEvent* pinned =
      event(16, MemoryOp::kAlloc, MemorySource::kPinned, 0x5000, 64, "cuMemHostAlloc");
  pinned->device = kHostDeviceId;
  event(17, MemoryOp::kAlloc, MemorySource::kProgram, 0x7f0000100000, 100, "kv_cache");
  MemoryEvent* oom =
      event(18, MemoryOp::kAlloc, MemorySource::kDevice, 0, 1ull << 50, "cuMemAlloc_v2");
  oom->result = 2;
  if (!t.python_stacks.empty()) oom->python_stack = 0;
  t.shapes.push_back({0, "f32", {{1, 4096}, {4096, 4096}}, {1, 4096}});
  t.shapes.push_back({1, "q4_k", {}, {}});
  const float out[] = {1.5f, -2.25f, 1e-30f, 3e30f};
  OutputChecksum c;
  c.node = 1;
  c.name = t.strings.intern("out");
  c.type = ElementType::kF32;
  c.source = ChecksumSource::kHostCopy;
  c.address = 0x7f0000100000;
  c.digest = digest_of(out, 4, ElementType::kF32);
  c.digest.nan = 2;
  c.digest.inf = 1;
  t.checksums.push_back(c);
  t.diagnostics.checksum_mode = "host-copy";
}

TEST(JsonExport, RoundTripsEveryField) {
  Trace original = test::full_trace();
  MemorySink sink;
  ASSERT_TRUE(write_outputs(original, {"json"}, sink).failures.empty());
  Trace back = parse_trace_json(sink.text("json"));
  expect_same(original, back);
}

TEST(JsonExport, RoundTripsMemoryAndShapes) {
  Trace original = test::full_trace();
  add_memory(original);
  MemorySink sink;
  ASSERT_TRUE(write_outputs(original, {"json"}, sink).failures.empty());
  Trace back = parse_trace_json(sink.text("json"));
  expect_same(original, back);
}

// Counter samples keep their value bit for bit, tokens their count; one
// outside every scope keeps its null scope.
TEST(JsonExport, RoundTripsCountersAndTokens) {
  Trace original = test::full_trace();
  auto sample = [&](int64_t t, uint32_t scope, CounterKind kind, std::string_view name,
                    double value) {
    CounterSample s;
    s.time_ns = t;
    s.thread = original.nodes[0].thread;
    s.scope = scope;
    s.kind = kind;
    s.name = original.strings.intern(name);
    s.value = value;
    original.counters.push_back(s);
  };
  sample(10, 0, CounterKind::kValue, "l2_hit_rate", 0.9312345678901234);
  sample(11, 1, CounterKind::kTokens, kTokensName, 17);
  sample(11, kNoNode, CounterKind::kValue, "queue depth \"now\"", -3e-300);
  sample(12, 1, CounterKind::kTokens, kTokensName, 1ull << 40);
  MemorySink sink;
  ASSERT_TRUE(write_outputs(original, {"json"}, sink).failures.empty());
  EXPECT_NE(sink.text("json").find(R"("tokens":17)"), std::string::npos);
  Trace back = parse_trace_json(sink.text("json"));
  expect_same(original, back);
}

// Each node's tiles keep every level's figures, to the last bit of a
// 64-bit count; a trace without tiles has no "tiles" key.
TEST(JsonExport, RoundTripsTiles) {
  Trace original = test::full_trace();
  MemorySink plain;
  ASSERT_TRUE(write_outputs(original, {"json"}, plain).failures.empty());
  EXPECT_EQ(plain.text("json").find("\"tiles\""), std::string::npos);
  auto tiles = [&](uint32_t node, TileLevel level, uint64_t count) {
    TileStats s;
    s.node = node;
    s.thread = original.nodes[node].thread;
    s.level = level;
    s.count = count;
    s.total_ns = 1000 + static_cast<int64_t>(count);
    s.elements = count * 64;
    s.bytes = count * 256;
    original.tiles.push_back(s);
  };
  Device cpu;
  cpu.id = kHostDeviceId;
  cpu.name = "cpu";
  cpu.cache_gbps[0] = 123.25;
  cpu.cache_gbps[2] = 1e-3;
  original.devices.push_back(cpu);
  tiles(0, TileLevel::kMacro, 4);
  tiles(0, TileLevel::kMicro, ~0ull);
  tiles(1, TileLevel::kMidi, 32);
  MemorySink sink;
  ASSERT_TRUE(write_outputs(original, {"json"}, sink).failures.empty());
  EXPECT_NE(sink.text("json").find(R"("level":"midi")"), std::string::npos);
  Trace back = parse_trace_json(sink.text("json"));
  expect_same(original, back);
  ASSERT_FALSE(back.devices.empty());
  const Device& host = back.devices.back();
  EXPECT_EQ(host.cache_gbps[0], 123.25);
  EXPECT_EQ(host.cache_gbps[1], 0);
  EXPECT_EQ(host.cache_gbps[2], 1e-3);
}

TEST(JsonExport, RoundTripsTheFixture) {
  Trace original = test::small_trace();
  MemorySink sink;
  ASSERT_TRUE(write_outputs(original, {"json"}, sink).failures.empty());
  Trace back = parse_trace_json(sink.text("json"));
  expect_same(original, back);
  // And a second trip is byte-identical.
  MemorySink again;
  ASSERT_TRUE(write_outputs(back, {"json"}, again).failures.empty());
  EXPECT_EQ(sink.text("json"), again.text("json"));
}

TEST(JsonExport, StringsStayValidUtf8) {
  auto quoted = [](std::string_view text) {
    std::string out;
    append_json_string(out, text);
    return out;
  };
  EXPECT_EQ(quoted("µs × 中 😀"), "\"µs × 中 😀\"");                 // well-formed: kept as is
  EXPECT_EQ(quoted("caf\xe9"), "\"caf\\ufffd\"");                  // Latin-1 é
  EXPECT_EQ(quoted("\xc0\xaf"), "\"\\ufffd\\ufffd\"");             // overlong '/'
  EXPECT_EQ(quoted("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // a surrogate
  EXPECT_EQ(quoted("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // > U+10FFFF
  EXPECT_EQ(quoted("a\xe4\xb8"), "\"a\\ufffd\\ufffd\"");                      // cut short
  EXPECT_EQ(quoted("\x01\"\\"), "\"\\u0001\\\"\\\\\"");
  // What a terminal acts on is spelled out, so `report --json` on one is
  // safe too: DEL, C1 controls (U+009B is CSI), bidi overrides and isolates.
  EXPECT_EQ(quoted("a\x7f"
                   "b"),
            "\"a\\u007fb\"");
  EXPECT_EQ(quoted("csi\xc2\x9b"
                   "2J \xc2\xa0"),
            "\"csi\\u009b2J \xc2\xa0\"");
  EXPECT_EQ(quoted("abc\xe2\x80\xae"
                   "fed\xe2\x81\xa9"),
            "\"abc\\u202efed\\u2069\"");
  EXPECT_EQ(quoted("\xe2\x80\xa9\xe2\x80\xaf"), "\"\xe2\x80\xa9\xe2\x80\xaf\"");  // neighbours kept
}

// Escaped controls read back as the characters they were.
TEST(JsonExport, ControlsReadBackAsThemselves) {
  Trace original = test::small_trace();
  const std::string name = "evil\x1b]52;c;\x07\x7f\xc2\x9b\xe2\x80\xae|";
  original.nodes[0].name = original.strings.intern(name);
  MemorySink sink;
  ASSERT_TRUE(write_outputs(original, {"json"}, sink).failures.empty());
  Trace back = parse_trace_json(sink.text("json"));
  EXPECT_EQ(back.name(back.nodes[0]), name);
}

// A program's names in any encoding (a Latin-1 argument, a binary NVTX
// name) still give a trace that reads back.
TEST(JsonExport, NamesThatAreNotUtf8ReadBack) {
  Trace original = test::small_trace();
  original.process.cmdline = "app --name caf\xe9";
  original.nodes[0].name = original.strings.intern("scope \xff\xfe");
  MemorySink sink;
  ASSERT_TRUE(write_outputs(original, {"json"}, sink).failures.empty());
  Trace back = parse_trace_json(sink.text("json"));
  EXPECT_EQ(back.process.cmdline, "app --name caf\uFFFD");
  EXPECT_EQ(back.name(back.nodes[0]), "scope \uFFFD\uFFFD");
}

// CPU counters keep their events and each node's values exactly (up to 64
// bits); the status line travels in the diagnostics; off, neither is written.
TEST(JsonExport, RoundTripsCpuCounters) {
  Trace original = test::full_trace();
  {
    MemorySink sink;
    ASSERT_TRUE(write_outputs(original, {"json"}, sink).failures.empty());
    EXPECT_EQ(sink.text("json").find("cpu_counters"), std::string::npos);
  }
  original.diagnostics.cpu_counters =
      "on: cycles, instructions, cache-references, cache-misses, "
      "LLC-load-misses";
  original.cpu_counters.events = {"cycles", "instructions", "cache-references", "cache-misses",
                                  "LLC-load-misses"};
  original.cpu_counters.nodes.push_back({0, {1, 2, 3, 4, 5}});
  original.cpu_counters.nodes.push_back({1, {UINT64_MAX, 0, 7, 0, 1ull << 60}});
  MemorySink sink;
  ASSERT_TRUE(write_outputs(original, {"json"}, sink).failures.empty());
  Trace back = parse_trace_json(sink.text("json"));
  expect_same(original, back);
}

// GPU metrics keep their names, weights, sampling counts and each kernel's
// values exactly (a value not measured as null); off, nothing is written.
TEST(JsonExport, RoundTripsGpuMetrics) {
  Trace original = test::full_trace();
  {
    MemorySink sink;
    ASSERT_TRUE(write_outputs(original, {"json"}, sink).failures.empty());
    EXPECT_EQ(sink.text("json").find("gpu_metrics"), std::string::npos);
  }
  original.diagnostics.gpu_metrics = "kernel replay, 2 passes";
  original.gpu_metrics.metrics = {"dram__bytes_read.sum", "lts__t_sector_hit_rate.pct",
                                  "lts__t_sectors.sum"};
  original.gpu_metrics.weights = {kSummed, 2, kSummed};
  original.gpu_metrics.passes = 2;
  original.gpu_metrics.every = 10;
  original.gpu_metrics.occurrences_sampled = 3;
  original.gpu_metrics.occurrences_skipped = 27;
  original.gpu_metrics.nodes.push_back({0, {4096, 87.5, 1e15}});
  original.gpu_metrics.nodes.push_back({1, {0.1, std::nan(""), 3}});
  MemorySink sink;
  ASSERT_TRUE(write_outputs(original, {"json"}, sink).failures.empty());
  Trace back = parse_trace_json(sink.text("json"));
  expect_same(original, back);
}

}  // namespace
}  // namespace brickprof
