// The browser on shapes that punish recursion and per-row work: a chain of
// 10^5 nested scopes and 10^5 distinct siblings, driven through the keys
// that walk, open, sort, search and detail everything. They must finish
// (no stack overflow, nothing quadratic) and draw within the screen.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/trace_builder.h"
#include "tools/view/browser.h"
#include "tools/view/keys.h"
#include "tools/view/session.h"

namespace brickprof::view {
namespace {

constexpr uint32_t kShapeSize = 100'000;

Trace deep_chain() {
  Trace t;
  uint32_t parent = kNoNode;
  for (uint32_t i = 0; i < kShapeSize; ++i)
    parent = test::add_node(t, {.kind = i == 0 ? NodeKind::kLayer : NodeKind::kScope,
                                .name = i == 0 ? "Layer 0" : "nest",
                                .parent = parent,
                                .thread = 1,
                                .start_ns = i,
                                .end_ns = 2 * static_cast<int64_t>(kShapeSize) - i});
  GpuDetail g;
  g.grid[0] = g.block[0] = 1;
  g.api_start_ns = kShapeSize - 1;
  test::add_gpu_node(t,
                     {.kind = NodeKind::kKernel,
                      .name = "deepest_kernel",
                      .parent = parent,
                      .thread = 1,
                      .start_ns = kShapeSize,
                      .end_ns = kShapeSize + 1},
                     g);
  return t;
}

Trace wide_siblings() {
  Trace t;
  for (uint32_t i = 0; i < kShapeSize; ++i) {
    const int64_t start = 10 * static_cast<int64_t>(i);
    test::add_node(t, {.kind = NodeKind::kBrick,
                       .name = "brick_" + std::to_string(i),
                       .thread = 1,
                       .start_ns = start,
                       .end_ns = start + 1 + i % 7});
  }
  return t;
}

void drive(Session& session) {
  Browser browser(session, 100, 30);
  auto frame = [&] {
    Canvas canvas(100, 30, false);
    browser.draw(canvas);
    for (int y = 0; y < canvas.height(); ++y) ASSERT_LE(display_width(canvas.row(y)), 100);
  };
  frame();
  for (const char* keys :
       {"x", "G", "d", "JJJ", "g", "ssssss", "I",       "/9999\n", "n",  "N", "S",
        "c", "C", "X", "l",   "l", "h",      "h",       "2",       "3",  "G", "\n",
        "4", "5", "6", "7",   "8", "1",      "unest\n", "U",       "w\n"}) {
    for (const char* k = keys; *k; ++k)
      browser.key(*k == '\n' ? key::kEnter : static_cast<unsigned char>(*k));
    frame();
  }
  EXPECT_FALSE(browser.done());
}

TEST(Hostile, DeepChain) {
  Session session(deep_chain(), "deep");
  drive(session);
  // The deepest row is reachable and drawn with its nesting cut short.
  BrowseTree& tree = session.tree();
  tree.set_expanded_below(tree.preorder().front(), true);
  EXPECT_EQ(tree.visible().size(), kShapeSize + 1);
  EXPECT_EQ(tree.depth(tree.visible().back()), kShapeSize);
}

TEST(Hostile, WideSiblings) {
  Session session(wide_siblings(), "wide");
  drive(session);
  EXPECT_EQ(session.tree().visible().size(), kShapeSize);
}

}  // namespace
}  // namespace brickprof::view
