// A stand-in environment for code that reads it through an injectable
// getenv (the agent's settings, launcher detection).
#pragma once

#include <map>
#include <string>

namespace brickprof::test {

// The environment fake_getenv answers from.
inline std::map<std::string, std::string>& fake_env() {
  static std::map<std::string, std::string> env;
  return env;
}

inline const char* fake_getenv(const char* name) {
  auto it = fake_env().find(name);
  return it == fake_env().end() ? nullptr : it->second.c_str();
}

}  // namespace brickprof::test
