// spdlog-backed logging for the agent (see log.h).
#include "agent/log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace brickprof::agent {
namespace {

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
}
void log_error(const std::string& m) { logger().error(m); }
void log_warn(const std::string& m) { logger().warn(m); }
void log_info(const std::string& m) { logger().info(m); }
void log_debug(const std::string& m) { logger().debug(m); }

}  // namespace brickprof::agent
