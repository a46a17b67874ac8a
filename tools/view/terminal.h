// The terminal, and the only file that speaks ncurses: it takes the screen
// over (alternate screen, keys one at a time, no echo), copies a finished
// Canvas to it, reads keys as keys.h codes, and gives the terminal back as
// it was on every way out: the destructor (q, an exception unwinding),
// exit(), std::terminate, SIGINT, SIGTERM, SIGHUP, SIGQUIT and the crash
// signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT), which then go on to
// end the process as they would have (a signal the caller ignores stays
// ignored). Resizes arrive as key::kResize.
#pragma once

#include <string>

#include "tools/view/canvas.h"

struct screen;  // ncurses' SCREEN

namespace brickprof::view {

// Whether this terminal can be driven at all ($TERM known to terminfo);
// "" when it can, else why not. Checked before any trace is read.
std::string terminal_problem();

class Terminal {
 public:
  // `plain`: --ascii (ASCII characters, no colour). Without it, ASCII is
  // still used when the locale is not UTF-8, and no colour when the
  // terminal has none.
  explicit Terminal(bool plain);
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  int width() const;
  int height() const;
  bool ascii() const { return ascii_; }
  // Copies the canvas to the screen (only what changed is sent).
  void draw(const Canvas& canvas);
  // The next key; key::kResize after a resize. Waits at most `timeout_ms`
  // (then key::kNone), or for ever when it is negative.
  int read_key(int timeout_ms = -1);
  // Repaints everything on the next draw (Ctrl-L).
  void repaint();

 private:
  screen* screen_ = nullptr;
  bool ascii_ = false;
  bool colour_ = false;
};

}  // namespace brickprof::view
