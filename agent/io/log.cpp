// spdlog-backed logging for the agent (see log.h).
#include "agent/io/log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace brickprof::agent {
namespace {

std::atomic<bool> g_errors_shown{true};  // for the signal handler's messages

spdlog::logger& logger() {
  // Leaked on purpose: outlives every static destructor.
  static spdlog::logger* instance = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    auto* l = new spdlog::logger("brickprof", std::move(sink));
    l->set_pattern("brickprof: %v");
    l->set_level(spdlog::level::warn);
    return l;
  }();
  return *instance;
}

}  // namespace

void set_log_level(const std::string& level) {
  logger().set_level(level == "off" ? spdlog::level::off : spdlog::level::from_str(level));
  g_errors_shown.store(logger().should_log(spdlog::level::err));
}
void log_error_in_signal_handler(const char* message) {
  if (!g_errors_shown.load(std::memory_order_relaxed)) return;
  char line[256] = "brickprof: ";
  size_t used = std::strlen(line);
  size_t n = std::min(std::strlen(message), sizeof line - used - 1);
  std::memcpy(line + used, message, n);
  line[used + n] = '\n';
  ssize_t ignored = write(STDERR_FILENO, line, used + n + 1);
  (void)ignored;
}
void log_error(const std::string& m) { logger().error(m); }
void log_warn(const std::string& m) { logger().warn(m); }
void log_info(const std::string& m) { logger().info(m); }
void log_debug(const std::string& m) { logger().debug(m); }

}  // namespace brickprof::agent
