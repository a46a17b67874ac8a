// The program's shapes in the analyzer: which shape applies to a node (its
// own, else its nearest enclosing scope's, so a kernel takes its brick's),
// the ops split by shape, output sizes, and what report --analyze prints.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/analyses/shapes.h"
#include "analysis/analyses/trace_analyzer.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "tests/support/trace_builder.h"

namespace brickprof {
namespace {

using test::add_gpu_node;
using test::add_node;

// Two decode steps of one token and a prefill of four: an UpProjection brick
// each, its kernel under it; the prefill's brick has the wider shape.
Trace shaped_trace() {
  Trace t;
  int64_t at = 0;
  for (int64_t rows : {4, 1, 1}) {
    const uint32_t brick = add_node(t, {.kind = NodeKind::kBrick, .brick_id = 9,
                                        .name = "UpProjection", .thread = 1, .start_ns = at,
                                        .end_ns = at + 100 * rows});
    add_gpu_node(t, {.kind = NodeKind::kKernel, .name = "gemv", .parent = brick,
                     .start_ns = at + 10, .end_ns = at + 10 + 50 * rows});
    t.shapes.push_back(NodeShape{brick, "bf16", {{rows, 4096}, {11008, 4096}}, {rows, 11008}});
    at += 1000;
  }
  // A CPU brick of its own with no GPU work: an op itself, shaped q4_k.
  const uint32_t sampling = add_node(t, {.kind = NodeKind::kBrick, .brick_id = 14,
                                         .name = "Sampling", .thread = 1, .start_ns = at,
                                         .end_ns = at + 30});
  t.shapes.push_back(NodeShape{sampling, "q4_k", {{1, 32000}}, {1}});
  // And one without shapes.
  add_node(t, {.kind = NodeKind::kScope, .name = "tokenize", .thread = 1, .start_ns = at + 100,
               .end_ns = at + 200});
  return t;
}

TEST(Shapes, AKernelTakesItsBricksShape) {
  const Trace t = shaped_trace();
  const ShapeIndex shapes(t);
  ASSERT_NE(shapes.of(1), nullptr);  // the prefill's kernel
  EXPECT_EQ(shapes.of(1), shapes.of(0));
  EXPECT_EQ(shapes.of(1)->output, (std::vector<int64_t>{4, 11008}));
  EXPECT_EQ(shapes.of(static_cast<uint32_t>(t.nodes.size() - 1)), nullptr);  // tokenize
}

TEST(Shapes, TextAndOutputSize) {
  const NodeShape s{0, "bf16", {{4, 4096}, {11008, 4096}}, {4, 11008}};
  EXPECT_EQ(shape_text(s), "bf16 [4,4096] [11008,4096] -> [4,11008]");
  EXPECT_EQ(s.output_elements(), 4u * 11008u);
  EXPECT_EQ(output_bytes(s), 2u * 4u * 11008u);
  const NodeShape q{0, "q4_k", {}, {32000}};  // an element type without a whole byte size
  EXPECT_EQ(shape_text(q), "q4_k -> [32000]");
  EXPECT_EQ(output_bytes(q), 0u);
  EXPECT_EQ(shape_text(NodeShape{0, "f32", {{}}, {}}), "f32 [] -> []");
}

TEST(Shapes, OpsSplitByShapeLargestFirst) {
  const Trace t = shaped_trace();
  const Analysis a = analyze_trace(t);
  const std::vector<OpShape> rows = ops_by_shape(t, ShapeIndex(t), a.op_nodes);
  ASSERT_EQ(rows.size(), 3u);  // gemv at two shapes, Sampling; tokenize has none
  EXPECT_EQ(rows[0].name, "gemv");
  EXPECT_EQ(rows[0].shape, "bf16 [4,4096] [11008,4096] -> [4,11008]");
  EXPECT_EQ(rows[0].count, 1u);
  EXPECT_EQ(rows[0].total_ns, 200);
  EXPECT_EQ(rows[1].name, "gemv");
  EXPECT_EQ(rows[1].shape, "bf16 [1,4096] [11008,4096] -> [1,11008]");
  EXPECT_EQ(rows[1].count, 2u);  // two decode steps, two shape entries, one row
  EXPECT_EQ(rows[1].total_ns, 100);
  EXPECT_EQ(rows[1].output_bytes, 2u * 11008u);
  EXPECT_EQ(rows[2].name, "Sampling");
  EXPECT_EQ(rows[2].output_elements, 1u);  // [1]
  EXPECT_EQ(rows[2].output_bytes, 0u);
}

TEST(Shapes, NoShapesNoRows) {
  Trace t = shaped_trace();
  t.shapes.clear();
  EXPECT_TRUE(ops_by_shape(t, ShapeIndex(t), analyze_trace(t).op_nodes).empty());
}

const View& analyzer_view() { return *find_view("analyze"); }

TEST(Shapes, AnalyzeViewPrintsThemOnlyWhenThere) {
  Trace t = shaped_trace();
  const View& view = analyzer_view();
  std::ostringstream text;
  view.text(t, view.compute(t, {}), text);
  EXPECT_NE(text.str().find("Operations by shape (3):"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("bf16 [1,4096] [11008,4096] -> [1,11008]"), std::string::npos);
  std::ostringstream json;
  {
    JsonWriter w(json);
    view.json(t, view.compute(t, {}), w);
  }
  EXPECT_NE(json.str().find("\"ops_by_shape\""), std::string::npos);
  t.shapes.clear();
  std::ostringstream plain, plain_json;
  view.text(t, view.compute(t, {}), plain);
  EXPECT_EQ(plain.str().find("by shape"), std::string::npos);
  {
    JsonWriter w(plain_json);
    view.json(t, view.compute(t, {}), w);
  }
  EXPECT_EQ(plain_json.str().find("ops_by_shape"), std::string::npos);
}

}  // namespace
}  // namespace brickprof
