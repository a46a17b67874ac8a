// The terminal through ncurses (see terminal.h). Giving the terminal back
// from a signal handler cannot call endwin() (not async-signal-safe), so
// the escape sequences that end ncurses' mode are looked up beforehand and
// written with write(2), and the saved terminal modes set back with
// tcsetattr(3), both safe in a handler.
#include "tools/view/terminal.h"

#include <curses.h>
#include <langinfo.h>
#include <signal.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

#include <clocale>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <stdexcept>

#include "tools/view/keys.h"

namespace brickprof::view {
namespace {

// What the handlers need, set up before the screen is taken.
char g_restore[512];
size_t g_restore_size = 0;
struct termios g_saved_modes;
volatile sig_atomic_t g_screen_taken = 0;
std::terminate_handler g_previous_terminate = nullptr;

constexpr int kExitSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV,
                                SIGBUS, SIGFPE,  SIGILL, SIGABRT};
// What each was before, put back when the screen is given back.
struct sigaction g_previous_actions[std::size(kExitSignals)];

// Safe in a signal handler: write(2) and tcsetattr(3) only.
void give_back_now() {
  if (!g_screen_taken) return;
  g_screen_taken = 0;
  size_t done = 0;
  while (done < g_restore_size) {
    const ssize_t n = write(STDOUT_FILENO, g_restore + done, g_restore_size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  tcsetattr(STDIN_FILENO, TCSADRAIN, &g_saved_modes);
}

// The terminal back, then the signal does what it would have done (SA_RESETHAND
// put the default action back; the signal is raised again once we return).
void on_exit_signal(int sig) {
  give_back_now();
  raise(sig);
}

void append_capability(const char* name) {
  const char* s = tigetstr(name);
  if (s == nullptr || s == reinterpret_cast<const char*>(-1)) return;
  const size_t n = std::strlen(s);
  if (g_restore_size + n >= sizeof g_restore) return;
  std::memcpy(g_restore + g_restore_size, s, n);
  g_restore_size += n;
}

// A Style's colours and attributes; -1 is the terminal's own colour.
struct Look {
  short fg, bg;
  attr_t attr;   // with colour
  attr_t plain;  // without colour
};

Look look_of(Style s, bool grey) {
  const short dim = grey ? 8 : -1;
  switch (s) {
    case Style::kNormal:
      return {-1, -1, A_NORMAL, A_NORMAL};
    case Style::kDim:
      return {dim, -1, grey ? A_NORMAL : A_DIM, A_DIM};
    case Style::kBold:
      return {-1, -1, A_BOLD, A_BOLD};
    case Style::kTitle:
      return {COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD};
    case Style::kTab:
      return {-1, -1, A_NORMAL, A_NORMAL};
    case Style::kTabActive:
      return {COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD};
    case Style::kHeader:
      return {COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_REVERSE};
    case Style::kThread:
      return {COLOR_MAGENTA, -1, A_BOLD, A_BOLD};
    case Style::kLayer:
      return {COLOR_CYAN, -1, A_BOLD, A_BOLD};
    case Style::kBrick:
      return {COLOR_GREEN, -1, A_NORMAL, A_NORMAL};
    case Style::kScope:
      return {-1, -1, A_NORMAL, A_NORMAL};
    case Style::kKernel:
      return {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL};
    case Style::kTransfer:
      return {COLOR_MAGENTA, -1, A_NORMAL, A_NORMAL};
    case Style::kSync:
      return {COLOR_RED, -1, A_NORMAL, A_NORMAL};
    case Style::kPtx:
      return {COLOR_BLUE, -1, A_BOLD, A_NORMAL};
    case Style::kMatch:
      return {COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_UNDERLINE | A_BOLD};
    case Style::kRegression:
      return {COLOR_RED, -1, A_BOLD, A_BOLD};
    case Style::kImproved:
      return {COLOR_GREEN, -1, A_BOLD, A_NORMAL};
    case Style::kChanged:
      return {COLOR_MAGENTA, -1, A_BOLD, A_BOLD};
    case Style::kWarning:
      return {COLOR_YELLOW, -1, A_BOLD, A_BOLD};
    case Style::kKey:
      return {COLOR_CYAN, -1, A_BOLD, A_BOLD};
    case Style::kStatus:
      return {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE};
    case Style::kPrompt:
      return {-1, -1, A_NORMAL, A_NORMAL};
    case Style::kBar:
      return {COLOR_CYAN, -1, A_NORMAL, A_NORMAL};
    case Style::kRoof:
      return {COLOR_RED, -1, A_BOLD, A_NORMAL};
    case Style::kPoint:
      return {COLOR_YELLOW, -1, A_BOLD, A_BOLD};
    case Style::kCount:
      break;
  }
  return {-1, -1, A_NORMAL, A_NORMAL};
}

constexpr short kSelectionPair = static_cast<short>(Style::kCount) + 1;

bool utf8_locale() {
  const char* codeset = nl_langinfo(CODESET);
  return codeset != nullptr &&
         (std::strcmp(codeset, "UTF-8") == 0 || std::strcmp(codeset, "utf8") == 0);
}

}  // namespace

std::string terminal_problem() {
  const char* term = std::getenv("TERM");
  if (term == nullptr || *term == '\0') return "TERM is not set";
  int error = 0;
  if (setupterm(nullptr, STDOUT_FILENO, &error) != OK)
    return "the terminal type '" + std::string(term) + "' is not known to terminfo";
  // A full-screen program needs to put the cursor anywhere (TERM=dumb cannot).
  const char* move = tigetstr("cup");
  const bool can_move = move != nullptr && move != reinterpret_cast<const char*>(-1);
  del_curterm(cur_term);
  if (!can_move) return "the terminal type '" + std::string(term) + "' cannot move the cursor";
  return {};
}

Terminal::Terminal(bool plain) {
  std::setlocale(LC_ALL, "");
  ascii_ = plain || !utf8_locale();
  tcgetattr(STDIN_FILENO, &g_saved_modes);
  // newterm, not initscr: it says when it fails instead of exiting.
  screen_ = newterm(nullptr, stdout, stdin);
  if (screen_ == nullptr) throw std::runtime_error("view: this terminal cannot be used");
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  set_escdelay(25);
  curs_set(0);
  colour_ = !plain && has_colors();
  if (colour_) {
    start_color();
    use_default_colors();
    const bool grey = COLORS >= 16;
    for (int s = 0; s < static_cast<int>(Style::kCount); ++s) {
      const Look l = look_of(static_cast<Style>(s), grey);
      init_pair(static_cast<short>(s + 1), l.fg, l.bg);
    }
    init_pair(kSelectionPair, COLOR_BLACK, COLOR_CYAN);
  }
  // What the handlers write to end ncurses' mode: plain attributes, the
  // cursor back, the keypad's normal mode, the normal screen.
  g_restore_size = 0;
  for (const char* cap : {"sgr0", "cnorm", "rmkx", "rmcup"}) append_capability(cap);
  g_screen_taken = 1;
  for (size_t i = 0; i < std::size(kExitSignals); ++i) {
    sigaction(kExitSignals[i], nullptr, &g_previous_actions[i]);
    // A signal the caller ignores (nohup, a background job) stays ignored.
    if (g_previous_actions[i].sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = on_exit_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(kExitSignals[i], &sa, nullptr);
  }
  static bool at_exit_registered = false;
  if (!at_exit_registered) {
    at_exit_registered = true;
    std::atexit([] {
      if (g_screen_taken) {
        g_screen_taken = 0;
        endwin();
      }
    });
  }
  g_previous_terminate = std::set_terminate([] {
    give_back_now();
    if (g_previous_terminate) g_previous_terminate();
    std::abort();
  });
}

Terminal::~Terminal() {
  for (size_t i = 0; i < std::size(kExitSignals); ++i)
    sigaction(kExitSignals[i], &g_previous_actions[i], nullptr);
  std::set_terminate(g_previous_terminate);
  if (!g_screen_taken) return;
  g_screen_taken = 0;
  curs_set(1);
  endwin();
  delscreen(screen_);
}

int Terminal::width() const { return COLS; }
int Terminal::height() const { return LINES; }

void Terminal::repaint() { clearok(curscr, TRUE); }

void Terminal::draw(const Canvas& canvas) {
  const bool grey = colour_ && COLORS >= 16;
  std::string run;
  for (int y = 0; y < canvas.height() && y < LINES; ++y) {
    int x = 0;
    while (x < canvas.width() && x < COLS) {
      const Cell& first = canvas.at(x, y);
      const int start = x;
      run.clear();
      // A run of cells drawn alike.
      while (x < canvas.width() && x < COLS && canvas.at(x, y).style == first.style &&
             canvas.at(x, y).selected == first.selected) {
        run.append(canvas.at(x, y).text, canvas.at(x, y).size);
        ++x;
      }
      const Look l = look_of(first.style, grey);
      attr_t attr = colour_ ? l.attr : l.plain;
      short pair = colour_ ? static_cast<short>(static_cast<int>(first.style) + 1) : 0;
      if (first.selected && first.style != Style::kMatch) {
        pair = colour_ ? kSelectionPair : 0;
        attr = colour_ ? (l.attr & A_BOLD) : A_REVERSE;
      }
      attrset(attr | COLOR_PAIR(pair));
      mvaddstr(y, start, run.c_str());  // in the last cell it stops, not scrolls
    }
  }
  attrset(A_NORMAL);
  refresh();
}

int Terminal::read_key(int timeout_ms) {
  timeout(timeout_ms);
  const int c = getch();
  switch (c) {
    case ERR:
      return key::kNone;
    case KEY_UP:
      return key::kUp;
    case KEY_DOWN:
      return key::kDown;
    case KEY_LEFT:
      return key::kLeft;
    case KEY_RIGHT:
      return key::kRight;
    case KEY_PPAGE:
      return key::kPageUp;
    case KEY_NPAGE:
      return key::kPageDown;
    case KEY_HOME:
      return key::kHome;
    case KEY_END:
      return key::kEnd;
    case KEY_BTAB:
      return key::kBackTab;
    case KEY_BACKSPACE:
      return key::kBackspace;
    case KEY_DC:
      return key::kDelete;
    case KEY_ENTER:
    case '\r':
      return key::kEnter;
    case KEY_RESIZE:
      return key::kResize;
    default:
      break;
  }
  if (c >= KEY_F(1) && c <= KEY_F(10)) return key::kF1 + (c - KEY_F(1));
  if (c > 255) return key::kNone;  // a key we do not use
  return c;
}

}  // namespace brickprof::view
