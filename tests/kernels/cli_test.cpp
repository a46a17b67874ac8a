// The bricklayer binary: bad arguments give one stderr line and exit 2; a small run works.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/child.h"

namespace {

struct Result {
  int code;
  std::string out, err;
};

// bricklayer with `args`, split at spaces.
Result run(const std::string& args) {
  const char* exe = std::getenv("BRICKLAYER_EXE");
  std::vector<std::string> argv = {exe ? exe : "bricklayer"};
  std::istringstream words(args);
  for (std::string word; words >> word;) argv.push_back(word);
  brickprof::test::ChildResult r = brickprof::test::run_child(argv);
  return {r.exit_code(), std::move(r.out), std::move(r.err)};
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

const char* kSmall = "--layers 1 --hidden 256 --heads 4 --kv-heads 2 --ffn 512 --vocab 128 "
                     "--context 32 --prompt 4 --tokens 3 --probe-seconds 0";

TEST(Cli, HelpExitsZero) {
  const Result r = run("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--kv-heads"), std::string::npos);
}

TEST(Cli, BadArgumentsExitTwoWithOneLine) {
  for (const char* args : {"--hidden 1000 --heads 16", "--heads 16 --kv-heads 5", "--hidden 0",
                           "--hidden 384 --heads 6 --kv-heads 2", "--backend tpu", "--mode lazy",
                           "--weights q8", "--layers x", "--no-such-flag",
                           "--prompt 200 --tokens 100 --context 256", "--ffn 1000"}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(lines(r.err), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("bricklayer: ", 0), 0u) << r.err;
  }
}

TEST(Cli, CudaWithoutDriverIsAClearError) {
  const Result r = run(std::string(kSmall) + " --backend cuda");
  if (r.code == 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cuda"), std::string::npos) << r.err;
}

TEST(Cli, SmallRunOnEveryCpuBackend) {
  for (const char* backend : {"auto", "scalar"}) {
    const Result r = run(std::string(kSmall) + " --backend " + backend);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("tokens/s"), std::string::npos);
    EXPECT_NE(r.out.find("ops per decode step: 21"), std::string::npos) << r.out;
  }
  const Result f = run(std::string(kSmall) + " --weights f32 --hidden 200 --heads 4 --ffn 300");
  EXPECT_EQ(f.code, 0) << f.err;  // f32 has no multiple-of-256 rule
}

}  // namespace

// --repeat-brick NAME=K: the same tokens (the result is unchanged), the
// brick's ops dispatched K times (counted by the run: ops per decode step is
// the graph's, the work is real); bad specs and bricks that work in place
// are one line and exit 2.
TEST(Cli, RepeatBrickKeepsTheResult) {
  const Result plain = run(kSmall);
  const Result twice = run(std::string(kSmall) + " --repeat-brick QkvProjection=2");
  ASSERT_EQ(plain.code, 0) << plain.err;
  ASSERT_EQ(twice.code, 0) << twice.err;
  auto tokens = [](const std::string& out) { return out.substr(out.find("generated")); };
  EXPECT_EQ(tokens(plain.out), tokens(twice.out));
  for (const char* bad : {"QkvProjection", "QkvProjection=0", "QkvProjection=101", "Nope=2",
                          "ResidualAdd=2", "RopeEmbedding=2", "Activation=2", "=2"}) {
    const Result r = run(std::string(kSmall) + " --repeat-brick " + bad);
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_EQ(lines(r.err), 1) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--repeat-brick"), std::string::npos) << r.err;
  }
}
