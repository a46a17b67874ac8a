// The browser on shapes that punish recursion and per-row work: a chain of
// 10^5 nested scopes and 10^5 distinct siblings, driven through the keys
// that walk, open, sort, search and detail everything. They must finish
// (no stack overflow, nothing quadratic) and draw within the screen.
#include <gtest/gtest.h>

#include <string>

#include "tools/view/browser.h"
#include "tools/view/keys.h"
#include "tools/view/session.h"

namespace brickprof::view {
namespace {

constexpr uint32_t kShapeSize = 100'000;

Trace deep_chain() {
  Trace t;
  const StringId scope = t.strings.intern("nest");
  uint32_t parent = kNoNode;
  for (uint32_t i = 0; i < kShapeSize; ++i) {
    Node n;
    n.kind = i == 0 ? NodeKind::kLayer : NodeKind::kScope;
    n.name = i == 0 ? t.strings.intern("Layer 0") : scope;
    n.parent = parent;
    n.thread = 1;
    n.start_ns = i;
    n.end_ns = 2 * static_cast<int64_t>(kShapeSize) - i;
    parent = t.add_node(n);
  }
  Node k;
  k.kind = NodeKind::kKernel;
  k.name = t.strings.intern("deepest_kernel");
  k.parent = parent;
  k.thread = 1;
  k.start_ns = kShapeSize;
  k.end_ns = kShapeSize + 1;
  GpuDetail g;
  g.grid[0] = g.block[0] = 1;
  g.api_start_ns = kShapeSize - 1;
  t.add_gpu_node(k, g);
  return t;
}

Trace wide_siblings() {
  Trace t;
  for (uint32_t i = 0; i < kShapeSize; ++i) {
    Node n;
    n.kind = NodeKind::kBrick;
    n.name = t.strings.intern("brick_" + std::to_string(i));
    n.thread = 1;
    n.start_ns = 10 * static_cast<int64_t>(i);
    n.end_ns = n.start_ns + 1 + i % 7;
    t.add_node(n);
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
