// Progress of a long command on stderr: a bar while a trace is read (the
// long part), then the step being done. Shown only when stderr is a
// terminal, not in CI, not with --quiet, and only once the work has taken
// about a second, so quick commands and scripts never see it.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>

#include "trace/json/trace_json.h"

namespace brickprof::cli {

// Whether a command shows progress: stderr is a terminal (not TERM=dumb),
// no CI variable is set, and the user did not pass --quiet.
bool progress_wanted(bool quiet);
// The --quiet flag, worded the same for every command that has it.
void add_quiet_flag(CLI::App& command, bool& quiet);

class Progress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // Draws nothing when `enabled` is false. A step that outlasts the first
  // second still appears: a thread redraws while enabled (tests pass
  // `ticker` false, a fake clock, and call tick()).
  explicit Progress(bool enabled, std::ostream& out, Clock clock = std::chrono::steady_clock::now,
                    bool ticker = true);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // For read_trace_file: a bar of the bytes read of `file`; `what` says
  // which file of several ("2 of 3"), or is empty. nullptr when disabled,
  // so the reader does not even call it.
  ReadProgress reading(const std::string& file, std::string what = {});
  // A step with no measure of its own ("computing the views").
  void step(std::string_view what);
  // Erases the line and draws nothing more, e.g. before the command
  // prints to the same terminal.
  void done();
  // Draws the current line if it is due.
  void tick();

 private:
  void set_line(std::string line);

  bool enabled_;
  std::ostream& out_;
  Clock clock_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string line_;
  bool drawn_ = false, finished_ = false;
  std::thread ticker_;
};

// The bar's text: "reading f.json [#####.....] 50% 1.0MiB of 2.0MiB".
std::string progress_bar_text(std::string_view file, std::string_view what, uint64_t done,
                              uint64_t total);

}  // namespace brickprof::cli
