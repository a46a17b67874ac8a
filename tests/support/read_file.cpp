// Reads a whole file (see read_file.h).
#include "tests/support/read_file.h"

#include <fstream>
#include <sstream>

namespace brickprof::test {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

}  // namespace brickprof::test
