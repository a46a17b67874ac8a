// The whole of a file as bytes, for tests that compare what was written.
#pragma once

#include <string>

namespace brickprof::test {

// "" if the file cannot be read (the comparison that follows says so).
std::string read_file(const std::string& path);

}  // namespace brickprof::test
