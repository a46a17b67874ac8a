// Names in a trace are the traced program's data: a scope, thread, program
// or kernel name may hold escape sequences, control characters or bytes
// that are not UTF-8, and a trace shared by a colleague or a CI artifact
// must not send them to the terminal of whoever reads it. Every text output
// (tree, views, diff, DOT and folded files, the browser, messages that quote
// a name) writes a name through printable(); JSON keeps the name itself
// (its writer escapes what JSON must).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace brickprof {

// `text` with everything a terminal could act on spelled out, so it shows
// as visible characters on one line:
//   \n \r \t, other C0 controls and DEL as \xNN (ESC is \x1b);
//   C1 controls (U+0080..U+009F) and the bidirectional overrides and
//   isolates (U+202A..U+202E, U+2066..U+2069: they reorder what follows
//   on the line) as \uNNNN;
//   each byte that starts no well-formed UTF-8 sequence as \xNN.
// Anything else, backslashes included, is kept as it is.
void append_printable(std::string& out, std::string_view text);
std::string printable(std::string_view text);

// The same for a text of several lines (stored PTX source): newlines and
// tabs are kept, everything else is escaped as above.
std::string printable_text(std::string_view text);

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), 0 if none starts
// there (a byte below 0x80 is not a sequence here: the caller sees it).
size_t utf8_sequence_length(std::string_view text, size_t i);

}  // namespace brickprof
