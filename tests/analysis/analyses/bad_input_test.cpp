// Bad input reaches the analyses as one clear error, never a crash or hang.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "analysis/analyses/critical_path.h"
#include "trace/json/trace_json.h"

namespace brickprof {
namespace {

std::string error_of(std::string_view json) {
  try {
    Trace t = parse_trace_json(json);
    build_dependency_graph(t);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

constexpr std::string_view kGood =
    R"({"schema":"brickprof/1","nodes":[{"id":0,"kind":"scope","name":"a","parent":null,"start_ns":0,"end_ns":5}],"edges":[]})";

TEST(BadInput, GoodInputParses) { EXPECT_EQ(error_of(kGood), ""); }

TEST(BadInput, EveryTruncationIsAnError) {
  for (size_t n = 0; n + 1 < kGood.size(); ++n)
    EXPECT_NE(error_of(kGood.substr(0, n)), "") << "prefix of " << n << " bytes parsed";
}

TEST(BadInput, ClearMessages) {
  EXPECT_NE(error_of(R"({"schema":"other/2","nodes":[]})").find("schema is 'other/2'"),
            std::string::npos);
  EXPECT_NE(error_of(R"([1,2])").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error_of(R"({"nodes":[]})").find("no \"schema\""), std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"schema":"brickprof/1","nodes":[{"id":0,"kind":"scope","start_ns":-5,"end_ns":5}]})")
          .find("nodes[0]: negative time"),
      std::string::npos);
  EXPECT_NE(error_of(R"({"schema":"brickprof/1","nodes":[{"id":0,"kind":"scope","start_ns":5}]})")
                .find("missing \"start_ns\" or \"end_ns\""),
            std::string::npos);
  EXPECT_NE(
      error_of(R"({"schema":"brickprof/1","nodes":[{"id":0,"kind":"scope","start_ns":0,"end_ns":1}],
                        "edges":[{"src":0,"dst":7,"type":"depends_on"}]})")
          .find("unknown node id 7"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"schema":"brickprof/1","nodes":[{"id":0,"kind":"widget","start_ns":0,"end_ns":1}]})")
          .find("unknown value 'widget'"),
      std::string::npos);
  EXPECT_NE(
      error_of(R"({"schema":"brickprof/1","nodes":[{"id":0,"kind":"scope","start_ns":0,"end_ns":1},
                        {"id":1,"kind":"scope","start_ns":0,"end_ns":1,"thread":2}],
                        "edges":[{"src":0,"dst":1,"type":"sequence"},{"src":1,"dst":0,"type":"sequence"}]})")
          .find("dependency cycle"),
      std::string::npos);
  EXPECT_NE(error_of(std::string(kGood) + "x").find("trailing content"), std::string::npos);
  // Beyond int64 (converting it would be undefined behaviour), NaN-free JSON
  // still allows 1e300.
  EXPECT_NE(
      error_of(
          R"({"schema":"brickprof/1","nodes":[{"id":0,"kind":"scope","start_ns":0,"end_ns":1e300}]})")
          .find("nodes[0].end_ns: number out of range"),
      std::string::npos);
  EXPECT_NE(error_of(R"({"schema":"brickprof/1","process":{"start_ns":-1},"nodes":[]})")
                .find("process.start_ns: negative time"),
            std::string::npos);
}

TEST(BadInput, FileErrorsNameTheFile) {
  std::string path = ::testing::TempDir() + "/truncated.json";
  {
    std::ofstream out(path);
    out << kGood.substr(0, 60);
  }
  try {
    read_trace_file(path);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(read_trace_file(path), TraceError);  // missing file
}

}  // namespace
}  // namespace brickprof
