// Runs the built `brickprof` binary as a child process (see spawn.h).
#include "spawn.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace brickprof::test {

std::string data_path(const std::string& name) {
  return std::string(BRICKPROF_TEST_DATA) + "/" + name;
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
  std::string text = read_file(data_path(source));
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
  std::vector<std::string> argv = {BRICKPROF_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildResult r = run_child(argv, {.env = env});
  return {r.shell_code(), std::move(r.out), std::move(r.err)};
}

}  // namespace brickprof::test
