// Output to a file or standard output (see output_file.h).
#include "tools/output_file.h"

#include <unistd.h>

#include <iostream>
#include <stdexcept>

#include "tools/command.h"
#include "trace/output/sink.h"

namespace brickprof::cli {

std::string absolute_path(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return path;
  std::string rest = path;
  while (rest.rfind("./", 0) == 0) rest.erase(0, 2);
  std::string folder = cwd;
  return folder + (folder.back() == '/' ? "" : "/") + rest;
}

void say_written(const std::string& path) {
  std::cerr << "brickprof: wrote " << absolute_path(path) << std::endl;
}

bool stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }

std::string binary_to_terminal_problem(const std::string& what) {
  if (!stdout_is_terminal()) return "";
  return what + " is binary and standard output is a terminal: give -o FILE, or redirect "
                "(> FILE)";
}

int write_output(const std::string& path, const std::function<void(std::ostream&)>& fill) {
  if (!path.empty()) {
    std::string error = write_file_atomically(path, fill);
    if (!error.empty()) return fail(error);
    say_written(path);
    return kExitOk;
  }
  try {
    fill(std::cout);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  std::cout.flush();
  if (!std::cout) return fail("cannot write to standard output");
  return kExitOk;
}

}  // namespace brickprof::cli
