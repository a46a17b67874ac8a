// The scope API's memory and shape calls under the real agent, from a C
// program: each allocation and free a `program` event with its pool's name,
// address, bytes and the scope that made it; shapes on the brick they were
// set in; a shape too long to keep dropped and counted; the program's
// output and exit status the same without the agent.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/support/preload_fixture.h"
#include "tests/support/run_program.h"

namespace {

using brickprof::test::Result;
using nlohmann::json;

class ProgramMemoryTest : public brickprof::test::PreloadFixture {};

// The node named `name`, or null.
const json* node_named(const json& t, const std::string& name) {
  for (const json& n : t["nodes"])
    if (n["name"] == name) return &n;
  return nullptr;
}

TEST_F(ProgramMemoryTest, EventsAndShapesAsTheProgramMadeThem) {
  const Result r = expect_unchanged({PROGRAM_MEMORY_APP});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  const json t = load_only_output();
  const json* up = node_named(t, "UpProjection");
  const json* layer = node_named(t, "Layer 0");
  ASSERT_TRUE(up && layer);

  std::vector<const json*> program;
  for (const json& e : t["memory"])
    if (e["source"] == "program") program.push_back(&e);
  ASSERT_EQ(program.size(), 6u);
  const auto expect_event = [&](size_t i, const char* op, const char* pool, uint64_t offset,
                                uint64_t bytes, const json& scope) {
    const json& e = *program[i];
    EXPECT_EQ(e["op"], op) << e;
    EXPECT_EQ(e["api"], pool) << e;
    EXPECT_EQ(e.value("bytes", uint64_t{0}), bytes) << e;
    EXPECT_EQ(e["scope"], scope) << e;
    EXPECT_EQ(e["device"], 2147483648u) << "program events have no device: " << e;
    EXPECT_EQ(std::stoull(e["address"].get<std::string>(), nullptr, 16) -
                  std::stoull((*program[0])["address"].get<std::string>(), nullptr, 16),
              offset)
        << e;
  };
  expect_event(0, "alloc", "kv_cache", 0, 4096, (*up)["id"]);
  expect_event(1, "alloc", "activations", 4096, 1024, (*up)["id"]);
  expect_event(2, "free", "activations", 4096, 0, (*layer)["id"]);
  expect_event(3, "alloc", "(program)", 8192, 512, nullptr);
  expect_event(4, "free", "(program)", 8192, 0, nullptr);
  expect_event(5, "free", "kv_cache", 16384, 0, nullptr);  // reported as made

  std::map<uint64_t, json> shapes;
  for (const json& s : t["shapes"]) shapes[s["node"].get<uint64_t>()] = s;
  ASSERT_EQ(shapes.size(), 2u) << t["shapes"];
  const json& mm = shapes[(*up)["id"].get<uint64_t>()];
  EXPECT_EQ(mm["dtype"], "f32");
  EXPECT_EQ(mm["inputs"], json::parse("[[1,4096],[4096,4096]]"));
  EXPECT_EQ(mm["output"], json::parse("[1,4096]"));
  const json& empty = shapes[(*node_named(t, "Empty"))["id"].get<uint64_t>()];
  EXPECT_EQ(empty["dtype"], "?");
  EXPECT_EQ(empty["inputs"], json::array());
  EXPECT_EQ(empty.value("output", json::array()), json::array());
  EXPECT_EQ(shapes.count((*node_named(t, "TooLong"))["id"].get<uint64_t>()), 0u);
  EXPECT_EQ(t["diagnostics"]["ignored_api_calls"].get<uint64_t>(), 1u) << "the long shape";
  EXPECT_EQ(t["diagnostics"]["dropped_events"].get<uint64_t>(), 0u) << "nothing lost to a full buffer";
}

// Outside every capture window recording is off: no events, no shapes.
TEST_F(ProgramMemoryTest, NothingWhileRecordingIsOff) {
  auto env = agent_env();
  env["BRICKPROF_CAPTURE"] = "scope:a scope this program never opens";
  const Result r = brickprof::test::run({PROGRAM_MEMORY_APP}, env);
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  for (const auto& file : outputs()) {
    const json t = load(file);
    EXPECT_FALSE(t.contains("memory") && !t["memory"].empty()) << t["memory"];
    EXPECT_FALSE(t.contains("shapes") && !t["shapes"].empty());
  }
}

}  // namespace
