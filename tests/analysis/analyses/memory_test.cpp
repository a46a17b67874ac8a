// Memory accounts, peaks, live sets, growth per run, out-of-memory and the
// per-node figures, exact, on a hand-checked trace (memory_steps.json: a
// load, three decode steps each leaking 4 MiB under "leak", an
// out-of-memory failure; the figures below are worked out by hand in its
// comments here) and on traces built in place for the edge cases.
#include <gtest/gtest.h>

#include <string>
#include <random>

#include "analysis/analyses/memory_ledger.h"
#include "analysis/analyses/memory_nodes.h"
#include "analysis/analyses/memory_ranks.h"
#include "analysis/analyses/memory_report.h"
#include "analysis/analyses/trace_merge.h"
#include "test_util.h"
#include "tests/support/trace_builder.h"

namespace brickprof {
namespace {

constexpr uint64_t MiB = uint64_t{1} << 20;

const AccountMemory& account(const MemoryReport& r, MemoryAccount kind) {
  for (const AccountMemory& m : r.accounts)
    if (r.ledger.accounts[m.account].key.account == kind) return m;
  throw std::runtime_error("no such account");
}

std::string path(const Trace& t, const MemoryReport& r, uint32_t p) { return r.paths.text(t, p); }

// memory_steps.json, device account of GPU 0 (MiB): load 256 + 128 + a
// 64 MiB physical handle = 448; each step +32 (async) +4 (leak) -32; the
// third step's leak reaches 492 at 6.6 ms; a free of an unknown address
// and a failed call change nothing; the out-of-memory at 10.5 ms meets
// 460; 128 freed at 10.6 ms leaves 332 at exit.
TEST(Memory, DeviceAccountPeakAndLiveSet) {
  const Trace t = test::load("memory_steps.json");
  const MemoryReport r = analyze_memory(t);
  ASSERT_EQ(r.accounts.size(), 3u);  // device, host pinned, program pool "weights"
  const AccountMemory& m = account(r, MemoryAccount::kDevice);
  const AccountSeries& s = r.ledger.accounts[m.account];
  EXPECT_EQ(s.key.device, 0u);
  EXPECT_EQ(s.peak, 492 * MiB);
  ASSERT_NE(m.peak_event, kNoEvent);
  EXPECT_EQ(t.memory[m.peak_event].time_ns, 6'600'000);
  EXPECT_EQ(m.device_bytes, 1024 * MiB);
  EXPECT_EQ(s.allocations, 9u);
  EXPECT_EQ(s.allocated, 556 * MiB);
  EXPECT_EQ(s.frees, 4u);
  EXPECT_EQ(s.freed, 224 * MiB);
  EXPECT_EQ(s.live_at_exit, 332 * MiB);
  EXPECT_EQ(s.unpaired_frees, 1u);
  EXPECT_EQ(s.failed, 2u);
  EXPECT_EQ(s.out_of_memory, 1u);

  ASSERT_EQ(m.peak_by_scope.size(), 3u);
  EXPECT_EQ(path(t, r, m.peak_by_scope[0].key), "load");
  EXPECT_EQ(m.peak_by_scope[0].bytes, 448 * MiB);
  EXPECT_EQ(m.peak_by_scope[0].count, 3u);
  EXPECT_EQ(path(t, r, m.peak_by_scope[1].key), "decode / step");
  EXPECT_EQ(m.peak_by_scope[1].bytes, 32 * MiB);
  EXPECT_EQ(path(t, r, m.peak_by_scope[2].key), "decode / step / leak");
  EXPECT_EQ(m.peak_by_scope[2].bytes, 12 * MiB);
  EXPECT_EQ(m.peak_by_scope[2].count, 3u);

  ASSERT_EQ(m.peak_by_line.size(), 3u);
  EXPECT_EQ(frame_text(t, m.peak_by_line[0].key), "model.py:10 load_weights");
  EXPECT_EQ(m.peak_by_line[0].bytes, 384 * MiB);
  EXPECT_EQ(frame_text(t, m.peak_by_line[1].key), "(no Python frame)");  // the physical handle
  EXPECT_EQ(m.peak_by_line[1].bytes, 64 * MiB);
  EXPECT_EQ(frame_text(t, m.peak_by_line[2].key), "model.py:20 step");
  EXPECT_EQ(m.peak_by_line[2].bytes, 44 * MiB);
}

TEST(Memory, SitesAndLiveAtExit) {
  const Trace t = test::load("memory_steps.json");
  const MemoryReport r = analyze_memory(t);
  const AccountMemory& m = account(r, MemoryAccount::kDevice);
  ASSERT_EQ(m.sites.size(), 4u);
  EXPECT_EQ(path(t, r, m.sites[0].path), "load");
  EXPECT_EQ(m.sites[0].bytes, 384 * MiB);
  EXPECT_EQ(m.sites[0].count, 2u);
  EXPECT_EQ(path(t, r, m.sites[1].path), "decode / step");
  EXPECT_EQ(m.sites[1].bytes, 96 * MiB);
  EXPECT_EQ(m.sites[1].count, 3u);
  EXPECT_EQ(m.sites[2].bytes, 64 * MiB);  // load, no Python frame
  EXPECT_EQ(m.sites[2].frame, kNoFrame);
  EXPECT_EQ(path(t, r, m.sites[3].path), "decode / step / leak");
  EXPECT_EQ(m.sites[3].bytes, 12 * MiB);

  ASSERT_EQ(m.live_at_exit.size(), 3u);
  EXPECT_EQ(path(t, r, m.live_at_exit[0].path), "load");
  EXPECT_EQ(m.live_at_exit[0].bytes, 256 * MiB);  // the 128 MiB was freed under "oom"
  EXPECT_EQ(m.live_at_exit[1].bytes, 64 * MiB);
  EXPECT_EQ(path(t, r, m.live_at_exit[2].path), "decode / step / leak");
  EXPECT_EQ(m.live_at_exit[2].bytes, 12 * MiB);
  EXPECT_EQ(m.live_at_exit[2].count, 3u);

  const AccountMemory& pinned = account(r, MemoryAccount::kHostPinned);
  EXPECT_EQ(r.ledger.accounts[pinned.account].key.device, kHostDeviceId);
  EXPECT_EQ(r.ledger.accounts[pinned.account].peak, 64 * MiB);
  EXPECT_EQ(pinned.device_bytes, 0u);  // no headroom for host memory
  const AccountMemory& program = account(r, MemoryAccount::kProgram);
  EXPECT_EQ(t.strings.view(r.ledger.accounts[program.account].key.pool), "weights");
  EXPECT_EQ(r.ledger.accounts[program.account].peak, 200 * MiB);
  EXPECT_EQ(r.ledger.maps, 1u);
  EXPECT_EQ(r.ledger.mapped_bytes, 64 * MiB);
  EXPECT_EQ(r.ledger.trims, 1u);
}

// Each step's 4 MiB under "leak" outlives the last step; its 32 MiB
// does not. "decode / step" has the same survivors as "leak", so only the
// innermost is named.
TEST(Memory, GrowthPerRun) {
  const Trace t = test::load("memory_steps.json");
  const MemoryReport r = analyze_memory(t);
  ASSERT_EQ(r.growing.size(), 1u);
  const GrowingScope& g = r.growing[0];
  EXPECT_EQ(path(t, r, g.path), "decode / step / leak");
  EXPECT_EQ(g.runs, 3u);
  EXPECT_EQ(g.per_run(), 4 * MiB);
  EXPECT_EQ(g.total, 12 * MiB);
  EXPECT_EQ(g.least, 4 * MiB);
  EXPECT_EQ(g.most, 4 * MiB);
}

TEST(Memory, OutOfMemoryLiveSet) {
  const Trace t = test::load("memory_steps.json");
  const MemoryReport r = analyze_memory(t);
  EXPECT_EQ(r.out_of_memory_count, 1u);
  EXPECT_EQ(r.other_failures, 1u);  // result 1: not out of memory
  ASSERT_EQ(r.out_of_memory.size(), 1u);
  const OutOfMemory& o = r.out_of_memory[0];
  EXPECT_EQ(t.memory[o.event].bytes, uint64_t{1} << 40);
  EXPECT_EQ(o.live, 460 * MiB);
  EXPECT_EQ(o.device_bytes, 1024 * MiB);
  ASSERT_EQ(o.live_by_scope.size(), 2u);
  EXPECT_EQ(path(t, r, o.live_by_scope[0].key), "load");
  EXPECT_EQ(o.live_by_scope[0].bytes, 448 * MiB);
  EXPECT_EQ(path(t, r, o.live_by_scope[1].key), "decode / step / leak");
  EXPECT_EQ(o.live_by_scope[1].bytes, 12 * MiB);
}

// Step 1 (node 2, 2-4 ms): 32 + 4 allocated inside (the leak in its child
// "leak"), 32 freed; 448 live at its start, 452 at its end, 484 at most.
// "decode" (node 1): the three steps and the unpaired free (no bytes).
TEST(Memory, PerNodeFigures) {
  const Trace t = test::load("memory_steps.json");
  const MemoryLedger ledger = build_memory_ledger(t);
  const NodeMemoryIndex index(t, ledger);
  const uint32_t device = ledger.account_of({MemoryAccount::kDevice, 0, 0});
  ASSERT_NE(device, kNoAccount);
  NodeMemory step = index.of(t, ledger, 2, device);
  EXPECT_EQ(step.allocated, 36 * MiB);
  EXPECT_EQ(step.allocations, 2u);
  EXPECT_EQ(step.freed, 32 * MiB);
  EXPECT_EQ(step.frees, 1u);
  EXPECT_EQ(step.live_at_start, 448 * MiB);
  EXPECT_EQ(step.live_at_end, 452 * MiB);
  EXPECT_EQ(step.peak, 484 * MiB);
  NodeMemory decode = index.of(t, ledger, 1, device);
  EXPECT_EQ(decode.allocated, 108 * MiB);
  EXPECT_EQ(decode.allocations, 6u);
  EXPECT_EQ(decode.freed, 96 * MiB);
  EXPECT_EQ(decode.frees, 3u);
  EXPECT_EQ(decode.live_at_start, 448 * MiB);
  EXPECT_EQ(decode.live_at_end, 460 * MiB);
  EXPECT_EQ(decode.peak, 492 * MiB);
  NodeMemory leak = index.of(t, ledger, 3, device);  // 2.5-3.0 ms: its own 4 MiB
  EXPECT_EQ(leak.allocated, 4 * MiB);
  EXPECT_EQ(leak.live_at_start, 480 * MiB);
  EXPECT_EQ(leak.live_at_end, 484 * MiB);
  EXPECT_EQ(leak.peak, 484 * MiB);
  EXPECT_TRUE(index.touched(8));  // "oom": the 128 MiB freed there
  EXPECT_EQ(index.of(t, ledger, 8, device).freed, 128 * MiB);
}

MemoryEvent event(MemoryOp op, MemorySource source, uint64_t address, uint64_t bytes,
                  int64_t t) {
  MemoryEvent e;
  e.op = op;
  e.source = source;
  e.address = address;
  e.bytes = bytes;
  e.time_ns = t;
  return e;
}

// A free pairs by (account, device, address): the same address in the
// program's pool and on another device are other allocations; a failed
// free changes nothing; an allocation at a live address ends the earlier.
TEST(Memory, PairingByAccountDeviceAndAddress) {
  Trace t;
  t.memory.push_back(event(MemoryOp::kAlloc, MemorySource::kDevice, 0x100, 10, 1));
  MemoryEvent other_device = event(MemoryOp::kAlloc, MemorySource::kDevice, 0x100, 20, 2);
  other_device.device = 1;
  t.memory.push_back(other_device);
  MemoryEvent pool = event(MemoryOp::kAlloc, MemorySource::kProgram, 0x100, 5, 3);
  pool.name = t.strings.intern("kv");
  t.memory.push_back(pool);
  MemoryEvent failed_free = event(MemoryOp::kFree, MemorySource::kDevice, 0x100, 0, 4);
  failed_free.result = 1;
  t.memory.push_back(failed_free);
  t.memory.push_back(event(MemoryOp::kFree, MemorySource::kAsync, 0x100, 0, 5));  // device 0's
  t.memory.push_back(event(MemoryOp::kAlloc, MemorySource::kDevice, 0x200, 7, 6));
  t.memory.push_back(event(MemoryOp::kAlloc, MemorySource::kDevice, 0x200, 8, 7));  // 7 ended
  t.memory.push_back(event(MemoryOp::kFree, MemorySource::kDevice, 0x999, 0, 8));
  const MemoryLedger l = build_memory_ledger(t);
  ASSERT_EQ(l.accounts.size(), 3u);
  const AccountSeries& d0 = l.accounts[0];
  EXPECT_EQ(d0.failed, 1u);
  EXPECT_EQ(d0.frees, 1u);
  EXPECT_EQ(d0.unpaired_frees, 1u);
  EXPECT_EQ(d0.unrecorded_frees, 1u);
  EXPECT_EQ(d0.peak, 10u);
  EXPECT_EQ(d0.live_at_exit, 8u);
  EXPECT_EQ(l.events[4].pair, 0u);
  EXPECT_EQ(l.events[0].pair, 4u);
  EXPECT_EQ(l.events[5].pair, 6u);
  EXPECT_EQ(l.accounts[1].live_at_exit, 20u);  // device 1
  EXPECT_EQ(l.accounts[2].live_at_exit, 5u);   // the pool
}

// Managed memory is freed with cuMemFree (the driver API has no managed
// free of its own), which the agent records as a device free: it ends the
// managed allocation at that address. Seen in the agent's trace of its
// device_memory_app on the fake driver.
TEST(Memory, CuMemFreeEndsManagedMemory) {
  Trace t;
  t.memory.push_back(event(MemoryOp::kAlloc, MemorySource::kManaged, 0x500, 64, 1));
  t.memory.push_back(event(MemoryOp::kAlloc, MemorySource::kDevice, 0x600, 32, 2));
  t.memory.push_back(event(MemoryOp::kFree, MemorySource::kDevice, 0x500, 0, 3));
  const MemoryLedger l = build_memory_ledger(t);
  ASSERT_EQ(l.accounts.size(), 2u);
  EXPECT_EQ(l.accounts[0].key.account, MemoryAccount::kManaged);
  EXPECT_EQ(l.accounts[0].live_at_exit, 0u);
  EXPECT_EQ(l.accounts[0].frees, 1u);
  EXPECT_EQ(l.accounts[1].unpaired_frees, 0u);
  EXPECT_EQ(l.accounts[1].live_at_exit, 32u);
  EXPECT_EQ(l.events[2].pair, 0u);
}

// cuMemRelease of a handle still mapped frees nothing yet: "the memory
// allocation will be freed when all outstanding mappings to the memory are
// unmapped" (CUDA driver API, cuMemRelease). The last unmap ends it; a map
// names its handle in `pool`.
TEST(Memory, ReleaseOfAMappedHandleEndsAtTheLastUnmap) {
  Trace t;
  constexpr uint64_t kHandle = 0x1000, kVa = 0x7e0000000000, kVa2 = 0x7e0000400000;
  t.memory.push_back(event(MemoryOp::kAlloc, MemorySource::kPhysical, kHandle, 4 * MiB, 1));
  MemoryEvent map = event(MemoryOp::kMap, MemorySource::kMapping, kVa, 4 * MiB, 2);
  map.pool = kHandle;
  t.memory.push_back(map);
  map.address = kVa2;
  map.time_ns = 3;
  t.memory.push_back(map);
  t.memory.push_back(event(MemoryOp::kFree, MemorySource::kPhysical, kHandle, 0, 4));
  t.memory.push_back(event(MemoryOp::kUnmap, MemorySource::kMapping, kVa, 0, 5));
  t.memory.push_back(event(MemoryOp::kUnmap, MemorySource::kMapping, kVa2, 0, 6));
  // A handle released unmapped ends at once.
  t.memory.push_back(event(MemoryOp::kAlloc, MemorySource::kPhysical, kHandle + 1, 2 * MiB, 7));
  t.memory.push_back(event(MemoryOp::kFree, MemorySource::kPhysical, kHandle + 1, 0, 8));
  std::vector<std::pair<int64_t, uint64_t>> live;
  MemoryAccounts accounts(t);
  walk_memory_live(t, accounts, [&](uint32_t, int64_t time, uint64_t bytes) {
    live.emplace_back(time, bytes);
  });
  const std::vector<std::pair<int64_t, uint64_t>> expected = {
      {1, 4 * MiB}, {6, 0}, {7, 2 * MiB}, {8, 0}};
  EXPECT_EQ(live, expected);
  const MemoryLedger l = build_memory_ledger(t);
  ASSERT_EQ(l.accounts.size(), 1u);
  EXPECT_EQ(l.accounts[0].live_at_exit, 0u);
  EXPECT_EQ(l.accounts[0].unpaired_frees, 0u);
  EXPECT_EQ(l.events[0].pair, 5u) << "ended by the last unmap";
}

// Events out of time order (a hand-made trace) are taken in time order.
TEST(Memory, EventsOutOfOrder) {
  Trace t;
  t.memory.push_back(event(MemoryOp::kFree, MemorySource::kDevice, 0x100, 0, 20));
  t.memory.push_back(event(MemoryOp::kAlloc, MemorySource::kDevice, 0x100, 64, 10));
  const MemoryLedger l = build_memory_ledger(t);
  EXPECT_EQ(l.accounts[0].unpaired_frees, 0u);
  EXPECT_EQ(l.accounts[0].live_at_exit, 0u);
  EXPECT_EQ(l.accounts[0].peak, 64u);
}

TEST(Memory, TextAndJsonViews) {
  const Trace t = test::load("memory_steps.json");
  const std::string text = test::render("memory", t);
  for (const char* line : {
           "GPU 0 device memory: peak 492.0MiB at 5.60ms in decode / step / leak (model.py:20 "
           "step); headroom 532.0MiB of 1.0GiB",
           "  1 free of an address with no recorded allocation (nothing subtracted)",
           "  decode / step / leak: +4.0MiB per run over 3 runs (12.0MiB; a run 4.0MiB), GPU 0 "
           "device memory",
           "  at 9.50ms cuMemAlloc_v2 asked 1.0TiB of GPU 0 device memory in oom (model.py:30 "
           "grow): 460.0MiB live of 1.0GiB",
           "host pinned memory: peak 64.0MiB",
           "program pool \"weights\" on GPU 0: peak 200.0MiB",
       })
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n---\n" << text;
  const std::string json = test::render("memory", t, {}, true);
  EXPECT_NE(json.find("\"headroom_bytes\":557842432"), std::string::npos) << json;
  EXPECT_NE(json.find("\"per_run_bytes\":4194304"), std::string::npos) << json;
}

// Two ranks merged: each rank's events keep their own accounts (their
// GPUs are renumbered; host memory is told apart by the rank's threads,
// though both processes used the same addresses), and the ranks view
// gives each rank's peak and headroom.
TEST(Memory, MergedRanksKeepTheirOwnAccounts) {
  Trace ranks[2];
  for (int r = 0; r < 2; ++r) {
    Trace& t = ranks[r];
    t.process.pid = 100 + r;
    t.process.rank = r;
    t.process.world_size = 2;
    Device gpu;
    gpu.id = 0;
    gpu.name = "Fake GPU";
    gpu.memory_bytes = 1000;
    t.devices.push_back(gpu);
    t.threads.push_back({static_cast<uint32_t>(10 + r), "main"});
    test::add_node(t, {.name = "work", .thread = static_cast<uint32_t>(10 + r), .end_ns = 100});
    MemoryEvent device = event(MemoryOp::kAlloc, MemorySource::kDevice, 0x100, 300 + 100 * r, 10);
    device.thread = 10 + r;
    device.scope = 0;
    MemoryEvent pinned = event(MemoryOp::kAlloc, MemorySource::kPinned, 0x200, 7 + r, 20);
    pinned.thread = 10 + r;
    pinned.device = kHostDeviceId;
    MemoryEvent freed = event(MemoryOp::kFree, MemorySource::kPinned, 0x200, 0, 30 + r);
    freed.thread = 10 + r;
    freed.device = kHostDeviceId;
    t.memory = {device, pinned, freed};
  }
  const Trace merged = merge_traces({ranks[0], ranks[1]});
  ASSERT_EQ(merged.memory.size(), 6u);
  const MemoryLedger l = build_memory_ledger(merged);
  ASSERT_EQ(l.accounts.size(), 4u);  // two GPUs, two ranks' pinned host memory
  for (const AccountSeries& a : l.accounts) {
    EXPECT_EQ(a.unpaired_frees, 0u) << account_label(merged, a.key);
    EXPECT_EQ(a.unrecorded_frees, 0u) << account_label(merged, a.key);
  }
  const RankIndex index = index_ranks(merged);
  const std::vector<RankMemory> per_rank = memory_per_rank(merged, index);
  ASSERT_EQ(per_rank.size(), 4u);
  EXPECT_EQ(per_rank[0].rank, 0u);
  EXPECT_EQ(per_rank[0].peak, 300u);
  EXPECT_EQ(per_rank[0].headroom(), 700u);
  EXPECT_EQ(account_label(merged, per_rank[1].key), "rank 0: host pinned memory");
  EXPECT_EQ(per_rank[1].peak, 7u);
  EXPECT_EQ(per_rank[2].rank, 1u);
  EXPECT_EQ(per_rank[2].peak, 400u);
  EXPECT_EQ(per_rank[2].headroom(), 600u);
  EXPECT_EQ(per_rank[3].peak, 8u);
  const std::string text = test::render("ranks", merged);
  EXPECT_NE(text.find("Memory per rank"), std::string::npos) << text;
  EXPECT_NE(text.find("  rank 1: GPU 1 device memory: peak 400B, headroom 600B of 1000B\n"),
            std::string::npos)
      << text;
}

// The per-node figures and the growth per run against a brute-force
// reading of their definitions (analysis/README.md, "Memory"), on random
// traces: nested scopes with repeated names on two threads, allocations
// and frees at a few addresses (so some frees are unpaired and some
// addresses reused), failures.
TEST(Memory, AgreesWithBruteForceOnRandomTraces) {
  std::mt19937 rng(7);
  size_t growing = 0, unpaired = 0;
  for (int round = 0; round < 200; ++round) {
    Trace t;
    const char* names[] = {"step", "leak", "load", "Attention"};
    int64_t clock = 0;
    std::vector<uint32_t> open;
    for (int i = 0; i < 30; ++i) {
      const uint32_t parent = open.empty() || rng() % 3 == 0 ? kNoNode : open.back();
      const uint32_t id = test::add_node(
          t, {.name = names[rng() % 4], .parent = parent, .thread = 1, .start_ns = clock});
      open.push_back(id);
      clock += 1 + rng() % 5;
      while (!open.empty() && rng() % 2) {
        t.nodes[open.back()].end_ns = clock;
        open.pop_back();
        clock += rng() % 3;
      }
    }
    while (!open.empty()) {
      t.nodes[open.back()].end_ns = clock;
      open.pop_back();
    }
    // Parents must contain their children: a node closed later than its
    // parent is fixed up by widening the parent.
    for (uint32_t n = static_cast<uint32_t>(t.nodes.size()); n-- > 0;)
      if (t.nodes[n].parent != kNoNode)
        t.nodes[t.nodes[n].parent].end_ns =
            std::max(t.nodes[t.nodes[n].parent].end_ns, t.nodes[n].end_ns);
    for (int i = 0; i < 60; ++i) {
      const bool alloc = rng() % 3 != 0;
      MemoryEvent e = event(alloc ? MemoryOp::kAlloc : MemoryOp::kFree,
                            rng() % 4 ? MemorySource::kDevice : MemorySource::kManaged,
                            0x100 * (rng() % 6), alloc ? 1 + rng() % 100 : 0,
                            static_cast<int64_t>(rng() % static_cast<uint32_t>(clock + 1)));
      e.scope = rng() % 5 ? static_cast<uint32_t>(rng() % t.nodes.size()) : kNoNode;
      if (rng() % 10 == 0) e.result = 2;
      t.memory.push_back(e);
    }
    std::stable_sort(t.memory.begin(), t.memory.end(),
                     [](const MemoryEvent& a, const MemoryEvent& b) { return a.time_ns < b.time_ns; });
    const MemoryReport r = analyze_memory(t);
    const MemoryLedger& l = r.ledger;
    const auto inside = [&](uint32_t scope, uint32_t node) {
      for (uint32_t p = scope; p != kNoNode; p = t.nodes[p].parent)
        if (p == node) return true;
      return false;
    };
    for (uint32_t a = 0; a < l.accounts.size(); ++a) {
      const AccountSeries& s = l.accounts[a];
      for (uint32_t n = 0; n < t.nodes.size(); ++n) {
        NodeMemory want;
        for (uint32_t e = 0; e < t.memory.size(); ++e) {
          if (l.events[e].account != a) continue;
          const MemoryEvent& ev = t.memory[e];
          if (ev.scope != kNoNode && inside(ev.scope, n)) {
            if (ev.op == MemoryOp::kAlloc) {
              want.allocated += ev.bytes;
              ++want.allocations;
            } else if (l.events[e].pair != kNoEvent) {
              want.freed += l.events[e].bytes;
              ++want.frees;
            }
          }
        }
        for (size_t k = 0; k < s.events.size(); ++k) {
          const int64_t at = t.memory[s.events[k]].time_ns;
          if (at < t.nodes[n].start_ns) want.live_at_start = s.live[k];
          if (at <= t.nodes[n].end_ns) want.live_at_end = s.live[k];
        }
        want.peak = want.live_at_start;
        for (size_t k = 0; k < s.events.size(); ++k) {
          const int64_t at = t.memory[s.events[k]].time_ns;
          if (at >= t.nodes[n].start_ns && at <= t.nodes[n].end_ns)
            want.peak = std::max(want.peak, s.live[k]);
        }
        const NodeMemory got = r.nodes.of(t, l, n, a);
        ASSERT_EQ(got.allocated, want.allocated) << round << " node " << n;
        ASSERT_EQ(got.allocations, want.allocations) << round << " node " << n;
        ASSERT_EQ(got.freed, want.freed) << round << " node " << n;
        ASSERT_EQ(got.frees, want.frees) << round << " node " << n;
        ASSERT_EQ(got.live_at_start, want.live_at_start) << round << " node " << n;
        ASSERT_EQ(got.live_at_end, want.live_at_end) << round << " node " << n;
        ASSERT_EQ(got.peak, want.peak) << round << " node " << n;
      }
    }
    for (const AccountSeries& s : l.accounts) unpaired += s.unpaired_frees;
    growing += r.growing.size();
    // Growth: every reported path's runs each left survivors, summing to its total.
    for (const GrowingScope& g : r.growing) {
      uint64_t total = 0, runs = 0;
      int64_t last_end = INT64_MIN;
      for (uint32_t n = 0; n < t.nodes.size(); ++n)
        if (r.paths.of(n) == g.path) last_end = std::max(last_end, t.nodes[n].end_ns);
      for (uint32_t n = 0; n < t.nodes.size(); ++n) {
        if (r.paths.of(n) != g.path) continue;
        uint64_t survivors = 0;
        for (uint32_t e = 0; e < t.memory.size(); ++e)
          if (l.events[e].account == g.account && t.memory[e].op == MemoryOp::kAlloc &&
              t.memory[e].scope != kNoNode && inside(t.memory[e].scope, n) &&
              l.ended_ns(t, e) > last_end)
            survivors += l.events[e].bytes;
        ASSERT_GT(survivors, 0u) << round;
        total += survivors;
        ++runs;
      }
      ASSERT_EQ(total, g.total) << round;
      ASSERT_EQ(runs, g.runs) << round;
    }
  }
  EXPECT_GT(growing, 20u);  // the cases were reached
  EXPECT_GT(unpaired, 20u);
}

// memory_ranks.json: memory_steps.json as two ranks, through `brickprof
// merge`: each rank's figures are the single run's.
TEST(Memory, MergedFixtureHasEachRanksFigures) {
  const Trace t = test::load("memory_ranks.json");
  const MemoryReport r = analyze_memory(t);
  ASSERT_EQ(r.accounts.size(), 6u);
  size_t devices = 0;
  for (const AccountMemory& m : r.accounts) {
    const AccountSeries& s = r.ledger.accounts[m.account];
    if (s.key.account != MemoryAccount::kDevice) continue;
    ++devices;
    EXPECT_EQ(s.peak, 492 * MiB);
    EXPECT_EQ(s.live_at_exit, 332 * MiB);
    EXPECT_EQ(s.unpaired_frees, 1u);
  }
  EXPECT_EQ(devices, 2u);
  ASSERT_EQ(r.growing.size(), 2u);  // each rank's "leak"
  EXPECT_EQ(r.growing[0].per_run(), 4 * MiB);
  EXPECT_EQ(r.growing[1].per_run(), 4 * MiB);
  EXPECT_EQ(r.out_of_memory_count, 2u);
  const std::string text = test::render("ranks", t);
  EXPECT_NE(text.find("  rank 1: GPU 1 device memory: peak 492.0MiB, headroom 532.0MiB of 1.0GiB\n"),
            std::string::npos)
      << text;
}

// memory_agent.json: the agent's trace of the agent tests' device memory
// program (device_memory_app) on the fake driver (a 1 GiB device): weights
// of 1, 2 and 3 MiB per layer, four decode steps each allocating 2 MiB + 4 KiB from a pool (freed in the
// step) and leaking 64 KiB under "kv_append", a 4 MiB VMM handle mapped and
// released, 1 MiB pinned + 64 KiB registered host memory, 1 MiB managed
// memory freed with cuMemFree, then 1 GiB that does not fit.
TEST(Memory, AgentTraceOfTheDeviceMemoryApp) {
  const Trace t = test::load("memory_agent.json");
  const MemoryReport r = analyze_memory(t);
  const AccountMemory& device = account(r, MemoryAccount::kDevice);
  const AccountSeries& d = r.ledger.accounts[device.account];
  constexpr uint64_t KiB = 1024;
  EXPECT_EQ(d.peak, 6 * MiB + 4 * 64 * KiB + 4 * MiB);  // weights, leaks, the VMM handle
  EXPECT_EQ(path(t, r, r.paths.of(t.memory[device.peak_event].scope)), "vmm");
  EXPECT_EQ(device.device_bytes, 1024 * MiB);
  EXPECT_EQ(d.unpaired_frees, 0u);
  EXPECT_EQ(d.live_at_exit, 4 * 64 * KiB);  // the weights freed at exit, the leaks not
  ASSERT_EQ(r.growing.size(), 1u);
  EXPECT_EQ(path(t, r, r.growing[0].path), "decode_step / kv_append");
  EXPECT_EQ(r.growing[0].runs, 4u);
  EXPECT_EQ(r.growing[0].per_run(), 64 * KiB);
  ASSERT_EQ(r.out_of_memory.size(), 1u);
  EXPECT_EQ(r.out_of_memory[0].live, 6 * MiB + 4 * 64 * KiB);
  EXPECT_EQ(t.memory[r.out_of_memory[0].event].bytes, 1024 * MiB);
  const AccountMemory& pinned = account(r, MemoryAccount::kHostPinned);
  EXPECT_EQ(r.ledger.accounts[pinned.account].peak, 1 * MiB + 64 * KiB);
  EXPECT_EQ(r.ledger.accounts[pinned.account].live_at_exit, 0u);
  const AccountMemory& managed = account(r, MemoryAccount::kManaged);
  EXPECT_EQ(r.ledger.accounts[managed.account].peak, 1 * MiB);
  EXPECT_EQ(r.ledger.accounts[managed.account].live_at_exit, 0u);  // cuMemFree ended it
  EXPECT_EQ(r.ledger.maps, 1u);
  EXPECT_EQ(r.ledger.unmaps, 1u);
}

// A program that allocated but ran no scope and no GPU work: the memory
// view shows its memory where every other view says nothing was recorded.
TEST(Memory, MemoryWithoutNodes) {
  Trace t;
  t.memory.push_back(event(MemoryOp::kAlloc, MemorySource::kDevice, 0x100, 4096, 10));
  const std::string text = test::render("memory", t);
  EXPECT_NE(text.find("GPU 0 device memory: peak 4.0KiB"), std::string::npos) << text;
  EXPECT_NE(text.find("(outside every scope)"), std::string::npos) << text;
}

TEST(Memory, NoEvents) {
  Trace t;
  test::add_node(t, {.name = "only", .end_ns = 10});
  EXPECT_EQ(test::render("memory", t), "Memory: no memory events in the trace\n");
  const MemoryReport r = analyze_memory(t);
  EXPECT_TRUE(r.accounts.empty());
  EXPECT_TRUE(r.growing.empty());
}

}  // namespace
}  // namespace brickprof
