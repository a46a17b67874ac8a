// The HTML report page's shell: tools/html/ with its CSS and scripts inlined,
// embedded at build time (tools/html/assemble.py --cpp writes the definition),
// so brickprof writes a page with no file beside it.
#pragma once

#include <span>
#include <string_view>

namespace brickprof {

// The page around its data: the text before the data marker and the text
// after it, each in pieces to be written one after another.
struct HtmlShell {
  std::span<const std::string_view> head;
  std::span<const std::string_view> tail;
};

HtmlShell html_shell();

}  // namespace brickprof
