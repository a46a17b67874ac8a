// Finds the interpreters (see interpreters.h).
#include "tests/agent/python/interpreters.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tests/support/run_program.h"

namespace fs = std::filesystem;

namespace brickprof::test {
namespace {

// pyenv's versions folder, as pyenv itself finds it.
std::optional<fs::path> pyenv_versions() {
  std::vector<fs::path> roots;
  if (const char* r = std::getenv("PYENV_ROOT"); r != nullptr && *r != '\0') roots.emplace_back(r);
  Result asked = run({"pyenv", "root"}, {});
  if (asked.exit_code() == 0 && !asked.out.empty())
    roots.emplace_back(asked.out.substr(0, asked.out.find_last_not_of("\n") + 1));
  if (const char* home = std::getenv("HOME"); home != nullptr)
    roots.push_back(fs::path(home) / ".pyenv");
  for (const fs::path& root : roots)
    if (fs::is_directory(root / "versions")) return root / "versions";
  return std::nullopt;
}

// "3.11.7" -> {3, 11, 7}; an empty list when not plain digits and dots.
std::vector<int> version_numbers(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, '.')) {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) return {};
    out.push_back(std::stoi(part));
  }
  return out;
}

std::optional<fs::path> from_pyenv(const std::string& version, std::string* looked) {
  const std::optional<fs::path> versions = pyenv_versions();
  if (!versions) {
    *looked += "no pyenv root ($PYENV_ROOT, `pyenv root`, ~/.pyenv)";
    return std::nullopt;
  }
  *looked += versions->string() + "/" + version + ".*";
  std::optional<fs::path> best;
  std::vector<int> best_numbers;
  for (const auto& entry : fs::directory_iterator(*versions)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(version + ".", 0) != 0) continue;
    const std::vector<int> numbers = version_numbers(name);
    const fs::path exe = entry.path() / "bin" / ("python" + version);
    if (numbers.size() != 3 || access(exe.c_str(), X_OK) != 0) continue;
    if (!best || numbers > best_numbers) {
      best = exe;
      best_numbers = numbers;
    }
  }
  return best;
}

std::optional<fs::path> from_path(const std::string& program, std::string* looked) {
  *looked += ", " + program + " on PATH";
  const char* path = std::getenv("PATH");
  std::stringstream in(path ? path : "");
  std::string folder;
  while (std::getline(in, folder, ':')) {
    // A version manager's shim is a script that picks a version itself.
    if (folder.find("shims") != std::string::npos) continue;
    const fs::path exe = fs::path(folder.empty() ? "." : folder) / program;
    if (access(exe.c_str(), X_OK) == 0) return exe;
  }
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& tested_pythons() {
  static const std::vector<std::string> names = {"3.9", "3.10", "3.11", "3.12", "3.13", "system"};
  return names;
}

std::optional<Interpreter> find_python(const std::string& name, std::string* looked) {
  std::optional<fs::path> exe;
  if (name == "system") {
    *looked = "/usr/bin/python3";
    if (access("/usr/bin/python3", X_OK) == 0) exe = "/usr/bin/python3";
  } else {
    exe = from_pyenv(name, looked);
    if (!exe) exe = from_path("python" + name, looked);
  }
  if (!exe) return std::nullopt;
  Result r = run({exe->string(), "-c",
                  "import sys, sysconfig; print(sys.version_info.minor); "
                  "print(sysconfig.get_paths()['include']); "
                  "print(sysconfig.get_config_var('EXT_SUFFIX'))"},
                 {});
  std::stringstream out(r.out);
  Interpreter i;
  i.path = exe->string();
  std::string minor;
  if (r.exit_code() != 0 || !std::getline(out, minor) || !std::getline(out, i.include_dir) ||
      !std::getline(out, i.ext_suffix)) {
    *looked += " (" + exe->string() + " did not answer)";
    return std::nullopt;
  }
  i.minor = std::stoi(minor);
  return i;
}

}  // namespace brickprof::test
