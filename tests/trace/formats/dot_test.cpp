// DOT export: Graphviz must accept it, names must be escaped, edges mapped.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support/test_traces.h"
#include "trace/formats/dot.h"
#include "trace/output/whole_trace.h"

namespace brickprof {
namespace {

bool have_dot() { return std::system("command -v dot >/dev/null 2>&1") == 0; }

// Runs `dot -Tsvg` on the text; true when it exits 0.
bool dot_accepts(const std::string& text, const std::string& name) {
  std::string base = ::testing::TempDir() + "/" + name;
  std::ofstream(base + ".dot") << text;
  std::string cmd = "dot -Tsvg '" + base + ".dot' -o '" + base + ".svg' 2>'" + base + ".err'";
  return std::system(cmd.c_str()) == 0;
}

TEST(DotExport, GraphvizAcceptsIt) {
  if (!have_dot()) GTEST_SKIP() << "graphviz 'dot' not installed";
  Trace t = test::small_trace();
  std::ostringstream out;
  write_format("dot", t, out);
  EXPECT_TRUE(dot_accepts(out.str(), "small")) << out.str();
}

TEST(DotExport, EscapesAwkwardNames) {
  Trace t = test::small_trace();
  t.nodes[12].name = t.strings.intern("a \"b\" \\ c <d> {e} | f\nnext");
  std::ostringstream out;
  write_format("dot", t, out);
  const std::string text = out.str();
  // The newline as every text output shows it, then DOT's own escapes.
  EXPECT_NE(text.find("a \\\"b\\\" \\\\ c <d> {e} | f\\\\nnext"), std::string::npos) << text;
  EXPECT_NE(text.find("attention<float, 128>"), std::string::npos);
  if (have_dot()) {
    EXPECT_TRUE(dot_accepts(text, "escaped")) << text;
  }
}

TEST(DotExport, ShapesAndEdges) {
  Trace t = test::small_trace();
  std::ostringstream out;
  write_format("dot", t, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("shape=ellipse"), std::string::npos);
  EXPECT_NE(text.find("shape=note"), std::string::npos);
  EXPECT_NE(text.find("#cfe2f3"), std::string::npos);  // Norm colour
  EXPECT_NE(text.find("[label=\"contains\"]"), std::string::npos);
  EXPECT_NE(text.find("[label=\"launches\""), std::string::npos);
  EXPECT_NE(text.find("[label=\"depends_on\""), std::string::npos);
  // Qkv -> Qkv (both merged into one entry) is dropped, so one sequence edge
  // remains among bricks (RmsNorm -> Qkv) plus Layer 0 <-> Layer 1 twice.
  size_t sequences = 0;
  for (size_t p = text.find("\"sequence\""); p != std::string::npos;
       p = text.find("\"sequence\"", p + 1))
    ++sequences;
  EXPECT_EQ(sequences, 3u);
  EXPECT_EQ(text.find("more ordering edges"), std::string::npos);
}

TEST(DotExport, CapsNodesAndEdges) {
  Trace t = test::two_thread_trace(50);
  for (uint32_t i = 1; i + 1 < t.nodes.size(); ++i) t.add_edge(i, i + 1, EdgeType::kSequence);
  DotOptions options;
  options.max_nodes = 10;
  options.max_extra_edges = 3;
  std::ostringstream out;
  DotSink sink(out, options);
  WholeTrace(t).feed(sink);
  const std::string text = out.str();
  EXPECT_NE(text.find("more entries not drawn"), std::string::npos);
  EXPECT_NE(text.find("more ordering edges not drawn"), std::string::npos);
  if (have_dot()) {
    EXPECT_TRUE(dot_accepts(text, "capped")) << text;
  }
}

}  // namespace
}  // namespace brickprof
