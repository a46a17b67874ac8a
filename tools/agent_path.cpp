// Locates the agent library for `brickprof run` (see agent_path.h).
#include "tools/agent_path.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace brickprof::cli {
namespace {

namespace fs = std::filesystem;

// Absolute and symlink-free: the command may chdir before the loader looks.
std::string usable(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return {};
  fs::path canonical = fs::canonical(p, ec);
  return ec ? fs::absolute(p).string() : canonical.string();
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
  fs::path dir = self.parent_path();
  const fs::path candidates[] = {dir / ".." / "agent" / "libbrickprof.so",
                                 dir / ".." / "lib" / "libbrickprof.so"};
  for (const fs::path& c : candidates)
    if (std::string found = usable(c); !found.empty()) return found;
  *error = "agent libbrickprof.so not found in " + (dir / ".." / "agent").lexically_normal().string() +
           " or " + (dir / ".." / "lib").lexically_normal().string() + "; set BRICKPROF_AGENT";
  return {};
}

}  // namespace brickprof::cli
