// The run's manifest file (see run_manifest.h).
#include "tools/run_manifest.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>

#include "trace/model/recorded.h"

namespace brickprof::cli {

RunManifest::RunManifest() {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string name = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/brickprof-run-XXXXXX";
  int fd = ::mkstemp(name.data());  // 0600, O_EXCL
  if (fd < 0) return;
  ::close(fd);
  path_ = name;
}

RunManifest::~RunManifest() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

std::vector<std::string> RunManifest::written_files() const {
  std::vector<std::string> files;
  if (path_.empty()) return files;
  std::ifstream in(path_);
  std::set<std::string> seen;
  for (std::string line; std::getline(in, line);) {
    bool printable = std::none_of(line.begin(), line.end(),
                                  [](char c) { return static_cast<unsigned char>(c) < 0x20; });
    struct stat st;
    if (line.empty() || line[0] != '/' || !printable || !seen.insert(line).second ||
        ::stat(line.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    files.push_back(line);
  }
  return files;
}

bool RunManifest::nothing_recorded() const {
  if (path_.empty()) return false;
  std::ifstream in(path_);
  bool empty = false;
  for (std::string line; std::getline(in, line);) {
    if (line == kManifestRecorded) return false;
    empty |= line == kManifestNothingRecorded;
  }
  return empty;
}

}  // namespace brickprof::cli
