// The browser's tree: the aggregate tree's entries with PTX rows under
// kernels, GPU time rolled up, sorting, expansion and the visible rows.
#include "tools/view/browse_tree.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "trace/derive/aggregate_tree.h"
#include "trace/formats/tree.h"
#include "trace/json/trace_json.h"
#include "view_test_util.h"

namespace brickprof::view::test {
namespace {

struct Loaded {
  Trace trace;
  std::unique_ptr<BrowseTree> tree;
  explicit Loaded(const std::string& file) : trace(read_trace_file(data(file))) {
    tree = std::make_unique<BrowseTree>(trace, build_aggregate_tree(trace));
  }
};

uint32_t find(BrowseTree& t, const std::string& label) {
  for (uint32_t r : t.preorder())
    if (t.label(r) == label) return r;
  return kNoRow;
}

TEST(BrowseTree, EveryAggregateEntryIsARowAndKernelsHaveTheirPtx) {
  Loaded l("gpu/bricklayer-graph.json");
  BrowseTree& t = *l.tree;
  const AggregateTree& agg = t.aggregate();
  // One thread: the thread group is not a row; every other entry is.
  size_t entries = agg.nodes.size() - 2, ptx = 0;
  for (uint32_t r : t.preorder()) ptx += t.is_ptx(r);
  EXPECT_EQ(t.preorder().size(), entries + ptx);
  EXPECT_GT(ptx, 0u);
  for (uint32_t r : t.preorder()) {
    if (!t.is_ptx(r)) continue;
    EXPECT_EQ(t.ptx_hash(r), 0x7a1747aa337a71caull);
    EXPECT_EQ(t.label(t.parent(r)).rfind("bl_", 0), 0u);  // under a kernel
    EXPECT_EQ(t.label(r), "PTX 0x7a1747aa337a71ca");
  }
  // Labels are the tree export's.
  for (uint32_t r : t.preorder()) {
    if (t.is_ptx(r) || t.is_outside(r)) continue;
    EXPECT_EQ(tree_entry_text(l.trace, agg, r).rfind(t.label(r), 0), 0u) << t.label(r);
  }
  // The last top-level row is the time outside every scope, as the export says.
  const uint32_t last = t.preorder().back();
  ASSERT_TRUE(t.is_outside(last));
  EXPECT_EQ(t.parent(last), kNoRow);
  EXPECT_EQ(t.label(last), "(outside every scope)");
  EXPECT_EQ(t.total_ns(last), time_outside_scopes(l.trace, build_aggregate_tree(l.trace)));
  EXPECT_GT(t.total_ns(last), 0);
}

TEST(BrowseTree, GpuTimeRollsUpAndSharesAreOfTheParent) {
  Loaded l("tree_small.json");
  BrowseTree& t = *l.tree;
  const uint32_t layer = find(t, "Layer 0");
  const uint32_t qkv = find(t, "QkvProjection");
  ASSERT_NE(layer, kNoRow);
  ASSERT_NE(qkv, kNoRow);
  // QkvProjection's kernels: 100 µs + 50 µs + 750 ns.
  EXPECT_EQ(t.gpu_ns(qkv), 150'750);
  // Layer 0: RmsNorm's kernel, Qkv's and the copy; not the sync (the host
  // waiting).
  EXPECT_EQ(t.gpu_ns(layer), 12'300 + 150'750 + 50'000);
  // A CPU row: of its parent's total; top-level CPU rows, with the time
  // outside every scope, share 100%: the run.
  EXPECT_NEAR(t.share(qkv), 100.0 * 300'000 / 1'330'000, 1e-9);
  double top = 0;
  for (uint32_t r : t.preorder())
    if (t.parent(r) == kNoRow) top += t.share(r);
  EXPECT_NEAR(top, 100.0, 1e-9);
  // A kernel: of its parent's GPU time.
  const uint32_t gemv = find(t, "batched_q4k_gemv");
  EXPECT_NEAR(t.share(gemv), 100.0 * 150'000 / 150'750, 1e-9);
}

TEST(BrowseTree, ExpansionDecidesTheVisibleRows) {
  Loaded l("tree_small.json");
  BrowseTree& t = *l.tree;
  EXPECT_EQ(t.visible().size(), 3u);  // Layer 0, Layer 1, (outside every scope)
  const uint32_t layer = find(t, "Layer 0");
  t.set_expanded(layer, true);
  EXPECT_EQ(t.visible().size(), 3u + 4u);
  EXPECT_EQ(t.visible_index(find(t, "QkvProjection")), 2u);
  t.set_expanded_below(layer, true);
  // Layer 0, its four children, RmsNorm's kernel and QkvProjection's two.
  EXPECT_EQ(t.visible_index(find(t, "Layer 1")), 1u + 4u + 1u + 2u);
  t.set_expanded_below(layer, false);
  EXPECT_EQ(t.visible().size(), 3u);
  // Revealing a deep row expands what is above it.
  const uint32_t attention = find(t, "attention<float, 128>");
  t.reveal(attention);
  EXPECT_NE(t.visible_index(attention), SIZE_MAX);
  EXPECT_TRUE(t.expanded(layer));
}

TEST(BrowseTree, ExpandToFitFillsTheScreenLevelByLevel) {
  Loaded l("gpu/bricklayer-graph.json");
  BrowseTree& t = *l.tree;
  t.expand_to_fit(30);
  const size_t shown = t.visible().size();
  EXPECT_LE(shown, 30u);
  EXPECT_GT(shown, 5u);                                      // more than the five top-level rows
  for (uint32_t r : t.visible()) EXPECT_FALSE(t.is_ptx(r));  // kernels stay closed
}

TEST(BrowseTree, SortsSiblingsByAColumnAndBack) {
  Loaded l("tree_small.json");
  BrowseTree& t = *l.tree;
  const uint32_t layer = find(t, "Layer 0");
  auto labels = [&] {
    std::vector<std::string> out;
    for (uint32_t c : t.children(layer)) out.push_back(t.label(c));
    return out;
  };
  const std::vector<std::string> tree_order = labels();
  EXPECT_EQ(tree_order,
            (std::vector<std::string>{"RmsNorm", "QkvProjection", "H2D", "cuStreamSynchronize"}));
  t.sort(SortKey::kTotal, true);
  EXPECT_EQ(labels(),
            (std::vector<std::string>{"QkvProjection", "RmsNorm", "H2D", "cuStreamSynchronize"}));
  t.sort(SortKey::kTotal, false);
  EXPECT_EQ(labels().front(), "cuStreamSynchronize");
  t.sort(SortKey::kName, false);
  EXPECT_EQ(labels(),
            (std::vector<std::string>{"H2D", "QkvProjection", "RmsNorm", "cuStreamSynchronize"}));
  t.sort(SortKey::kTree, true);
  EXPECT_EQ(labels(), tree_order);
}

TEST(BrowseTree, MembersAreTheMergedTraceNodes) {
  Loaded l("tree_small.json");
  BrowseTree& t = *l.tree;
  const uint32_t rms = find(t, "RmsNorm");  // under the two Layer 0 roots
  const auto members = t.members(rms);
  ASSERT_EQ(members.size(), 2u);
  for (uint32_t m : members) EXPECT_EQ(l.trace.name(l.trace.nodes[m]), "RmsNorm");
  EXPECT_EQ(t.aggregate().nodes[rms].count, 2u);
}

TEST(BrowseTree, SeveralThreadsAreRowsOfTheirOwn) {
  Loaded l("analyses/seed_threads.json");
  BrowseTree& t = *l.tree;
  ASSERT_TRUE(t.aggregate().multi_thread());
  for (uint32_t r : t.children(0)) {
    EXPECT_EQ(t.label(r).rfind("Thread ", 0), 0u);
    EXPECT_EQ(t.depth(r), 0u);
    EXPECT_GT(t.total_ns(r), 0);  // the sum of its scopes
  }
}

}  // namespace
}  // namespace brickprof::view::test
