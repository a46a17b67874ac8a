// Locates the agent library for `brickprof run` (see agent_path.h).
#include "tools/agent_path.h"

#include <glob.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "tools/install_paths.h"

namespace brickprof::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAgent = "libbrickprof.so";

// Absolute and symlink-free: the command may chdir before the loader looks.
std::string usable(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return {};
  fs::path canonical = fs::canonical(p, ec);
  return ec ? fs::absolute(p).string() : canonical.string();
}

// The package's folder in the Python environments a wheel's scripts go
// with (a virtual environment, --user, a system prefix), whatever layout
// the interpreter that built it had: <dir>/../lib*/python3*/*-packages/.
std::vector<fs::path> python_package_agents(const fs::path& dir) {
  std::vector<fs::path> found;
  const std::string pattern =
      (dir / ".." / "lib*" / "python3*" / "*-packages" / "brickprof" / kAgent)
          .lexically_normal()
          .string();
  glob_t matches{};
  if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0)
    for (size_t i = 0; i < matches.gl_pathc; ++i) found.emplace_back(matches.gl_pathv[i]);
  ::globfree(&matches);
  return found;
}

}  // namespace

std::string find_agent(std::string* error) {
  if (const char* env = std::getenv("BRICKPROF_AGENT"); env && *env) {
    std::string found = usable(env);
    if (found.empty()) *error = std::string("BRICKPROF_AGENT=") + env + ": no such file";
    return found;
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    *error = "cannot locate the brickprof binary (/proc/self/exe): " + ec.message() +
             "; set BRICKPROF_AGENT";
    return {};
  }
  const fs::path dir = self.parent_path();
  std::vector<fs::path> candidates = {dir / ".." / "agent" / kAgent,
                                      dir / BRICKPROF_AGENT_FROM_BINDIR / kAgent};
  if (BRICKPROF_AGENT_IN_PYTHON_PACKAGE)
    for (fs::path& p : python_package_agents(dir)) candidates.push_back(std::move(p));
  for (const fs::path& c : candidates)
    if (std::string found = usable(c); !found.empty()) return found;
  *error = "agent " + std::string(kAgent) + " not found in " +
           (dir / ".." / "agent").lexically_normal().string() + " or " +
           (dir / BRICKPROF_AGENT_FROM_BINDIR).lexically_normal().string() +
           "; set BRICKPROF_AGENT";
  return {};
}

}  // namespace brickprof::cli
