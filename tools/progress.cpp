// Progress on stderr (see progress.h): one line drawn in place with a
// carriage return, at most ten times a second, erased when the work is done.
#include "tools/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "trace/model/format.h"

namespace brickprof::cli {
namespace {

constexpr auto kQuietFor = std::chrono::seconds(1);  // quick commands show nothing
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr size_t kBarWidth = 24;
constexpr size_t kMaxName = 32;

bool set(const char* variable) {
  const char* v = std::getenv(variable);
  return v != nullptr && *v != '\0';
}

}  // namespace

bool progress_wanted(bool quiet) {
  if (quiet || set("CI") || !isatty(STDERR_FILENO)) return false;
  const char* term = std::getenv("TERM");
  return term == nullptr || std::strcmp(term, "dumb") != 0;
}

void add_quiet_flag(CLI::App& command, bool& quiet) {
  command
      .add_flag("--quiet", quiet,
                "No progress bar on stderr (shown only on a terminal, and only when the work "
                "takes more than a second)")
      ->group("Other");
}

std::string progress_bar_text(std::string_view file, std::string_view what, uint64_t done,
                              uint64_t total) {
  done = std::min(done, total);
  const double share = total ? static_cast<double>(done) / static_cast<double>(total) : 0;
  const auto filled = static_cast<size_t>(share * kBarWidth);
  std::string s = "reading " + clip(file, kMaxName);
  if (!what.empty()) s += " (" + std::string(what) + ")";
  s += " [" + std::string(filled, '#') + std::string(kBarWidth - filled, '.') + "] ";
  s += std::to_string(static_cast<int>(share * 100)) + "% " + format_bytes(done) + " of " +
       format_bytes(total);
  return s;
}

Progress::Progress(bool enabled, std::ostream& out, Clock clock, bool ticker)
    : enabled_(enabled), out_(out), clock_(std::move(clock)) {
  if (!enabled_) return;
  start_ = clock_();
  if (!ticker) return;
  ticker_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!finished_) {
      wake_.wait_for(lock, kRedrawEvery);
      if (finished_) break;
      lock.unlock();
      tick();
      lock.lock();
    }
  });
}

Progress::~Progress() { done(); }

ReadProgress Progress::reading(const std::string& file, std::string what) {
  if (!enabled_) return nullptr;
  return [this, file, what = std::move(what)](uint64_t done, uint64_t total) {
    set_line(progress_bar_text(file, what, done, total));
  };
}

void Progress::step(std::string_view what) {
  if (enabled_) set_line(std::string(what) + "...");
}

void Progress::set_line(std::string line) {
  {
    std::lock_guard lock(mutex_);
    line_ = std::move(line);
  }
  tick();
}

void Progress::tick() {
  std::lock_guard lock(mutex_);
  if (!enabled_ || finished_ || line_.empty()) return;
  const auto now = clock_();
  // Changes in between are drawn by the next tick (the ticker's, or the
  // next change's).
  if (now - start_ < kQuietFor || (drawn_ && now - last_draw_ < kRedrawEvery)) return;
  last_draw_ = now;
  drawn_ = true;
  const auto seconds = std::chrono::duration<double>(now - start_).count();
  out_ << "\rbrickprof: " << line_ << ' ' << format_fixed(seconds, 1) << "s\033[K" << std::flush;
}

void Progress::done() {
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (drawn_) out_ << "\r\033[K" << std::flush;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

}  // namespace brickprof::cli
