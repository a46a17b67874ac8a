// Every export of `brickprof report` is linear in nodes and depth: traces
// made to break that (hostile_trace.cpp) go through each one in a child
// limited to 4 GB of address space, and each must finish (a folded export
// of a 10^5-deep chain used to run out of memory). Not timed.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr rlim_t kAddressSpace = rlim_t{4} << 30;

struct Outcome {
  int exit_code = -1;  // 128 + N when killed by signal N
  std::string err;
};

// argv in a child under the address-space limit, stderr kept.
Outcome run_limited(const std::vector<std::string>& args, const fs::path& err_file) {
  std::vector<char*> argv;
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    rlimit limit{kAddressSpace, kAddressSpace};
    setrlimit(RLIMIT_AS, &limit);
    if (!freopen(err_file.c_str(), "w", stderr)) _exit(98);
    execv(argv[0], argv.data());
    _exit(99);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Outcome r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(err_file);
  r.err.assign(std::istreambuf_iterator<char>(in), {});
  return r;
}

class Hostile : public ::testing::TestWithParam<std::pair<const char*, const char*>> {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::path(::testing::TempDir()) / ("brickprof_hostile_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  // The hostile trace of this kind and size, made once.
  static std::string trace(const std::string& kind, const std::string& n) {
    fs::path path = dir_ / (kind + ".json");
    if (!fs::exists(path)) {
      EXPECT_EQ(run_limited({HOSTILE_TRACE, kind, n, path.string()}, dir_ / "gen.err").exit_code,
                0);
    }
    return path.string();
  }
  static fs::path dir_;
};
fs::path Hostile::dir_;

// Frames in the longest line of a folded file.
size_t deepest_folded_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  size_t deepest = 0;
  while (std::getline(in, line))
    deepest = std::max<size_t>(deepest, 1 + std::count(line.begin(), line.end(), ';'));
  return deepest;
}

TEST_P(Hostile, EveryExportFinishesUnder4GB) {
  const auto [kind, n] = GetParam();
  const std::string file = trace(kind, n);
  for (const char* view : {"--folded", "--tree", "--dot", "--chrome", "--summary"}) {
    const fs::path out = dir_ / (std::string(kind) + view + ".out");
    Outcome r =
        run_limited({BRICKPROF_BIN, "report", file, view, "-o", out.string()}, dir_ / "report.err");
    EXPECT_EQ(r.exit_code, 0) << kind << " " << view << ": " << r.err;
    EXPECT_TRUE(fs::exists(out)) << kind << " " << view;
    if (std::string(view) == "--folded" && fs::exists(out)) {
      EXPECT_LE(deepest_folded_line(out), 128u) << kind;  // 127 frames and "[deeper frames]"
    }
    fs::remove(out);
  }
}

INSTANTIATE_TEST_SUITE_P(Traces, Hostile,
                         ::testing::Values(std::make_pair("deep", "100000"),
                                           std::make_pair("names", "1000000"),
                                           std::make_pair("huge", "16000000"),
                                           std::make_pair("threads", "100000")),
                         [](const auto& info) { return std::string(info.param.first); });

}  // namespace
