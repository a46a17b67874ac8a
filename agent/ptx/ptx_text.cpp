// Kernel names from PTX text: the identifiers after `.entry`.
#include <cctype>

#include "agent/ptx/module_image.h"

namespace brickprof::agent {

std::vector<std::string> ptx_entry_names(std::string_view ptx) {
  std::vector<std::string> names;
  constexpr std::string_view kEntry = ".entry";
  size_t pos = 0;
  while ((pos = ptx.find(kEntry, pos)) != std::string_view::npos) {
    size_t i = pos + kEntry.size();
    pos = i;
    // Must be the whole directive (".entry" then white space), not ".entryx".
    if (i >= ptx.size() || !std::isspace(static_cast<unsigned char>(ptx[i]))) continue;
    while (i < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[i]))) ++i;
    size_t start = i;
    // PTX identifiers: letters, digits, _ $ % (and . after the first char).
    while (i < ptx.size()) {
      char c = ptx[i];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
          (c == '.' && i > start)) {
        ++i;
      } else {
        break;
      }
    }
    if (i > start) names.emplace_back(ptx.substr(start, i - start));
  }
  return names;
}

}  // namespace brickprof::agent
