// Python stacks in the trace: the reader refuses ids that name nothing, a
// trace without them keeps its form, and the views' grouping puts orphan
// GPU work under its frames (sharing the outer ones, never across a scope).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "analysis/analyses/trace_merge.h"
#include "trace/derive/python_frames.h"
#include "trace/json/trace_json.h"
#include "trace/output/whole_trace.h"

namespace brickprof {
namespace {

std::string to_json(const Trace& t) {
  std::ostringstream out;
  write_format("json", t, out);
  return out.str();
}

std::string error_of(const std::string& json) {
  try {
    parse_trace_json(json);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

// A kernel on thread 1 launched from `stack` at [at, at + 10].
uint32_t add_kernel(Trace& t, int64_t at, uint32_t stack, uint32_t parent = kNoNode) {
  Node k;
  k.kind = NodeKind::kKernel;
  k.name = t.strings.intern("k");
  k.thread = 1;
  k.parent = parent;
  k.start_ns = at + 20;
  k.end_ns = at + 30;
  GpuDetail d;
  d.api_start_ns = at;
  d.api_end_ns = at + 10;
  d.python_stack = stack;
  return t.add_gpu_node(k, d);
}

uint32_t add_scope(Trace& t, int64_t start, int64_t end) {
  Node s;
  s.kind = NodeKind::kScope;
  s.name = t.strings.intern("step");
  s.thread = 1;
  s.start_ns = start;
  s.end_ns = end;
  return t.add_node(s);
}

// Frames: 0 run.py:5 <module>, 1 model.py:10 forward, 2 model.py:11 forward.
Trace with_frames() {
  Trace t;
  t.python_frames = {
      {"/a/run.py", 5, "<module>"}, {"/a/model.py", 10, "forward"}, {"/a/model.py", 11, "forward"}};
  t.python_stacks = {{1, 0}, {2, 0}};
  return t;
}

TEST(PythonFrames, ReaderRefusesUnknownIds) {
  Trace t = with_frames();
  add_kernel(t, 100, 1);
  const std::string good = to_json(t);
  EXPECT_EQ(error_of(good), "");
  std::string bad_stack = good;
  bad_stack.replace(bad_stack.find("\"python_stack\":1"), 16, "\"python_stack\":7");
  EXPECT_NE(error_of(bad_stack).find("unknown python_stack 7"), std::string::npos)
      << error_of(bad_stack);
  std::string bad_frame = good;
  bad_frame.replace(bad_frame.find("[2,0]"), 5, "[9,0]");
  EXPECT_NE(error_of(bad_frame).find("python_stacks[1]: unknown python frame 9"), std::string::npos)
      << error_of(bad_frame);
}

TEST(PythonFrames, TracesWithoutThemKeepTheirForm) {
  Trace t;
  add_kernel(t, 100, kNoPythonStack);
  const std::string json = to_json(t);
  EXPECT_EQ(json.find("python"), std::string::npos);
  EXPECT_EQ(group_by_python_frames(t, 1), 0u);
  EXPECT_EQ(t.nodes.size(), 1u);
}

TEST(PythonFrames, FrameNames) {
  EXPECT_EQ(python_frame_name({"/a/b/model.py", 212, "Model.forward"}),
            "model.py:212 Model.forward");
  EXPECT_EQ(python_frame_name({"<string>", 1, "<module>"}), "<string>:1 <module>");
}

TEST(PythonFrames, OrphansGoUnderTheirInnermostFrame) {
  Trace t = with_frames();
  const uint32_t a = add_kernel(t, 100, 0);
  const uint32_t b = add_kernel(t, 200, 0);  // same line, next launch: same scope
  const uint32_t c = add_kernel(t, 300, 1);  // next line: a new one
  const uint32_t scope = add_scope(t, 350, 360);
  const uint32_t d = add_kernel(t, 400, 1);              // after a scope of the thread: afresh
  const uint32_t inside = add_kernel(t, 355, 0, scope);  // NVTX/brickprof scopes win
  const uint32_t none = add_kernel(t, 500, kNoPythonStack);
  const size_t before = t.nodes.size();
  EXPECT_EQ(group_by_python_frames(t, 1), 4u);
  ASSERT_EQ(t.nodes.size(), before + 3);
  EXPECT_EQ(t.nodes[a].parent, t.nodes[b].parent);
  EXPECT_NE(t.nodes[b].parent, t.nodes[c].parent);
  EXPECT_NE(t.nodes[c].parent, t.nodes[d].parent);
  EXPECT_EQ(t.nodes[inside].parent, scope);
  EXPECT_EQ(t.nodes[none].parent, kNoNode);
  const Node& ab = t.nodes[t.nodes[a].parent];
  EXPECT_EQ(t.name(ab), "model.py:10 forward");
  EXPECT_EQ(ab.parent, kNoNode);
  EXPECT_EQ(ab.thread, 1u);
  EXPECT_EQ(ab.start_ns, 100);
  EXPECT_EQ(ab.end_ns, 210);  // from the first call to the last one's return
  EXPECT_EQ(t.name(t.nodes[t.nodes[c].parent]), "model.py:11 forward");
  // The read trace's edges say the same as the parents.
  bool launches = false;
  for (const Edge& e : t.edges)
    launches |= e.src == t.nodes[a].parent && e.dst == a && e.type == EdgeType::kLaunches;
  EXPECT_TRUE(launches);
}

TEST(PythonFrames, DeeperGroupingSharesTheOuterFrames) {
  Trace t = with_frames();
  const uint32_t a = add_kernel(t, 100, 0);
  const uint32_t c = add_kernel(t, 300, 1);
  EXPECT_EQ(group_by_python_frames(t, 2), 2u);
  const Node& line10 = t.nodes[t.nodes[a].parent];
  const Node& line11 = t.nodes[t.nodes[c].parent];
  EXPECT_EQ(t.name(line10), "model.py:10 forward");
  EXPECT_EQ(t.name(line11), "model.py:11 forward");
  ASSERT_NE(line10.parent, kNoNode);
  EXPECT_EQ(line10.parent, line11.parent);
  const Node& module = t.nodes[line10.parent];
  EXPECT_EQ(t.name(module), "run.py:5 <module>");
  EXPECT_EQ(module.start_ns, 100);
  EXPECT_EQ(module.end_ns, 310);
}

// Each input's stacks are appended, their ids and frame ids moved past the
// earlier inputs', so every GPU node still names its own frames.
TEST(PythonFrames, MergeRenumbersEachInputsStacks) {
  Trace first = with_frames();
  add_kernel(first, 100, 1);
  Trace second;
  second.python_frames = {{"/b/serve.py", 7, "handle"}};
  second.python_stacks = {{0}};
  add_kernel(second, 100, 0);
  add_kernel(second, 200, kNoPythonStack);
  const Trace merged = merge_traces({first, second});
  ASSERT_EQ(merged.python_frames.size(), 4u);
  EXPECT_EQ(merged.python_stacks, (std::vector<std::vector<uint32_t>>{{1, 0}, {2, 0}, {3}}));
  std::vector<std::string> innermost;
  for (const Node& n : merged.nodes) {
    const GpuDetail* d = merged.detail(n);
    if (d == nullptr) continue;
    innermost.push_back(
        d->python_stack == kNoPythonStack
            ? "-"
            : python_frame_name(merged.python_frames[merged.python_stacks[d->python_stack][0]]));
  }
  EXPECT_EQ(innermost, (std::vector<std::string>{"model.py:11 forward", "serve.py:7 handle", "-"}));
  EXPECT_EQ(error_of(to_json(merged)), "");
}

// A memory event outside every scope, made at the line whose launches are
// grouped under their frame, goes under that frame's scope as a launch
// there would; one at another line, or after the run, stays outside.
TEST(PythonFrames, MemoryEventsJoinTheScopeOfTheirLine) {
  for (uint32_t depth : {1u, 2u}) {
    SCOPED_TRACE(depth);
    Trace t = with_frames();
    add_kernel(t, 100, 0);  // model.py:10, its call [100, 110]
    add_kernel(t, 200, 0);  // the same line: one scope [100, 210]
    MemoryEvent at_line;
    at_line.thread = 1;
    at_line.time_ns = 150;
    at_line.python_stack = 0;
    at_line.bytes = 64;
    MemoryEvent other_line = at_line;  // model.py:11, under run.py:5 too
    other_line.python_stack = 1;
    MemoryEvent after = at_line;
    after.time_ns = 500;
    MemoryEvent other_thread = at_line;
    other_thread.thread = 2;
    t.memory = {at_line, other_line, after, other_thread};
    group_by_python_frames(t, depth);
    ASSERT_NE(t.memory[0].scope, kNoNode);
    EXPECT_EQ(t.strings.view(t.nodes[t.memory[0].scope].name), "model.py:10 forward");
    if (depth == 2) {  // its outer frame's scope is open: run.py:5
      ASSERT_NE(t.memory[1].scope, kNoNode);
      EXPECT_EQ(t.strings.view(t.nodes[t.memory[1].scope].name), "run.py:5 <module>");
    } else {
      EXPECT_EQ(t.memory[1].scope, kNoNode);
    }
    EXPECT_EQ(t.memory[2].scope, kNoNode);
    EXPECT_EQ(t.memory[3].scope, kNoNode);
  }
}

}  // namespace
}  // namespace brickprof
