// The agent's log: spdlog (header-only) to stderr, level from BRICKPROF_LOG,
// prefixed "brickprof:". The logger is never destroyed, so logging from
// atexit or a signal-time dump cannot touch a dead static.
#pragma once

#include <string>

namespace brickprof::agent {

void set_log_level(const std::string& level);  // off, error, warn, info, debug
void log_error(const std::string& message);
void log_warn(const std::string& message);
void log_info(const std::string& message);
void log_debug(const std::string& message);
// An error from a signal handler: one write(2) to stderr, no allocation.
void log_error_in_signal_handler(const char* message);

}  // namespace brickprof::agent
