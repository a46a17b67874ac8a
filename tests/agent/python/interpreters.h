// The CPython interpreters the Python-frames tests run on: each 3.9-3.13
// the machine has, found as a user's machine holds them (nothing installed
// by the tests), and the system's python3.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace brickprof::test {

// "3.9" ... "3.13", and "system" (/usr/bin/python3, whatever its version).
const std::vector<std::string>& tested_pythons();

struct Interpreter {
  std::string path;         // the executable, not a version manager's shim
  int minor = 0;            // 3.minor, as the interpreter says
  std::string include_dir;  // where its Python.h is (may be absent)
  std::string ext_suffix;   // an extension module's file name ending
};

// The interpreter for `name` (tested_pythons()): pyenv's newest 3.N.*
// (under $PYENV_ROOT, `pyenv root`, or ~/.pyenv), else python3.N on PATH.
// nullopt with *looked saying where it looked.
std::optional<Interpreter> find_python(const std::string& name, std::string* looked);

}  // namespace brickprof::test
