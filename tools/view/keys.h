// Key codes as the browser sees them: printable keys are their character,
// the rest are named here, so only terminal.cpp knows ncurses' codes.
#pragma once

namespace brickprof::view {

namespace key {
inline constexpr int kNone = -1;  // nothing pressed (a timeout)
inline constexpr int kTab = '\t';
inline constexpr int kEnter = '\n';
inline constexpr int kEscape = 27;
inline constexpr int kCtrlL = 12;
inline constexpr int kCtrlU = 21;
inline constexpr int kCtrlW = 23;
inline constexpr int kBackspace = 0x100;
inline constexpr int kUp = 0x101;
inline constexpr int kDown = 0x102;
inline constexpr int kLeft = 0x103;
inline constexpr int kRight = 0x104;
inline constexpr int kPageUp = 0x105;
inline constexpr int kPageDown = 0x106;
inline constexpr int kHome = 0x107;
inline constexpr int kEnd = 0x108;
inline constexpr int kBackTab = 0x109;
inline constexpr int kDelete = 0x10A;
inline constexpr int kResize = 0x10B;  // the terminal changed size
inline constexpr int kF1 = 0x110;      // kF1 + n - 1 is Fn
inline constexpr int kF10 = kF1 + 9;
}  // namespace key

}  // namespace brickprof::view
