// A test fixture for running programs with the agent preloaded: a fresh
// output directory per test, the environment that loads the agent, and the
// traces it left there.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "trace/json/trace_json.h"

namespace brickprof::test {

class PreloadFixture : public TempDirTest {
 protected:
  std::map<std::string, std::string> agent_env(const std::string& prefix = "out-%p") {
    return {{"LD_PRELOAD", BRICKPROF_AGENT_PATH},
            {"BRICKPROF_OUTPUT", (dir_ / prefix).string()},
            {"BRICKPROF_FORMATS", "json"}};
  }
  std::vector<std::filesystem::path> outputs(const std::string& ext = ".json") {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir_))
      if (e.path().string().size() > ext.size() &&
          e.path().string().compare(e.path().string().size() - ext.size(), ext.size(), ext) == 0)
        files.push_back(e.path());
    return files;
  }
  nlohmann::json load(const std::filesystem::path& file) {
    // Our own reader must accept it too.
    EXPECT_NO_THROW(brickprof::read_trace_file(file.string()));
    std::ifstream in(file);
    return nlohmann::json::parse(in);
  }
  nlohmann::json load_only_output() {
    auto files = outputs();
    EXPECT_EQ(files.size(), 1u);
    if (files.empty()) return nlohmann::json();
    return load(files[0]);
  }
  // The same command with and without the agent: same status and stdout.
  Result expect_unchanged(const std::vector<std::string>& argv, bool term = false) {
    Result plain = run(argv, {}, term);
    Result traced = run(argv, agent_env(), term);
    EXPECT_EQ(traced.status, plain.status);
    EXPECT_EQ(traced.out, plain.out);
    EXPECT_EQ(traced.err, plain.err);
    return traced;
  }
};

}  // namespace brickprof::test
