// The shape text brickprof_set_shapes() records (shape_text.h) and the
// per-thread cache that interns it (text_sites.h): written without
// allocating, in the form the exit write reads, whole or not at all.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>

#include "agent/recorder/recorder.h"
#include "agent/recorder/shape_text.h"
#include "agent/recorder/text_sites.h"

namespace brickprof::agent {
namespace {

std::string format(const char* dtype, std::vector<std::vector<int64_t>> inputs,
                   std::vector<int64_t> output, size_t capacity = 512) {
  std::vector<int64_t> dims;
  std::vector<uint32_t> ranks;
  for (const auto& in : inputs) {
    ranks.push_back(static_cast<uint32_t>(in.size()));
    dims.insert(dims.end(), in.begin(), in.end());
  }
  std::string out(capacity, '\0');
  size_t n = format_shape_text(out.data(), capacity, dtype, dims.data(), ranks.data(),
                               static_cast<uint32_t>(ranks.size()), output.data(),
                               static_cast<uint32_t>(output.size()));
  out.resize(n);
  return out;
}

TEST(ShapeText, WritesTheDocumentedForm) {
  EXPECT_EQ(format("f32", {{1, 4096}, {4096, 4096}}, {1, 4096}), "f32|1x4096;4096x4096|1x4096");
  EXPECT_EQ(format("q4_k", {}, {}), "q4_k||_");
  EXPECT_EQ(format("bf16", {{}, {-1, 0}}, {7}), "bf16|_;-1x0|7");
  EXPECT_EQ(format(nullptr, {{2}}, {2}), "?|2|2");
  EXPECT_EQ(format("", {{2}}, {2}), "?|2|2");
  // Only [A-Za-z0-9_.] of a dtype: the text must parse back.
  EXPECT_EQ(format("float|32;x", {{2}}, {2}), "float_32_x|2|2");
}

TEST(ShapeText, TooLongIsZeroNotTruncated) {
  const std::string whole = format("f32", {{1, 4096}}, {1, 4096});
  EXPECT_EQ(format("f32", {{1, 4096}}, {1, 4096}, whole.size()), whole);
  EXPECT_EQ(format("f32", {{1, 4096}}, {1, 4096}, whole.size() - 1), "");
  EXPECT_EQ(format("f32", {{1, 4096}}, {1, 4096}, 3), "");
  EXPECT_EQ(format("f32", {{1, 4096}}, {1, 4096}, 0), "");
  EXPECT_EQ(format("f32", {{INT64_MIN, INT64_MAX}}, {1}),
            "f32|-9223372036854775808x9223372036854775807|1");
}

TEST(ShapeText, NullArraysWithDimsAreRefused) {
  char out[64];
  const uint32_t ranks[] = {2};
  const int64_t dims[] = {1, 2};
  EXPECT_EQ(format_shape_text(out, sizeof out, "f32", nullptr, ranks, 1, dims, 2), 0u);
  EXPECT_EQ(format_shape_text(out, sizeof out, "f32", dims, nullptr, 1, dims, 2), 0u);
  EXPECT_EQ(format_shape_text(out, sizeof out, "f32", dims, ranks, 1, nullptr, 1), 0u);
  EXPECT_NE(format_shape_text(out, sizeof out, "f32", nullptr, nullptr, 0, nullptr, 0), 0u);
}

// What the scope API writes is what the exit write reads, and the same
// text Recorder::shapes_signature makes of the same shape.
TEST(ShapeText, ReadsBackAtTheExitWrite) {
  const std::vector<std::vector<int64_t>> inputs_of[] = {{{1, 4096}, {4096, 4096}}, {}, {{}, {-1, 0}}};
  const std::vector<int64_t> outputs[] = {{1, 4096}, {}, {7}};
  for (size_t i = 0; i < 3; ++i) {
    const std::string text = format("bf16", inputs_of[i], outputs[i]);
    EXPECT_EQ(text, Recorder::shapes_signature("bf16", inputs_of[i], outputs[i]));
    NodeShape shape;
    ASSERT_TRUE(Recorder::parse_shapes_signature(text, &shape)) << text;
    EXPECT_EQ(shape.dtype, "bf16");
    EXPECT_EQ(shape.inputs, inputs_of[i]) << text;
    EXPECT_EQ(shape.output, outputs[i]) << text;
  }
  NodeShape sanitized;
  ASSERT_TRUE(Recorder::parse_shapes_signature(format("a|b;c", {{2}}, {2}), &sanitized));
  EXPECT_EQ(sanitized.dtype, "a_b_c");
}

TEST(TextSites, OneSitePerDistinctTextOnEveryThread) {
  Recorder::set_capacity(64ull << 20);
  const uint32_t kv = text_site("kv_cache");
  const uint32_t weights = text_site("weights");
  EXPECT_NE(kv, 0u);
  EXPECT_NE(kv, weights);
  EXPECT_EQ(text_site("kv_cache"), kv);
  EXPECT_EQ(Recorder::site(kv).name, "kv_cache");
  // Not read as a layer or brick, whatever it is called.
  const uint32_t layerish = text_site("Layer 3");
  EXPECT_EQ(Recorder::site(layerish).kind, NodeKind::kScope);
  EXPECT_EQ(Recorder::site(layerish).name, "Layer 3");
  // Another thread, with its own cache, finds the same sites.
  uint32_t there = 0;
  std::thread([&] { there = text_site(std::string("kv_") + "cache"); }).join();
  EXPECT_EQ(there, kv);
  // Many distinct texts (more than the cache holds) stay distinct and exact.
  std::vector<uint32_t> ids;
  for (int i = 0; i < 300; ++i) ids.push_back(text_site("pool " + std::to_string(i)));
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(text_site("pool " + std::to_string(i)), ids[static_cast<size_t>(i)]);
    EXPECT_EQ(Recorder::site(ids[static_cast<size_t>(i)]).name, "pool " + std::to_string(i));
  }
}

}  // namespace
}  // namespace brickprof::agent
