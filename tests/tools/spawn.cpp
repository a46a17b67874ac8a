// Runs the built `brickprof` binary as a child process (see spawn.h).
#include "spawn.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace brickprof::test {

std::string data_path(const std::string& name) {
  return std::string(BRICKPROF_TEST_DATA) + "/" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

std::string fresh_dir(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(::testing::TempDir()) / ("brickprof_cli_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string edited_copy(const std::string& source, const std::string& copy_name,
                        const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = read_text(data_path(source));
  for (const auto& [from, to] : edits) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from << " not in " << source;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  std::string path = fresh_dir(copy_name) + "/" + copy_name + ".json";
  std::ofstream(path) << text;
  return path;
}

CliResult run_brickprof(const std::vector<std::string>& args, const EnvChanges& env) {
  static std::atomic<int> counter{0};
  std::string base = ::testing::TempDir() + "/brickprof_cli_" + std::to_string(::getpid()) + "_" +
                     std::to_string(counter++);
  std::string out_path = base + ".out", err_path = base + ".err";
  std::vector<std::string> argv_s = {BRICKPROF_BIN};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto& [name, value] : env) {
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = ::open("/dev/null", O_RDONLY);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(argv[0], argv.data());
    ::_exit(99);
  }
  CliResult r;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return r;
}

}  // namespace brickprof::test
